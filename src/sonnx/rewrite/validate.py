"""Translation validation: run two models on the same input sets, compare, and say what was established.

Up to three input sets (``normal``, ``signed``, ``extreme``) are drawn from the
declared input types of the model by :mod:`sonnx.execution.inputs.sets`, and
only those asked for are drawn and run. Given input values (``--inputs``) are
the normal set; the callers compare only that set unless other sets are asked
for too.

Each run of a model on a set has a wall-clock budget (:data:`DEFAULT_BUDGET`
seconds unless told), enforced inside the executor between firings, Loop
iterations included, so that a set always ends.

The passes of :mod:`sonnx.rewrite` keep the arithmetic unchanged (same
operations on the same values in the same order), so their outputs must be
**bit-exact**: same dtype, same shape, same bytes. The figures of any
difference come from :func:`sonnx.differential.metrics.compare_arrays`.

What one set establishes:

* both models ran: the outputs are compared (equal, or a difference);
* one model fails with an error where the other runs: a difference;
* neither model runs on the set, or one of them did not finish within its
  budget: the set is **not compared**, which is never a difference.

:func:`outcome` puts the sets together: ``differs`` when a compared set
differs; otherwise ``established`` only when some set was compared and,
if the normal set was asked for, it was compared (the set of typical values
the model is meant for); otherwise ``not established``. The command lines
give exit 0, 1 and 2 for these three.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..base.errors import BudgetExceeded, SonnxError, UsageError
from ..differential.metrics import OutputComparison, Tolerance, compare_arrays
from ..differential.quant import step_tolerances
from ..execution.executor import execute
from ..execution.inputs.domain import Domain
from ..execution.inputs.sets import SETS
from ..model.graph import Model
from ..ops.base import UnsupportedOperatorError
from ..ops.values import same_value

DEFAULT_BUDGET = 60.0
"""Seconds of wall-clock time one model may run on one input set before it is stopped."""

SHOWN_VALUES = 32
"""Integer inputs of at most this many elements have their drawn values in the JSON report."""


def chosen_sets(sets: Sequence[str] | None, given: bool) -> tuple[str, ...]:
    """The input sets to compare: those named, else the normal set alone when values are given, else all."""
    if not sets:
        return ("normal",) if given else SETS
    unknown = sorted(set(sets) - set(SETS))
    if unknown:
        raise UsageError(f"--sets: unknown input set(s) {', '.join(unknown)}; known: {', '.join(SETS)}")
    return tuple(s for s in SETS if s in sets)


def describe_inputs(feeds: Mapping[str, Any]) -> dict[str, Any]:
    """Each input's type and shape, with its range (and its values when few) for integer arrays."""
    out: dict[str, Any] = {}
    for name, v in feeds.items():
        if not isinstance(v, np.ndarray):
            out[name] = {"kind": type(v).__name__}
            continue
        d: dict[str, Any] = {"dtype": str(v.dtype), "shape": list(v.shape)}
        if v.dtype.kind in "iu" and v.size:
            d["min"], d["max"] = int(v.min()), int(v.max())
            if v.size <= SHOWN_VALUES:
                d["values"] = [int(x) for x in v.reshape(-1)]
        out[name] = d
    return out


def domain_lines(domains: Mapping[str, Domain]) -> list[str]:
    """One line per input with a domain (where its values are drawn, unless given), as the text reports show them."""
    return [f"  input {n}: domain {d.text()}" for n, d in domains.items()]


INTERMEDIATES = ("last", "all", "none")


def shared_intermediates(a: Model, b: Model, outputs: Sequence[str], mode: str) -> tuple[str, ...]:
    """Tensors both models compute under the same name, to compare besides the graph outputs.

    ``last``: those read by the operations of ``a`` that write ``outputs``
    (the logits before a Softmax, say: a saturated Softmax output can be
    bit-exact while its inputs differ); ``all``: every tensor both compute;
    ``none``.
    """
    if mode == "none":
        return ()
    pa = {o: op for op in a.graph.operations for o in op.output_mapping if o}
    pb = {o for op in b.graph.operations for o in op.output_mapping if o}
    both = [n for n in pa if n in pb and n not in a.graph.outputs and n not in b.graph.outputs]
    if mode == "all":
        return tuple(both)
    last: list[str] = []
    for out in outputs:
        op = pa.get(out)
        if op is not None:
            last.extend(n for n in op.input_mapping if n in both and n not in last)
    return tuple(last)


