"""A check's executions do not depend on the machine's cores (sonnx.base.threads.CHECK_THREADS).

Found by ``benchmarks/bench_batch.py``: ``sonnx batch --cross-check
onnxruntime`` on Dask workers (which start with one BLAS thread) gave DIFFER
on onnx's light SqueezeNet where the serial batch, with one BLAS thread per
core, gave AGREE. Its Softmax over nearly tied logits turns last-bit
differences of the BLAS products into different probabilities.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import onnx
import pytest
from threadpoolctl import threadpool_limits

from sonnx.checking.evidence.execution import run_record
from sonnx.differential.run import cross_check
from sonnx.loader import load_model

SQUEEZENET = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light" / "light_squeezenet.onnx"


def _under(threads: int, fn: Any) -> Any:
    """``fn()`` with NumPy's BLAS pool set to ``threads`` around it, as the caller's process may have it."""
    with threadpool_limits(limits=threads, user_api="blas"):
        return fn()


@pytest.fixture(scope="module")
def model() -> Any:
    return load_model(str(SQUEEZENET))


def test_the_cross_check_gives_the_same_figures_whatever_the_callers_thread_count(model: Any) -> None:
    def figures() -> Any:
        report = cross_check(str(SQUEEZENET), ("onnxruntime",), seed=0, model=model)
        return report.to_json()

    assert _under(1, figures) == _under(4, figures)


def test_the_bundles_execution_record_is_the_same_whatever_the_callers_thread_count(model: Any) -> None:
    assert _under(1, lambda: run_record(model, None, 0)) == _under(4, lambda: run_record(model, None, 0))

