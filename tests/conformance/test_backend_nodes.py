"""ONNX backend node conformance of every operator sonnx has a kernel for (issue 4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sonnx.ops import REGISTRY
from tests.conformance.deviations import DEVIATIONS
from tests.conformance.harness import NodeCase, node_cases, run_case

OPERATORS = [op for domain, op in REGISTRY.operators() if domain == ""]
CASES = list(node_cases(OPERATORS))


def _param(nc: NodeCase) -> object:
    reason = DEVIATIONS.get(nc.case_id)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(nc, id=nc.case_id, marks=marks)


@pytest.mark.parametrize("nc", [_param(nc) for nc in CASES])
def test_backend_node_case(nc: NodeCase, tmp_path: Path) -> None:
    run_case(nc, tmp_path)


def test_every_deviation_names_a_real_case() -> None:
    ids = {nc.case_id for nc in CASES}
    assert not set(DEVIATIONS) - ids, sorted(set(DEVIATIONS) - ids)
