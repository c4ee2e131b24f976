"""Fuzzing the profile loader: whatever a YAML file holds, ``resolve(path)`` either returns a
resolved profile or raises a coded :class:`ProfileError` that renders and points at a file.

Inputs: random YAML documents, random text, structural mutations of the shipped
``profiles/default.yaml`` (deleted keys, changed types, random strings and unicode, deep nesting)
and textual mutations (anchors/aliases, merge keys, unsafe and unknown tags, broken syntax).

Known engine bugs found by these fuzzers are pinned by the ``xfail`` regression tests at the
end of this file. So that the fuzzers keep exploring everything else, an exception matching one
of :data:`KNOWN_BUGS` (exact type + the adachunk/yaml frame that raised it + message) is tolerated
inside the random tests; nothing else is. When a bug is fixed its strict xfail fails: remove the
marker and the signature. Inputs that would hang or exhaust memory (alias bombs, nesting deeper
than ``_MAX_NESTING``) are not generated.
"""

from __future__ import annotations

import contextlib
import copy
import pickle
import signal
import string
import traceback
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adachunk import chunk_text
from adachunk.errors import AdachunkError, ProfileError
from adachunk.profile.resolve import ResolvedProfile, resolve
from adachunk.profile.yamlmarks import load_yaml_text, plain

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TEXT = (ROOT / "profiles" / "default.yaml").read_text(encoding="utf-8")
DEFAULT = plain(load_yaml_text(DEFAULT_TEXT))  # our loader: 'on'/'off' stay strings
HANG_S = 60  # an example running longer than this is reported as a hang

_CHARS = st.characters(blacklist_categories=("Cs",))  # lone surrogates cannot be written as UTF-8
# Deeper nesting only re-finds the RecursionError / serialisation-depth bugs, slowly.
_MAX_NESTING = 40

# (exception type names, "file:function" prefix of a frame that raised it, message part) → the
# regression test that pins it.
KNOWN_BUGS: list = []  # every bug these fuzzers found is fixed; its regression test below stays

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Hang(Exception):
    """Raised inside an example that ran past its time limit."""


@contextlib.contextmanager
def time_limit(seconds: float):
    """Turn a hang into a test failure (SIGALRM; interrupts Python code, not a C call)."""

    def fire(_sig, _frame):
        raise Hang(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def check_profile_error(err: ProfileError) -> None:
    """A profile error is coded ADA2xx, renders, survives pickling and points at a file."""
    assert isinstance(err.render(), str) and err.render()
    assert pickle.loads(pickle.dumps(err)).render() == err.render()
    for e in getattr(err, "errors", None) or [err]:
        assert e.code.startswith("ADA2") and len(e.code) == 6, e.render()
        assert e.location.file, f"no location: {e.render()}"
        assert e.render().startswith(e.code)


def known_bug(exc: BaseException, table=None) -> str | None:
    """Name of the regression test pinning ``exc`` when it matches a known bug signature."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = {f"{Path(f.filename).name}:{f.name}" for f in frames}
    for kinds, frame, words, test in KNOWN_BUGS if table is None else table:
        if (type(exc).__name__ in kinds and any(w.startswith(frame) for w in where)
                and words in str(exc)):
            return test
    return None


def load_or_error(path: Path) -> ResolvedProfile | None:
    """Resolve ``path``; a ProfileError is checked and gives None, anything else propagates
    (except a known bug's exact signature, pinned by its own regression test)."""
    with time_limit(HANG_S):
        try:
            return resolve(path)
        except ProfileError as err:
            check_profile_error(err)
            return None
        except Hang:
            raise
        except Exception as exc:  # noqa: BLE001 - re-raised unless it is a pinned known bug
            if known_bug(exc) is None:
                raise
            return None


def _write(tmp_path_factory, text: str) -> Path:
    path = tmp_path_factory.mktemp("fuzz") / "profile.yaml"
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------------------- strategies
_text = st.text(alphabet=_CHARS, max_size=24)
_names = st.sampled_from([
    "default", "darn", "paper", "markdown.core", "text.word", "nope", "../profiles/default",
    "common.lark", "regex.v1", "dp.v1", "sentence.v1", "word.v1", "markdown.block.v1",
    "grammar.lark.v1", "const", "linear", "reverse_linear", "triangular", "inverse_triangular",
    "tokens", "chars", "o200k_base", "cl100k_base", "heading", "table", "sentence", "word",
]) | _text
_scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.integers(-5, 5000)
            | st.floats(allow_nan=True, allow_infinity=True) | _text | _names)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text | _names, inner, max_size=4),
    max_leaves=12,
)
_PROFILE_KEYS = ["schema_version", "name", "description", "extends", "structures", "rules",
                 "solver", "candidates", "postprocess", "metrics"]
