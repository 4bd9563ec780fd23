"""Hypothesis-generated models for each pass pattern, validated through the executor.

Every generated model is rewritten by :func:`sonnx.rewrite.rewrite_model`,
which runs both models on the seeded input sets and demands bit-exact
outputs; each property also states, independently of the pass code, when
the pass must apply.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st
from onnx import helper

from sonnx.base.errors import SonnxError
from sonnx.execution.executor import execute
from sonnx.execution.inputs import random_inputs
from sonnx.rewrite import rewrite_model, select
from tests.common.rewrite_models import build, init, load, operators, value, vi


def _runs(path: Path) -> bool:
    m = load(path)
    try:
        execute(m, random_inputs(m, 0))
    except SonnxError:
        return False
    return True


@st.composite
def pad_window_cases(draw: st.DrawFn) -> dict:
    nsp = draw(st.integers(1, 2))
    return {
        "kind": draw(st.sampled_from(["Conv", "AveragePool", "MaxPool"])),
        "size": [draw(st.integers(1, 5)) for _ in range(nsp)],
        "pad": [draw(st.integers(0, 2)) for _ in range(2 * nsp)],
        "own": [draw(st.integers(0, 2)) for _ in range(2 * nsp)],
        "kernel": [draw(st.integers(1, 3)) for _ in range(nsp)],
        "strides": [draw(st.integers(1, 2)) for _ in range(nsp)],
        "dilations": [draw(st.integers(1, 2)) for _ in range(nsp)],
        "ceil": draw(st.integers(0, 1)),
        "cip": draw(st.integers(0, 1)),
        "neg_inf": draw(st.booleans()),
    }


@settings(max_examples=60)
@given(pad_window_cases())
def test_pad_fusion_is_bit_exact_and_applies_when_it_should(case: dict) -> None:
    nsp = len(case["size"])
    pads = [0, 0, *case["pad"][:nsp], 0, 0, *case["pad"][nsp:]]
    attrs: dict = {
        "kernel_shape": case["kernel"],
        "strides": case["strides"],
        "dilations": case["dilations"],
        "pads": case["own"],
    }
    inits = [init("p", pads)]
    pad_inputs = ["x", "p"]
    if case["kind"] == "Conv":
        inits.append(
            init(
                "w", np.linspace(-1, 1, 2 * 2 * int(np.prod(case["kernel"]))).reshape(2, 2, *case["kernel"]), np.float32
            )
        )
        consumer = helper.make_node("Conv", ["t", "w"], ["y"], **attrs)
    else:
        attrs["ceil_mode"] = case["ceil"]
        if case["kind"] == "AveragePool":
            attrs["count_include_pad"] = case["cip"]
        consumer = helper.make_node(case["kind"], ["t"], ["y"], **attrs)
    if case["kind"] == "MaxPool" and case["neg_inf"]:
        inits.append(init("v", -np.inf, np.float32))
        pad_inputs.append("v")
    with tempfile.TemporaryDirectory() as tmp:
        path = build(
            Path(tmp),
            [helper.make_node("Pad", pad_inputs, ["t"]), consumer],
            [vi("x", [1, 2, *case["size"]])],
            [vi("y", None)],
            inits,
        )
        assume(_runs(path))
        r = rewrite_model(load(path), select(["pad-conv", "pad-pool"]))
    assert r.ok, r.to_json()
    applied = bool(r.applications)
    event(
        f"{case['kind']} fused"
        if applied
        else f"{case['kind']} refused: {r.refusals[0].reason[:40] if r.refusals else ''}"
    )
    # the rewrite fuzz: onnxruntime never refuses a rewritten model whose input it ran
    assert r.runtime is None or r.runtime.status != "rewritten refused", r.runtime
    end_padded = any(case["pad"][nsp:])
    ceil_ok = not (case["kind"] != "Conv" and case["ceil"] and end_padded)
    # onnxruntime's pooling needs every (fused) pad smaller than the kernel
    small = all(case["own"][i] + case["pad"][i] < case["kernel"][i % nsp] for i in range(2 * nsp))
    if case["kind"] == "Conv":
        assert applied
    elif case["kind"] == "AveragePool":
        assert applied == ((case["cip"] == 1 or not any(case["own"])) and ceil_ok and small)
    else:
        if not case["neg_inf"] or not ceil_ok or not small:
            assert not applied
        elif not applied:
            assert "padding only" in r.refusals[0].reason
    if applied:
        assert operators(r.model) == [case["kind"]]


@settings(max_examples=30)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=4), st.data(), st.sampled_from([13, 14]))
def test_flatten_to_reshape_for_every_rank_and_axis(dims: list, data: st.DataObject, opset: int) -> None:
    r_ = len(dims)
    axis = data.draw(st.integers(-r_, r_))
    a = axis + r_ if axis < 0 else axis
    rows, cols = int(np.prod(dims[:a])), int(np.prod(dims[a:]))
    with tempfile.TemporaryDirectory() as tmp:
        path = build(
            Path(tmp),
            [helper.make_node("Flatten", ["x"], ["y"], axis=axis)],
            [vi("x", dims)],
            [vi("y", [rows, cols])],
            opset=opset,
        )
        r = rewrite_model(load(path), select(["flatten"]))
    assert r.ok, r.to_json()
    must_refuse = opset < 14 and (rows == 0 or cols == 0)
    assert bool(r.applications) == (not must_refuse)


@settings(max_examples=30)
@given(
    st.lists(st.integers(1, 4), min_size=0, max_size=4),
    st.integers(-6, 6),
    st.one_of(st.none(), st.integers(-6, 6)),
)
def test_shape_folding_matches_python_slicing(dims: list, start: int, end: int | None) -> None:
    extra: dict[str, Any] = {} if end is None else {"end": end}
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Shape", ["a"], ["s"], start=start, **extra)]
    with tempfile.TemporaryDirectory() as tmp:
        path = build(Path(tmp), nodes, [vi("x", dims)], [vi("a", dims), vi("s", None, 7)], opset=15)
        r = rewrite_model(load(path), select(["shape"]))
    assert r.ok and operators(r.model) == ["Relu"]
    assert value(r.model, "s") == dims[start:end]


@settings(max_examples=30)
@given(st.lists(st.sampled_from(["Relu", "Identity", "Dropout", "Neg"]), min_size=1, max_size=6))
def test_identity_and_dropout_chains_are_removed(chain: list) -> None:
    nodes = []
    prev = "x"
    for k, kind in enumerate(chain):
        out = "y" if k == len(chain) - 1 else f"t{k}"
        nodes.append(helper.make_node(kind, [prev], [out]))
        prev = out
    with tempfile.TemporaryDirectory() as tmp:
        path = build(Path(tmp), nodes, [vi("x", [3])], [vi("y", [3])], opset=13)
        r = rewrite_model(load(path), select(["identity", "dropout"]))
    assert r.ok
    left = operators(r.model)
    if any(k in ("Relu", "Neg") for k in chain):
        assert [k for k in left if k in ("Identity", "Dropout")] == []
    assert [k for k in left if k in ("Relu", "Neg")] == [k for k in chain if k in ("Relu", "Neg")]
