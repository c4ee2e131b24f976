"""A scripted, stdlib-only stand-in for an OpenAI-compatible server (chat completions wire format).

It listens on 127.0.0.1, port 0 (the OS picks a free one), answers ``POST /v1/chat/completions``
with a real ``chat.completion`` JSON object (id, object, created, model, choices[0].message and
finish_reason, usage) and ``GET /v1/models`` with a model list, so the real ``openai`` client can
talk to it. Each test scripts the answers:

    with FakeOpenAI() as server:
        server.script(Answer("<regex>(?m)^(?=# )</regex>"))
        ... OpenAI(base_url=server.base_url, ...) ...
        server.requests  # the JSON bodies received, in order

Answers are consumed in order; the last one repeats. An :class:`Answer` can also be an HTTP
error (``status``) or arrive late (``delay_s``) to exercise timeouts, replace the JSON body with
exact bytes (``raw``: truncated JSON, garbage), or drip its body one byte every ``drip_s``
seconds (a server that never trips a per-read timeout).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_NOT_FOUND = {"error": {"message": "not found", "type": "invalid_request_error"}}


@dataclass(frozen=True)
class Answer:
    """One scripted response: the assistant's text, or an HTTP error; optionally delayed."""

    content: str = ""
    status: int = 200
    delay_s: float = 0.0
    finish_reason: str = "stop"
    raw: bytes | None = None  # sent as the 200 body instead of a chat.completion object
    drip_s: float = 0.0  # seconds between body bytes (0: the body at once)


class FakeOpenAI:
    """Threaded HTTP server speaking enough of the OpenAI API for the chat-completions client."""

    def __init__(self, model: str = "fake-model"):
        self.model = model
        self.requests: list[dict] = []
        self._answers: list[Answer] = [Answer("<regex>(?m)^(?=# )</regex>")]
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,),
                                        daemon=True)

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``, what the client's ``base_url`` expects."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def script(self, *answers: Answer) -> None:
        """Answer the next requests with ``answers`` in order (the last one repeats)."""
        with self._lock:
            self._answers = list(answers)

    def __enter__(self) -> "FakeOpenAI":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()  # wakes handlers sleeping on a delayed answer
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _next(self, body: dict) -> Answer:
        with self._lock:
            self.requests.append(body)
            return self._answers.pop(0) if len(self._answers) > 1 else self._answers[0]

    def _completion(self, body: dict, answer: Answer) -> dict:
        prompt = " ".join(str(m.get("content", "")) for m in body.get("messages", []))
        n = len(self.requests)
        return {
            "id": f"chatcmpl-fake{n}", "object": "chat.completion", "created": int(time.time()),
            "model": self.model, "system_fingerprint": None,
            "choices": [{"index": 0, "logprobs": None, "finish_reason": answer.finish_reason,
                         "message": {"role": "assistant", "content": answer.content}}],
            "usage": {"prompt_tokens": len(prompt.split()),
                      "completion_tokens": len(answer.content.split()),
                      "total_tokens": len(prompt.split()) + len(answer.content.split())},
        }

    def _handler_class(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def _send(self, status: int, payload: dict | bytes, drip_s: float = 0.0) -> None:
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    if not drip_s:
                        self.wfile.write(data)
                        return
                    for i in range(len(data)):  # stops when the client hangs up or the server ends
                        self.wfile.write(data[i:i + 1])
                        self.wfile.flush()
                        if fake._stop.wait(drip_s):
                            return
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass

            def do_GET(self) -> None:
                if self.path.rstrip("/") == "/v1/models":
                    self._send(200, {"object": "list", "data": [
                        {"id": fake.model, "object": "model", "created": 0, "owned_by": "tests"}]})
                else:
                    self._send(404, _NOT_FOUND)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, _NOT_FOUND)
                    return
                answer = fake._next(body)
                if answer.delay_s and fake._stop.wait(answer.delay_s):
                    return
                if answer.status != 200:
                    self._send(answer.status, {"error": {
                        "message": f"scripted HTTP {answer.status}", "type": "server_error",
                        "code": None}})
                    return
                payload = answer.raw if answer.raw is not None else fake._completion(body, answer)
                self._send(200, payload, answer.drip_s)

        return Handler


def isolate_llm_env(monkeypatch, tmp_path, *extra: str) -> None:
    """No real key, URL or user cache leaks into an LLM test (``extra``: more variables to clear)."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ADACHUNK_LLM_BASE_URL", *extra):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ADACHUNK_CACHE_DIR", str(tmp_path / "cache"))

