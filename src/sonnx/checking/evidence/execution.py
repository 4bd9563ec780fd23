"""The executor run recorded in every evidence bundle, and its replay by ``sonnx evidence verify``.

The bundle keeps what the NumPy executor computes for the model on the
seeded inputs (or the ``--inputs`` file): the SHA-256 of every input and
output array with its dtype and shape. The executor is deterministic, so a
replay on the bundled model copy must give the same bytes; any difference is
a verification failure. A model that cannot run (an operator without a
kernel, weights not read, an input without a declared shape) is recorded with
the reason, and the replay must fail for the same reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...base.errors import SonnxError
from ...base.threads import CHECK_THREADS, blas_threads
from ...execution.executor import execute
from ...execution.inputs import load_inputs
from ...model.graph import Model
from ...ops.values import value_digest


def run_record(model: Model | None, inputs_file: str | None, seed: int) -> dict[str, Any]:
    """What the executor gives on the recorded inputs: digests of inputs and outputs, or why it did not run."""
    if model is None:
        return {"ran": False, "reason": "the model could not be loaded"}
    if not model.weights_loaded:
        return {"ran": False, "reason": "the model was checked for structure only; its weights were not read"}
    try:
        feeds = load_inputs(model, inputs_file, [], seed)
        with blas_threads(CHECK_THREADS):
            outputs: Mapping[str, Any] = execute(model, feeds)
    except SonnxError as exc:
        return {"ran": False, "reason": exc.one_line()}
    return {
        "ran": True,
        "seed": seed,
        "inputs": {n: value_digest(v) for n, v in sorted(feeds.items())},
        "outputs": {n: value_digest(v) for n, v in outputs.items()},
    }


def compare_runs(recorded: Mapping[str, Any], fresh: Mapping[str, Any]) -> list[str]:
    """Differences between a recorded run and a replay, one line each (empty when they agree)."""
    if recorded.get("ran") != fresh.get("ran"):
        return [f"executor run: recorded ran={recorded.get('ran')}, replay ran={fresh.get('ran')} "
                f"({fresh.get('reason') or recorded.get('reason') or ''})"]
    if not fresh.get("ran"):
        if recorded.get("reason") != fresh.get("reason"):
            return [f"executor run: recorded reason {recorded.get('reason')!r}, replay {fresh.get('reason')!r}"]
        return []
    out: list[str] = []
    for kind in ("inputs", "outputs"):
        rec, new = recorded.get(kind) or {}, fresh.get(kind) or {}
        for name in sorted(set(rec) | set(new)):
            if rec.get(name) != new.get(name):
                out.append(f"executor run: {kind[:-1]} {name!r} differs from the recorded digest")
    return out
