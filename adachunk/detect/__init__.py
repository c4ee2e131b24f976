"""Detectors: the structures of a document, as labelled spans.

Markdown blocks, grammar matches, regexes, sentences and words; the cost rules punish cuts
inside or just after them.
"""
