"""Helpers for the SMT engine tests: small models, both engines, comparison."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from sonnx.base.verdict import Verdict
from sonnx.model.graph import Graph, InitialValue, Model, Operation, Tensor, make_graph
from sonnx.rules import run_rules
from sonnx.smt import SolverSettings, run_smt
from sonnx.smt.engine import RULE_IDS

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.onnx"))
"""The shipped example models, each run through the SMT engine by the tests that compare its records."""

COMPARED = RULE_IDS
"""Every rule the SMT engine decides has a direct check: all are compared."""

MODES = ("search", "certificate")
"""The SMT engine's modes (see :mod:`sonnx.smt.engine`): the encodings' cases run in both."""


def op(kind: str, ins: tuple[str, ...], outs: tuple[str, ...], name: str = "") -> Operation:
    """An operation of the default domain without attributes."""
    return Operation(kind, "", name, ins, outs)


def const(v: Any) -> InitialValue:
    arr = np.asarray(v)
    return InitialValue(1, tuple(arr.shape), False, None, lambda: arr)


def model(graph: Graph, opset: int = 17) -> Model:
    return Model(graph, 8, {"": opset})


def g(inputs: list[str], outputs: list[str], ops: list[Operation], inits: dict[str, Any] | None = None) -> Graph:
    tensors = {n: Tensor(n, None, const(v)) for n, v in (inits or {}).items()}
    return make_graph("g", inputs, outputs, ops, tensors)


def smt(m: Model, mode: str = "search", **kw: Any) -> dict[str, Verdict]:
    return {v.rule_id: v for v in run_smt(m, SolverSettings(**kw), mode=mode).verdicts}


def direct(m: Model) -> dict[str, Verdict]:
    return {v.rule_id: v for v in run_rules(m)}


def disagreements(m: Model) -> tuple[list[str], dict[str, Verdict], dict[str, Verdict]]:
    """Rules on which the engines disagree (search and certificate mode); the search verdicts; the direct ones."""
    d = direct(m)
    out: list[str] = []
    first: dict[str, Verdict] = {}
    for mode in ("search", "certificate"):
        s = smt(m, mode)
        for rid in COMPARED:
            if d[rid].status is not s[rid].status:
                out.append(
                    f"{mode} {rid}: direct {d[rid].status.value} ({d[rid].reason}), "
                    f"smt {s[rid].status.value} ({s[rid].reason})"
                )
        assert set(s) == set(COMPARED)
        first = first or s
    return out, first, d
