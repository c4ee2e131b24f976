"""Acceptance: the A/B ``report.html`` renders in a real browser (headless Chromium).

Skipped when ``/usr/bin/chromium`` is absent (Debian package ``chromium``). The page's own
inline script writes ``data-images-ok`` on ``<body>`` after checking that every ``<img>``
decoded; ``--dump-dom`` returns the DOM after the load event, so the test reads the verdict
from there. Console messages of the page (errors, CSP violations, uncaught exceptions) are
logged by Chromium as ``CONSOLE`` lines on stderr: there must be none.
"""

from __future__ import annotations

import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from adachunk.report.ab import run_ab

from .test_ab import copy_examples, write_profiles

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


class _Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.body: dict[str, str | None] = {}
        self.tables: list[str | None] = []
        self.images = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        elif tag == "table":
            self.tables.append(a.get("id") or a.get("class"))
        elif tag == "img":
            self.images += 1


def _chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [str(CHROMIUM), *FLAGS, f"--user-data-dir={tmp / 'profile'}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=90, check=False)


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed (apt-get install -y chromium)")
    tmp = tmp_path_factory.mktemp("ab_browser")
    prof_a, prof_b = write_profiles(tmp)
    corpus = copy_examples(tmp / "corpus", ("technical_manual_excerpt.md",))
    res = run_ab([str(corpus)], prof_a, prof_b, tmp / "out", workers=1, progress=False)
    assert res.summary["boundaries"]["documents_differing"] == 1  # the page has a boundary view
    return res.out / "report.html"


def test_report_renders_tables_and_images_without_console_errors(report, tmp_path):
    proc = _chromium(tmp_path, "--enable-logging=stderr", "--v=0", "--dump-dom", report.resolve().as_uri())
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = _Dom()
    dom.feed(proc.stdout)
    assert {"metrics", "outcomes", "selection", "sizes", "documents"} <= set(dom.tables) and "sbs" in dom.tables
    assert dom.images == 3
    assert dom.body.get("data-images-ok") == "true" and dom.body.get("data-images-checked") == "3"
    page_messages = [line for line in proc.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert not page_messages, page_messages


def test_report_screenshot_is_not_blank(report, tmp_path):
    shot = tmp_path / "report.png"
    proc = _chromium(tmp_path, "--window-size=1280,2000", f"--screenshot={shot}", report.resolve().as_uri())
    assert proc.returncode == 0 and shot.is_file(), proc.stderr[-2000:]
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 10_000
