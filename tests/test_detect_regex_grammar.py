"""regex.v1 and grammar.lark.v1: matching, error codes, time bound, caching and imports."""

from __future__ import annotations


import pytest

from adachunk.detect.base import DetectContext
from adachunk.detect.grammar import GrammarDetector, get_matcher, resolve_grammar
from adachunk.detect.regex import RegexDetector
from adachunk.errors import InputError, ProfileError
from adachunk.components.registry import detectors


def make(type_: str, name: str = "s", base_dirs=(), **fields):
    cls = detectors.get(type_)
    return cls(cls.Params.model_validate(fields), name=name, base_dirs=base_dirs)


def texts(det, text: str) -> list[str]:
    return [text[s.start : s.end] for s in det.detect(DetectContext(text))]


# --- regex.v1 ----------------------------------------------------------------------------------


def test_regex_basic_and_defaults():
    det = make("regex.v1", pattern=r"^Article \d+$")
    assert isinstance(det, RegexDetector)
    assert texts(det, "Article 1\nx\nArticle 22\n") == ["Article 1", "Article 22"]
    out = det.detect(DetectContext("Article 1"))
    assert out[0].label == "s" and out[0].level == 0


def test_regex_groups_by_number_name_and_quoted_number():
    assert texts(make("regex.v1", pattern=r"a(\d)", group=1), "a1 a2") == ["1", "2"]
    assert texts(make("regex.v1", pattern=r"a(?P<d>\d)", group="d"), "a1") == ["1"]
    assert texts(make("regex.v1", pattern=r"a(\d)", group="1"), "a1") == ["1"]


def test_regex_skips_zero_length_and_non_participating_groups():
    assert texts(make("regex.v1", pattern=r"b*"), "abba") == ["bb"]
    assert texts(make("regex.v1", pattern=r"(x)?y", group=1), "y xy") == ["x"]


def test_regex_offsets_are_code_points():
    det = make("regex.v1", pattern=r"GDPR")
    out = det.detect(DetectContext("𝔘😀 GDPR"))
    assert [(s.start, s.end) for s in out] == [(3, 7)]


@pytest.mark.parametrize("pattern", ["(a+", "[z-a]", "a{2,1}", "ab\\", "*a"])
def test_regex_invalid_pattern_is_ada207(pattern):
    with pytest.raises(ProfileError) as err:
        make("regex.v1", pattern=pattern)
    assert err.value.code == "ADA207"
    assert "position" in err.value.message or "invalid" in err.value.message
    assert err.value.hint


def test_regex_invalid_pattern_reports_position():
    with pytest.raises(ProfileError) as err:
        make("regex.v1", pattern="ab(cd")
    assert "at position 5" in err.value.message


def test_regex_unknown_group_is_ada207():
    with pytest.raises(ProfileError) as err:
        make("regex.v1", pattern=r"(?P<num>\d+)", group="nmu")
    assert err.value.code == "ADA207" and list(err.value.allowed) == ["num"]
    with pytest.raises(ProfileError):
        make("regex.v1", pattern=r"(\d+)", group=2)


def test_regex_params_validation():
    cls = detectors.get("regex.v1")
    with pytest.raises(Exception):
        cls.Params.model_validate({"pattern": "a", "flags": ["UNICODE"]})
    with pytest.raises(Exception):
        cls.Params.model_validate({"pattern": "a", "timeout_s": 0})
    with pytest.raises(Exception):
        cls.Params.model_validate({})
    for model in (cls.Params, GrammarDetector.Params):
        for name, f in model.model_fields.items():
            assert f.description, f"{name} lacks a description"


def test_regex_catastrophic_pattern_times_out_within_bound():
    # Unbounded, this match takes ~2**40 steps; returning at all proves the time bound works
    # (bench/bad_inputs.py records how long the stop takes).
    det = make("regex.v1", name="evil", pattern=r"(a|aa)+$", timeout_s=0.5)
    with pytest.raises(InputError) as err:
        det.detect(DetectContext("a" * 40 + "b"))
    assert err.value.code == "ADA306"
    assert "evil" in err.value.message


