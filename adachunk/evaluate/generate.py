"""Old import path of :mod:`adachunk.retrieval.questions`, kept working (it moved below the metrics,
whose ``rf.v1`` uses it too).

The module *is* the moved one (same object in ``sys.modules``), so its names and any
monkeypatching behave as before.
"""

import sys

from ..retrieval import questions as _moved

sys.modules[__name__] = _moved
