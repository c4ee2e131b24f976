"""Every size and profile-override flag a command accepts is honoured (the output changes) or
refused with a coded error: never accepted and ignored (issue 49). The commands and their flags
are read from the argument parser itself, so a command that gains such a flag joins the test.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from adachunk.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = str(ROOT / "examples" / "regulation_excerpt.md")
# each size flag with a value that differs from the default profile's
SIZE_FLAGS = {"--max-size": "80", "--min-size": "60", "--granularity": "chars", "--tokenizer": "cl100k_base",
              "--overlap": "20", "--chunk-cost": "400", "--target-size": "70"}
VALUES = {**SIZE_FLAGS, "--profile": "legal"}


def _commands_with(flags) -> dict[str, set[str]]:
    parser, _ = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = {}
    for name, p in sub.choices.items():
        given = {s for a in p._actions for s in a.option_strings} & set(flags)
        if given:
            out[name] = given
    return out


def _chunk(tmp_path, argv):
    out = tmp_path / "c.jsonl"
    code = main(["chunk", SAMPLE, "-o", str(out), *argv])
    return code, out.read_text() if code == 0 else ""


def _explain(tmp_path, argv):
    return main(["explain", SAMPLE, "--format", "json", *argv]), None


def _view(tmp_path, argv):
    out = tmp_path / "v.html"
    code = main(["view", SAMPLE, "-o", str(out), *argv])
    return code, out.read_text() if code == 0 else ""


def _detect(tmp_path, argv):
    return main(["detect", SAMPLE, "--format", "json", *argv]), None


def _score(tmp_path, argv):
    return main(["score", SAMPLE, "--format", "json", *argv]), None


def _eval(tmp_path, argv):
    return main(["eval", SAMPLE, "--qa", str(ROOT / "examples" / "qa.jsonl"), "-c", "fixed:200", "-r", "bm25",
                 "--json", "--quiet", *argv]), None


def _run(tmp_path, argv):
    out = tmp_path / f"r{len(list(tmp_path.iterdir()))}"
    code = main(["run", SAMPLE, "--out", str(out), "--sink", "none", "-j", "1", "--quiet", *argv])
    if code != 0:
        return code, ""
    # the winner's spans and every candidate's shape: a flag that reshapes the pool is honoured even
    # where the same rung wins with the same cuts (--chunk-cost moves dp_90's cuts, not dp_127's)
    spans = [(r["start"], r["end"]) for r in map(json.loads, (out / "chunks.jsonl").open())]
    pool = [(c["name"], c.get("stats")) for d in map(json.loads, (out / "decisions.jsonl").open())
            for c in d["candidates"]]
    return code, (spans, pool)


# command -> how to run it and read its output (stdout when the reader returns None)
RUNNERS = {"chunk": _chunk, "explain": _explain, "view": _view, "detect": _detect, "run": _run, "score": _score,
           "eval": _eval}
# --profile is checked where it picks the chunking; eval's picks the embedder, ab's and tune's are
# the subject of the command
PROFILE_CHECKED = {"chunk", "explain", "view", "detect", "run", "score"}


def test_every_command_with_a_size_flag_is_covered():
    assert set(_commands_with(SIZE_FLAGS)) <= set(RUNNERS), "a new command takes size flags: add it to RUNNERS"


def _output(capsys, tmp_path, command, argv):
    code, got = RUNNERS[command](tmp_path, argv)
    captured = capsys.readouterr()
    if command == "view" and got:  # the page embeds the profile fingerprint: compare the chunk spans
        got = got.split('"chunks"', 1)[-1]
    return code, got if got is not None else captured.out, captured.err


@pytest.mark.parametrize("command", sorted(RUNNERS))
def test_each_override_flag_changes_the_output_or_is_refused(command, tmp_path, capsys):
    flags = _commands_with(VALUES if command in PROFILE_CHECKED else SIZE_FLAGS).get(command, set())
    assert flags, command
    code, base, err = _output(capsys, tmp_path, command, [])
    assert code == 0, err
    for flag in sorted(flags):
        code, got, err = _output(capsys, tmp_path, command, [flag, VALUES[flag]])
        if code == 0:
            assert got != base, f"{command} {flag} {VALUES[flag]} was accepted and ignored"
        else:
            assert code == 2 and err.startswith("ADA") and "Traceback" not in err, (command, flag, err)


def test_run_max_and_min_size_shape_the_pool(tmp_path, capsys):
    """The reported case: `run --max-size 80 --min-size 20` gives chunks within 80 tokens, and one
    notice says what the flags replaced."""
    out = tmp_path / "o"
    assert main(["run", SAMPLE, "--out", str(out), "--sink", "none", "-j", "1", "--quiet",
                 "--max-size", "80", "--min-size", "20"]) == 0
    err = capsys.readouterr().err
    notice = [line for line in err.splitlines() if line.startswith("ADA407")]
    assert len(notice) == 1 and "max_size: auto" in notice[0] and "-> 80, 57, 40, 28" in notice[0], err
    records = [json.loads(line) for line in (out / "chunks.jsonl").open()]
    assert max(r["tokens"] for r in records) <= 80
    assert {r["candidate"] for r in records} <= {"dp_80", "dp_57", "dp_40", "dp_28"}


def test_max_size_below_the_profile_min_lowers_it_and_says_so(capsys):
    assert main(["chunk", SAMPLE, "--max-size", "60"]) == 0
    out, err = capsys.readouterr()
    assert err.startswith("ADA407 <command line>: --max-size 60 is below the profile's min_size (100, ")
    assert "min_size lowered to 15" in err
    assert max(json.loads(line)["tokens"] for line in out.splitlines()) <= 60


@pytest.mark.parametrize("argv,named", [
    (["--max-size", "60", "--min-size", "100"], "--min-size 100 is larger than --max-size 60"),
    (["--min-size", "600"], "--min-size 600 is larger than the profile's max_size (512, "),
    (["--target-size", "700"], "--target-size 700 must lie between"),
    (["--overlap", "600"], "--overlap 600 must be smaller than the profile's max_size"),
])
def test_conflicting_flags_are_blamed_not_the_profile(argv, named, capsys):
    assert main(["chunk", SAMPLE, *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ADA211 <command line>: ") and named in err, err