def test_regex_nested_quantifier_is_bounded():
    # (a+)+$ is the textbook catastrophic pattern; the regex module either defuses it or stops
    # at the time limit: either way the call returns (or raises ADA306) within the bound.
    det = make("regex.v1", pattern=r"(a+)+$", timeout_s=0.5)
    try:
        assert det.detect(DetectContext("a" * 40 + "b")) == []
    except InputError as exc:
        assert exc.code == "ADA306"


def test_regex_memo_shared_between_structures():
    ctx = DetectContext("x1 x2")
    a = make("regex.v1", name="a", pattern=r"x\d")
    b = make("regex.v1", name="b", pattern=r"x\d")
    a.detect(ctx)
    n = len(ctx._cache)
    assert [s.label for s in b.detect(ctx)] == ["b", "b"]
    assert len(ctx._cache) == n


# --- grammar.lark.v1 ---------------------------------------------------------------------------

LINES = "(a) the provider;\n  (iv) indented\n1.2.3 Title\r\nCivil law\n(abc) no\nIV. Part\n"


@pytest.mark.parametrize("parser", ["earley", "lalr"])
def test_grammar_lines_mode(parser):
    det = make("grammar.lark.v1", grammar="common.lark", start="enumerator", parser=parser)
    assert texts(det, LINES) == ["(a) the provider;", "(iv) indented", "1.2.3 Title", "IV. Part"]


@pytest.mark.parametrize("parser", ["earley", "lalr"])
def test_grammar_text_mode_leftmost_longest(parser):
    det = make("grammar.lark.v1", grammar="common", start="amount", mode="text", parser=parser)
    text = "Pay $12m now, EUR 1,234.50 later; $12 more.\nUSD\n5"
    assert texts(det, text) == ["$12m", "EUR 1,234.50", "$12"]


def test_grammar_text_mode_does_not_start_mid_word():
    det = make("grammar.lark.v1", grammar="common", start="percentage", mode="text")
    assert texts(det, "abc12% and 5%") == ["5%"]


def test_grammar_parsers_agree_on_legal_text():
    text = "\n".join(
        ["(1) Recital one.", "(a) point", "Article 5", "2. Member States", "(ii) sub", "x) y"] * 5
    )
    e = make("grammar.lark.v1", grammar="common", start="enumerator", parser="earley")
    lalr = make("grammar.lark.v1", grammar="common", start="enumerator", parser="lalr")
    assert texts(e, text) == texts(lalr, text)


def test_grammar_missing_file_is_ada210_with_suggestion():
    with pytest.raises(ProfileError) as err:
        make("grammar.lark.v1", grammar="comon.lark", start="enumerator")
    assert err.value.code == "ADA210"
    assert "common.lark" in (err.value.hint or "")
    assert "common.lark" in list(err.value.allowed)


def test_grammar_unknown_start_rule_is_ada208(tmp_path):
    with pytest.raises(ProfileError) as err:
        make("grammar.lark.v1", grammar="common.lark", start="enumerater")
    assert err.value.code == "ADA208"
    assert "enumerater" in err.value.message
    assert "enumerator" in (err.value.hint or "")
    with pytest.raises(ProfileError) as err:
        make("grammar.lark.v1", grammar="common.lark", start="nothing_like_it", parser="lalr")
    assert err.value.code == "ADA208"


def test_grammar_syntax_error_is_ada208_with_line(tmp_path):
    (tmp_path / "bad.lark").write_text('start: "a"\nfoo: ::: bar\n', encoding="utf-8")
    with pytest.raises(ProfileError) as err:
        make("grammar.lark.v1", grammar="bad.lark", start="start", base_dirs=[tmp_path])
    assert err.value.code == "ADA208"
    assert f"{tmp_path / 'bad.lark'}:2:6" in err.value.message  # grammar file:line:column
    assert err.value.location.file is None  # the profile loader points at the profile


