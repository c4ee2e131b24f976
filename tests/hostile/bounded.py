"""Run a hostile case in a child process under a memory ceiling and a time limit.

A bomb that a regression lets through must fail its test, not eat the machine: the child gets
an address-space ceiling (``RLIMIT_AS``) and a wall-clock limit, and the test reads its exit
status, output, wall time and peak resident memory (``os.wait4``).
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MEM_CEILING_MB = 3072  # the child's address space: Python + numpy + lxml map ~1 GB before any work
TIME_LIMIT_S = 60.0    # the bounds answer in seconds; this only turns a hang into a failure
BOUND_S = 20.0  # each case answers in about a second; generous against a loaded machine
RSS_MB = 1200   # a child reading one small bomb (Python and the libraries take ~250 MB)
# the library's verdict on each file, one JSON line each: {"path", "code", "message", "text"}
_READ = """
import json, sys, time
from adachunk.errors import AdachunkError
from adachunk.ingest import read_document
errors = sys.argv[1]
for path in sys.argv[2:]:
    t = time.monotonic()
    try:
        doc = read_document(path, errors=errors)
        row = {"path": path, "code": None, "message": "", "text": doc.text}
    except AdachunkError as e:
        row = {"path": path, "code": e.code, "message": e.render(), "text": None}
    row["seconds"] = time.monotonic() - t
    print(json.dumps(row), flush=True)
"""


@dataclass
class Outcome:
    """What a child did: exit status, output, wall seconds and peak resident memory (MB)."""

    rc: int
    out: str
    err: str
    wall_s: float
    rss_mb: float
    timed_out: bool

    def rows(self) -> dict[str, dict]:
        """File name → what :func:`read_in_child` printed for it (code, message, text, seconds)."""
        rows = (json.loads(line) for line in self.out.splitlines() if line.startswith("{"))
        return {Path(r["path"]).name: r for r in rows}


def _ceiling(mb: int):
    def apply() -> None:
        limit = mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        os.setsid()  # its own group: a timeout kills whatever it started too
    return apply


def run_child(argv: list[str], *, mem_mb: int = MEM_CEILING_MB, limit_s: float = TIME_LIMIT_S,
              env: dict[str, str] | None = None) -> Outcome:
    """Run ``python argv...`` from the repository root under the ceilings."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.monotonic()
        proc = subprocess.Popen([sys.executable, *argv], cwd=ROOT, stdout=out, stderr=err, text=True,
                                env=full_env, preexec_fn=_ceiling(mem_mb))
        timed_out = False
        while True:  # os.wait4: this child's own peak memory, not the largest of the suite's children
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > limit_s:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.05)
        wall = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Outcome(proc.returncode, out.read(), err.read(), wall, usage.ru_maxrss / 1024, timed_out)


def read_in_child(*paths: Path, errors: str = "strict", **kw) -> Outcome:
    """:func:`adachunk.ingest.read_document` on each of ``paths`` in one bounded child."""
    return run_child(["-c", _READ, errors, *map(str, paths)], **kw)


def cli_in_child(*args: str, **kw) -> Outcome:
    """``adachunk ARGS`` in a bounded child."""
    return run_child(["-m", "adachunk.cli.main", *args], **kw)


def write_file(tmp_path: Path, name: str, data: bytes) -> Path:
    """``data`` written to ``tmp_path / name`` (a generated hostile file)."""
    path = tmp_path / name
    path.write_bytes(data)
    return path
