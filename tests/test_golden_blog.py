"""darn's blog example: with profiles/darn.yaml at 200 characters, exactly three chunks."""

from __future__ import annotations

from adachunk import chunk_text

BLOG = (
    "# Virum si memores territus\n\n"
    "## Vetat excipit Mnemonidas\n\n"
    "Lorem markdownum pectora tanto, et ferro nitidum suis cum luctus ignes, dum mare saxa "
    "tenuit et humum stantem. Caelo natas tenuit mihi iussit, quod nunc vasta per arva "
    "refert tristique Mnemonidas voce et ore silentia rupit aequoris altis.\n\n"
    "- Fuit haec mea\n"
    "- Undas vires ferunt\n"
    "- Tempore rursus ait\n"
    "- Dicta nepotem cano\n"
    "- Venit arma virum\n"
    "- Sacra Iove patre\n"
)


def test_blog_example_three_chunks():
    chunks = chunk_text(BLOG, "darn", max_size=200)
    texts = [c.text for c in chunks]
    assert len(texts) == 3, texts
    assert texts[0].startswith("# Virum si memores territus\n\n## Vetat excipit Mnemonidas\n\nLorem")
    assert texts[0].rstrip().endswith("stantem.")
    assert texts[1].strip().startswith("Caelo") and texts[1].rstrip().endswith("altis.")
    assert texts[2].strip().startswith("- Fuit haec mea") and texts[2].rstrip().endswith("- Sacra Iove patre")
    assert "".join(texts) == BLOG
    assert all(len(t) <= 200 for t in texts)
    assert [c.heading_path for c in chunks][0] == ("Virum si memores territus",)
