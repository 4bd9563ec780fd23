"""How an error-condition rule decides from the interval analysis: proof, confirmed witness, or the reason for neither.

Spec section 5.2 of spec/operators.rst. A rule names the operations it is
about and, for each, either excludes the error from the argument ranges
(nothing to report) or returns a :class:`Hazard`: the range that holds it and
how a run would show it. With no hazard and nothing left unanalysed the
verdict is PROVED, stating the declared input ranges it assumes. Otherwise
seeded, bounded candidate inputs are run through
:attr:`CheckConfig.trial_run <sonnx.rules.base.CheckConfig.trial_run>`
(:func:`candidates`: fills at 0, at the bounds and at -1 and 1, the bounds'
corners, the bad value placed on a graph input the argument is, then seeded
uniform draws); the first run that shows a hazard makes the verdict VIOLATED
with the recipe of that input, which the check re-derives. With no run that
shows one, UNKNOWN with the ranges that hold the error.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..base.caching import cached
from ..base.verdict import Severity, Status, Verdict, Witness
from ..model.graph import Operation
from ..ops.values import numpy_dtype
from .base import CheckContext, TrialRun, UniformDraw
from .intervals import Range, float_max, is_float, is_int
from .intervals_graph import Analysis, Site, analyse

SEED = 20260807
"""The seed of the random candidates (fixed: the check is a function of the model and its options)."""

MAX_RUNS = 24
"""The most candidate inputs one check runs (shared by every error-condition rule)."""

LISTED = 5

UNBOUNDED_RUNS = frozenset({"Loop", "Scan"})
"""Operators whose number of iterations an input value can set: the search runs no input through them, since a
run has no deadline."""


@dataclass(frozen=True)
class Hazard:
    """An operation whose argument ranges do not exclude the error, and how a run would show it."""

    site: Site
    what: str
    """The error in a few words (``the divisor can be 0``)."""
    ranges: dict[str, Any]
    """The ranges that hold the error, by argument role, as JSON."""
    shown: Callable[[TrialRun], str | None]
    """What a run shows of this error (a sentence), or None when it does not show it."""
    targets: tuple[tuple[str, float | int], ...] = ()
    """Values to place on a tensor (when it is a graph input) that would trigger the error."""
    tag: str | None = None


@dataclass(frozen=True)
class Candidate:
    key: str
    recipe: dict[str, dict[str, Any]]
    values: dict[str, np.ndarray] = field(compare=False)


def _bounds(r: Range) -> tuple[Any, Any]:
    if is_float(r.elem):
        m = float_max(r.elem)
        return max(float(r.lo), -m), min(float(r.hi), m)
    return int(r.lo), int(r.hi)


def _clamp(r: Range, v: float) -> Any:
    lo, hi = _bounds(r)
    if is_float(r.elem):
        return min(max(v, lo), hi)
    return lo if v <= lo else hi if v >= hi else int(min(max(math.trunc(v), lo), hi))


Fill = Any
"""How one input of a candidate is made: a fill value, or ``(lo, hi, seed)`` for a seeded uniform draw."""

Inputs = list[tuple[str, Range, tuple[int, ...]]]


def _spec(graph_inputs: Inputs, plan: dict[str, Fill], draw: UniformDraw | None = None) -> Candidate:
    """The candidate ``plan`` describes; a seeded draw in it needs ``draw`` (the pipeline's)."""
    recipe: dict[str, dict[str, Any]] = {}
    values: dict[str, np.ndarray] = {}
    for name, r, shape in graph_inputs:
        dtype = numpy_dtype(r.elem)
        kind = plan[name]
        arr: np.ndarray
        if isinstance(kind, tuple):
            a, b, seed = kind
            assert draw is not None, "a seeded candidate is planned only when the pipeline gives a draw"
            arr = np.asarray(draw(a, b, shape, dtype, seed))
            recipe[name] = {"shape": list(shape), "dtype": str(dtype), "uniform": [a, b], "seed": seed}
        else:
            arr = np.full(shape, kind, dtype=dtype)
            recipe[name] = {"shape": list(shape), "dtype": str(dtype), "fill": kind}
        if arr.size <= 16:
            recipe[name]["values"] = arr.tolist()
        values[name] = arr
    key = repr(sorted((n, sorted((k, repr(v)) for k, v in d.items() if k != "values")) for n, d in recipe.items()))
    return Candidate(key, recipe, values)


def _graph_inputs(ctx: CheckContext, an: Analysis) -> tuple[Inputs, str | None]:
    graph = ctx.model.graph
    out = []
    for name in graph.inputs:
        if name in graph.initialized:
            continue
        t = graph.tensor(name).type
        r = an.ranges[name]
        if t is None or t.kind != "tensor" or t.shape is None or not (is_float(r.elem) or is_int(r.elem)):
            return [], f"graph input {name!r} has no tensor type with a rank and a bounded element type"
        out.append((name, r, tuple(d if isinstance(d, int) else 1 for d in t.shape)))
    return out, None


def candidates(ctx: CheckContext, an: Analysis, hazards: list[Hazard]) -> tuple[list[Candidate], str | None]:
    """The inputs the search runs, in order, at most :data:`MAX_RUNS` (symbolic dimensions at 1)."""
    ins, why = _graph_inputs(ctx, an)
    if why is not None:
        return [], why
    found: dict[str, Candidate] = {}

    def add(c: Candidate) -> None:
        found.setdefault(c.key, c)

    names = [n for n, _, _ in ins]
    rng = {n: r for n, r, _ in ins}
    for v in (0.0, -math.inf, math.inf, -1.0, 1.0):
        add(_spec(ins, {n: _clamp(rng[n], v) for n in names}))
    for h in hazards:
        for tensor, bad in h.targets:
            if tensor in rng:
                for rest in (0.0, 1.0, -math.inf, math.inf):
                    add(_spec(ins, {n: _clamp(rng[n], bad if n == tensor else rest) for n in names}))
    if len(ins) <= 3:
        for corner in itertools.product((0, 1), repeat=len(ins)):
            add(_spec(ins, {n: _bounds(rng[n])[c] for n, c in zip(names, corner, strict=True)}))
    draw = ctx.config.draw_uniform
    for k, scale in enumerate((1.0, 100.0, math.inf, 1.0, 100.0, math.inf) if draw is not None else ()):
        add(_spec(ins, {n: (_clamp(rng[n], -scale), _clamp(rng[n], scale), SEED + k) for n in names}, draw))
    return list(found.values())[:MAX_RUNS], None


def _run(ctx: CheckContext, c: Candidate) -> TrialRun:
    runner = ctx.config.trial_run
    assert runner is not None
    return cached(ctx.cache, ("rules.trial_run", c.key), lambda: runner(ctx.model, c.values))


def _located(ctx: CheckContext, h: Hazard) -> dict[str, Any]:
    op = h.site.op
    return {"scope": ctx.model.graph.name or "main", "index": h.site.index, "name": op.name,
            "operator": op.operator, "error": h.what, "ranges": h.ranges, **({"tag": h.tag} if h.tag else {})}


def _about(operators: frozenset[str] | None, op: Operation) -> bool:
    return operators is None or (op.operator in operators and op.domain == "")


def _nested(ctx: CheckContext, operators: frozenset[str] | None) -> list[str]:
    scopes = [scope for scope, g in ctx.graphs()
              if g is not ctx.model.graph and any(_about(operators, op) for op in g.operations)]
    if not scopes:
        return []
    return [f"operations of {len(scopes)} nested graph(s) are not analysed (first: {scopes[0]!r})"]


def decide(ctx: CheckContext, rule_id: str, severity: Severity, operators: frozenset[str] | None,
           find: Callable[[Site], Hazard | None]) -> Verdict:
    """The verdict of an error-condition rule about ``operators`` (None: every operation; see the module text)."""
    an = analyse(ctx)
    details: dict[str, Any] = {"assumed_input_ranges": an.assumptions} if an.assumptions else {}
    if an.problem is not None:
        return Verdict.unknown(rule_id, an.problem, severity)
    reasons = _nested(ctx, operators)
    seen = {s.index for s in an.sites}
    left = [j for j, op in enumerate(ctx.model.graph.operations) if j not in seen and _about(operators, op)]
    if left:
        reasons.append(f"{len(left)} operation(s) on or after a cycle are not analysed")
    hazards = [h for s in an.sites if _about(operators, s.op) for h in [find(s)] if h]
    if not hazards and not reasons:
        return Verdict(rule_id, Status.PROVED, severity, details=details)
    if hazards:
        confirmed, tried, why = _search(ctx, an, hazards)
        if confirmed:
            c, shown = confirmed
            listed = [{**_located(ctx, h), "shows": s} for h, s in shown[:LISTED]]
            head = "; ".join(f"{h.site.op.operator} #{h.site.index} ({h.what}): {s}" for h, s in shown[:2])
            data = {"count": len(shown), "operations": listed, "input": c.recipe, **details}
            return Verdict.violated(rule_id, Witness(f"{len(shown)} operation(s) meet the error: {head}", data),
                                    severity)
        h = hazards[0]
        by = why or f"{tried} input(s) tried"
        op = h.site.op
        lead = (f"{len(hazards)} operation(s) whose ranges hold the error, none shown by {by}: "
                f"first {op.operator} #{h.site.index} {op.name!r} ({h.what}, {h.ranges})")
        reasons.insert(0, lead)
    return Verdict(rule_id, Status.UNKNOWN, severity, reason="; ".join(reasons[:3]), details=details)


def _search(ctx: CheckContext, an: Analysis,
            hazards: list[Hazard]) -> tuple[tuple[Candidate, list[tuple[Hazard, str]]] | None, int, str | None]:
    if ctx.config.trial_run is None:
        return None, 0, "no run (no executor was given, or the weights were not read)"
    looping = sorted({op.operator for _, g in ctx.graphs() for op in g.operations if op.operator in UNBOUNDED_RUNS})
    if looping:
        return None, 0, f"no run (the model holds {', '.join(looping)}, whose run time an input can make unbounded)"
    cands, why = candidates(ctx, an, hazards)
    if why is not None:
        return None, 0, f"no input could be built ({why})"
    for n, c in enumerate(cands, 1):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            run = _run(ctx, c)
        shown = [(h, s) for h in hazards for s in [h.shown(run)] if s]
        if shown:
            return (c, shown), n, None
    return None, len(cands), None


def value(run: TrialRun, name: str) -> np.ndarray | None:
    """The value a run gave tensor ``name`` (None when it gave none or not an array)."""
    v = run.values.get(name) if name else None
    return v if isinstance(v, np.ndarray) else None


def raised_at(site: Site) -> Callable[[TrialRun], str | None]:
    """A run shows the error when the operation itself raised."""

    def shown(run: TrialRun) -> str | None:
        return f"the run stopped there: {run.error}" if run.operation == site.index and run.error else None

    return shown


def ranges_json(**named: Range | None) -> dict[str, Any]:
    return {k: r.to_json() for k, r in named.items() if r is not None}
