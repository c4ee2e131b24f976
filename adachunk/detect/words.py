"""Old import path of :mod:`adachunk.detect.text_units.words` (the word reference), kept working.

The module *is* the moved one (same object in ``sys.modules``), so its private names and any
monkeypatching behave as before.
"""

import sys

from .text_units import words as _moved

sys.modules[__name__] = _moved
