"""Where a run keeps its own state inside an output folder (``OUT/.adachunk/``): the one owner
of those paths, so the lock, the manifest, the per-document results, the analysis store and the
clean-up of killed runs' temporary files agree on them.

* ``lock``: the folder's run lock (:mod:`adachunk.runner.lock`);
* ``manifest.json``: what the folder holds (:mod:`adachunk.runner.manifest`);
* ``results/<key>.json`` (+ ``.npy``): each finished document (:mod:`adachunk.runner.state`);
* ``analysis/``: the per-document facts the stages share (:mod:`adachunk.analysis.store`).
"""

from __future__ import annotations

import os
from pathlib import Path

STATE = ".adachunk"


def state_dir(out: str | os.PathLike) -> Path:
    """``OUT/.adachunk``."""
    return Path(out) / STATE


def lock_path(out: str | os.PathLike) -> Path:
    """``OUT/.adachunk/lock``."""
    return state_dir(out) / "lock"


def manifest_path(out: str | os.PathLike) -> Path:
    """``OUT/.adachunk/manifest.json``."""
    return state_dir(out) / "manifest.json"


def results_dir(out: str | os.PathLike) -> Path:
    """``OUT/.adachunk/results``."""
    return state_dir(out) / "results"


def analysis_dir(out: str | os.PathLike) -> Path:
    """``OUT/.adachunk/analysis``."""
    return state_dir(out) / "analysis"


def written_folders(out: str | os.PathLike) -> tuple[Path, ...]:
    """The folders a run writes files into atomically (through temporary files): the output
    folder, its state folder and the results."""
    return Path(out), state_dir(out), results_dir(out)