_profiles = st.dictionaries(st.sampled_from(_PROFILE_KEYS) | _text, _values, max_size=8)


def _dump(data) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


@st.composite
def _mutated(draw, base=DEFAULT):
    """The default profile with 1..4 random structural edits at random key paths."""
    data = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 4))):
        parent, key = _pick_path(draw, data)
        op = draw(st.sampled_from(["delete", "replace", "rename", "wrap_list", "nest", "retype"]))
        if parent is None:  # the root itself
            data = draw(_values) if op == "replace" else data
            continue
        value = parent[key]
        if op == "delete":
            del parent[key]
        elif op == "replace":
            parent[key] = draw(_values)
        elif op == "rename" and isinstance(parent, dict):
            parent[draw(_text | _names)] = parent.pop(key)
        elif op == "wrap_list":
            parent[key] = [value]
        elif op == "nest":
            for _ in range(draw(st.integers(1, _MAX_NESTING))):
                value = {draw(_names): value} if draw(st.booleans()) else [value]
            parent[key] = value
        elif op == "retype":
            parent[key] = draw(st.sampled_from([str(value), [], {}, 0, -1, 1.5, True, None, 2**64, "1e9"]))
    return data


def _pick_path(draw, data):
    """Walk down from the root, stopping at a random depth; returns (container, key)."""
    parent, key, node = None, None, data
    while isinstance(node, (dict, list)) and node and draw(st.integers(0, 3)) > 0:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        parent, key = node, draw(st.sampled_from(keys))
        node = node[key]
    return parent, key


_SNIPPETS = [
    "x: &a {shape: const, scale: 5}\n", "y: *a\n", "<<: *a\n", "key: [&b 1, *b, *b]\n",
    "!!python/object/apply:os.system ['true']", "!!python/name:builtins.eval", "!!binary aGk=",
    "!!set {a, b}", "!!omap [{a: 1}]", "!!timestamp 2001-12-14", "!custom 1", "!!int 'x'",
    "!!float abc", "!!str", "!!null x", "&x", "*undefined_alias", "\t", "{", "}", "[", "]",
    ": :", "- - -", "---\n", "...\n", "%YAML 1.1\n", "? complex key\n: v\n", "'unterminated",
    '"\\x"', '"\\ud800"', "|\n  block\n", ">-\n", "1.0e+400", "0x1F", "0o17", "1_000", ".inf",
    ".nan", "~", "null", "on", "off", "yes", "no", "=", "\ufeff", "\u202e", "\U0001f600",
    "extends: default\n", "extends: profile.yaml\n", "include: [profile]\n", "a: &r [*r]\n",
]


@st.composite
def _text_mutations(draw):
    """The default profile's text with random snippets inserted, lines dropped or swapped."""
    lines = DEFAULT_TEXT.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 5))):
        i = draw(st.integers(0, len(lines)))
        op = draw(st.sampled_from(["insert", "insert_inline", "delete", "duplicate", "unicode", "truncate"]))
        if op == "insert":
            lines.insert(i, draw(st.sampled_from(_SNIPPETS)))
        elif op == "insert_inline" and i < len(lines):
            line = lines[i]
            j = draw(st.integers(0, len(line)))
            lines[i] = line[:j] + draw(st.sampled_from(_SNIPPETS)) + line[j:]
        elif op == "delete" and i < len(lines):
            del lines[i]
        elif op == "duplicate" and i < len(lines):
            lines.insert(i, lines[i])
        elif op == "unicode" and i < len(lines):
            line = lines[i]
            j = draw(st.integers(0, len(line)))
            lines[i] = line[:j] + draw(st.text(alphabet=_CHARS, min_size=1, max_size=4)) + line[j:]
        elif op == "truncate":
            lines = lines[:i]
    return "".join(lines)


