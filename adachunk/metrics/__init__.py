"""The intrinsic metrics of a chunking: SC, BI, RC, ICC and DCC, each in [0, 1].

Also the embedders ICC and DCC use and the coreference backends RC uses; :mod:`.suite` runs
the metrics on a chunking.
"""
