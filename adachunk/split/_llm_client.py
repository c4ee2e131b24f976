"""One chat-completion call through the ``openai`` client: bounded retries, on-disk cache, no raise.

Every failure becomes an :class:`LLMFailure` carrying a short reason code (``endpoint_unreachable``,
``timeout``, ``http_500``, ``no_api_key``, ...), which the LLM-regex splitter records before it
falls back. Retries are done here rather than by the client (``max_retries=0``) so that their
number is bounded and visible, and their exponential backoff uses a jitter seeded from the request
itself: two runs of the same request wait the same.

Responses are cached as small JSON files named by the sha256 of (model, base URL, messages,
sampling settings), written atomically (temporary file + ``os.replace``), so re-runs are free,
deterministic, and work without network or API key.

Profiles are shared, so untrusted: the API key is never sent to an endpoint off this machine
unless the user allowed it (``--allow-remote-llm``, i.e. ``ADACHUNK_ALLOW_REMOTE_LLM=1``, which
worker processes inherit); otherwise the call is refused with ``ADA219``. Each attempt has a
wall-clock deadline (``timeout_s``) for the whole exchange, not only per read: a server that
drips a byte every few seconds ends as a ``timeout`` failure, like any other.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import logging
import os
import random
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from ..errors import ProfileError

log = logging.getLogger("adachunk.split")

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
BASE_URL_ENVS = ("ADACHUNK_LLM_BASE_URL", "OPENAI_BASE_URL")
LOCAL_PLACEHOLDER_KEY = "not-needed"  # local servers (llama.cpp, vLLM ...) ignore the key
CACHE_VERSION = 1
_MAX_BACKOFF_S = 30.0
ALLOW_REMOTE_ENV = "ADACHUNK_ALLOW_REMOTE_LLM"
REMOTE_CODE = "ADA219"


def remote_allowed() -> bool:
    """Whether the user allowed API keys to go to endpoints off this machine."""
    return os.environ.get(ALLOW_REMOTE_ENV, "").strip().lower() in ("1", "true", "yes")


class LLMFailure(Exception):
    """The call produced no usable answer; ``reason`` is a short code, ``detail`` says why."""

    def __init__(self, reason: str, detail: str, attempts: int = 0):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail
        self.attempts = attempts


@dataclass(frozen=True)
class Request:
    """Everything that determines the answer (and therefore the cache key)."""

    model: str
    base_url: str
    messages: tuple[tuple[str, str], ...]
    temperature: float
    max_tokens: int

    def key(self) -> str:
        """sha256 of the request, the cache file name."""
        fields = [CACHE_VERSION, self.model, self.base_url, self.messages, self.temperature,
                  self.max_tokens]
        blob = json.dumps(fields, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class Reply:
    """A model answer and how it was obtained."""

    content: str
    model: str
    prompt_tokens: int | None
    completion_tokens: int | None
    finish_reason: str | None
    latency_s: float
    attempts: int
    cached: bool = False


def resolve_base_url(base_url: str | None) -> str:
    """The explicit URL, else ``ADACHUNK_LLM_BASE_URL``, else ``OPENAI_BASE_URL``, else OpenAI's."""
    if base_url:
        return base_url
    for name in BASE_URL_ENVS:
        if os.environ.get(name):
            return os.environ[name]
    return OPENAI_DEFAULT_BASE_URL


def is_local(base_url: str) -> bool:
    """Whether the endpoint is on this machine (then no API key is required)."""
    host = (urlsplit(base_url).hostname or "").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def redact_url(url: str) -> str:
    """The URL without credentials or query string, safe to record in metadata."""
    parts = urlsplit(url)
    netloc = parts.hostname or ""
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def default_cache_dir() -> Path:
    """``$ADACHUNK_CACHE_DIR/llm`` when the variable is set, else ``~/.cache/adachunk/llm``."""
    root = os.environ.get("ADACHUNK_CACHE_DIR")
    return Path(root) / "llm" if root else Path.home() / ".cache" / "adachunk" / "llm"


