"""Agreement of an offline coreference backend with the paper's precomputed Maverick pairs.

On the English CLAIR documents (``../shared/corpus/clair``, language "en"), compares a backend's
entity→pronoun pairs (default ``heuristic.v1``) with ``entity_pron_pairs`` (inclusive ends):

* pronoun detection: precision/recall of pronoun spans (same span exactly);
* links: a predicted pair is right when its pronoun span equals a reference pronoun span and
  the entity spans overlap; precision over predicted pairs, recall over reference pairs;
* recall is also given against the *comparable* reference: pairs whose pronoun is one of the
  third-person pronouns the backend targets (the reference also holds "that", "one", "US",
  "we", ... from the paper's lower-casing and POS-tag rules);
* RC of several chunkings (raw pages, paragraph-aligned windows of ~2.4k and ~5k characters,
  hard 1,000-character cuts) under both pair sets, and the rank correlation of those RC values,
  which says whether the backend orders chunkings as Maverick's pairs do.

Usage: ``python bench/coref_agreement.py [--backend heuristic.v1] [--limit N] [--json out.json]``.
Prints a Markdown report (the numbers of ``bench/COREF.md``).
"""

from __future__ import annotations

import argparse
import bisect
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adachunk.ingest import read_document  # noqa: E402
from adachunk.models.coref import _spacy, get_backend  # noqa: E402
from adachunk.models.coref.base import validate_pairs  # noqa: E402
from adachunk.models.coref.heuristic import PRONOUNS  # noqa: E402

CLAIR = ROOT.parent / "shared" / "corpus" / "clair"
CHUNKINGS = ("page", "para_2400", "para_5000", "hard_1000")


def english_docs(limit: int | None = None):
    """The English CLAIR documents as Documents, in file order."""
    files = sorted(p for p in CLAIR.glob("*.json") if p.name not in ("manifest.json", "paper_reference.json"))
    docs = [d for d in (read_document(p) for p in files) if d.meta.get("language") == "en"]
    return docs[:limit] if limit else docs


def cuts_of(doc, kind: str) -> list[int]:
    """Interior boundaries of one chunking of ``doc``."""
    if kind == "page":
        return [p.start for p in (doc.pages or [])[1:]]
    if kind == "hard_1000":
        return list(range(1000, len(doc.text), 1000))
    size = int(kind.split("_")[1])
    blocks = _spacy.sized_blocks(doc.text, len, size)
    return [blocks[i][0] for i, _ in _spacy.group_windows([b - a for a, b in blocks], size, 0)[1:]]


def rc(pairs, cuts: list[int]) -> float | None:
    """RC = 1 − share of pairs with a boundary x, a < x ≤ b (paper §1.5)."""
    if not pairs:
        return None
    missing = 0
    for ent, pron in pairs:
        first, second = (pron, ent) if pron[0] < ent[0] else (ent, pron)
        k = bisect.bisect_right(cuts, first[0])
        missing += k < len(cuts) and cuts[k] <= second[1]
    return 1.0 - missing / len(pairs)


def third_person(text: str, pron) -> bool:
    """Whether a reference pronoun span is one of the third-person pronouns the backend targets."""
    word = text[pron[0]:pron[1] + 1]
    return word.lower() in PRONOUNS and word != "US"


def comparable(ref, text: str) -> list:
    """Reference pairs a local resolver could produce: third-person pronoun after its entity."""
    return [(e, p) for e, p in ref if third_person(text, p) and e[0] < p[0]]


def agreement(pred, ref, text: str) -> dict:
    """Detection and link counts of predicted vs reference pairs."""
    ref_by_pron = {}
    for ent, pron in ref:
        ref_by_pron.setdefault(pron, []).append(ent)
    comparable = {p for p in ref_by_pron if third_person(text, p)}
    pred_prons = {pron for _, pron in pred}
    hits = pred_prons & set(ref_by_pron)
    links = sum(any(e[0] <= ent[1] and ent[0] <= e[1] for e in ref_by_pron.get(pron, ())) for ent, pron in pred)
    return {"pred": len(pred_prons), "ref": len(ref_by_pron), "ref3": len(comparable), "hit": len(hits),
            "hit3": len(hits & comparable), "link": links}


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def spearman(x: list[float], y: list[float]) -> float:
    """Spearman rank correlation (average ranks for ties)."""
    def ranks(v):
        order = sorted(range(len(v)), key=v.__getitem__)
        r = [0.0] * len(v)
        i = 0
        while i < len(v):
            j = i
            while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2
            i = j + 1
        return r
    rx, ry = ranks(x), ranks(y)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    den = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return num / den if den else float("nan")