# ----------------------------------------------------------------------------------- tests
def _fuzz_yaml(tmp_path_factory, data) -> None:
    load_or_error(_write(tmp_path_factory, _dump(data)))


@FAST
@given(data=_profiles)
def test_random_yaml_documents(tmp_path_factory, data):
    _fuzz_yaml(tmp_path_factory, data)


@FAST
@given(data=_values)
def test_random_yaml_values(tmp_path_factory, data):
    _fuzz_yaml(tmp_path_factory, data)


@FAST
@given(text=st.text(alphabet=_CHARS, max_size=200) | st.text(alphabet=string.printable, max_size=200))
def test_random_text(tmp_path_factory, text):
    load_or_error(_write(tmp_path_factory, text))


@FAST
@given(data=_mutated())
def test_mutated_default_profile(tmp_path_factory, data):
    _fuzz_yaml(tmp_path_factory, data)


@FAST
@given(text=_text_mutations())
def test_text_mutations_of_default_profile(tmp_path_factory, text):
    load_or_error(_write(tmp_path_factory, text))


SAMPLE = "# Title\n\nFirst sentence here. Second one, longer than the first.\n\n- item\n- item two\n\n" * 4


@FAST
@given(data=_mutated())
def test_loaded_profiles_chunk_or_raise_coded(tmp_path_factory, data):
    """What the loader accepts must be runnable: chunks that tile, or a coded error."""
    rp = load_or_error(_write(tmp_path_factory, _dump(data)))
    if rp is None:
        return
    with time_limit(HANG_S):
        try:
            chunks = chunk_text(SAMPLE, rp)
        except AdachunkError as err:
            assert err.render().startswith(err.code)
            return
        except Exception as exc:  # noqa: BLE001 - re-raised unless it is a pinned known bug
            if known_bug(exc) is None:
                raise
            return
    assert "".join(c.text for c in chunks) == SAMPLE
    assert all(c.text for c in chunks)


@pytest.mark.slow
@SLOW
@given(data=_profiles | _mutated() | _values)
def test_yaml_fuzz_many(tmp_path_factory, data):
    _fuzz_yaml(tmp_path_factory, data)


@pytest.mark.slow
@SLOW
@given(text=_text_mutations() | st.text(alphabet=_CHARS, max_size=400))
def test_text_fuzz_many(tmp_path_factory, text):
    load_or_error(_write(tmp_path_factory, text))


def test_unsafe_tag_is_refused(tmp_path):
    """The one input class that must never load: a Python object tag."""
    path = tmp_path / "evil.yaml"
    path.write_text("schema_version: 1\nname: !!python/object/apply:os.system ['true']\n", encoding="utf-8")
    with pytest.raises(ProfileError) as info:
        resolve(path)
    check_profile_error(info.value)
    assert info.value.code == "ADA201" and info.value.location.line == 2


# ----------------------------------------------- known bugs (regression tests, see module doc)
def check_known_bugs_pinned(table, namespace) -> None:
    """Every tolerated signature names an xfail regression test that exists."""
    for *_sig, test in table:
        fn = namespace.get(test)
        assert fn is not None, f"{test} does not exist"
        assert any(m.name == "xfail" for m in getattr(fn, "pytestmark", [])), f"{test} is not xfail"


def test_known_bugs_are_pinned():
    check_known_bugs_pinned(KNOWN_BUGS, globals())  # vacuous while no bug is tolerated


def _expect_coded(tmp_path, text: str) -> ProfileError:
    path = tmp_path / "bug.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProfileError) as info:
        resolve(path)
    check_profile_error(info.value)
    return info.value


