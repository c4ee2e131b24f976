"""Splitters: each turns a document into one candidate chunking.

The cost-optimal ``dp.v1`` and the fixed, recursive, page, sentence, semantic and LLM-regex
baselines; :mod:`adachunk.selection.candidates` runs a profile's candidate pool.
"""
