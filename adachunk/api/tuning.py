"""Profile tuning (``adachunk tune``)."""

from __future__ import annotations

from ..tune import tune
from ..tune.output import pooled

__all__ = ["pooled", "tune"]