def test_key_with_bracket_is_coded(tmp_path):
    assert _expect_coded(tmp_path, 'schema_version: 1\nname: x\n"a[b": 1\n').code == "ADA202"


def test_nested_key_with_bracket_is_named(tmp_path):
    err = _expect_coded(tmp_path, 'schema_version: 1\nname: x\nsolver: {"max[": 1}\n')
    assert "max[" in err.render()


def test_nul_byte_in_profile_is_coded(tmp_path):
    assert _expect_coded(tmp_path, "schema_version: 1\nname: a\x00b\n").code == "ADA201"


@pytest.mark.parametrize("value", ["!!int x", "!!float abc", "!!bool maybe", "!!timestamp nope",
                                   "!!timestamp 2001-13-45", "!!map [1]"])
def test_bad_explicit_tag_is_coded(tmp_path, value):
    assert _expect_coded(tmp_path, f"schema_version: 1\nname: {value}\n").code == "ADA201"


def test_deeply_nested_yaml_is_coded(tmp_path):
    _expect_coded(tmp_path, "schema_version: 1\nname: x\ndescription: " + "[" * 800 + "]" * 800 + "\n")


def test_deep_extra_field_is_coded(tmp_path):
    _expect_coded(tmp_path, "schema_version: 1\nname: x\nmetrics:\n  embedder:\n    type: a\n    x: "
                  + "[" * 400 + "]" * 400 + "\n")


def test_non_string_component_type_is_coded(tmp_path):
    _expect_coded(tmp_path, "schema_version: 1\nname: x\ncandidates: [{type: []}]\n")


def test_non_string_rule_name_is_coded(tmp_path):
    _expect_coded(tmp_path, "schema_version: 1\nname: x\nrules: {include: [text.word], items: "
                  "[{name: [a], structure: word}]}\n")


def test_huge_solver_size_is_refused(tmp_path):
    path = tmp_path / "huge.yaml"
    path.write_text("schema_version: 1\nname: x\nextends: default\nsolver: {max_size: "
                    "99999999999999999999999999}\n", encoding="utf-8")
    try:
        rp = resolve(path)
    except ProfileError as err:
        check_profile_error(err)
        return
    chunk_text(SAMPLE, rp)


def test_infinite_scale_is_refused(tmp_path):
    err = _expect_coded(tmp_path, "schema_version: 1\nname: x\nextends: default\nrules: {items: "
                        "[{structure: word, on: {shape: const, scale: .inf}}]}\n")
    assert err.code == "ADA203"


def test_unknown_tokenizer_is_refused_at_load(tmp_path):
    assert _expect_coded(tmp_path, "schema_version: 1\nname: x\nsolver: {tokenizer: gpt2}\n").code == "ADA205"


@pytest.mark.parametrize("where", ["rules: {include: [NAME]}", "extends: NAME",
                                   "structures: {g: {type: grammar.lark.v1, grammar: NAME, start: x}}"])
def test_overlong_file_name_is_coded(tmp_path, where):
    err = _expect_coded(tmp_path, "schema_version: 1\nname: x\n" + where.replace("NAME", "a" * 300) + "\n")
    assert err.code in ("ADA209", "ADA210")


def test_non_list_include_is_coded(tmp_path):
    assert _expect_coded(tmp_path, "schema_version: 1\nname: x\nrules: {include: 5}\n").code == "ADA203"


def test_unknown_embedder_key_is_refused(tmp_path):
    err = _expect_coded(tmp_path, "schema_version: 1\nname: x\nmetrics:\n  embedder:\n"
                        "    type: sentence_transformers.v1\n    modle: all-MiniLM-L6-v2\n")
    assert err.code in ("ADA202", "ADA205")


def test_alias_bomb_is_refused(tmp_path):
    levels = ['    x0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    levels += [f"    x{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    text = "schema_version: 1\nname: x\nmetrics:\n  embedder:\n    type: sentence_transformers.v1\n"
    assert _expect_coded(tmp_path, text + "\n".join(levels) + "\n").code == "ADA201"
