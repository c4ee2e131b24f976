"""llm_regex.v1 against a real local HTTP server driven through the real ``openai`` client.

Every outcome of paper §3.5 and its failure modes: a good pattern, no tag, an invalid or
catastrophic pattern, HTTP errors with bounded retries, timeouts, an unreachable endpoint, a
missing key, the on-disk cache, and table protection enforced in code.
"""

from __future__ import annotations

import json
import socket
import threading

import pytest

from adachunk.components.builtins import ensure_builtins
from adachunk.policy import Policy
from adachunk.policy_types import SolverSpec
from adachunk.components.registry import splitters
from adachunk.split._safe_regex import (
    UnsafePattern,
    compile_safe,
    extract_tag,
    repair_escapes,
    unwrap,
)
from adachunk.split.llm_regex import LLMRegexParams, LLMRegexSplitter, head_context, wrapper_spans
from adachunk.datatypes import Document

from .fake_openai import Answer, isolate_llm_env

pytest.importorskip("openai")

POLICY = Policy(name="t", fingerprint="fp", detectors={}, rules=(), solver=SolverSpec())

DOC = """\
# Annual Report 2024

Opening words of the report, long enough to stand alone as a piece.

## 1. Overview

The company grew in every region during the year under review.

## 2. Results

<Table>
| Region | Revenue |
| --- | --- |
| North | 12 |
| South | 9 |
</Table>

Revenue figures are unaudited.

### 2.1 Segments

Segment detail follows here with several words.

#### 2.1.1 Deep detail

A fourth-level heading is not a fallback cut.
"""


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path, monkeypatch):
    """No real key, URL or user cache leaks into the tests."""
    isolate_llm_env(monkeypatch, tmp_path)


def run(base_url: str, text: str = DOC, **fields):
    params = {"base_url": base_url, "timeout_s": 5.0, "max_retries": 0, "backoff_s": 0.01, **fields}
    splitter = LLMRegexSplitter(LLMRegexParams(**params))
    chunking = splitter.split(Document(id="doc", text=text), POLICY)
    assert "".join(c.text for c in chunking.chunks) == text
    assert [c.start for c in chunking.chunks[1:]] == [c.end for c in chunking.chunks[:-1]]
    return chunking


def starts(chunking) -> list[int]:
    return [c.start for c in chunking.chunks]


def heading_starts(text: str, max_level: int = 3) -> list[int]:
    out, pos = [], 0
    for line in text.splitlines(keepends=True):
        hashes = len(line) - len(line.lstrip("#"))
        if 1 <= hashes <= max_level and line[hashes : hashes + 1] == " ":
            out.append(pos)
        pos += len(line)
    return out


def fallback_reason(chunking) -> str:
    assert chunking.meta["status"] == "fallback"
    return chunking.meta["fallback"]["reason"]


# --- registration and parameters -------------------------------------------------------------


def test_registered_with_strict_params():
    ensure_builtins()
    assert splitters.get("llm_regex.v1") is LLMRegexSplitter
    p = LLMRegexParams()
    assert (p.model, p.temperature, p.prompt_tokens) == ("gpt-4o", 0.0, 8000)
    assert p.fallback == "headings" and p.api_key_env == "OPENAI_API_KEY"
    for bad in ({"api_key": "x"}, {"api_key_env": "sk-abc123-secret"}, {"max_retries": 50},
                {"base_url": "localhost:8080"}):
        with pytest.raises(ValueError):
            LLMRegexParams(**bad)


# --- success path ----------------------------------------------------------------------------


def test_good_regex_cuts_before_each_match_and_sends_the_prompt(fake):
    fake.script(Answer("Here it is: <regex>(?m)^(?=## )</regex> one chunk per section."))
    out = run(fake.base_url)
    assert out.meta["status"] == "ok"
    assert out.meta["regex"] == "(?m)^(?=## )" and out.meta["cached"] is False
    assert out.meta["llm"]["model"] == "fake-model" and out.meta["llm"]["prompt_tokens"] > 0
    assert out.meta["llm"]["latency_s"] >= 0 and out.meta["llm"]["attempts"] == 1
    assert starts(out) == [0] + [DOC.index("## 1."), DOC.index("## 2.")]
    assert out.chunks[1].heading_path == ("Annual Report 2024", "1. Overview")
    body = fake.requests[0]
    assert body["temperature"] == 0 and body["model"] == "gpt-4o"
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "user"]
    prompt = "\n".join(m["content"] for m in body["messages"])
    assert "<regex>" in prompt and "</regex>" in prompt and "<Table>" in prompt
    assert "# Annual Report 2024\n\nOpening words of the report" in body["messages"][1]["content"]


