"""``sonnx.loader.writer``: a model written back to ONNX loads to the same model.

Round trips over every shipped example and every ONNX backend node case
(graphs with nested bodies, functions, every attribute type the cases use):
the rewritten file passes ``onnx.checker`` and loads to a model with the same
graphs, operations, declared types and initial values.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest

from sonnx.loader import load_model
from sonnx.loader.writer import WriteError, save_model, to_proto
from sonnx.model.graph import Graph, InitialValue, Model
from tests.common.backend_cases import all_node_cases

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.onnx"))


def _value(v: Any) -> Any:
    if isinstance(v, Graph):
        return _graph(v)
    if isinstance(v, InitialValue):
        arr = np.asarray(v.read())
        return ("tensor", v.data_type, arr.dtype.str, arr.shape, arr.tobytes())
    if isinstance(v, tuple):
        return tuple(_value(x) for x in v)
    return v


def _graph(g: Graph) -> Any:
    ops = tuple(
        (op.operator, op.domain, op.name, op.input_mapping, op.output_mapping,
         tuple((a.name, a.type, _value(a.value)) for a in op.attributes))
        for op in g.operations
    )
    tensors = tuple(
        (n, t.type, None if t.initial_value is None else _value(t.initial_value)) for n, t in sorted(g.tensors.items())
    )
    return (g.name, g.inputs, g.outputs, ops, tensors)


def _same(a: Model, b: Model) -> None:
    assert _graph(a.graph) == _graph(b.graph)
    assert dict(a.opset_imports) == dict(b.opset_imports)
    assert a.ir_version == b.ir_version
    assert [(f.key, _graph(f.body)) for f in a.functions] == [(f.key, _graph(f.body)) for f in b.functions]


def _checker_accepts(path: Path) -> bool:
    try:
        onnx.checker.check_model(onnx.load(str(path)))
    except onnx.checker.ValidationError:
        return False
    return True


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_round_trip(path: Path, tmp_path: Path) -> None:
    """Every example loads back to the same model; what onnx.checker accepted it still accepts."""
    original = load_model(path)
    out = tmp_path / "out.onnx"
    save_model(original, str(out))
    _same(original, load_model(out))
    if _checker_accepts(path):
        onnx.checker.check_model(onnx.load(str(out)))


def test_every_backend_node_case_round_trips() -> None:
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for case in all_node_cases():
            src = tmp / "in.onnx"
            onnx.save(case.model, str(src))
            try:
                original = load_model(src)
                save_model(original, str(tmp / "out.onnx"))
                _same(original, load_model(tmp / "out.onnx"))
            except Exception as exc:  # collected: every failing case is listed at once
                failures.append(f"{case.name}: {type(exc).__name__}: {exc}")
    assert not failures, "\n".join(failures[:20])


def test_structure_only_model_is_refused(tmp_path: Path) -> None:
    model = load_model(ROOT / "examples" / "cnn_block.onnx", read_weights=False)
    with pytest.raises(WriteError, match="structure only"):
        to_proto(model)


def test_failed_write_leaves_nothing(tmp_path: Path) -> None:
    model = load_model(ROOT / "examples" / "cnn_block.onnx")
    missing = tmp_path / "no" / "such" / "dir" / "m.onnx"
    with pytest.raises(WriteError, match="cannot write"):
        save_model(model, str(missing))
    assert list(tmp_path.iterdir()) == []


def test_written_file_has_a_normal_files_mode(tmp_path: Path) -> None:
    import os
    import stat

    out = tmp_path / "m.onnx"
    save_model(load_model(ROOT / "examples" / "cnn_block.onnx"), str(out))
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~mask
