"""Base of every registered component's profile parameters (detectors, splitters, metrics)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ComponentParams(BaseModel):
    """Strict, immutable parameters: unknown keys are profile errors; every field is described."""

    model_config = ConfigDict(extra="forbid", frozen=True)
