"""The base class of candidate splitters (``dp.v1``, ``recursive.v1``, ``page.v1`` ...).

A splitter is registered under a versioned name (``@splitters.register("fixed.v1")``), declares
its profile fields as a pydantic ``Params`` model, and turns one document into a
:class:`~adachunk.datatypes.Chunking` under the policy it is given; the profile layer validates the
fields against ``Params`` (coded ``ADA2xx`` errors) before the splitter is made. Plugins may
subclass it, or register any class with the same two members.
"""

from __future__ import annotations

from typing import ClassVar

from ..components.params import ComponentParams
from ..policy import Policy
from ..datatypes import Chunking, Document


class Splitter:
    """Base class of candidate splitters: a ``Params`` model and :meth:`split`."""

    Params: ClassVar[type[ComponentParams]] = ComponentParams

    def __init__(self, params: ComponentParams | None = None):
        self.params = params if params is not None else self.Params()

    def split(self, doc: Document, policy: Policy) -> Chunking:  # pragma: no cover - interface
        """The candidate chunking of ``doc`` under ``policy``."""
        raise NotImplementedError
