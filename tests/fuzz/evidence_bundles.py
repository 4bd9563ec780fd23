"""The clean evidence bundles of the tamper campaign, written by the real ``sonnx-check --evidence``.

Each bundle comes from a *source folder* holding the model (and its external
data, and the inputs file) under fixed relative names; ``sonnx-check`` runs
with that folder as its working directory and relative paths, so the bundle
records the same command line and model source wherever the folder lives.
That is what lets the campaign write, for a mutated model, the bundle the
tool itself would write (:func:`genuine_bundle`) and compare it file by file
with a forged one.

Two names are not ASCII (the external-data model ``réseau.onnx`` and the
inputs file ``entrées.npz``), so that look-alike names in NFD form differ
from the recorded NFC names.
"""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
MANIFEST = "manifest.json"


@dataclass(frozen=True)
class BundleSpec:
    """One clean bundle: its name, the model file inside its source folder, and the extra options."""

    name: str
    model: str
    args: tuple[str, ...] = ()
    trust: tuple[str, ...] = ()
    """Claims the reviewer takes on trust for this bundle (passed to a verifier that knows ``trust``)."""

    @property
    def argv(self) -> list[str]:
        return ["-q", self.model, *self.args]

    @property
    def rebuildable(self) -> bool:
        """Whether a second run writes the same bytes (not with a creation date in the manifest)."""
        return "--evidence-timestamp" not in self.args


DENSE = "strict_dense.onnx"
SPECS: tuple[BundleSpec, ...] = (
    BundleSpec("proved", DENSE),
    BundleSpec("violated", "seed001_example.onnx"),
    BundleSpec("unloadable", "broken.onnx"),
    BundleSpec("orders", "parallel.onnx", ("--orders", "3")),
    BundleSpec("crosscheck", DENSE, ("--cross-check", "reference,onnxruntime")),
    BundleSpec("inputs", DENSE, ("--inputs", "entrées.npz", "--orders", "2")),
    BundleSpec("external", "réseau.onnx"),
    BundleSpec("strict", DENSE, ("--profile", "sonnx-strict", "--operators", "MatMul,Add,Relu")),
    BundleSpec("timestamp", "r1_unused_output.onnx", ("--evidence-timestamp",), trust=("date",)),
    BundleSpec("direct", DENSE, ("--engine", "direct")),
)
BY_NAME = {s.name: s for s in SPECS}
CI_BUNDLE = "direct"
"""The small bundle of the short run in CI (the direct engine: no obligation to re-solve)."""


def _external_model(folder: Path) -> None:
    """A MatMul whose weight lives in an external data file."""
    w = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(4, 3) / 10, "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
        "external",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])],
        [w],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(folder / "réseau.onnx"), save_as_external_data=True, location="poids.bin",
              size_threshold=0)


UNARY = ("Relu", "Neg", "Abs", "Sigmoid", "Tanh", "Exp", "Floor", "Ceil", "Sqrt", "Softsign")


def _parallel_model(folder: Path) -> None:
    """Ten independent operations on one input: millions of valid orders, so the count of --orders matters."""
    nodes = [helper.make_node(op, ["x"], [f"y{k}"], name=f"n{k}") for k, op in enumerate(UNARY)]
    graph = helper.make_graph(
        nodes,
        "parallel",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info(f"y{k}", TensorProto.FLOAT, [2, 3]) for k in range(len(UNARY))],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(folder / "parallel.onnx"))


def prepare_source(spec: BundleSpec, folder: Path) -> Path:
    """Fill ``folder`` with the files ``spec`` checks; returns it."""
    folder.mkdir(parents=True, exist_ok=True)
    if spec.model == "broken.onnx":
        (folder / spec.model).write_bytes(b"\x0a\x05not an ONNX model")
    elif spec.model == "réseau.onnx":
        _external_model(folder)
    elif spec.model == "parallel.onnx":
        _parallel_model(folder)
    else:
        shutil.copyfile(EXAMPLES / spec.model, folder / spec.model)
    if "--inputs" in spec.args:
        name = spec.args[spec.args.index("--inputs") + 1]
        values = np.linspace(-1, 1, 16, dtype=np.float32).reshape(1, 16)
        np.savez(folder / name, features=values)
    return folder


@contextmanager
def working_directory(folder: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def write(spec: BundleSpec, source: Path, dest: Path) -> int:
    """``sonnx-check --evidence dest`` on the source folder (in this process); its exit code."""
    from sonnx.cli import check_main

    out, err = io.StringIO(), io.StringIO()
    dest.parent.mkdir(parents=True, exist_ok=True)
    with working_directory(source):
        code = check_main([*spec.argv, "--evidence", str(dest.resolve())], stdout=out, stderr=err)
    text = err.getvalue()
    if "Traceback" in text or "internal error" in text or not (dest / MANIFEST).is_file():
        raise RuntimeError(f"sonnx-check wrote no bundle for {spec.name} (exit {code}): {text.strip()[:300]}")
    return code


def files_of(directory: Path) -> dict[str, bytes]:
    """Every regular file under ``directory`` by relative POSIX path (the bundle as bytes)."""
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def materialize(files: dict[str, bytes], directory: Path) -> Path:
    """Write a bundle held in memory into ``directory`` (which must not exist)."""
    directory.mkdir(parents=True)
    for rel, data in files.items():
        target = directory / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return directory


def clean_bundles(work: Path, names: tuple[str, ...] | None = None) -> dict[str, dict[str, bytes]]:
    """Write each named clean bundle (all by default) under ``work``; each one's files by relative path."""
    out: dict[str, dict[str, bytes]] = {}
    for spec in SPECS:
        if names is not None and spec.name not in names:
            continue
        source = prepare_source(spec, work / "sources" / spec.name)
        dest = work / "clean" / spec.name
        write(spec, source, dest)
        out[spec.name] = files_of(dest)
    return out


def source_name(rel: str) -> str | None:
    """The source folder's file a bundle member copies (the model, its external data, the inputs), or None."""
    for prefix in ("model/", "inputs/"):
        if rel.startswith(prefix):
            return rel[len(prefix):]
    return None


def genuine_bundle(spec: BundleSpec, source: Path, changed: dict[str, bytes], work: Path) -> dict[str, bytes]:
    """The bundle ``sonnx-check --evidence`` writes when the source files in ``changed`` hold other bytes.

    Runs in the calling process: call it in a child process when the changed
    model may be hostile.
    """
    folder = work / "source"
    shutil.copytree(source, folder)
    for name, data in changed.items():
        (folder / name).write_bytes(data)
    dest = work / "genuine"
    write(spec, folder, dest)
    return files_of(dest)
