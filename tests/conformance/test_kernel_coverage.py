"""Kernel coverage of onnx's operator registry: every operator, every schema version.

The backend cases themselves run in ``test_backend_suite.py`` (onnx's
BackendTest); this module checks what those cases cannot: that every operator
of onnx's schema registry has a kernel or a recorded reason, that every schema
version is declared, that an operator with a kernel is exercised by some case
or listed, and that the case comparison is not vacuous.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest

from sonnx.ops import REGISTRY, Kernel, KernelRegistry
from tests.common.backend_cases import node_cases, run_case
from tests.conformance.deviations import DEVIATIONS, LEFT_OUT, NO_NODE_CASES, REFUSALS

ROOT = Path(__file__).resolve().parents[2]
SCOREBOARD = ROOT / "docs" / "conformance_scoreboard.json"


def qualified(domain: str, op: str) -> str:
    """The operator as the harness names it: plain for ai.onnx, ``domain::op`` otherwise."""
    return op if domain == "" else f"{domain}::{op}"


SUPPORTED = {qualified(domain, op) for domain, op in REGISTRY.operators()}


def test_every_operator_of_the_registry_has_a_kernel_or_a_reason() -> None:
    schemas = {qualified(s.domain, s.name) for s in onnx.defs.get_all_schemas_with_history()}
    left_out = {k.replace("ai.onnx::", "") for k in LEFT_OUT}
    assert schemas - SUPPORTED == left_out
    assert not left_out & SUPPORTED


@pytest.mark.parametrize("domain,operator", REGISTRY.operators(), ids=[qualified(*k) for k in REGISTRY.operators()])
def test_every_schema_version_has_a_kernel(domain: str, operator: str) -> None:
    versions = sorted(
        s.since_version
        for s in onnx.defs.get_all_schemas_with_history()
        if s.name == operator and s.domain == domain
    )
    declared = sorted(v for d, o, v in REGISTRY.entries() if d == domain and o == operator)
    assert declared == versions


def test_every_operator_with_a_kernel_has_cases() -> None:
    covered = set().union(*(nc.operators for nc in node_cases(SUPPORTED)))
    # operators that no node case uses in its main graph are listed with a reason
    assert SUPPORTED - covered - set(NO_NODE_CASES) == set(), sorted(SUPPORTED - covered - set(NO_NODE_CASES))
    assert not set(NO_NODE_CASES) & covered, sorted(set(NO_NODE_CASES) & covered)


def test_the_comparison_detects_a_wrong_kernel() -> None:
    """A Conv off by a little fails its cases: the comparison is not vacuous."""
    good = REGISTRY.lookup("", "Conv", 22)[0].fn

    def nudged(*args: Any, **kw: Any) -> Any:
        y = good(*args, **kw)
        return y + np.float32(1e-3) * np.abs(y).max()

    broken = KernelRegistry([Kernel("Conv", (1, 11, 22), nudged)])
    conv_cases = [nc for nc in node_cases({"Conv"}) if nc.operators == {"Conv"}]
    assert conv_cases
    for nc in conv_cases:
        run_case(nc)
        with pytest.raises(AssertionError):
            run_case(nc, broken)


def test_the_published_scoreboard_matches_the_deviation_tables() -> None:
    """``docs/conformance_scoreboard.json`` (benchmarks/backend_scoreboard.py) fails exactly the listed cases.

    So the counts the docs and benchmarks/README.md show cannot drift from what the suite runs.
    """
    board = json.loads(SCOREBOARD.read_text(encoding="utf-8"))
    assert board["onnx"] == onnx.__version__, "re-run benchmarks/backend_scoreboard.py for this onnx"
    sonnx = board["backends"]["sonnx"]["suites"]
    failing = {name for suite in sonnx.values() for name in suite["failed"]}
    assert failing == set(DEVIATIONS) | set(REFUSALS)
    node = sonnx["node"]
    assert node["passed"] == node["cases"] - len(node["failed"])
    assert node["passed"] > board["backends"]["reference"]["suites"]["node"]["passed"]
