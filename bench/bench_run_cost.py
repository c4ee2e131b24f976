"""What the adaptive run costs against "chunk + embed" (issue 47): CPU seconds and wall time of

* ``adachunk run`` writing its index (the default profile, the default sink, LanceDB);
* ``adachunk run --sink none`` (the selection alone: chunks, decisions, no index);
* chonkie RecursiveChunker at 256 tokens + the same embedder encoding its chunks;
* ``adachunk chunk`` (the DP at the profile's size) + the same embedder encoding its chunks;

side by side in one invocation, each a fresh process (``resource.getrusage(RUSAGE_CHILDREN)``),
on the same Markdown files: CLAIR's 33 parsed documents (their text) and the financebench-dev
filings (converted once with ``adachunk convert``, outside the timing, cached under
``~/.cache/adachunk-bench/run_cost``). "The same embedder" is the default profile's index embedder
(MiniLM on onnxruntime), loaded with :func:`adachunk.models.embedders.load_embedder` and fed the
chunks' texts in batches of 64, as a vector store's ingestion would; its vectors are written to a
``.npy`` so that nothing is optimised away.

Usage::

    python bench/bench_run_cost.py [--corpus clair --corpus financebench-dev] [--workers 2]
        [--profile default] [--out bench/out/run_cost]

Each command runs once after a warm-up ``adachunk run`` of one small document (the start-up
cache, as a user's first run fills it). Needs ``../shared/corpus`` (exits 0 with a message
without it) and chonkie (``pip install chonkie``).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "corpus"
CACHE = Path.home() / ".cache" / "adachunk-bench" / "run_cost"
CORPORA = ("clair", "financebench-dev")


def prepare(corpus: str) -> Path | None:
    """The corpus as a folder of ``.md`` files (made once, cached); None without ../shared."""
    folder = CACHE / corpus
    if folder.is_dir() and any(folder.glob("*.md")):
        return folder
    if corpus == "clair":
        src = SHARED / "clair"
        if not src.is_dir():
            return None
        from adachunk.evaluate.run import read_documents
        from common import clair_files

        docs, _ = read_documents([str(p) for p in clair_files(src)])
        texts = {Path(d).stem: doc.text for d, doc in docs.items()}
    else:
        src = SHARED / "financebench-dev" / "pdfs"
        if not src.is_dir():
            return None
        from adachunk.ingest import read_document

        texts = {p.stem: read_document(str(p)).text for p in sorted(src.glob("*.pdf"))}
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        (folder / f"{name}.md").write_text(text, encoding="utf-8")
    return folder


def measured(cmd: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def embed_child(texts_json: Path, out: Path) -> None:
    """Child: embed the texts of a JSON list with the default profile's index embedder."""
    import numpy as np

    import adachunk
    from adachunk.models.embedders import load_embedder

    policy = adachunk.load_profile("default").policy
    emb = load_embedder(policy.index.embedder or policy.metrics.embedder)
    texts = json.loads(texts_json.read_text())
    vecs = [emb.encode(texts[i:i + 64]) for i in range(0, len(texts), 64)]
    np.save(out, np.concatenate(vecs) if vecs else np.zeros((0, 1), dtype=np.float32))


def chonkie_child(folder: Path, out: Path) -> None:
    """Child: chonkie RecursiveChunker 256 (cl100k) on every file, then the same embedder."""
    sys.path.insert(0, str(ROOT / "bench"))
    from chonkie import RecursiveChunker

    from peers import _chonkie_tokenizer

    chunker = RecursiveChunker(tokenizer=_chonkie_tokenizer(), chunk_size=256)
    texts = [c.text for p in sorted(folder.glob("*.md")) for c in chunker.chunk(p.read_text(encoding="utf-8"))]
    listing = out.with_suffix(".json")
    listing.write_text(json.dumps(texts))
    embed_child(listing, out)


