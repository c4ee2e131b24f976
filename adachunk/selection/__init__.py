"""The adaptive selection: per document, the profile's candidate chunkings are built, scored and
the best one chosen.

* :mod:`.candidates`: each candidate of the pool built from the profile (``make_splitter``) and
  run with the profile's rules and post-processing (``run_candidate``, ``run_candidates``);
* :mod:`.aggregate`: the metrics' values of the candidates normalised and weighted into one score;
* :mod:`.choose`: :func:`select_document`, the candidates scored and the winner chosen
  (``choose``), with the decision's record.

The sizes the pool's ``auto`` candidates take (the size ladder of the retrieval regime) stay in
:mod:`adachunk.split.ladder`: profile resolution reads them, below this package.
"""

from .choose import CandidateResult, Decision, choose, select_document

__all__ = ["CandidateResult", "Decision", "choose", "select_document"]
