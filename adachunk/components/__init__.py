"""Component plumbing: how a profile's ``type:`` keys become code.

* :mod:`.registry`: the registries (detectors, splitters, metrics, embedders, tokenizers,
  readers...) that map versioned names (``sentence.regex.v1``) to classes; plugins add to them
  through entry points in the group ``adachunk.<registry name>``;
* :mod:`.params`: ``ComponentParams``, the pydantic base of every component's parameters;
* :mod:`.build`: the one component builder and the translator of validation errors into coded
  profile errors (file, line, key, hint);
* :mod:`.builtins`: the built-in components' registration, imported on first need.

This package imports nothing of adachunk but :mod:`adachunk.errors` (the built-ins are named by
module path and imported on demand), so every stage may use it.
"""
