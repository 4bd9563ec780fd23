"""The error-condition rules (spec/operators.rst section 5) on every real export of tests/data/real.

Each rule gives a verdict on each model without an internal error, every
UNKNOWN says why, and every VIOLATED witness is confirmed a second time here:
its input, re-derived from the witness's recipe alone, is run through sonnx's
executor, which stops at the named operation or writes the non-finite value
the witness reports.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from sonnx.base.verdict import Status
from sonnx.execution.executor import trial_run
from sonnx.execution.inputs.drawing import uniform_between
from sonnx.loader.derived import IN_MEMORY
from sonnx.loader.load import load_model
from sonnx.rules.base import PROFILE_STRICT, CheckConfig, CheckContext
from sonnx.rules.registry import RULES
from tests.common.rangekit import witness_inputs

ROOT = Path(__file__).resolve().parents[2]
REAL = sorted((ROOT / "tests" / "data" / "real").glob("*.onnx"))
IDS = ("OP-ERROR-DIV-ZERO", "OP-ERROR-LOG", "OP-ERROR-SQRT", "OP-ERROR-POW", "OP-ERROR-INDEX",
       "OP-ERROR-INT-OVERFLOW", "OP-RANGE-FLOAT")


@pytest.mark.rule("OP-ERROR-DIV-ZERO", "OP-ERROR-LOG", "OP-ERROR-SQRT", "OP-ERROR-POW", "OP-ERROR-INDEX",
                  "OP-ERROR-INT-OVERFLOW", "OP-RANGE-FLOAT")
@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_every_verdict_is_reasoned_and_every_witness_runs_to_its_error(path: Path) -> None:
    model = load_model(str(path))
    ctx = CheckContext(model, CheckConfig(profile=PROFILE_STRICT, derived_types=IN_MEMORY, trial_run=trial_run,
                                      draw_uniform=uniform_between))
    for rule in (r for r in RULES if r.id in IDS):
        v = rule.check(ctx)
        if v.status is Status.UNKNOWN:
            assert v.reason and "internal error" not in v.reason and "tool defect" not in v.reason, v.reason
        if v.status is not Status.VIOLATED:
            continue
        assert v.witness is not None
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            run = trial_run(model, witness_inputs(v))
        for where in v.witness.data["operations"]:  # type: ignore[union-attr]
            op = model.graph.operations[where["index"]]
            assert (where["operator"], where["name"]) == (op.operator, op.name)
            if run.operation == where["index"]:
                continue
            out = run.values[op.output_mapping[0]]
            assert np.issubdtype(out.dtype, np.floating) and not np.isfinite(out).all(), (rule.id, where)


@pytest.mark.rule("OP-ERROR-DIV-ZERO", "OP-ERROR-LOG", "OP-ERROR-SQRT", "OP-ERROR-POW", "OP-ERROR-INDEX",
                  "OP-ERROR-INT-OVERFLOW", "OP-RANGE-FLOAT")
@pytest.mark.parametrize("name", ["mobilenet_v3_small.torchscript.onnx", "shufflenet_v2.torchscript.onnx",
                                  "mlp_float.torchscript.onnx", "conv_fp16.torchscript.onnx"])
def test_image_nets_are_proved_once_their_input_range_is_declared(name: str) -> None:
    """Conv, BatchNormalization-folded weights, Hardswish, pooling, Gemm: every bound stays finite from [-3, 3]."""
    model = load_model(str(ROOT / "tests" / "data" / "real" / name))
    (image,) = [n for n in model.graph.inputs if n not in model.graph.initialized]
    cfg = CheckConfig(profile=PROFILE_STRICT, derived_types=IN_MEMORY, trial_run=trial_run,
                      draw_uniform=uniform_between,
                      input_ranges=((image, -3.0, 3.0),))
    ctx = CheckContext(model, cfg)
    for rule in (r for r in RULES if r.id in IDS):
        v = rule.check(ctx)
        assert v.status is Status.PROVED, (rule.id, v.reason)
        assert v.details["assumed_input_ranges"] == {image: {"lo": -3.0, "hi": 3.0, "from": "--input-range"}}