def with_outputs(m: Model, extra: Sequence[str]) -> Model:
    """``m`` with ``extra`` tensors added to its graph outputs (for the executor to keep them)."""
    if not extra:
        return m
    return dataclasses.replace(m, graph=dataclasses.replace(m.graph, outputs=(*m.graph.outputs, *extra)))


@dataclass
class SetResult:
    """The comparison of one input set."""

    name: str
    refused: str | None = None
    """Set when one model fails with an error where the other runs (a difference): which and why."""
    not_compared: str | None = None
    """Set when the set could not be compared (neither model runs, or a run exceeded its budget): why."""
    outputs: dict[str, OutputComparison] = field(default_factory=dict)
    bit_exact: dict[str, bool] = field(default_factory=dict)
    nan: dict[str, int] = field(default_factory=dict)
    """NaN elements of the first model's value: NaN against NaN counts as equal, so say how many."""
    informative: frozenset[str] = frozenset()
    """Compared names that do not decide the verdict (intermediate tensors, shown as evidence)."""
    intermediate: frozenset[str] = frozenset()
    """Compared names that are not graph outputs of the first model (intermediate tensors)."""
    source: str = ""
    """Where the input values come from (a file, or a seed)."""
    inputs: dict[str, Any] = field(default_factory=dict)
    """The inputs as :func:`describe_inputs` gives them."""

    @property
    def compared(self) -> bool:
        return self.not_compared is None

    @property
    def ok(self) -> bool:
        """Compared, and every output that decides the verdict agrees."""
        return (
            self.compared
            and self.refused is None
            and all(c.ok for n, c in self.outputs.items() if n not in self.informative)
        )

    @property
    def differs(self) -> bool:
        return self.compared and not self.ok

    def to_json(self) -> dict[str, Any]:
        return {
            "set": self.name,
            "compared": self.compared,
            "ok": self.ok,
            "not_compared": self.not_compared,
            "refused": self.refused,
            "source": self.source,
            "inputs": self.inputs,
            "outputs": {
                n: {
                    "bit_exact": self.bit_exact.get(n, False),
                    "nan_in_first": self.nan.get(n, 0),
                    "decides_verdict": n not in self.informative,
                    "intermediate": n in self.intermediate,
                    **c.to_json(),
                }
                for n, c in self.outputs.items()
            },
        }


ESTABLISHED, DIFFERS, NOT_ESTABLISHED = "established", "differs", "not established"


def outcome(results: Sequence[SetResult]) -> str:
    """What the sets establish together (see the module text): ``established``, ``differs`` or ``not established``."""
    if any(r.differs for r in results):
        return DIFFERS
    compared = [r for r in results if r.compared]
    if not compared or any(r.name == "normal" and not r.compared for r in results):
        return NOT_ESTABLISHED
    return ESTABLISHED


def not_compared_text(results: Sequence[SetResult]) -> str:
    """``set (reason); ...`` for every set that was not compared, or ``""``."""
    return "; ".join(f"{r.name} ({r.not_compared})" for r in results if not r.compared)


class ValidationUnavailable(SonnxError):
    """The executor cannot run the model at all (an operator or opset it does not implement): exit 2."""


@dataclass(frozen=True)
class _Failed:
    reason: str
    budget: bool = False
    """The run was stopped at its budget (it may have finished later)."""


def _run(model: Model, feeds: Mapping[str, Any], budget: float | None) -> dict[str, Any] | _Failed:
    try:
        with np.errstate(all="ignore"):
            return execute(model, feeds, budget=budget)
    except UnsupportedOperatorError as exc:
        raise ValidationUnavailable(f"cannot compare the models on the NumPy executor: {exc.one_line()}") from None
    except BudgetExceeded as exc:
        return _Failed(exc.one_line(), budget=True)
    except SonnxError as exc:
        return _Failed(exc.one_line())
    except (ValueError, TypeError, ArithmeticError) as exc:
        return _Failed(f"{type(exc).__name__}: {exc}")


