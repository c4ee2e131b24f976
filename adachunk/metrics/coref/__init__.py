"""Old import path of :mod:`adachunk.models.coref`, kept working (the coreference backends moved
below the detectors, which use them too).

The package and each of its modules *are* the moved ones (the same objects in ``sys.modules``),
so names, registrations, pickles and monkeypatching behave as before.
"""

import importlib
import pkgutil
import sys

from ...models import coref as _moved

for _sub in pkgutil.iter_modules(_moved.__path__):
    sys.modules[f"{__name__}.{_sub.name}"] = importlib.import_module(f"{_moved.__name__}.{_sub.name}")
sys.modules[__name__] = _moved
