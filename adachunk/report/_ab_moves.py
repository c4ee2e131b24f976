"""Which rules moved which boundaries between two profiles (the "why" of an A/B diff).

For every cut that only one side makes, both profiles' punishments are evaluated at that
position (the same per-rule breakdown ``adachunk explain`` prints for a chosen cut). A cut that
only A makes was *left* by B where B's rules cost more than A's there; a cut that only B makes
was *taken* by B where B's rules cost less than A's. Each rule whose contribution differs in
that direction is credited with the move. A moved cut that no rule difference explains was moved
by the sizes or the chunk cost (or by where the other cuts went).

Only a DP winner's cuts are decided by the rules; when a side's winner is another splitter
(page, recursive), the report says so, with what the profile's hard rules repaired in it, and
still shows how the rules price its cuts.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

import numpy as np


def rule_costs(doc, policy, positions: Sequence[int]) -> list[dict[str, int]]:
    """Per position, each rule's (non-zero) contribution under ``policy`` (``on`` + ``off``)."""
    from ..cost.lattice import breakdown
    from ..detect.base import DetectContext
    from ..split.dp import detect_all

    if not positions:
        return []
    n = len(doc.text)
    structures = detect_all(policy, DetectContext(doc.text, doc, metrics=policy.metrics))
    P = np.array([0, *positions, n], dtype=np.int64)
    parts = breakdown(P, list(range(1, len(positions) + 1)), structures, list(policy.rules), n)
    out = []
    for contribs in parts:
        per: dict[str, int] = {}
        for c in contribs:
            per[c.rule] = per.get(c.rule, 0) + int(c.value)
        out.append(per)
    return out


def explain_moves(doc, policy_a, cuts_a: Sequence[int], policy_b, cuts_b: Sequence[int]) -> dict[str, Any]:
    """The differing cuts of one document with the rules that moved them.

    Returns:
        ``{"cuts": [{position, side, cost_a, cost_b, rules: {rule: B - A}}], "rules": {rule:
        moves}, "unexplained": n}`` where ``side`` is ``a`` (only A cuts there) or ``b``.
    """
    sa, sb = set(cuts_a), set(cuts_b)
    positions = sorted(p for p in sa ^ sb if 0 < p < len(doc.text))
    costs_a, costs_b = rule_costs(doc, policy_a, positions), rule_costs(doc, policy_b, positions)
    rows, credit, unexplained = [], Counter(), 0
    for pos, ca, cb in zip(positions, costs_a, costs_b):
        side = "a" if pos in sa else "b"
        delta = {r: cb.get(r, 0) - ca.get(r, 0) for r in sorted(set(ca) | set(cb))}
        delta = {r: d for r, d in delta.items() if d}
        # B leaves A's cut where its rules cost more; B takes a cut where its rules cost less
        movers = [r for r, d in delta.items() if (d > 0 if side == "a" else d < 0)]
        credit.update(movers)
        unexplained += not movers
        rows.append({"position": pos, "side": side, "cost_a": sum(ca.values()), "cost_b": sum(cb.values()),
                     "rules": delta, "moved_by": movers})
    return {"cuts": rows, "rules": dict(credit.most_common()), "unexplained": unexplained}


def attribute_moves(summary: dict[str, Any], runs, *, max_documents: int = 200) -> None:
    """Add the rules behind the moved boundaries to ``summary`` (in place).

    Each differing document of ``summary["boundaries"]["documents"]`` gets ``moves`` (see
    :func:`explain_moves`, or ``skipped`` with the reason), and ``summary["boundaries"]`` gets
    ``rules``: per rule, the moved cuts and the documents it moved cuts in, over all documents.
    """
    from ..profile.cached import load_profile
    from ..ingest import read_document

    run_a, run_b = runs
    try:
        pol_a, pol_b = load_profile(run_a.profile).policy, load_profile(run_b.profile).policy
    except Exception as exc:  # the profiles changed or vanished since the runs: say so, keep the report
        summary["boundaries"]["rules_error"] = f"{type(exc).__name__}: {exc}"
        return
    totals: Counter = Counter()
    docs_per_rule: Counter = Counter()
    unexplained = 0
    for k, d in enumerate(summary["boundaries"]["documents"]):
        if k >= max_documents:
            d["moves"] = {"skipped": f"only the first {max_documents} documents are explained"}
            continue
        dec_a, dec_b = run_a.decisions[d["source"]], run_b.decisions[d["source"]]
        try:
            doc = read_document(d["source"])
        except Exception as exc:
            d["moves"] = {"skipped": f"cannot read the document: {exc}"}
            continue
        if doc.content_hash != dec_a.get("content_hash") or doc.content_hash != dec_b.get("content_hash"):
            d["moves"] = {"skipped": "the document changed since the runs"}
            continue
        moves = explain_moves(doc, pol_a, run_a.cuts(d["source"]), pol_b, run_b.cuts(d["source"]))
        moves["winner_a"], moves["winner_b"] = dec_a.get("winner"), dec_b.get("winner")
        not_dp = [_not_dp(side, dec) for side, dec in (("a", dec_a), ("b", dec_b)) if dec.get("winner_type") != "dp.v1"]
        if not_dp:
            moves["note"] = "; ".join(not_dp)
        d["moves"] = moves
        totals.update(moves["rules"])
        docs_per_rule.update(moves["rules"].keys())
        unexplained += moves["unexplained"]
    summary["boundaries"]["rules"] = {r: {"moved_cuts": n, "documents": docs_per_rule[r]}
                                      for r, n in totals.most_common()}
    summary["boundaries"]["unexplained_cuts"] = unexplained


def _not_dp(side: str, dec: dict[str, Any]) -> str:
    """Why a side's cuts are not all the rules' choice: its winner is another splitter, whose cuts
    the profile's hard rules only checked and repaired (or did not, without hard rules)."""
    head = f"{side.upper()}'s winner {dec.get('winner')} is {dec.get('winner_type')}, not the DP"
    winner = next((c for c in dec.get("candidates", []) if c.get("name") == dec.get("winner")), {})
    rec = winner.get("hard_rules")
    if not rec:
        return head + ": its cuts are not decided by the rules (the profile declares no hard rules)"
    return (head + f": its cuts are the splitter's, held to the profile's hard rules ({rec.get('found', 0)} "
            f"offending, {rec.get('repaired', 0)} repaired, {rec.get('remaining', 0)} left)")


def top_rules(moves: dict[str, Any], k: int = 3) -> str:
    """``"article_paragraph (12), heading (3)"``: the rules that moved most cuts in one document."""
    rules = (moves or {}).get("rules") or {}
    return ", ".join(f"{r} ({n})" for r, n in list(rules.items())[:k])
