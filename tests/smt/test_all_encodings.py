"""What every SMT encoding must do alike: be well formed and agree with the direct rules on an empty graph."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from tests.common.smtkit import disagreements, g, model

pytestmark = pytest.mark.rule("GRAPH-C2")


def test_a_graph_without_operations() -> None:
    # every per-operation fact array is empty: the encodings must still be well formed and agree
    m = model(g(["x"], ["x"], []))
    diffs, s, _ = disagreements(m)
    assert not diffs
    assert s["GRAPH-C2"].status is Status.VIOLATED  # x is read by no operation
    assert all(v.status is Status.PROVED for rid, v in s.items() if rid != "GRAPH-C2")
