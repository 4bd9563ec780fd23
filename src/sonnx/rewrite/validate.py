"""Translation validation: run the input and the rewritten model on the same seeded inputs, compare.

Three input sets are drawn from the declared input types of the model:

* ``normal``: standard normal values (integers in [-10, 10]);
* ``signed``: a mix of negative values, +0, -0 and small integers, so that
  a padding value that wins a maximum, or a sign of zero, shows up;
* ``extreme``: the largest finite values of either sign, the smallest normal
  values, and infinities mixed with ordinary values.

The passes of :mod:`sonnx.rewrite` keep the arithmetic unchanged (same
operations on the same values in the same order), so their outputs must be
**bit-exact**: same dtype, same shape, same bytes. The figures of any
difference come from :func:`sonnx.differential.metrics.compare_arrays`. A set
on which the input model itself cannot run is reported; if it also fails on
the rewritten model, the two agree there; if only one of them fails, they
do not agree.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import ml_dtypes
import numpy as np

from ..differential.metrics import OutputComparison, Tolerance, compare_arrays
from ..differential.quant import step_tolerances
from ..errors import SonnxError
from ..executor import execute, random_inputs
from ..model.graph import Model
from ..ops.base import UnsupportedOperatorError
from ..ops.values import numpy_dtype, same_value

SETS = ("normal", "signed", "extreme")


def _specials(dtype: np.dtype[Any], kind: str) -> np.ndarray:
    if dtype.kind == "f":
        # ml_dtypes' finfo also knows its own float types; some report kind "f" (float8_e5m2), which np.finfo refuses
        info = ml_dtypes.finfo(dtype)
        if kind == "signed":
            return np.array([-1.5, -0.0, 0.0, -3.0, 2.0, -0.25, 1.0, -7.0], dtype=dtype)
        return np.array([info.max, -info.max, info.tiny, -info.tiny, np.inf, -np.inf, 0.0, -1.0], dtype=dtype)
    if dtype.kind in "iu":
        info_i = np.iinfo(dtype)
        if kind == "signed":
            return np.array([info_i.min if dtype.kind == "u" else -3, 0, 1, 2], dtype=dtype)
        return np.array([info_i.min, info_i.max, 0, 1], dtype=dtype)
    return np.array([False, True], dtype=dtype)


def input_sets(model: Model, seed: int) -> dict[str, dict[str, np.ndarray]]:
    """The seeded input sets, keyed by set name then graph-input name."""
    base = random_inputs(model, seed)
    rng = np.random.default_rng(seed + 1)
    out: dict[str, dict[str, np.ndarray]] = {"normal": base}
    for kind in ("signed", "extreme"):
        feeds: dict[str, np.ndarray] = {}
        for name, arr in base.items():
            t = model.graph.tensor(name)
            dtype = numpy_dtype(t.type.elem_type) if t.type is not None else arr.dtype
            if arr.dtype.kind in "fiu" and dtype.kind in "fiu":
                pool = _specials(dtype, kind)
                picked = pool[rng.integers(0, len(pool), size=arr.shape)]
                if kind == "extreme":
                    keep = rng.random(arr.shape) < 0.5
                    picked = np.where(keep, arr, picked).astype(dtype)
                feeds[name] = np.asarray(picked, dtype=dtype)
            else:
                feeds[name] = arr
        out[kind] = feeds
    return out


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
    """Set when one side could not run: which side and why."""
    outputs: dict[str, OutputComparison] = field(default_factory=dict)
    bit_exact: dict[str, bool] = field(default_factory=dict)
    nan: dict[str, int] = field(default_factory=dict)
    """NaN elements of the first model's value: NaN against NaN counts as equal, so say how many."""
    informative: frozenset[str] = frozenset()
    """Compared names that do not decide the verdict (intermediate tensors, shown as evidence)."""
    intermediate: frozenset[str] = frozenset()
    """Compared names that are not graph outputs of the first model (intermediate tensors)."""

    @property
    def ok(self) -> bool:
        return self.refused is None and all(c.ok for n, c in self.outputs.items() if n not in self.informative)

    def to_json(self) -> dict[str, Any]:
        return {
            "set": self.name,
            "ok": self.ok,
            "refused": self.refused,
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


class ValidationUnavailable(SonnxError):
    """The executor cannot run the model at all (an operator or opset it does not implement): exit 2."""


def _run(model: Model, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray] | str:
    try:
        with np.errstate(all="ignore"):
            return execute(model, feeds)
    except UnsupportedOperatorError as exc:
        raise ValidationUnavailable(f"cannot compare the models on the NumPy executor: {exc.one_line()}") from None
    except SonnxError as exc:
        return exc.one_line()
    except (ValueError, TypeError, ArithmeticError) as exc:
        return f"{type(exc).__name__}: {exc}"


def compare_models(
    a: Model,
    b: Model,
    output_map: Mapping[str, str],
    seed: int,
    tolerance: Tolerance | None,
    informative: frozenset[str] = frozenset(),
    intermediate: frozenset[str] = frozenset(),
) -> list[SetResult]:
    """Run ``a`` and ``b`` on every input set; compare ``a``'s output k with ``b``'s ``output_map[k]``.

    ``tolerance`` None means bit-exact: an output is within tolerance only
    when its bytes are equal (the figures are still computed). With
    ``tolerance.quant_steps``, the outputs a quantizing operation of ``a``
    writes get a tolerance in quantization steps.
    """
    results: list[SetResult] = []
    steps = step_tolerances(a, tolerance.quant_steps) if tolerance is not None and tolerance.quant_steps else {}
    for name, feeds in input_sets(a, seed).items():
        res = SetResult(name, informative=informative, intermediate=intermediate)
        ra, rb = _run(a, feeds), _run(b, feeds)
        if isinstance(ra, str) or isinstance(rb, str):
            if isinstance(ra, str) and isinstance(rb, str):
                if name != "normal":
                    results.append(_both_refused(name, ra))
                    continue
                res.refused = f"neither model runs on the normal input set: {ra}"
            else:
                side = "first" if isinstance(ra, str) else "second"
                res.refused = f"only the {side} model fails: {ra if isinstance(ra, str) else rb}"
            results.append(res)
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
        results.append(res)
    return results


@dataclass
class _Both(SetResult):
    note: str = ""

    @property
    def ok(self) -> bool:
        return True

    def to_json(self) -> dict[str, Any]:
        return {"set": self.name, "ok": True, "refused": None, "both_refused": self.note, "outputs": {}}


def _both_refused(name: str, reason: str) -> SetResult:
    return _Both(name, note=f"both models refuse this input set the same way: {reason}")


def _force_outside(cmp: OutputComparison) -> OutputComparison:
    return replace(cmp, mismatch="equal values but different bits (signed zero or NaN payload)")


def summarize(results: list[SetResult]) -> str:
    lines = []
    for r in results:
        if isinstance(r, _Both):
            lines.append(f"  set {r.name}: {r.note}")
            continue
        if r.refused is not None:
            lines.append(f"  set {r.name}: NOT EQUIVALENT: {r.refused}")
            continue
        for out, cmp in r.outputs.items():
            tag = "bit-exact" if r.bit_exact.get(out) else ("within tolerance" if cmp.ok else "DIFFERS")
            what = "intermediate" if out in r.intermediate else "output"
            nan = r.nan.get(out, 0)
            note = f" ({nan}/{cmp.elements} elements NaN in the first model)" if nan else ""
            lines.append(f"  set {r.name}, {what} {out}: {tag}; {cmp.summary()}{note}")
    return "\n".join(lines)
