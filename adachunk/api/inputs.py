"""What every command shares: its inputs expanded, its output lines, its write errors."""

from __future__ import annotations

from ..ingest.discover import expand_inputs
from ..sink.records import dumps
from ..sink.files import write_error

__all__ = ["dumps", "expand_inputs", "write_error"]
