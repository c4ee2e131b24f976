"""The models several stages share: embedders (:mod:`.embedders`) and coreference backends
(:mod:`.coref`).

The metrics score with them, and so do the detectors that see what a metric sees
(``coref.pair.v1``, ``semantic.shift.v1``) and the semantic splitter, so they sit below all of
those (the ``layers`` contract in ``pyproject.toml``).

Importing this package is cheap: it imports neither subpackage.
"""
