"""Build-time evidence bundle for the documentation's evidence page.

At ``config-inited`` (after ``sonnx_docs`` has recreated ``docs/_generated/``:
this handler has a later priority) the extension runs the real command

    sonnx-check examples/cnn_block.onnx --cross-check reference,onnxruntime --orders 2 --evidence DIR

from the repository root, with ``DIR`` = ``docs/_generated/evidence/bundle``,
then ``sonnx evidence verify`` on it, and writes the pieces that
``docs/evidence.rst`` includes next to the bundle (never inside it, which
would make the bundle fail its own verification):

* ``command.txt``: the two commands, their output and their exit codes;
* ``verdicts_excerpt.json``: the first verdicts of ``verdicts.json``;
* ``tree.txt``: the files of the bundle with their sizes.

A failing check or verification is a build warning, so ``sphinx -W`` stops
rather than publish a page about a bundle that does not verify.
"""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

LOG = logging.getLogger(__name__)

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent
OUT = DOCS / "_generated" / "evidence"
BUNDLE = OUT / "bundle"
MODEL = "examples/cnn_block.onnx"
CHECK_ARGS = [MODEL, "--cross-check", "reference,onnxruntime", "--orders", "2"]
EXCERPT_VERDICTS = 3


def _run(fn: Any, argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = fn(argv, out, err)
    return code, out.getvalue() + err.getvalue()


def generate(app: Sphinx, config: Any = None) -> None:
    """Write the bundle and the excerpts (see the module docstring)."""
    from sonnx import cli

    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    rel_bundle = BUNDLE.relative_to(ROOT).as_posix()
    here = os.getcwd()
    os.chdir(ROOT)  # the bundle records the model path as given: keep it relative and stable
    try:
        check_code, check_out = _run(cli.check_main, ["-q", *CHECK_ARGS, "--evidence", rel_bundle])
        verify_code, verify_out = _run(cli.main, ["evidence", "verify", "-q", rel_bundle])
    finally:
        os.chdir(here)
    if check_code != 0:
        LOG.warning("evidence page: sonnx-check exited with %s:\n%s", check_code, check_out)
    if verify_code != 0:
        LOG.warning("evidence page: the generated bundle does not verify:\n%s", verify_out)
    shown = " ".join(CHECK_ARGS)
    (OUT / "command.txt").write_text(
        f"$ sonnx-check {shown} --evidence out/\n{check_out}(exit code {check_code})\n\n"
        f"$ sonnx evidence verify out/\n{verify_out}(exit code {verify_code})\n",
        encoding="utf-8",
    )
    _known_defect_example()
    if (BUNDLE / "verdicts.json").is_file():
        doc = json.loads((BUNDLE / "verdicts.json").read_text(encoding="utf-8"))
        model = doc["models"][0]
        excerpt = {**doc, "models": [{**model, "verdicts": model.get("verdicts", [])[:EXCERPT_VERDICTS]}]}
        (OUT / "verdicts_excerpt.json").write_text(json.dumps(excerpt, indent=2) + "\n", encoding="utf-8")
        lines = [
            f"{p.relative_to(BUNDLE).as_posix():<40} {p.stat().st_size:>8} bytes"
            for p in sorted(BUNDLE.rglob("*"))
            if p.is_file()
        ]
        (OUT / "tree.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        for name in ("verdicts_excerpt.json", "tree.txt"):
            (OUT / name).write_text("(the bundle was not written; see the build warnings)\n", encoding="utf-8")


def _known_defect_example() -> None:
    """``sonnx crosscheck`` on a one-operation Softmax-11 model: the reference evaluator's known defect, in figures."""
    import onnx
    from onnx import TensorProto, helper

    from sonnx import cli

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4])
    graph = helper.make_graph([helper.make_node("Softmax", ["x"], ["y"])], "softmax11", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], producer_name="sonnx-docs")
    model.ir_version = 8
    path = OUT / "softmax11.onnx"
    onnx.save(model, str(path))
    rel = path.relative_to(ROOT).as_posix()
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        code, text = _run(cli.main, ["crosscheck", rel])
    finally:
        os.chdir(here)
    if code != 0:
        LOG.warning("evidence page: the Softmax-11 example exited with %s:\n%s", code, text)
    (OUT / "softmax11.txt").write_text(f"$ sonnx crosscheck {rel}\n{text}(exit code {code})\n", encoding="utf-8")


def setup(app: Sphinx) -> dict[str, Any]:
    # Priority 600: after sonnx_docs (500), which deletes and recreates docs/_generated/ at config-inited.
    app.connect("config-inited", generate, priority=600)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
