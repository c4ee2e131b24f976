"""Reports on chunkings: the HTML boundary visualizer (:mod:`adachunk.report.view`) and the
profile A/B comparison (:mod:`adachunk.report.ab`).

Modules here read chunkings, structures and costs; they never change them. Import the module
you need (``from adachunk.report.view import render_view``): nothing is imported eagerly, so
``import adachunk.report`` stays free.
"""
