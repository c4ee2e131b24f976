"""Detectors: the structures of a document, as labelled spans.

Markdown blocks, grammar matches, regexes, sentences and words; the cost rules punish cuts
inside or just after them.

The two readers that run over every document are packages holding their reference and their
fast paths together, each with a ``README.md`` stating what must stay equal and which tests
prove it: :mod:`adachunk.detect.markdown` (``markdown.block.v1``) and
:mod:`adachunk.detect.text_units` (``sentence.v1``, ``word.v1``, ``line_break.v1``).
"""
