"""Hostile inputs through the real CLI: outcome, wall time and peak memory of each.

Usage (from the repository root)::

    /work/venv/bin/python bench/bad_inputs.py [--limit 600] [--big-limit 1800] [--only NAME,...]
        [--granularity tokens|chars] [--write bench/PEERS.md]

Each case is written to a scratch folder and run as ``python -m adachunk.cli.main chunk PATH -o
OUT`` in its own process with a wall-clock limit. Recorded: exit code, the error codes printed
(``ADA3xx``), the number of chunks written, whether a Python traceback appeared (a crash: the CLI
must turn every problem into a coded error), wall time and the child's peak RSS (``os.wait4``).
Not a test: the table goes into bench/PEERS.md under "Bad inputs".
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))

ROOT = Path(__file__).resolve().parent.parent
TRACEBACKS = Path(tempfile.gettempdir()) / "adachunk_bad_tracebacks"  # full stderr of crashing cases
PARA = ("Under Article 6(1)(a) of Regulation (EU) 2016/679, processing is lawful only if the data "
        "subject has given consent. The controller shall be able to demonstrate it. ")


def _markdown_mb(mb: float) -> Iterator[bytes]:
    """Realistic Markdown (headings, paragraphs, lists, tables) of about ``mb`` megabytes."""
    block = (f"## Section {{i}}\n\n{PARA * 4}\n\n- first item of the list\n- second item with "
             f"more words\n\n| a | b | c |\n|---|---|---|\n| 1 | 2 | 3 |\n\n")
    one = len(block.format(i=0).encode())
    for i in range(int(mb * 1e6 / one) + 1):
        yield block.format(i=i).encode()


def _deep_list_lines(depth: int) -> Iterator[bytes]:
    for i in range(depth):
        yield (" " * (2 * i) + "- item\n").encode()


def _wide_table(cols: int, rows: int) -> bytes:
    head = "| " + " | ".join(f"col{i}" for i in range(cols)) + " |\n"
    sep = "|" + "---|" * cols + "\n"
    body = "".join("| " + " | ".join(f"r{r}c{i}" for i in range(cols)) + " |\n" for r in range(rows))
    return (head + sep + body).encode()


# name → (file name, writer(path)); writers create whatever the case needs under the scratch dir.
# Big inputs are streamed to disk: a child's peak RSS (os.wait4) includes the parent's resident
# pages at fork time, so the parent must never hold them.
def _file(name: str, data: Callable[[], "bytes | Iterable[bytes]"]):
    def make(d: Path) -> Path:
        p = d / name
        content = data()
        with open(p, "wb") as fh:
            for piece in [content] if isinstance(content, bytes) else content:
                fh.write(piece)
        return p

    return make


def _directory(name: str):
    def make(d: Path) -> Path:
        p = d / name
        p.mkdir()
        return p

    return make


def _symlink_loop(d: Path) -> Path:
    a, b = d / "loop_a.md", d / "loop_b.md"
    os.symlink(b, a)
    os.symlink(a, b)
    return a


def _folder_with_loop(d: Path) -> Path:
    p = d / "tree"
    p.mkdir()
    (p / "doc.md").write_text("# Title\n\nSome text.\n", encoding="utf-8")
    os.symlink(p, p / "self")  # tree/self -> tree: a directory cycle
    return p


CASES: dict[str, tuple[str, Callable[[Path], Path]]] = {
    "invalid UTF-8": ("strict decoding", _file("bad_utf8.md", lambda: b"# Title\n\nok text \xff\xfe\xc3\x28 more\n")),
    "NUL bytes": ("", _file("nul.md", lambda: b"abc\x00def\n\n" + b"\x00" * 1000 + b"\nend.\n")),
    "BOM": ("", _file("bom.md", lambda: b"\xef\xbb\xbf# Title\n\nText after a BOM.\n")),
    "empty file": ("", _file("empty.md", lambda: b"")),
    "100 MB document": ("big", _file("big.md", lambda: _markdown_mb(100))),
    "one 10 MB line (words)": ("big", _file("line_words.md", lambda: [b"word " * 1000] * 2000)),
    "one 10 MB line (no spaces)": ("big", _file("line_nospace.md", lambda: [b"ab" * 1000] * 5000)),
    "10,000-deep list (one line)": ("", _file("deep_list.md", lambda: ("- " * 10_000 + "deep\n").encode())),
    "10,000-deep list (indented lines, 100 MB)": ("big", _file("deep_list_lines.md", lambda: _deep_list_lines(10_000))),
    "10,000-deep blockquote": ("", _file("deep_quote.md", lambda: (">" * 10_000 + " deep\n").encode())),
    "10,000-deep quote+list": ("", _file("deep_mixed.md", lambda: ("> - " * 5_000 + "deep\n").encode())),
    "1,000-column table": ("", _file("wide_table.md", lambda: _wide_table(1000, 30))),
    "PNG named .md": ("", _file("image.md", lambda: b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 64)),
    "directory named .md": ("", _directory("folder.md")),
    "empty directory": ("", _directory("emptydir")),
    "symlink loop": ("", _symlink_loop),
    "folder with a symlink cycle": ("", _folder_with_loop),
    "missing file": ("", lambda d: d / "does_not_exist.md"),
}


@dataclass
class Outcome:
    name: str
    size: int
    exit: int | None
    codes: str
    chunks: int
    traceback: bool
    timed_out: bool
    wall_s: float
    rss_mb: float
    first_err: str


def _wait(proc: subprocess.Popen, limit: float) -> tuple[int | None, float, bool]:
    """Wait for ``proc`` with ``os.wait4`` (its own rusage); kill its group after ``limit`` s."""
    deadline = time.monotonic() + limit
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return proc.returncode, usage.ru_maxrss / 1024, False
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            return None, usage.ru_maxrss / 1024, True
        time.sleep(0.05)


def run_case(name: str, path: Path, out: Path, limit: float, extra: list[str]) -> Outcome:
    """Run the CLI on ``path`` and collect what happened."""
    size = path.stat().st_size if path.is_file() else 0
    err_path = out.with_suffix(".stderr")
    cmd = [sys.executable, "-m", "adachunk.cli.main", "chunk", str(path), "-o", str(out), *extra]
    with open(err_path, "wb") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
        code, rss, timed_out = _wait(proc, limit)
        wall = time.perf_counter() - t0
    stderr = err_path.read_text(encoding="utf-8", errors="replace")
    chunks = 0
    if out.exists():
        with open(out, "rb") as fh:
            chunks = sum(1 for _ in fh)
        out.unlink()
    codes = ",".join(sorted(set(re.findall(r"\bADA\d{3}\b", stderr))))
    first = next((ln for ln in stderr.splitlines() if ln.strip()), "")
    if "Traceback" in stderr:
        first = stderr.strip().splitlines()[-1]
        TRACEBACKS.mkdir(exist_ok=True)
        (TRACEBACKS / (re.sub(r"\W+", "_", name) + ".txt")).write_text(stderr, encoding="utf-8")
    return Outcome(name, size, code, codes, chunks, "Traceback" in stderr, timed_out, wall, rss, first[:160])


def _n_chunks(n: int) -> str:
    return f"{n} chunk" + ("" if n == 1 else "s")


def table(rows: list[Outcome], extra: list[str], limits: tuple[float, float]) -> str:
    flags = " ".join(extra) or "(default profile)"
    lines = ["## Bad inputs", "",
             f"`python -m adachunk.cli.main chunk FILE -o OUT {flags}`, one process per case, wall limit "
             f"{limits[0]:g} s ({limits[1]:g} s for the big cases); peak RSS of the child from `os.wait4`.",
             "", "| input | bytes | exit | outcome | wall s | peak RSS MB | first stderr line |",
             "|---|---:|---:|---|---:|---:|---|"]
    for r in rows:
        if r.timed_out:
            outcome = "**TIMEOUT (killed)**"
        elif r.traceback:
            outcome = "**TRACEBACK**"
        elif r.codes:
            outcome = r.codes + (f" + {_n_chunks(r.chunks)}" if r.chunks else "")
        else:
            outcome = _n_chunks(r.chunks)
        note = r.first_err.replace("|", "\\|").replace(str(Path(tempfile.gettempdir())), "$TMP")
        lines.append(f"| {r.name} | {r.size:,} | {r.exit} | {outcome} | {r.wall_s:.2f} | {r.rss_mb:.0f} | {note} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=float, default=600, help="wall limit per case (s)")
    ap.add_argument("--big-limit", type=float, default=1800, help="wall limit for the big cases (s)")
    ap.add_argument("--only", default="", help="semicolon-separated case names (default: all)")
    ap.add_argument("--granularity", choices=["tokens", "chars"], default=None)
    ap.add_argument("--write", type=Path, default=None, help="write the table into this Markdown file")
    args = ap.parse_args()
    extra = ["--granularity", args.granularity] if args.granularity else []
    names = [n for n in CASES if not args.only or n in args.only.split(";")]
    scratch = Path(tempfile.mkdtemp(prefix="adachunk_bad_"))
    rows = []
    try:
        for name in names:
            kind, make = CASES[name]
            path = make(scratch)
            limit = args.big_limit if kind == "big" else args.limit
            r = run_case(name, path, scratch / "out.jsonl", limit, extra)
            rows.append(r)
            print(f"{name:36s} exit={r.exit} codes={r.codes or '-'} chunks={r.chunks} tb={r.traceback} "
                  f"timeout={r.timed_out} {r.wall_s:.2f}s {r.rss_mb:.0f}MB {r.first_err[:100]}", flush=True)
            if path.is_file() and not path.is_symlink():
                path.unlink()  # the big files would otherwise fill /tmp
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    text = table(rows, extra, (args.limit, args.big_limit))
    print(text)
    if args.write:
        from bench_peers import write_section

        write_section(args.write, "bad_inputs" + ("_" + args.granularity if args.granularity else ""), text)


if __name__ == "__main__":
    main()
