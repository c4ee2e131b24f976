"""llm_regex.v1 stays bounded against hostile or broken endpoints (issue 15, items 6, 8, 9, 13).

A loopback fake OpenAI server (:mod:`tests.fake_openai`) drips bytes, sends truncated JSON or
garbage; the real ``openai`` client talks to it. Every outcome must be a recorded fallback with a
reason, never a hang, a traceback or a key sent to a host the user did not allow.
"""

from __future__ import annotations

import json

import pytest

from adachunk.cli.main import main
from adachunk.errors import ProfileError
from adachunk.policy import Policy
from adachunk.policy_types import SolverSpec
from adachunk.split import _llm_client as llm
from adachunk.split.llm_regex import LLMRegexParams, LLMRegexSplitter
from adachunk.datatypes import Document

from .fake_openai import Answer, isolate_llm_env

pytest.importorskip("openai")

ALLOW = "ADACHUNK_ALLOW_REMOTE_LLM"  # what --allow-remote-llm sets, for worker processes
POLICY = Policy(name="t", fingerprint="fp", detectors={}, rules=(), solver=SolverSpec())
DOC = "# One\n\nFirst part of the text, long enough.\n\n# Two\n\nSecond part of the text.\n"
GOOD = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                   "choices": [{"index": 0, "finish_reason": "stop",
                                "message": {"role": "assistant", "content": "<regex>(?m)^(?=# )</regex>"}}],
                   "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path, monkeypatch):
    isolate_llm_env(monkeypatch, tmp_path, ALLOW)


def split(base_url: str, **fields):
    params = {"base_url": base_url, "timeout_s": 5.0, "max_retries": 0, "backoff_s": 0.01,
              "cache": False, **fields}
    return LLMRegexSplitter(LLMRegexParams(**params)).split(Document(id="d", text=DOC), POLICY)


def fallback_reason(chunking) -> str:
    assert chunking.meta["status"] == "fallback", chunking.meta
    return chunking.meta["fallback"]["reason"]


# --- 8: a total deadline per call, not per read ----------------------------------------------


def test_a_dripping_server_hits_the_call_deadline_and_falls_back(fake):
    # 1 byte every 0.2 s never trips a 1 s per-read timeout: the body would take minutes
    fake.script(Answer(raw=GOOD, drip_s=0.2))
    out = split(fake.base_url, timeout_s=1.0)
    assert fallback_reason(out) == "timeout"
    assert "deadline" in out.meta["fallback"]["detail"] or "timed out" in out.meta["fallback"]["detail"]
    assert "".join(c.text for c in out.chunks) == DOC  # the fallback still tiles the document


def test_a_deadline_miss_is_retried_like_other_timeouts(fake):
    fake.script(Answer(raw=GOOD, drip_s=0.2), Answer("<regex>(?m)^(?=# )</regex>"))
    out = split(fake.base_url, timeout_s=1.0, max_retries=1)
    assert out.meta["status"] == "ok" and out.meta["llm"]["attempts"] == 2


def test_a_slow_body_that_ends_within_the_deadline_is_read(fake):
    fake.script(Answer(raw=GOOD, drip_s=0.001))
    assert split(fake.base_url, timeout_s=60).meta["status"] == "ok"


# --- 13: garbage and truncated answers are fallbacks ------------------------------------------


@pytest.mark.parametrize("raw", [GOOD[:200], b"", b"<html>oops</html>", b"\xff\xfe\x00garbage",
                                 b'{"choices": []}', b'{"choices": [{"message": {}}]}', b"[1, 2]"])
def test_garbage_or_truncated_json_is_a_fallback_with_a_reason(fake, raw):
    fake.script(Answer(raw=raw))
    out = split(fake.base_url)
    assert fallback_reason(out) == "bad_response"
    assert out.meta["fallback"]["detail"]


def test_chunk_cli_with_truncated_json_prints_no_traceback(fake, tmp_path, capsys):
    fake.script(Answer(raw=GOOD[:200]))
    doc = tmp_path / "d.md"
    doc.write_text(DOC, encoding="utf-8")
    rc = main(["chunk", str(doc), "--splitter", "llm_regex.v1", "--param", f"base_url={fake.base_url}",
               "--param", "max_retries=0", "--param", "cache=false"])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert "Traceback" not in captured.err and "JSONDecodeError" not in captured.err
    assert "".join(json.loads(line)["text"] for line in captured.out.splitlines()) == DOC


