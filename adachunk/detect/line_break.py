"""Old import path of :mod:`adachunk.detect.text_units.line_break` (``line_break.v1``), kept working.

The module *is* the moved one (same object in ``sys.modules``), so its names and any
monkeypatching behave as before; importing it registers ``line_break.v1`` as before.
"""

import sys

from .text_units import line_break as _moved

sys.modules[__name__] = _moved
