"""PathIndex.chain (one lookup in stacks made once) equals replaying the units before a position."""

from __future__ import annotations

import bisect

from hypothesis import given, settings
from hypothesis import strategies as st

from adachunk.enrich.paths import _CONTAINER_RANK, PathIndex, Unit


def replayed_chain(units: list[Unit], pos: int) -> list[Unit]:
    """The plain formulation: every unit starting at or before ``pos``, in order."""
    stack: list[Unit] = []
    for u in units[: bisect.bisect_right([u.start for u in units], pos)]:
        stack = [s for s in stack if s.rank < u.rank]
        stack.append(u)
    return [u for u in stack if not (u.rank >= _CONTAINER_RANK and pos >= u.end)]


units_strategy = st.lists(st.tuples(st.integers(0, 200), st.integers(1, 80), st.integers(0, 6)), max_size=40).map(
    lambda rows: [Unit(s, s + w, r, f"u{i}", "kind", str(i), (s, s + 1))
                  for i, (s, w, r) in enumerate(sorted(rows, key=lambda t: t[0]))])


@settings(max_examples=300, deadline=None)
@given(units=units_strategy, positions=st.lists(st.integers(-5, 300), max_size=30))
def test_chain_equals_the_replay(units, positions):
    index = PathIndex(units)
    for pos in positions:
        assert index.chain(pos) == replayed_chain(units, pos)
    ordered = sorted(positions)
    assert index.chains(ordered) == [replayed_chain(units, p) for p in ordered]
