"""The HTML views of a document's chunks and structures (``adachunk view``, ``adachunk detect``)."""

from __future__ import annotations

from ..report.view import ViewData, build_view, default_labels, render_view

__all__ = ["ViewData", "build_view", "default_labels", "render_view"]
