"""What a reader retrieves from chunks and what it reads: shared by ``adachunk eval`` and the
``rf.v1`` metric, so it sits below both.

* :mod:`.retrievers`: BM25, dense and hybrid (RRF) retrieval over chunk texts;
* :mod:`.measures`: reading ranked chunks within a budget, and the per-question measures;
* :mod:`.questions`: proxy questions made from a document's own prose sentences
  (``adachunk eval generate``; the metric's probes pick their sentences the same way).

Importing this package is cheap: it imports none of them.
"""