def test_prompt_holds_only_whole_lines_within_the_token_budget(fake):
    text = "".join(f"Line {i} says something about clause {i}.\n" for i in range(400))
    run(fake.base_url, text, prompt_tokens=100)
    user = fake.requests[0]["messages"][1]["content"]
    assert "Line 0 says" in user and "Line 5 says" in user
    assert "Line 399" not in user
    shown = user.split("<document>\n")[-1].split("\n</document>")[0]
    assert shown.endswith(".\n") and text.startswith(shown)


def test_head_context_cuts_an_overlong_first_line_at_a_token_boundary():
    text = "word " * 5000
    ctx, info = head_context(text, 100)
    assert 0 < len(ctx) < len(text) and text.startswith(ctx)
    assert info["tokens"] <= 100 and info["truncated"]


def test_the_regex_runs_on_the_whole_document_not_only_the_prompt(fake):
    text = "".join(f"## Part {i}\n\n" + "Body text of the part. " * 40 + "\n\n" for i in range(60))
    fake.script(Answer("<regex>(?m)^(?=## )</regex>"))
    out = run(fake.base_url, text, prompt_tokens=200)
    assert out.meta["context"]["truncated"]
    assert len(out.chunks) == 60


# --- cache -----------------------------------------------------------------------------------


def test_cache_hit_makes_no_request_and_gives_the_same_chunks(fake, tmp_path):
    fake.script(Answer("<regex>(?m)^(?=## )</regex>"))
    first = run(fake.base_url)
    second = run(fake.base_url)
    assert len(fake.requests) == 1
    assert second.meta["cached"] is True and second.meta["status"] == "ok"
    assert starts(first) == starts(second)
    files = list((tmp_path / "cache" / "llm").rglob("*.json"))
    assert len(files) == 1
    assert json.loads(files[0].read_text())["reply"]["content"].startswith("<regex>")
    run(fake.base_url, model="other-model")  # a different request is a miss
    assert len(fake.requests) == 2


def test_cache_can_be_disabled_or_relocated(fake, tmp_path):
    run(fake.base_url, cache=False)
    run(fake.base_url, cache=False)
    assert len(fake.requests) == 2
    run(fake.base_url, cache_dir=str(tmp_path / "elsewhere"))
    assert list((tmp_path / "elsewhere").rglob("*.json"))


# --- model answers that cannot be used -------------------------------------------------------


def test_no_tag_falls_back_to_headings_levels_1_to_3(fake):
    fake.script(Answer("You should split the document at its headings."))
    out = run(fake.base_url)
    assert fallback_reason(out) == "no_regex_tag"
    assert out.meta["answer"].startswith("You should")
    assert starts(out) == [0] + heading_starts(DOC)[1:]


def test_single_fallback_keeps_one_chunk(fake):
    fake.script(Answer("no tag"))
    out = run(fake.base_url, fallback="single")
    assert fallback_reason(out) == "no_regex_tag" and len(out.chunks) == 1


@pytest.mark.parametrize("answer,reason", [
    ("<regex>(?m)^(?=## </regex>", "invalid_regex"),
    ("<regex></regex>", "invalid_regex"),
    ("<regex>\\n*</regex>", "zero_progress"),
    ("<regex>(?=.)</regex>", "match_everywhere"),
    ("<regex>(?m)^(?=Chapter )</regex>", "no_match"),
    ("<regex>(?m)^(?=\\| )</regex>", "no_split"),
])
def test_unusable_patterns_fall_back_with_their_reason(fake, answer, reason):
    fake.script(Answer(answer))
    out = run(fake.base_url)
    assert fallback_reason(out) == reason
    assert out.meta["fallback"]["detail"]
    assert starts(out) == [0] + heading_starts(DOC)[1:]