# --- 6: the key never leaves for a host the user did not allow --------------------------------


def test_api_key_env_must_look_like_an_api_key():
    for ok in ("OPENAI_API_KEY", "MY_LLM_API_KEY", "OPENAI_ORG_TOKEN", "GROQ_API_KEY"):
        assert LLMRegexParams(api_key_env=ok).api_key_env == ok
    for bad in ("AWS_SECRET_ACCESS_KEY", "HOME", "GITHUB_TOKEN", "api_key", "OPENAI_", "X_API_KEY_2"):
        with pytest.raises(ValueError, match="api_key_env"):
            LLMRegexParams(api_key_env=bad)


class _Spy:
    """Stands in for ``openai.OpenAI`` to record what would have been sent."""

    made: list[dict] = []

    def __init__(self, **kw):
        _Spy.made.append(kw)
        raise RuntimeError("no network in tests")


def test_a_remote_base_url_with_a_key_is_refused_without_the_flag(monkeypatch):
    import openai

    _Spy.made = []
    monkeypatch.setattr(openai, "OpenAI", _Spy)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    splitter = LLMRegexSplitter(LLMRegexParams(base_url="https://attacker.example/v1", cache=False))
    with pytest.raises(ProfileError) as info:
        splitter.split(Document(id="d", text=DOC), POLICY)
    assert info.value.code == "ADA219" and "--allow-remote-llm" in info.value.render()
    assert "attacker.example" in info.value.render() and "sk-secret" not in info.value.render()
    assert _Spy.made == []  # no client was even built: the key went nowhere


def test_the_flag_lets_a_remote_call_through(monkeypatch):
    import openai

    _Spy.made = []
    monkeypatch.setattr(openai, "OpenAI", _Spy)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv(ALLOW, "1")
    out = split("https://llm.example/v1")
    assert _Spy.made and _Spy.made[0]["base_url"] == "https://llm.example/v1"
    assert fallback_reason(out) == "client_error"  # the spy's RuntimeError is a recorded fallback


def test_a_loopback_endpoint_needs_no_flag(fake, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    fake.script(Answer("<regex>(?m)^(?=# )</regex>"))
    assert split(fake.base_url).meta["status"] == "ok"


@pytest.mark.parametrize("url", ["http://127.0.0.1.attacker.example/v1", "http://localhost.evil.test/v1",
                                 "http://[::1]:8080/v1", "http://127.8.0.1/v1"])
def test_is_local_is_not_fooled_by_look_alike_hosts(url):
    assert llm.is_local(url) == ("attacker" not in url and "evil" not in url)


def test_cli_flag_sets_the_environment_for_workers(monkeypatch):
    import os

    from adachunk.cli.main import build_parser

    parser, _ = build_parser()
    assert parser.parse_args(["chunk", "x.md"]).allow_remote_llm is False
    assert ALLOW not in os.environ
    for cmd in (["chunk", "x.md"], ["run", "x.md"], ["ab", "--profile", "a", "--profile", "b", "x", "--out", "o"],
                ["eval", "x", "--qa", "q.jsonl", "-c", "fixed:100"], ["tune", "x", "--out", "o"],
                ["score", "x.md", "--splitter", "llm_regex.v1"]):
        monkeypatch.delenv(ALLOW, raising=False)
        args = parser.parse_args(cmd + ["--allow-remote-llm"])
        assert args.allow_remote_llm is True
        assert os.environ[ALLOW] == "1"  # inherited by worker processes


# --- 9: limits a profile sets are capped ------------------------------------------------------


@pytest.mark.parametrize("field,value", [("timeout_s", 1e9), ("max_retries", 100), ("backoff_s", 1e6),
                                         ("regex_timeout_s", 1e9), ("prompt_tokens", 10**9),
                                         ("max_tokens", 10**6), ("min_piece_chars", 10**12)])
def test_llm_limits_are_capped(field, value):
    with pytest.raises(ValueError, match=field):
        LLMRegexParams(**{field: value})
