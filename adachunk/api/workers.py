"""The bounded worker pool and its bounds (``chunk -j``, ``convert``, ``--doc-timeout``, ``--doc-memory``)."""

from __future__ import annotations

from ..runner.bounds import Bounds, parse_size
from ..runner.job import worker_init
from ..runner.pool import BoundedPool

__all__ = ["BoundedPool", "Bounds", "parse_size", "worker_init"]
