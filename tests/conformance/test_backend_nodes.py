"""ONNX backend node conformance of every operator sonnx has a kernel for (issue 4).

Every generated case whose graph uses only operators with a sonnx kernel runs
through the loader and the executor. It passes, or is a listed deviation
(strict xfail), or is a listed refusal (must fail with the stated message).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import onnx
import pytest

from sonnx.errors import SonnxError
from sonnx.ops import REGISTRY, Kernel, KernelRegistry
from tests.conformance.deviations import DEVIATIONS, NO_CASES, REFUSAL_RULES, REFUSALS
from tests.conformance.harness import NodeCase, node_cases, run_case


def qualified(domain: str, op: str) -> str:
    """The operator as the harness names it: plain for ai.onnx, ``domain::op`` otherwise."""
    return op if domain == "" else f"{domain}::{op}"


SUPPORTED = {qualified(domain, op) for domain, op in REGISTRY.operators()}
CASES = node_cases(SUPPORTED)


def refusal(case_id: str) -> tuple[str, str] | None:
    base = case_id.split("#")[0]
    if base in REFUSALS:
        return REFUSALS[base]
    for pattern, message, reason in REFUSAL_RULES:
        if re.search(pattern, base):
            return message, reason
    return None


PLAIN = [nc for nc in CASES if refusal(nc.case_id) is None]
REFUSED = [nc for nc in CASES if refusal(nc.case_id) is not None]


def _param(nc: NodeCase) -> object:
    reason = DEVIATIONS.get(nc.case_id)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(nc, id=nc.case_id, marks=marks)


@pytest.mark.parametrize("nc", [_param(nc) for nc in PLAIN])
def test_backend_node_case(nc: NodeCase) -> None:
    run_case(nc)


@pytest.mark.parametrize("nc", REFUSED, ids=[nc.case_id for nc in REFUSED])
def test_backend_node_case_is_refused(nc: NodeCase) -> None:
    found = refusal(nc.case_id)
    assert found is not None
    with pytest.raises(SonnxError, match=found[0]):
        run_case(nc)


def test_every_operator_with_a_kernel_has_cases() -> None:
    covered = set().union(*(nc.operators for nc in CASES))
    # Operators whose onnx case modules generate no single-graph case of their own are listed with a reason.
    assert SUPPORTED - covered - set(NO_CASES) == set(), sorted(SUPPORTED - covered - set(NO_CASES))
    assert not set(NO_CASES) & covered, sorted(set(NO_CASES) & covered)
    assert set(NO_CASES) <= SUPPORTED, sorted(set(NO_CASES) - SUPPORTED)


def test_expectation_tables_name_real_cases() -> None:
    ids = {nc.case_id for nc in CASES}
    bases = {i.split("#")[0] for i in ids}
    assert not set(DEVIATIONS) - ids, sorted(set(DEVIATIONS) - ids)
    assert not set(REFUSALS) - bases, sorted(set(REFUSALS) - bases)
    for pattern, _, _ in REFUSAL_RULES:
        assert any(re.search(pattern, b) for b in bases), pattern


@pytest.mark.parametrize("domain,operator", REGISTRY.operators(), ids=[qualified(*k) for k in REGISTRY.operators()])
def test_every_schema_version_has_a_kernel(domain: str, operator: str) -> None:
    versions = sorted(
        s.since_version
        for s in onnx.defs.get_all_schemas_with_history()
        if s.name == operator and s.domain == domain
    )
    declared = sorted(v for d, o, v in REGISTRY.entries() if d == domain and o == operator)
    assert declared == versions


def test_the_harness_detects_a_wrong_kernel() -> None:
    """A Conv off by a little fails its cases: the comparison is not vacuous."""
    good = REGISTRY.lookup("", "Conv", 22)[0].fn

    def nudged(*args: Any, **kw: Any) -> Any:
        y = good(*args, **kw)
        return y + np.float32(1e-3) * np.abs(y).max()

    broken = KernelRegistry([Kernel("Conv", (1, 11, 22), nudged)])
    conv_cases = [nc for nc in PLAIN if nc.operators == {"Conv"}]
    assert conv_cases
    for nc in conv_cases:
        with pytest.raises(AssertionError):
            run_case(nc, broken)
