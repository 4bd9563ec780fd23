"""Small models for the error-condition rules of spec/operators.rst section 5, checked as the pipeline checks them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from sonnx.base.verdict import Verdict
from sonnx.execution.executor import trial_run
from sonnx.execution.inputs.drawing import uniform_between
from sonnx.loader.derived import IN_MEMORY
from sonnx.loader.load import load_model
from sonnx.model.graph import Model
from sonnx.rules.base import PROFILE_STRICT, CheckConfig, CheckContext
from sonnx.rules.registry import rule_by_id

F, I32, I64 = TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64


def vi(name: str, elem: int = F, shape: Sequence[Any] | None = (2,)) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def const(name: str, values: Any, dtype: Any = np.float32) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(values, dtype), name)


def build(tmp_path: Path, nodes: Sequence[onnx.NodeProto], inputs: Sequence[onnx.ValueInfoProto],
          outputs: Sequence[onnx.ValueInfoProto], inits: Sequence[onnx.TensorProto] = (),
          metadata: dict[str, str] | None = None, opset: int = 17) -> Model:
    """The model saved and read back by sonnx's loader (so stored values are read as the check reads them)."""
    g = helper.make_graph(list(nodes), "main", list(inputs), list(outputs), initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 9
    for k, v in (metadata or {}).items():
        m.metadata_props.add(key=k, value=v)
    path = tmp_path / "m.onnx"
    onnx.save(m, path)
    return load_model(str(path))


def verdict(rule_id: str, m: Model, ranges: Sequence[tuple[str, Any, Any]] | None = None,
            run: bool = True) -> Verdict:
    """The rule's verdict under sonnx-strict, with sonnx's executor as the trial run (``run``) and ``ranges``."""
    cfg = CheckConfig(profile=PROFILE_STRICT, derived_types=IN_MEMORY, trial_run=trial_run if run else None,
                      draw_uniform=uniform_between,
                      input_ranges=None if ranges is None else tuple(ranges))
    return rule_by_id(rule_id).check(CheckContext(m, cfg))


def witness_inputs(v: Verdict) -> dict[str, np.ndarray]:
    """The witness's input, re-derived from its recipe alone (as a reviewer would)."""
    assert v.witness is not None
    out = {}
    for name, r in v.witness.data["input"].items():  # type: ignore[union-attr]
        dtype = np.dtype(r["dtype"])
        if "fill" in r:
            out[name] = np.full(r["shape"], r["fill"], dtype)
        else:
            a, b = r["uniform"]
            rng = np.random.default_rng(r["seed"])
            if np.issubdtype(dtype, np.floating):
                out[name] = np.clip(rng.uniform(a / 2, b / 2, r["shape"]) * 2, a, b).astype(dtype)
            else:
                out[name] = rng.integers(a, b, r["shape"], endpoint=True, dtype=np.int64).astype(dtype)
    return out