class ResponseCache:
    """Answers on disk, one JSON file per request key; unreadable entries count as misses."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> Reply | None:
        """The cached reply for ``key``, or None."""
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            if data.get("version") != CACHE_VERSION:
                return None
            reply = Reply(**data["reply"])
        except (OSError, ValueError, TypeError, KeyError):
            return None
        reply.cached = True
        return reply

    def put(self, key: str, request: Request, reply: Reply) -> None:
        """Store ``reply`` atomically; a failure to write only costs a future call."""
        path = self._path(key)
        record = {"version": CACHE_VERSION, "model": request.model,
                  "base_url": redact_url(request.base_url), "reply": asdict(reply),
                  "stored_at": time.time()}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(record, fh, ensure_ascii=False)
            os.replace(tmp, path)
        except OSError as exc:
            log.warning("could not write the LLM cache entry %s: %s", path, exc)


def complete(request: Request, *, api_key_env: str, timeout_s: float, max_retries: int,
             backoff_s: float, cache: ResponseCache | None) -> Reply:
    """Answer ``request`` from the cache or the endpoint.

    Args:
        request: model, URL, messages and sampling settings.
        api_key_env: name of the environment variable holding the key (never the key itself).
        timeout_s: per-attempt timeout given to the HTTP client (connect, read, write).
        max_retries: extra attempts after a retryable failure (connection, timeout, 429, 5xx).
        backoff_s: first backoff; doubles each retry, times a seeded jitter in [0.5, 1.5).
        cache: where answers are kept, or None for no caching.

    Raises:
        LLMFailure: with a reason code; never any other exception for endpoint trouble.
    """
    key = request.key()
    if cache is not None:
        hit = cache.get(key)
        if hit is not None:
            return hit
    api_key = _api_key(request.base_url, api_key_env)
    try:
        from openai import OpenAI

        from ._llm_deadline import DeadlineTransport
    except ImportError:
        raise LLMFailure("client_unavailable", "the 'openai' package is not installed "
                         "(pip install 'adachunk[llm]')") from None
    rng = random.Random(int(key[:16], 16))
    transport = DeadlineTransport()
    try:
        import httpx

        client = OpenAI(base_url=request.base_url, api_key=api_key, timeout=timeout_s, max_retries=0,
                        http_client=httpx.Client(transport=transport, timeout=timeout_s))
    except Exception as exc:  # a broken client install must be a fallback, not a crash
        raise LLMFailure("client_error", _short(exc)) from None
    try:
        reply = _with_retries(client, transport, request, timeout_s, max_retries, backoff_s, rng)
    finally:
        client.close()
    if cache is not None:
        cache.put(key, request, reply)
    return reply


def _api_key(base_url: str, api_key_env: str) -> str:
    """The key to send, after checking that it may go to ``base_url``.

    Raises:
        LLMFailure: ``no_api_key`` for a remote endpoint without a key (nothing is sent).
        ProfileError: ``ADA219`` when a key would go to a remote endpoint the user did not allow.
    """
    api_key = os.environ.get(api_key_env)
    if is_local(base_url):
        return api_key or LOCAL_PLACEHOLDER_KEY
    if not api_key:
        raise LLMFailure("no_api_key", f"environment variable {api_key_env} is not set and "
                         f"{redact_url(base_url)} is not a local endpoint")
    if not remote_allowed():
        raise ProfileError(
            code=REMOTE_CODE, key_path="base_url",
            message=f"the LLM endpoint {redact_url(base_url)} is not on this machine: the API key "
            f"from {api_key_env} and the documents are not sent there unless the user allows it",
            hint=f"pass --allow-remote-llm (or set {ALLOW_REMOTE_ENV}=1) if you trust this "
            "endpoint, or point base_url at a local server")
    return api_key


def _with_retries(client, transport, request: Request, timeout_s: float, max_retries: int,
                  backoff_s: float, rng) -> Reply:
    from ._llm_deadline import run_with_deadline

    for attempt in range(max_retries + 1):
        try:
            transport.start(timeout_s)
            return run_with_deadline(lambda: _call(client, request, attempt + 1), timeout_s)
        except TimeoutError as exc:
            failure = LLMFailure("timeout", str(exc))
            failure.attempts = attempt + 1
            if attempt == max_retries:
                raise failure from None
            _backoff(failure, attempt, max_retries, backoff_s, rng)
        except LLMFailure as failure:
            failure.attempts = attempt + 1
            if not _retryable(failure.reason) or attempt == max_retries:
                raise
            _backoff(failure, attempt, max_retries, backoff_s, rng)
    raise AssertionError("unreachable")  # the loop always returns or raises


def _backoff(failure: LLMFailure, attempt: int, max_retries: int, backoff_s: float, rng) -> None:
    delay = min(_MAX_BACKOFF_S, backoff_s * 2**attempt) * (0.5 + rng.random())
    log.info("LLM call failed (%s), retry %d/%d in %.2f s", failure.reason, attempt + 1,
             max_retries, delay)
    time.sleep(delay)


def _retryable(reason: str) -> bool:
    if reason in ("endpoint_unreachable", "timeout", "http_429"):
        return True
    return reason.startswith("http_5")


def _call(client, request: Request, attempt: int) -> Reply:
    import openai

    t0 = time.perf_counter()
    try:
        resp = client.chat.completions.create(
            model=request.model, temperature=request.temperature, max_tokens=request.max_tokens,
            messages=[{"role": role, "content": text} for role, text in request.messages])
    except openai.APITimeoutError as exc:
        raise LLMFailure("timeout", _short(exc)) from None
    except openai.APIConnectionError as exc:
        raise LLMFailure("endpoint_unreachable", _short(exc)) from None
    except openai.APIStatusError as exc:
        raise LLMFailure(f"http_{exc.status_code}", _short(exc)) from None
    except openai.OpenAIError as exc:
        raise LLMFailure("bad_response", _short(exc)) from None
    except Exception as exc:  # noqa: BLE001 - truncated JSON, garbage bytes, a client bug: all fall back
        raise LLMFailure("bad_response", f"unreadable answer: {type(exc).__name__}: {_short(exc)}") from None
    latency = time.perf_counter() - t0
    try:
        choice = resp.choices[0]
        content = choice.message.content
        usage = resp.usage
    except (AttributeError, IndexError, TypeError) as exc:
        raise LLMFailure("bad_response", f"not a chat completion: {_short(exc)}") from None
    if not isinstance(content, str):
        raise LLMFailure("bad_response", "the answer has no text content")
    return Reply(content=content, model=str(getattr(resp, "model", None) or request.model),
                 prompt_tokens=getattr(usage, "prompt_tokens", None),
                 completion_tokens=getattr(usage, "completion_tokens", None),
                 finish_reason=getattr(choice, "finish_reason", None), latency_s=round(latency, 4),
                 attempts=attempt)


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return (text[:300] + "...") if len(text) > 300 else text or type(exc).__name__
