"""Every shipped splitter is a :class:`~adachunk.split.base.Splitter` with a strict ``Params``."""

from __future__ import annotations

import pytest

from adachunk.components.builtins import LAZY, load_all
from adachunk.components.params import ComponentParams
from adachunk.components.registry import splitters
from adachunk.split.base import Splitter

load_all()  # the eager modules (dp.v1) and every lazy one
SHIPPED = sorted(set(LAZY["splitters"]) | {"dp.v1"})


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_splitters_share_the_base(name):
    cls = splitters.get(name)
    assert issubclass(cls, Splitter)
    assert issubclass(cls.Params, ComponentParams) and cls.Params.model_config.get("extra") == "forbid"
    made = cls()
    assert isinstance(made.params, cls.Params)  # defaults when no params are given


def test_given_params_are_kept():
    cls = splitters.get("fixed.v1")
    params = cls.Params(chunk_size=64)
    assert cls(params).params is params
