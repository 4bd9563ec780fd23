"""A probed run is the plain run, recorded: the same stores and drops, and a record that counts what was live.

:meth:`sonnx.execution.plan.GraphPlan.run` has one firing loop; a
:class:`~sonnx.execution.plan.Probe` swaps in a recording step. Here the run's
``values`` mapping is a dictionary that logs every store and every drop, and
every kernel call logs which operation fired. From that log alone (not from
the recorder's own arithmetic) each firing's output bytes and live bytes are
counted again, and must equal the probe's record; and the probed run's log
must be the plain run's, store for store and drop for drop (the
``--profile`` and ``--trace`` numbers describe the run that ``sonnx run``
makes without them).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sonnx.execution.executor import model_plan
from sonnx.execution.inputs import random_inputs
from sonnx.execution.plan import GraphPlan, ModelPlan, Probe, value_nbytes
from sonnx.loader import load_model
from sonnx.model.semantics import Scheduler, SeededRandomOrder

ROOT = Path(__file__).resolve().parents[2]
UNRUNNABLE = {"functions_recursion.onnx"}
"""Examples with no run to record: a recursive local function has no kernel, so no plan is made."""
MODELS = [
    *(p for p in sorted((ROOT / "examples").glob("*.onnx")) if p.name not in UNRUNNABLE),
    *(ROOT / "tests" / "data" / "real" / name for name in (
        "mobilenet_v3_small.torchscript.onnx",  # residual branches: values read twice, dropped late
        "loop_tripcount.torchscript.onnx",  # a Loop: a nested graph run on the main graph's values
        "gpt2_tiny.dynamo.onnx",  # multi-output operations, initializers read many times
    )),
]

Event = tuple[str, Any, int]
"""("fire", operation index, 0), ("set", name, bytes of the value) or ("del", name, 0)."""


class LoggedValues(dict[str, Any]):
    """The run's values, logging each store and drop the run makes."""

    def __init__(self, values: dict[str, Any], log: list[Event]) -> None:
        super().__init__(values)
        self.log = log

    def __setitem__(self, name: str, value: Any) -> None:
        self.log.append(("set", name, value_nbytes(value)))
        super().__setitem__(name, value)

    def __delitem__(self, name: str) -> None:
        self.log.append(("del", name, 0))
        super().__delitem__(name)


def logged_run(plan: ModelPlan, feeds: dict[str, Any], scheduler: Scheduler | None,
               probe: Probe | None) -> list[Event]:
    """The log of one run of ``plan``'s main graph on ``feeds``: which operation fired, what was stored and dropped."""
    log: list[Event] = []
    main = plan.main
    original = list(main.calls)

    def logging(i: int, call: Callable[..., tuple[Any, ...]]) -> Callable[..., tuple[Any, ...]]:
        def fire(inputs: Sequence[Any], scope: Any = None) -> tuple[Any, ...]:
            log.append(("fire", i, 0))
            return call(inputs, scope)

        return fire

    main.calls[:] = [logging(i, c) for i, c in enumerate(original)]
    try:
        values = LoggedValues({**plan.initial, **feeds}, log)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            main.run(values, scheduler, probe=probe)
    finally:
        main.calls[:] = original
    return log


def recount(main: GraphPlan, start: dict[str, Any], log: list[Event]) -> tuple[list[tuple[int, int, int]], int]:
    """Each firing's (index, output bytes, live bytes) and the largest live set, counted from the log alone.

    Live: the values present that are not weights only (an initializer that is
    also a graph input counts), right after a firing's stores, before its drops.
    """
    weights = set(main.graph.initialized) - set(main.graph.inputs)
    present = {n: value_nbytes(v) for n, v in start.items()}

    def live() -> int:
        return sum(b for n, b in present.items() if n not in weights)

    peak = live()
    records: list[tuple[int, int, int]] = []
    current: list[int] | None = None  # [index, output bytes] of the firing whose stores are being read

    def close() -> None:
        nonlocal current, peak
        if current is not None:
            records.append((current[0], current[1], live()))
            peak = max(peak, records[-1][2])
            current = None

    for kind, what, size in log:
        if kind == "fire":
            close()
            current = [what, 0]
        elif kind == "set":
            assert current is not None, f"{what} stored outside a firing"
            current[1] += size
            present[what] = size
        else:
            close()
            del present[what]
    close()
    return records, peak


@pytest.mark.parametrize("order", [None, 5], ids=["file order", "random:5"])
@pytest.mark.parametrize("path", MODELS, ids=[p.name for p in MODELS])
def test_a_probed_run_is_the_plain_run_and_its_record_counts_the_live_values(path: Path, order: int | None) -> None:
    model = load_model(str(path))
    plan, feeds = model_plan(model), random_inputs(model, 0)
    scheduler: Callable[[], Scheduler | None] = (lambda: None) if order is None else (lambda: SeededRandomOrder(order))
    plain = logged_run(plan, feeds, scheduler(), None)
    probe = Probe()
    probed = logged_run(plan, feeds, scheduler(), probe)
    assert probed == plain
    records, peak = recount(plan.main, {**plan.initial, **feeds}, probed)
    assert [(f.index, f.output_bytes, f.live_bytes) for f in probe.firings] == records
    assert probe.peak_live_bytes == peak
    weights = set(plan.main.graph.initialized) - set(plan.main.graph.inputs)
    start = {**plan.initial, **feeds}
    assert probe.initial_bytes == sum(value_nbytes(v) for n, v in start.items() if n in weights)
    assert probe.input_bytes == sum(value_nbytes(v) for n, v in start.items() if n not in weights)
    assert probe.start <= min((f.start for f in probe.firings), default=probe.end) <= probe.end
    assert all(f.start <= f.end for f in probe.firings)
