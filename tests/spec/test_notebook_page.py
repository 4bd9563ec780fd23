"""The docs page "sonnx in a notebook" (docs/notebook.ipynb): kept without outputs, run as the docs build runs it
(myst-nb executes it on every build), it shows each report's HTML table, a violation's witness, the three
properties and the JSON document; and the site reads reStructuredText and notebooks only, never a stray .md."""

from __future__ import annotations

import os
import runpy
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient
from sphinx.cmd.build import build_main

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
NOTEBOOK = DOCS / "notebook.ipynb"


def _outputs(cell: Any, mime: str) -> str:
    """Every output of ``cell`` of type ``mime`` (stream text counts as text/plain), joined."""
    out = []
    for o in cell.outputs:
        if o.output_type == "stream" and mime == "text/plain":
            out.append(o.text)
        elif o.output_type in ("execute_result", "display_data"):
            out.append(o.data.get(mime, ""))
    return "".join(out)


def test_the_notebook_is_kept_without_outputs_and_listed_in_the_site() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.outputs == [] and c.execution_count is None for c in code)
    assert "   notebook\n" in (DOCS / "index.rst").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def executed() -> list[Any]:
    """The notebook's code cells after a run in docs/ (as the build runs it), with this checkout's sonnx."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(nb, kernel_name="python3", timeout=600, resources={"metadata": {"path": str(DOCS)}})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))}
    client.execute(env=env)  # a cell that raises raises here (CellExecutionError)
    return [c for c in nb.cells if c.cell_type == "code"]


def test_the_notebook_shows_each_report_as_its_table(executed: list[Any]) -> None:
    tables = [c for c in executed if "<table" in _outputs(c, "text/html")]
    assert len(tables) == 2, [_outputs(c, "text/plain") for c in executed]
    proved, violated = (_outputs(c, "text/html") for c in tables)
    assert 'class="sonnx-report"' in proved and ">PROVED</span>" in proved.split("<table")[0]
    assert ">VIOLATED</span>" in violated.split("<table")[0]
    assert "witness: 1 dead operation(s)" in violated and "Sub:sub" in violated
    assert "<script" not in proved + violated


def test_the_notebook_shows_the_properties_the_text_and_the_json(executed: list[Any]) -> None:
    text = [_outputs(c, "text/plain") for c in executed]
    assert any(t.startswith("<ModelReport ../examples/cnn_block.onnx: PROVED (exit 0; violated=0,") for t in text)
    assert any("<Outcome.PROVED: 'PROVED'>, True, 0, {'violated': 0," in " ".join(t.split()) for t in text)
    assert any(t.startswith("model: ../examples/cnn_block.onnx\n") and "\nresult: PROVED" in t for t in text)
    assert any(t.startswith("1 sonnx 0\nPROVED {'errors': 0,") for t in text)
    assert any("GRAPH-R1 (error): 1 dead operation(s)" in t for t in text)


def test_the_site_reads_no_markdown_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/conf.py takes back the .md suffix myst-nb registers: a README beside the pages is not a page."""
    monkeypatch.setenv("PYTHONPATH", os.environ.get("PYTHONPATH", ""))  # conf.py sets it for the kernel
    monkeypatch.setattr("sys.path", list(__import__("sys").path))
    conf = runpy.run_path(str(DOCS / "conf.py"))
    assert "myst_nb" in conf["extensions"]
    assert conf["nb_execution_mode"] == "force" and conf["nb_execution_raise_on_error"] is True
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        "import runpy\n"
        f"_docs = runpy.run_path({str(DOCS / 'conf.py')!r})\n"
        "extensions = ['myst_nb']\n"
        "source_suffix = _docs['source_suffix']\n"
        "nb_execution_mode = 'off'\n"
        "setup = _docs['setup']\n",
        encoding="utf-8",
    )
    (src / "index.rst").write_text("Title\n=====\n\ntext\n", encoding="utf-8")
    (src / "README.md").write_text("# not a page\n", encoding="utf-8")
    out = tmp_path / "html"
    assert build_main(["-q", "-b", "html", str(src), str(out)]) == 0
    assert (out / "index.html").is_file() and not (out / "README.html").exists()
