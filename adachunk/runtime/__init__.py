"""What the process itself needs, for every stage: nothing of adachunk's own.

* :mod:`.jit`: the shared compiler (Numba, loaded lazily; a function runs uncompiled until the
  input is long enough to pay for compiling it);
* :mod:`.cachedir`: the start-up cache on disk (marshalled code, vocabularies, model exports),
  keyed by content and pruned to its cap;
* :mod:`.gcpause`: the garbage collector paused while a document's many small objects are made.
"""
