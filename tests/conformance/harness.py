"""Run ONNX backend node test cases through the whole pipeline: loader, model, executor, kernels.

The cases come from the installed onnx package
(``onnx.backend.test.case.node.collect_testcases``): each is a one-node model
with input and expected output arrays. Running them through
:func:`sonnx.loader.load_model` and :func:`sonnx.executor.execute` tests what
a user runs, not a kernel in isolation.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Iterator, NamedTuple

import numpy as np
from onnx.backend.test.case.node import collect_testcases
from onnx.backend.test.case.test_case import TestCase

from sonnx.executor import execute
from sonnx.loader import load_model


class NodeCase(NamedTuple):
    """One data set of one backend test case."""

    case_id: str
    case: TestCase
    data_set: int


@functools.cache
def _cases_of(op_type: str) -> tuple[TestCase, ...]:
    return tuple(c for c in collect_testcases(op_type) if c.kind == "node")


def node_cases(op_types: list[str]) -> Iterator[NodeCase]:
    """Every (case, data set) of the given operators, in a stable order."""
    for op in sorted(op_types):
        for case in sorted(_cases_of(op), key=lambda c: c.name):
            for k in range(len(case.data_sets)):
                suffix = f"#{k}" if len(case.data_sets) > 1 else ""
                yield NodeCase(f"{case.name}{suffix}", case, k)


def run_case(nc: NodeCase, tmp: Path) -> None:
    """Execute one case with sonnx and compare with its expected outputs; AssertionError on a difference."""
    path = tmp / f"{nc.case.name}.onnx"
    path.write_bytes(nc.case.model.SerializeToString())
    model = load_model(path)
    inputs, expected = nc.case.data_sets[nc.data_set]
    feeds: dict[str, Any] = {}
    for name, value in zip(model.graph.inputs, inputs, strict=False):
        feeds[name] = value
    got = execute(model, feeds)
    for name, want in zip(model.graph.outputs, expected, strict=True):
        compare(name, got[name], want, nc.case.rtol, nc.case.atol)


def compare(name: str, got: Any, want: Any, rtol: float, atol: float) -> None:
    """Exact for integers, booleans and strings; within the case's tolerance for floats; same dtype and shape."""
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{name}: sequence length"
        for k, (g, w) in enumerate(zip(got, want, strict=True)):
            compare(f"{name}[{k}]", g, w, rtol, atol)
        return
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, f"{name}: shape {got.shape} != expected {want.shape}"
    assert got.dtype == want.dtype, f"{name}: dtype {got.dtype} != expected {want.dtype}"
    if np.issubdtype(want.dtype, np.floating) or np.issubdtype(want.dtype, np.complexfloating):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=name)
    else:
        np.testing.assert_array_equal(got, want, err_msg=name)
