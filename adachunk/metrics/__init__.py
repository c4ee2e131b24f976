"""The intrinsic metrics of a chunking: SC, BI, RC, ICC and DCC, each in [0, 1].

:mod:`.suite` runs the metrics on a chunking. The embedders ICC and DCC use and the coreference
backends RC uses are in :mod:`adachunk.models` (the detectors use them too).
"""
