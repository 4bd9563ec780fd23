"""Run ONNX backend node test cases through the whole pipeline: loader, model, executor, kernels.

The cases come from the installed onnx package. It generates them when its
case modules are imported, into module-level lists, honouring a filter set by
whoever imported first; :func:`all_node_cases` therefore (re-)executes every
case module once with fresh lists and restores the package's own afterwards,
so the result is the complete set whatever else ran in the process. Each case
module runs with NumPy's global generator seeded by :data:`CASE_DATA_SEED`,
so the data are the same in every run.

A case is run when every operator in its graph has a sonnx kernel: through
:func:`sonnx.loader.load_model` and :func:`sonnx.execution.executor.execute`, i.e. what a
user runs, not a kernel in isolation.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import sys
import warnings
from typing import Any, NamedTuple

import numpy as np
import onnx
import onnx.backend.test.case.node as node_pkg
from onnx import numpy_helper
from onnx.backend.test.case.test_case import TestCase

from sonnx.execution.backend import SonnxBackend
from sonnx.ops import REGISTRY, KernelRegistry


class NodeCase(NamedTuple):
    """One data set of one backend test case."""

    case_id: str
    operators: frozenset[str]
    case: TestCase
    data_set: int


CASE_DATA_SEED = 0
"""The global NumPy seed set before each case module runs: many draw their inputs (and some their expected
outputs) from ``np.random`` without seeding it."""


@functools.cache
def all_node_cases() -> tuple[TestCase, ...]:
    """Every node test case the installed onnx generates, sorted by name."""
    saved = (node_pkg._TargetOpType, node_pkg._NodeTestCases, node_pkg._existing_names)
    saved_random = np.random.get_state()
    fresh: list[TestCase] = []
    node_pkg._TargetOpType = None
    node_pkg._NodeTestCases = fresh
    node_pkg._existing_names = {}
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            # subpackages too: the ai.onnx.ml cases live in node/ai_onnx_ml/
            modules = pkgutil.walk_packages(node_pkg.__path__, prefix=f"{node_pkg.__name__}.")
            for info in sorted((m for m in modules if not m.ispkg), key=lambda m: m.name):
                name = info.name
                # case data drawn from NumPy's global generator are the same in every run (strict xfails stay stable)
                np.random.seed(CASE_DATA_SEED)
                if name in sys.modules:
                    importlib.reload(sys.modules[name])
                else:
                    importlib.import_module(name)
    finally:
        node_pkg._TargetOpType, node_pkg._NodeTestCases, node_pkg._existing_names = saved
        np.random.set_state(saved_random)
    return tuple(sorted((c for c in fresh if c.kind == "node"), key=lambda c: c.name))


def _operators(case: TestCase) -> frozenset[str]:
    """Operators of the case's main graph (domain-qualified when not the default domain)."""
    assert case.model is not None
    return frozenset(
        n.op_type if n.domain in ("", "ai.onnx") else f"{n.domain}::{n.op_type}" for n in case.model.graph.node
    )


def node_cases(supported: set[str]) -> list[NodeCase]:
    """Every (case, data set) whose graph uses only operators in ``supported``."""
    out: list[NodeCase] = []
    for case in all_node_cases():
        ops = _operators(case)
        if not ops or not ops <= supported:
            continue
        assert case.data_sets is not None
        for k in range(len(case.data_sets)):
            suffix = f"#{k}" if len(case.data_sets) > 1 else ""
            out.append(NodeCase(f"{case.name}{suffix}", ops, case, k))
    return out


def _value(v: Any) -> Any:
    """Some generators store TensorProto (for types NumPy lacks) instead of arrays."""
    if isinstance(v, onnx.TensorProto):
        return numpy_helper.to_array(v)
    if isinstance(v, list):
        return [_value(x) for x in v]
    return v


def run_case(nc: NodeCase, registry: KernelRegistry = REGISTRY) -> None:
    """Execute one case through :class:`sonnx.execution.backend.SonnxBackend` and compare with its expected outputs.

    The backend loads the case's model as a file (the loader), refuses it if an
    operator has no kernel, and runs the executor; AssertionError on a difference.
    """
    assert nc.case.model is not None and nc.case.data_sets is not None
    rep = SonnxBackend.prepare(nc.case.model, registry=registry)
    inputs, expected = nc.case.data_sets[nc.data_set]
    got = rep.run([_value(x) for x in inputs])
    assert len(got) == len(expected), f"{len(got)} outputs, expected {len(expected)}"
    for name, g, want in zip(rep.model.graph.outputs, got, expected, strict=True):
        compare(name, g, _value(want), nc.case.rtol, nc.case.atol)


def compare(name: str, got: Any, want: Any, rtol: float, atol: float) -> None:
    """Exact for integers, booleans and strings; within the case's tolerance for floats; same dtype and shape.

    Sequences compare element by element, maps key by key; an empty optional is None on both sides.
    """
    if want is None:
        assert got is None, f"{name}: expected an empty optional, got {type(got).__name__}"
        return
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{name}: sequence length"
        for k, (g, w) in enumerate(zip(got, want, strict=True)):
            compare(f"{name}[{k}]", g, w, rtol, atol)
        return
    if isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), f"{name}: map keys"
        for k in want:
            compare(f"{name}[{k!r}]", got[k], want[k], rtol, atol)
        return
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, f"{name}: shape {got.shape} != expected {want.shape}"
    assert got.dtype == want.dtype, f"{name}: dtype {got.dtype} != expected {want.dtype}"
    if np.issubdtype(want.dtype, np.floating) or np.issubdtype(want.dtype, np.complexfloating):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=name)
    elif want.dtype.kind in "Vf" and want.dtype.itemsize <= 2:
        # ml_dtypes types (bfloat16, float8, 4-bit; float8_e5m2 has kind "f"): through float32, NaN equal to NaN
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=rtol, atol=atol,
                                   err_msg=name)
    else:
        np.testing.assert_array_equal(got, want, err_msg=name)