def _not_compared(ra: dict[str, Any] | _Failed, rb: dict[str, Any] | _Failed) -> str | None:
    """Why a set cannot be compared, or None when it can (both ran, or one failed outright: a difference)."""
    fa, fb = isinstance(ra, _Failed), isinstance(rb, _Failed)
    if fa and fb:
        assert isinstance(ra, _Failed) and isinstance(rb, _Failed)
        if ra.reason == rb.reason:
            return f"neither model runs on this set: {ra.reason}"
        return f"neither model runs on this set: the first: {ra.reason}; the second: {rb.reason}"
    for side, r in (("first", ra), ("second", rb)):
        if isinstance(r, _Failed) and r.budget:
            return f"the {side} model did not finish: {r.reason}"
    return None


def compare_models(
    a: Model,
    b: Model,
    output_map: Mapping[str, str],
    sets: Mapping[str, Mapping[str, Any]],
    tolerance: Tolerance | None,
    informative: frozenset[str] = frozenset(),
    intermediate: frozenset[str] = frozenset(),
    budget: float | None = DEFAULT_BUDGET,
    sources: Mapping[str, str] | None = None,
) -> list[SetResult]:
    """Run ``a`` and ``b`` on each of ``sets``; compare ``a``'s output k with ``b``'s ``output_map[k]``.

    ``tolerance`` None means bit-exact: an output is within tolerance only
    when its bytes are equal (the figures are still computed). ``budget`` is
    the wall-clock seconds each run may take (None: no limit). With
    ``tolerance.quant_steps``, the outputs a quantizing operation of ``a``
    writes get a tolerance in quantization steps.
    """
    results: list[SetResult] = []
    steps = step_tolerances(a, tolerance.quant_steps) if tolerance is not None and tolerance.quant_steps else {}
    for name, feeds in sets.items():
        res = SetResult(name, informative=informative, intermediate=intermediate,
                        source=(sources or {}).get(name, ""), inputs=describe_inputs(feeds))
        results.append(res)
        ra = _run(a, feeds, budget)
        # the second model is run even when the first did not finish: it is a refusal only when the second runs
        rb = _run(b, feeds, budget)
        res.not_compared = _not_compared(ra, rb)
        if res.not_compared is not None:
            continue
        if isinstance(ra, _Failed) or isinstance(rb, _Failed):
            side, why = ("first", ra.reason) if isinstance(ra, _Failed) else ("second", rb.reason)  # type: ignore[union-attr]
            res.refused = f"only the {side} model fails: {why}"
            continue
        for out_a, out_b in output_map.items():
            ea, eb = ra[out_a], rb[out_b]
            exact = same_value(ea, eb)
            cmp = compare_arrays(
                ea, eb, tolerance if tolerance is not None else Tolerance(atol=0.0, rtol=0.0, ulp=0),
                step=steps.get(out_a),
            )
            if tolerance is None and not exact and cmp.ok:
                # Equal values with different bits (signed zeros, NaN payloads): not bit-exact.
                cmp = _force_outside(cmp)
            res.outputs[out_a] = cmp
            res.bit_exact[out_a] = exact
            ea_arr = np.asarray(ea)
            res.nan[out_a] = int(np.isnan(ea_arr).sum()) if ea_arr.dtype.kind in "fc" else 0
    return results


def _force_outside(cmp: OutputComparison) -> OutputComparison:
    return replace(cmp, mismatch="equal values but different bits (signed zero or NaN payload)")


def summarize(results: list[SetResult]) -> str:
    lines = []
    for r in results:
        if r.source:
            lines.append(f"  set {r.name}: inputs {r.source}")
        if r.not_compared is not None:
            lines.append(f"  set {r.name}: not compared: {r.not_compared}")
            continue
        if r.refused is not None:
            lines.append(f"  set {r.name}: DIFFERS: {r.refused}")
            continue
        for out, cmp in r.outputs.items():
            tag = "bit-exact" if r.bit_exact.get(out) else ("within tolerance" if cmp.ok else "DIFFERS")
            what = "intermediate" if out in r.intermediate else "output"
            nan = r.nan.get(out, 0)
            note = f" ({nan}/{cmp.elements} elements NaN in the first model)" if nan else ""
            lines.append(f"  set {r.name}, {what} {out}: {tag}; {cmp.summary()}{note}")
    return "\n".join(lines)