class XrennerPairs:
    """xrenner 2.2 rule-based (``pip install --no-deps xrenner six xmltodict``) on the spaCy parse.

    Not a registered backend: a comparison point only. Its clusters (CoNLL brackets over the
    parse's non-space tokens) go through maverick.v1's pair extraction.
    """

    def __init__(self):
        from xrenner import Xrenner

        self.nlp = _spacy.load_nlp()
        self.xr = Xrenner(model="eng", rule_based=True, no_seq=True)
        # its post-processing crashes (max() of an empty sequence) on some chains of these texts;
        # the filter only unifies entity types inside a chain, which the pairs do not use
        self.xr.lex.filters["force_single_type_chains"] = False

    @staticmethod
    def conllu(parsed):
        """CoNLL-U of the parse without whitespace tokens, plus each token's inclusive char span."""
        lines, spans = [], []
        for sent in parsed.sents:
            toks = [t for t in sent if not t.is_space]
            idx = {t.i: k for k, t in enumerate(toks, 1)}
            for k, t in enumerate(toks, 1):
                head = idx.get(t.head.i, 0) if t.head.i != t.i else 0
                word, lemma = (x.replace("\\", "/") or "_" for x in (t.text, t.lemma_))  # xrenner regex-substitutes them
                lines.append("\t".join([str(k), word, lemma, t.pos_ or "X", t.tag_ or "_",
                                        str(t.morph) or "_", str(head), "root" if head == 0 else t.dep_, "_", "_"]))
                spans.append((t.idx, t.idx + len(t.text) - 1))
            if toks:
                lines.append("")
        return "\n".join(lines) + "\n", spans

    def pairs(self, doc):
        from types import SimpleNamespace

        from adachunk.models.coref.maverick import clusters_to_pairs

        clusters, self.failed = {}, 0
        for w, (start, end, _) in enumerate(_spacy.char_windows(doc.text, 4000, overlap=0)):
            try:  # xrenner crashes on some inputs (regex-special heads, empty chains): skip that window
                self._window(doc.text, start, end, f"w{w}_", clusters)
            except Exception:  # noqa: BLE001
                self.failed += 1
        return SimpleNamespace(pairs=clusters_to_pairs(clusters.values(), doc.text))

    def _window(self, text, start, end, tag, clusters):
        conll, spans = self.conllu(self.nlp(text[start:end]))
        spans = [(a + start, b + start) for a, b in spans]
        found, open_at, k = {}, {}, -1
        for line in self.xr.analyze(conll, "conll").splitlines():
            cols = line.split("\t")
            if len(cols) < 3 or not cols[0].isdigit():
                continue
            k += 1
            for mark in cols[2].split("|"):
                mark = mark.strip()
                if not mark or mark == "_":
                    continue
                cid = mark.strip("()")
                if mark.startswith("("):
                    open_at.setdefault(cid, []).append(k)
                if mark.endswith(")") and open_at.get(cid):
                    a = open_at[cid].pop()
                    found.setdefault(tag + cid, []).append((spans[a][0], spans[k][1]))
        clusters.update(found)  # only when the whole window went through


def run(backend_name: str, limit: int | None, only: list[str] | None = None) -> dict:
    """Per-document rows plus totals."""
    rows = []
    if backend_name in ("heuristic.v1", "xrenner"):
        _spacy.load_nlp()  # load once up front so per-document times are parse + resolution only
    xrenner = XrennerPairs() if backend_name == "xrenner" else None
    for doc in english_docs(limit):
        if only and not any(o in doc.id for o in only):
            continue
        ref, _ = validate_pairs(doc.entity_pron_pairs, len(doc.text))
        backend = xrenner or get_backend({"type": backend_name}, doc)
        t, cpu = time.perf_counter(), time.process_time()
        ps = backend.pairs(doc)
        secs, cpu = time.perf_counter() - t, time.process_time() - cpu
        row = {"doc": doc.id, "chars": len(doc.text), "seconds": secs, "cpu": cpu,
               **agreement(ps.pairs, ref, doc.text)}
        for kind in CHUNKINGS:
            cuts = cuts_of(doc, kind)
            row[f"rc_{kind}"] = (rc(ref, cuts), rc(comparable(ref, doc.text), cuts), rc(ps.pairs, cuts))
        rows.append(row)
        print(f"{doc.id[:60]:60} {secs:6.1f}s pred={row['pred']} ref={row['ref']} hit={row['hit']} "
              f"link={row['link']} failed_windows={getattr(backend, 'failed', 0)}", file=sys.stderr, flush=True)
    return {"backend": backend_name, "rows": rows}