def jsonl_texts(path: Path, out: Path) -> Path:
    """The ``text`` of every record of a JSONL file, as a JSON list at ``out``."""
    texts = [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    out.write_text(json.dumps(texts))
    return out


def run_corpus(folder: Path, workers: int, tmp: Path, profile: str = "default") -> dict[str, dict[str, float]]:
    """The four measurements on one folder, ``adachunk run`` and ``chunk`` under ``profile``."""
    py, cli = sys.executable, [sys.executable, "-m", "adachunk.cli.main"]
    prof = ["--profile", profile]
    here = str(Path(__file__).resolve())
    rows: dict[str, dict[str, float]] = {}

    def row(name: str, *cmds: list[str]) -> None:
        wall = cpu = 0.0
        for cmd in cmds:
            w, c = measured(cmd)
            wall, cpu = wall + w, cpu + c
        rows[name] = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2)}
        print(f"  {name}: {wall:.1f} s wall, {cpu:.1f} CPU-s", file=sys.stderr)

    row("adachunk run (index, LanceDB)",
        [*cli, "run", str(folder), *prof, "--out", str(tmp / "run"), "--workers", str(workers), "--quiet"])
    row("adachunk run --sink none",
        [*cli, "run", str(folder), *prof, "--out", str(tmp / "run_none"), "--sink", "none", "--workers", str(workers),
         "--quiet"])
    row("chonkie RecursiveChunker 256 + embedder", [py, here, "--child", "chonkie", str(folder), str(tmp / "chonkie.npy")])
    chunks = tmp / "chunk.jsonl"
    measured_chunk = [*cli, "chunk", str(folder), *prof, "-o", str(chunks), "--workers", str(workers)]
    wall, cpu = measured(measured_chunk)
    listing = jsonl_texts(chunks, tmp / "chunk_texts.json")
    w2, c2 = measured([py, here, "--child", "embed", str(listing), str(tmp / "chunk.npy")])
    rows["adachunk chunk + embedder"] = {"wall_s": round(wall + w2, 2), "cpu_s": round(cpu + c2, 2)}
    print(f"  adachunk chunk + embedder: {wall + w2:.1f} s wall, {cpu + c2:.1f} CPU-s", file=sys.stderr)
    decisions = [json.loads(x) for x in (tmp / "run" / "decisions.jsonl").read_text().splitlines() if x.strip()]
    rows["_passes"] = passes(decisions)
    return rows


def passes(decisions: list[dict]) -> dict[str, float]:
    """Model texts spent selecting against indexing, summed over the run's decision records."""
    sel = sum((d.get("embedding") or {}).get("selecting", 0) for d in decisions)
    idx = sum((d.get("embedding") or {}).get("indexing", 0) for d in decisions)
    return {"select_texts": sel, "index_texts": idx}


def table(results: dict[str, dict[str, dict[str, float]]]) -> str:
    """A Markdown table: CPU-s and wall per corpus, and each row's ratio to chonkie + embedder."""
    lines = ["| corpus | pipeline | CPU-s | wall s | × chonkie 256 + embedder (CPU) |", "|---|---|---:|---:|---:|"]
    for corpus, rows in results.items():
        base = rows["chonkie RecursiveChunker 256 + embedder"]["cpu_s"]
        for name, r in rows.items():
            if name.startswith("_"):
                continue
            lines.append(f"| {corpus} | {name} | {r['cpu_s']:.1f} | {r['wall_s']:.1f} | {r['cpu_s'] / base:.2f} |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", action="append", choices=CORPORA)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--profile", default="default",
                    help="the profile of `adachunk run` and `adachunk chunk` (a name or a YAML path); the "
                         "peers' embedder stays the default profile's index embedder")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "run_cost")
    ap.add_argument("--child", nargs=3, metavar=("KIND", "IN", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        kind, src, dst = args.child
        (chonkie_child if kind == "chonkie" else embed_child)(Path(src), Path(dst))
        return 0
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        warm = Path(tmp) / "warm"
        measured([sys.executable, "-m", "adachunk.cli.main", "run", str(ROOT / "examples" / "regulation_excerpt.md"),
                  "--out", str(warm), "--quiet"])
        for corpus in args.corpus or CORPORA:
            folder = prepare(corpus)
            if folder is None:
                print(f"{corpus}: ../shared/corpus not found, skipped", file=sys.stderr)
                continue
            print(f"{corpus} ({len(list(folder.glob('*.md')))} files):", file=sys.stderr)
            work = Path(tmp) / corpus
            work.mkdir()
            results[corpus] = run_corpus(folder, args.workers, work, args.profile)
    if not results:
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "run_cost.json").write_text(json.dumps(results, indent=1))
    text = table(results)
    (args.out / "run_cost.md").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
