"""The fast paths of :mod:`adachunk.datatypes`: ``Structure``'s constructor keeps a frozen
dataclass's behaviour; ``span_arrays`` hands back a pair it made without sorting it again."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import numpy as np
import pytest

from adachunk.datatypes import Structure, span_arrays


@dataclasses.dataclass(frozen=True, slots=True, order=True)
class _Twin:
    """The plain frozen dataclass Structure is declared as."""

    start: int
    end: int
    label: str
    level: int = 0


def test_constructor_sets_every_field_positionally_and_by_name():
    assert Structure(1, 5, "heading", 2) == Structure(start=1, end=5, label="heading", level=2)
    s = Structure(3, 9, "word")
    assert (s.start, s.end, s.label, s.level) == (3, 9, "word", 0)
    with pytest.raises(TypeError):
        Structure(1, 2)  # type: ignore[call-arg]


def test_still_frozen_hashable_ordered_and_copyable():
    s = Structure(1, 5, "heading", 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.start = 4  # type: ignore[misc]
    spans = [Structure(4, 6, "b"), Structure(1, 9, "a", 1), Structure(1, 5, "a")]
    twins = [_Twin(x.start, x.end, x.label, x.level) for x in spans]
    assert [(x.start, x.end, x.label, x.level) for x in sorted(spans)] == [
        (x.start, x.end, x.label, x.level) for x in sorted(twins)]
    assert hash(s) == hash(Structure(1, 5, "heading", 2)) and len({s, Structure(1, 5, "heading", 2)}) == 1
    assert pickle.loads(pickle.dumps(s)) == s == copy.deepcopy(s)
    assert dataclasses.replace(s, level=3) == Structure(1, 5, "heading", 3)
    assert repr(s) == "Structure(start=1, end=5, label='heading', level=2)"


def test_span_arrays_reuses_its_own_sorted_pair():
    spans = [Structure(5, 9, "x"), Structure(1, 3, "x"), Structure(1, 2, "x")]
    first = span_arrays(spans)
    assert first[0].tolist() == [1, 1, 5] and first[1].tolist() == [3, 2, 9]  # stable by start
    assert span_arrays(first) is first  # known sorted: not checked again
    assert first == tuple(first) and isinstance(first, tuple)
    raw = (np.array([4, 2]), np.array([6, 3]))  # a plain pair is still sorted
    got = span_arrays(raw)
    assert got[0].tolist() == [2, 4] and got[1].tolist() == [3, 6]
