"""``make_chunk``: the splitters' fast constructor gives the object ``Chunk(...)`` gives."""

from __future__ import annotations

import dataclasses

import pytest

from adachunk.datatypes import Chunk, make_chunk

VALUES = (3, 10, 25, "some text", 15, 4, ("Title", "Section"), (1, 2), "0123456789abcdef", 12)


def test_make_chunk_equals_the_constructor():
    made, built = make_chunk(*VALUES), Chunk(*VALUES)
    assert made == built
    assert hash(made) == hash(built)
    assert dataclasses.astuple(made) == VALUES
    assert repr(made) == repr(built)


def test_make_chunk_follows_the_fields_in_order():
    # make_chunk sets the slots in declaration order: a new or reordered field must show here
    assert [f.name for f in dataclasses.fields(Chunk)] == [
        "index", "start", "end", "text", "size", "tokens", "heading_path", "pages", "id", "core_start"]
    assert Chunk.__slots__ == tuple(f.name for f in dataclasses.fields(Chunk))


def test_made_chunk_stays_frozen():
    made = make_chunk(*VALUES)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.start = 0  # type: ignore[misc]
    assert made.core_span == (12, 25)