def test_grammar_bad_terminal_regex_is_ada208(tmp_path):
    (tmp_path / "re.lark").write_text("start: A\nA: /[a-/\n", encoding="utf-8")
    with pytest.raises(ProfileError) as err:
        make("grammar.lark.v1", grammar="re", start="start", base_dirs=[tmp_path])
    assert err.value.code == "ADA208"


def test_grammar_imports(tmp_path):
    (tmp_path / "parts.lark").write_text('label: "Art." _WS INT\n_WS: " "\n%import common.INT\n')
    (tmp_path / "mine.lark").write_text(
        "heading: label | WORD \":\" | enumerator\n"
        "%import .parts (label)\n"
        "%import common.WORD\n"
        "%import adachunk.common.enumerator\n",
        encoding="utf-8",
    )
    det = make("grammar.lark.v1", grammar="mine", start="heading", base_dirs=[tmp_path])
    text = "Art. 5 Scope\nScope: all\n(b) point\nnothing here"
    assert texts(det, text) == ["Art. 5 Scope", "Scope: all", "(b) point"]


def test_grammar_missing_import_is_ada210(tmp_path):
    (tmp_path / "imp.lark").write_text("start: X\n%import nothere.X\n", encoding="utf-8")
    with pytest.raises(ProfileError) as err:
        make("grammar.lark.v1", grammar="imp", start="start", base_dirs=[tmp_path])
    assert err.value.code == "ADA210"


def test_grammar_absolute_path_and_profile_dir_first(tmp_path):
    (tmp_path / "common.lark").write_text('enumerator: "*"\n', encoding="utf-8")
    # The profile's folder shadows the shipped common.lark ...
    det = make("grammar.lark.v1", grammar="common.lark", start="enumerator", base_dirs=[tmp_path])
    assert texts(det, "* star\n(a) letter") == ["* star"]
    # ... and an absolute path needs no folders.
    path = resolve_grammar("common.lark")
    det = make("grammar.lark.v1", grammar=str(path), start="enumerator")
    assert texts(det, "* star\n(a) letter") == ["(a) letter"]


def test_grammar_parsers_are_cached():
    path = resolve_grammar("common")
    a = get_matcher(path, "roman", "earley", [path.parent])
    b = get_matcher(path, "roman", "earley", [path.parent])
    c = get_matcher(path, "roman", "lalr", [path.parent])
    assert a is b and a is not c


def test_grammar_ambiguous_grammar_longest_match(tmp_path):
    # "aaaa" has many derivations and prefixes; the longest prefix derived by the rule wins.
    (tmp_path / "amb.lark").write_text('s: x+\nx: "a" | "aa"\n', encoding="utf-8")
    det = make("grammar.lark.v1", grammar="amb", start="s", mode="text", base_dirs=[tmp_path])
    assert texts(det, "aaaa b aa-a") == ["aaaa", "aa", "a"]


def test_regex_time_bound_scales_with_document_size():
    """The bound is per megabyte (at least timeout_s): a 100 MB document is not held to 5 s total."""
    from adachunk.detect.base import DetectContext
    from adachunk.detect.regex import RegexDetector

    det = RegexDetector(RegexDetector.Params(pattern=r"\S[ \t]*\r?\n\s*", timeout_s=0.5), name="line_break")
    det._fast = None  # long texts of this pattern skip the regex module (linear scanner): test it
    seen = []

    class Spy:
        pattern = det.pattern.pattern
        groupindex = det.pattern.groupindex

        def finditer(self, text, timeout=None):
            seen.append(timeout)
            return det_pattern.finditer(text, timeout=timeout)

    det_pattern, det.pattern = det.pattern, Spy()
    det.detect_arrays(DetectContext("a\n" * 10))
    big = "word and more words\n\n" * 200_000  # 4.2 M characters
    det.detect_arrays(DetectContext(big))
    assert seen[0] == 0.5 and abs(seen[1] - 0.5 * len(big) / 1_000_000) < 1e-9
