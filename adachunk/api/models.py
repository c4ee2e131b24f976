"""The embedding models and the start-up cache (``adachunk models``, ``adachunk cache``)."""

from __future__ import annotations

from ..components.registry import embedders
from ..models.embedders import m2v
from ..models.embedders.st import resolve_model
from ..runtime import cachedir as startup_cache

__all__ = ["embedders", "m2v", "resolve_model", "startup_cache"]