@pytest.mark.parametrize("answer,repairs", [
    ("<regex>\n```regex\n(?m)^(?=## )\n```\n</regex>", ["code_fence"]),
    ("<regex>'(?m)^(?=## )'</regex>", ["quotes"]),
    ("<regex>/^(?=## )/gm</regex>", ["slashes"]),
    ("<regex>\\\\n(?=## )</regex>", ["double_escape"]),
    ("<REGEX>(?m)^(?=[#\\w-.]{2} )</REGEX>", ["class_hyphen"]),
])
def test_common_escaping_mistakes_are_repaired_once(fake, answer, repairs):
    fake.script(Answer(answer))
    out = run(fake.base_url)
    assert out.meta["status"] == "ok", out.meta.get("fallback")
    assert out.meta["regex_repairs"] == repairs
    section = DOC.index("## 1.")
    # "\\n(?=## )" cuts before the newline, the others at the heading itself
    assert any(section - 1 <= s <= section for s in starts(out))


# --- safety ------------------------------------------------------------------------------------


def _run_guarded(*args, **kwargs):
    """Run the splitter in a thread so a regression fails the test instead of hanging the suite."""
    result = {}
    worker = threading.Thread(target=lambda: result.update(out=run(*args, **kwargs)), daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive(), "the catastrophic pattern was not stopped"
    return result["out"]


@pytest.mark.parametrize("pattern", ["(a+)+$", "(a|aa)+$"])
def test_catastrophic_backtracking_is_stopped_by_the_regex_timeout(fake, pattern):
    text = DOC + "\n" + "a" * 5000 + "!\n"
    fake.script(Answer(f"<regex>{pattern}</regex>"))
    out = _run_guarded(fake.base_url, text, regex_timeout_s=0.3)
    assert out.meta["regex_engine"] == "regex"
    assert fallback_reason(out) == "regex_timeout"


def test_re2_runs_a_backtracking_pattern_in_linear_time(fake):
    text = DOC + "\n" + "a" * 200_000 + "!\n"
    assert "ax" not in text  # so the pattern can only fail, after exploring the run of a's
    fake.script(Answer("<regex>(a+)+x</regex>"))
    out = _run_guarded(fake.base_url, text, regex_timeout_s=30)
    assert out.meta["regex_engine"] == "re2"
    assert fallback_reason(out) == "no_match"


def test_no_cut_strictly_inside_a_table(fake):
    fake.script(Answer("<regex>(?m)^(?=## |\\| )</regex>"))
    out = run(fake.base_url)
    assert out.meta["status"] == "ok" and out.meta["dropped_protected"] == 4
    table = (DOC.index("<Table>"), DOC.index("</Table>") + len("</Table>"))
    assert not [s for s in starts(out) if table[0] < s < table[1]]
    assert DOC.index("## 2.") in starts(out)


# --- endpoint trouble -----------------------------------------------------------------------


def test_http_500_is_retried_a_bounded_number_of_times_then_falls_back(fake):
    fake.script(Answer(status=500))
    out = run(fake.base_url, max_retries=2)
    assert len(fake.requests) == 3
    assert fallback_reason(out) == "http_500" and out.meta["llm"]["attempts"] == 3


def test_backoff_doubles_with_a_jitter_seeded_by_the_request(fake, monkeypatch):
    from adachunk.split import _llm_client

    waits: list[float] = []
    monkeypatch.setattr(_llm_client.time, "sleep", waits.append)
    fake.script(Answer(status=502))
    for _ in range(2):
        run(fake.base_url, max_retries=3, backoff_s=1.0, cache=False)
    assert len(waits) == 6 and waits[:3] == waits[3:]  # same request, same waits
    for k, w in enumerate(waits[:3]):
        assert 0.5 * 2**k <= w < 1.5 * 2**k


def test_a_retry_after_a_500_can_succeed(fake):
    fake.script(Answer(status=503), Answer("<regex>(?m)^(?=## )</regex>"))
    out = run(fake.base_url, max_retries=2)
    assert len(fake.requests) == 2
    assert out.meta["status"] == "ok" and out.meta["llm"]["attempts"] == 2


def test_client_errors_are_not_retried(fake):
    fake.script(Answer(status=400))
    out = run(fake.base_url, max_retries=3)
    assert len(fake.requests) == 1 and fallback_reason(out) == "http_400"


def test_slow_answer_times_out_and_falls_back(fake):
    fake.script(Answer("<regex>(?m)^(?=## )</regex>", delay_s=5))
    out = run(fake.base_url, timeout_s=0.3, max_retries=1)
    assert fallback_reason(out) == "timeout"
    assert len(fake.requests) == 2


def test_unreachable_endpoint_falls_back():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = run(f"http://127.0.0.1:{port}/v1", max_retries=1)
    assert fallback_reason(out) == "endpoint_unreachable"
    assert out.meta["llm"]["attempts"] == 2


def test_missing_key_for_a_remote_endpoint_is_a_fallback_not_a_crash(fake):
    out = run("https://llm.example.invalid/v1")
    assert fallback_reason(out) == "no_api_key"
    assert "OPENAI_API_KEY" in out.meta["fallback"]["detail"]


def test_base_url_and_key_come_from_the_environment(fake, monkeypatch):
    monkeypatch.setenv("ADACHUNK_LLM_BASE_URL", fake.base_url)
    monkeypatch.setenv("MY_LLM_API_KEY", "k-test")
    fake.script(Answer("<regex>(?m)^(?=## )</regex>"))
    out = run(None, api_key_env="MY_LLM_API_KEY")
    assert out.meta["status"] == "ok" and out.meta["base_url"] == fake.base_url
    assert len(fake.requests) == 1


def test_empty_document_makes_no_request(fake):
    splitter = LLMRegexSplitter(LLMRegexParams(base_url=fake.base_url))
    out = splitter.split(Document(id="e", text=""), POLICY)
    assert out.chunks == [] and out.meta["status"] == "empty" and not fake.requests


# --- the pattern helpers on their own -------------------------------------------------------


def test_extract_unwrap_and_repair():
    assert extract_tag("a <regex> x </regex> <regex>y</regex>") == " x "
    assert extract_tag("nothing") is None and extract_tag(None) is None
    assert unwrap('```\n"\\n# "\n```') == ("\\n# ", ["code_fence", "quotes"])
    assert unwrap("/^# /im") == ("(?im)^# ", ["slashes"])
    assert repair_escapes("[a-z][\\d-x]") == ("[a-z][\\d\\-x]", ["class_hyphen"])
    assert repair_escapes("\\\\n\\\\s") == ("\\n\\s", ["double_escape"])


def test_engine_choice_keeps_python_semantics():
    assert compile_safe(r"\n# ", "é\n# x", 1).engine == "re2"
    assert compile_safe(r"\n\s", "plain ascii", 1).engine == "re2"
    assert compile_safe(r"\n\s", "non-ascii é", 1).engine == "regex"  # \s is Unicode in re
    assert compile_safe(r"x$", "x", 1).engine == "regex"
    assert compile_safe(r"(?<=\n)(?=# )", "x", 1).engine == "regex"
    with pytest.raises(UnsafePattern) as err:
        compile_safe(r"a{,2}", "aa", 1)
    assert err.value.reason == "zero_progress"


def test_re2_offsets_are_code_points():
    text = "ééé\n# один\n# два\n"
    safe = compile_safe(r"\n# ", text, 1)
    assert safe.engine == "re2"
    expected = [i for i in range(len(text)) if text.startswith("\n# ", i)]
    assert safe.match_starts(text, 1, 100) == expected


def test_wrapper_spans_pair_tags_and_ignore_unclosed_ones():
    text = "a<Table>x<Figure>y</Figure></table> <Table> z <figure>w</FIGURE>"
    spans = sorted(text[s:e] for s, e in wrapper_spans(text))
    assert spans == ["<Figure>y</Figure>", "<Table>x<Figure>y</Figure></table>",
                     "<figure>w</FIGURE>"]
