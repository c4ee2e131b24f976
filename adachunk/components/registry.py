"""Versioned component registries (``family.variant.vN``) mapping profile ``type:`` keys to code.

Plugins add to a registry either by calling :meth:`Registry.register` or by declaring a Python
entry point in the group ``adachunk.<registry name>`` (for example ``adachunk.detectors``); entry
points are loaded lazily on the first miss so start-up stays cheap. Built-in components that
not every command needs are declared with :meth:`Registry.lazy`: their names are known (for
validation and "did you mean"), their module is imported on first :meth:`Registry.get`.
"""

from __future__ import annotations

import importlib
from importlib import metadata
from typing import Any, Generic, TypeVar

from ..errors import ProfileError, did_you_mean

T = TypeVar("T")


class Registry(Generic[T]):
    """A name → component table with helpful errors on a miss."""

    def __init__(self, name: str):
        self.name = name
        self._items: dict[str, T] = {}
        self._lazy: dict[str, str] = {}  # name -> module that registers it on import
        self._entry_points_loaded = False

    def register(self, name: str, obj: T | None = None) -> Any:
        """Register ``obj`` under ``name``; usable as a decorator when ``obj`` is omitted."""

        def deco(o: T) -> T:
            self._items[name] = o
            return o

        return deco(obj) if obj is not None else deco

    def lazy(self, name: str, module: str) -> None:
        """Declare ``name`` as registered by ``module``, imported on the first :meth:`get`."""
        if name not in self._items:
            self._lazy[name] = module

    def _load_entry_points(self) -> None:
        if self._entry_points_loaded:
            return
        self._entry_points_loaded = True
        for ep in metadata.entry_points(group=f"adachunk.{self.name}"):
            if ep.name not in self._items:
                self._items[ep.name] = ep.load()

    def names(self) -> list[str]:
        """All registered names, sorted."""
        self._load_entry_points()
        return sorted(set(self._items) | set(self._lazy))

    def __contains__(self, name: object) -> bool:
        if name in self._items or name in self._lazy:
            return True
        self._load_entry_points()
        return name in self._items

    def get(self, name: str) -> T:
        """Return the component, or raise ``ADA205`` listing what exists."""
        if name not in self._items and name in self._lazy:
            importlib.import_module(self._lazy[name])  # registers it
        if name in self._items:
            return self._items[name]
        self._load_entry_points()
        if name in self._items:
            return self._items[name]
        raise ProfileError(
            code="ADA205",
            message=f"unknown {self.name} '{name}'",
            allowed=self.names(),
            hint=did_you_mean(name, self.names()),
        )


detectors: Registry[Any] = Registry("detectors")
shapes: Registry[Any] = Registry("shapes")
splitters: Registry[Any] = Registry("splitters")
metrics: Registry[Any] = Registry("metrics")
tokenizers: Registry[Any] = Registry("tokenizers")
readers: Registry[Any] = Registry("readers")
embedders: Registry[Any] = Registry("embedders")
coref: Registry[Any] = Registry("coref")
