"""``adachunk models list`` and ``adachunk models distill``: the embedding models ICC/DCC use."""

from __future__ import annotations

import time


def add_parsers(sub) -> list[str]:
    """Register ``models`` with its ``list`` and ``distill`` actions."""
    p = sub.add_parser("models", help="list embedders and where their models load from; distil the fast model")
    acts = p.add_subparsers(dest="models_action", required=True)
    acts.add_parser("list", help="registered embedders and model locations (loads nothing)")
    d = acts.add_parser("distill", help="distil a static model2vec model from the bundled MiniLM (offline)")
    d.add_argument("--out", help="target directory (default: $ADACHUNK_CACHE_DIR/models/m2v-minilm-DIMS, "
                                 "else ~/.cache/adachunk/models/m2v-minilm-DIMS)")
    d.add_argument("--pca-dims", type=int, default=256, help="output dimension (default 256)")
    d.add_argument("--model", default="all-MiniLM-L6-v2",
                   help="source sentence-transformers model: bundled name, local path or cached name")
    d.add_argument("--force", action="store_true", help="redo it even if the target already holds a model")
    return ["models"]


def run(args) -> int:
    """Dispatch ``models list`` / ``models distill``."""
    if args.models_action == "distill":
        return _distill(args)
    return _list()


def _first_line(obj) -> str:
    return ((obj.__doc__ or "").strip().splitlines() or [""])[0]


def _list() -> int:
    from ..api.models import embedders, m2v, resolve_model
    from ..errors import AdachunkError

    print("embedders (profile: metrics.embedder: {type: NAME, ...}):")
    for name in embedders.names():
        print(f"  {name:<26} {_first_line(embedders.get(name))}")
    try:
        where, how = resolve_model("all-MiniLM-L6-v2")
        print(f"sentence_transformers.v1 default model all-MiniLM-L6-v2: {where} ({how})")
    except AdachunkError as err:
        print(f"sentence_transformers.v1 default model all-MiniLM-L6-v2: unavailable ({err.message})")
    path = m2v.default_model_dir()
    state = "present" if (path / "config.json").is_file() else "missing: run `adachunk models distill`"
    print(f"model2vec.v1 default model: {path} ({state})")
    return 0


def _distill(args) -> int:
    from pathlib import Path

    from ..api.models import m2v

    out = Path(args.out).expanduser() if args.out else m2v.default_model_dir(args.pca_dims)
    if (out / "config.json").is_file() and not args.force:
        print(out)
        return 0
    t0 = time.perf_counter()
    path = m2v.distill_minilm(out, pca_dims=args.pca_dims, model=args.model, force=args.force)
    print(f"distilled {args.model} → {path} in {time.perf_counter() - t0:.0f} s", file=__import__("sys").stderr)
    print(path)
    return 0