def report(res: dict) -> str:
    """Markdown tables of the results."""
    rows = res["rows"]
    tot = {k: sum(r[k] for r in rows)
           for k in ("pred", "ref", "ref3", "hit", "hit3", "link", "chars", "seconds", "cpu")}
    out = [f"Backend `{res['backend']}` on {len(rows)} English CLAIR documents "
           f"({tot['chars']:,} characters).", "",
           "| document | chars | s | pron. P | pron. R | R (3rd pers.) | link P | link R | RC page ref | RC page pred |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        ref_rc, _, pred_rc = r["rc_page"]
        out.append(f"| {r['doc'][:55]} | {r['chars']:,} | {r['seconds']:.1f} | {ratio(r['hit'], r['pred']):.2f} | "
                   f"{ratio(r['hit'], r['ref']):.2f} | {ratio(r['hit3'], r['ref3']):.2f} | "
                   f"{ratio(r['link'], r['pred']):.2f} | {ratio(r['link'], r['ref']):.2f} | "
                   f"{fmt(ref_rc)} | {fmt(pred_rc)} |")
    out += ["", f"**Overall (micro):** pronoun detection P = {ratio(tot['hit'], tot['pred']):.3f}, "
            f"R = {ratio(tot['hit'], tot['ref']):.3f} (R on third-person reference pronouns "
            f"{ratio(tot['hit3'], tot['ref3']):.3f}); links P = {ratio(tot['link'], tot['pred']):.3f}, "
            f"R = {ratio(tot['link'], tot['ref']):.3f}; link accuracy on shared pronouns "
            f"{ratio(tot['link'], tot['hit']):.3f}. Pairs: predicted {tot['pred']:,}, reference {tot['ref']:,} "
            f"({tot['ref3']:,} third-person).",
            f"**Speed:** {tot['seconds']:.0f} s wall ({tot['cpu']:.0f} s CPU) in all: "
            f"{100_000 * tot['seconds'] / tot['chars']:.2f} s wall, {100_000 * tot['cpu'] / tot['chars']:.2f} s CPU "
            "per 100k characters (the one-off spaCy model load excluded).", "",
            "Comparable Maverick pairs: third-person pronoun after its entity (what a local resolver can "
            "produce). Spearman: backend RC against Maverick RC over the documents.", "",
            "| chunking | mean RC Maverick | mean RC Maverick comparable | mean RC backend | Spearman "
            "vs Maverick | Spearman vs comparable |",
            "|---|---:|---:|---:|---:|---:|"]
    cols: list[list[float]] = [[], [], []]
    for kind in CHUNKINGS:
        trios = [r[f"rc_{kind}"] for r in rows if None not in r[f"rc_{kind}"]]
        xs, cs, ys = ([t[i] for t in trios] for i in range(3))
        for col, vals in zip(cols, (xs, cs, ys)):
            col += vals
        out.append(f"| {kind} | {100 * statistics.fmean(xs):.2f} | {100 * statistics.fmean(cs):.2f} | "
                   f"{100 * statistics.fmean(ys):.2f} | {spearman(xs, ys):.2f} | {spearman(cs, ys):.2f} |")
    out.append("")
    out.append(f"Spearman over all (document, chunking) RC values: backend vs Maverick "
               f"{spearman(cols[0], cols[2]):.2f}, backend vs comparable {spearman(cols[1], cols[2]):.2f}, "
               f"comparable vs Maverick {spearman(cols[0], cols[1]):.2f}. " + ranking_agreement(rows))
    return "\n".join(out)


def ranking_agreement(rows) -> str:
    """Share of documents where both pair sets rank the chunkings' RC in the same order."""
    same = 0
    for r in rows:
        ref = [r[f"rc_{k}"][0] for k in CHUNKINGS]
        pred = [r[f"rc_{k}"][2] for k in CHUNKINGS]
        if None in ref or None in pred:
            continue
        same += max(CHUNKINGS, key=lambda k: (ref[CHUNKINGS.index(k)], k)) == \
            max(CHUNKINGS, key=lambda k: (pred[CHUNKINGS.index(k)], k))
    return f"Same best chunking (by RC alone) in {same}/{len(rows)} documents."


def fmt(v) -> str:
    return "—" if v is None else f"{100 * v:.2f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="heuristic.v1", help="registered backend, or 'xrenner' (comparison)")
    ap.add_argument("--limit", type=int, default=None, help="first N English documents only")
    ap.add_argument("--only", nargs="*", default=None, help="documents whose id contains one of these")
    ap.add_argument("--json", default=None, help="also write the raw rows here")
    args = ap.parse_args()
    if not CLAIR.is_dir():
        sys.exit(f"{CLAIR} not found: the shared CLAIR corpus is needed")
    res = run(args.backend, args.limit, args.only)
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1), encoding="utf-8")
    print(report(res))


if __name__ == "__main__":
    main()
