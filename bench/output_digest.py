"""A digest of every chunk for CLAIR + examples/ under shipped profiles × {512 tokens, 1,000 chars}.

Run it on two commits to show that a speed change moved no chunk (spans, sizes, token counts,
heading paths)::

    PYTHONPATH=. python bench/output_digest.py default,legal,finance,paper,technical,darn
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import corpus  # noqa: E402

import adachunk  # noqa: E402

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def main() -> None:
    docs = list(corpus()) + [(f.name, f.read_text(encoding="utf-8")) for f in sorted(EXAMPLES.glob("*.md"))]
    profiles = (sys.argv[1] if len(sys.argv) > 1 else "default").split(",")
    for prof in profiles:
        for mode in ("tokens", "chars"):
            kw = {"max_size": 512} if mode == "tokens" else {"granularity": "chars", "max_size": 1000, "min_size": 0}
            rp = adachunk.load_profile(prof, **kw)
            h = hashlib.sha256()
            for name, text in docs:
                for c in adachunk.chunk_text(text, rp):
                    h.update(f"{name}|{c.start}|{c.end}|{c.size}|{c.tokens}|{c.heading_path}\n".encode())
            print(prof, mode, h.hexdigest()[:16], flush=True)


if __name__ == "__main__":
    main()
