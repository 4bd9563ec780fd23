"""The interval analysis of a model's main graph (spec/operators.rst, section 5.1).

Each graph input without an initial value starts at the range the user
declares for it (``--input-range``, :attr:`CheckConfig.input_ranges`), else
the range its model metadata declares (key ``sonnx.input_range.<input>``,
value ``<lo>..<hi>``), else every value of its element type; each initial
value starts at the exact minimum and maximum of its stored values (an initial
value that is also a graph input can be replaced at run time, so it counts as
an input). Operations are visited in a dependency order and given their
transfer function's output ranges (:data:`sonnx.rules.intervals_linear.TRANSFERS`);
an operator without one, or with a nested graph, gives unknown outputs.
Operations inside nested graphs are not analysed: a rule that meets its
operator there says UNKNOWN.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
from onnx import TensorProto

from ..base.caching import cached
from ..base.errors import SonnxError
from ..model.graph import Graph, Operation
from .base import CheckContext
from .derived import derived_model
from .intervals import Number, Range, is_float, is_int, of_type, of_value, top
from .intervals_linear import TRANSFERS
from .intervals_ops import Outcome
from .range_syntax import RangeSyntaxError, parse_range

RANGE_KEY = "sonnx.input_range."
"""The prefix of the ``metadata_props`` key that declares an input's range: ``sonnx.input_range.x`` = ``-1..1``."""

InputRanges = tuple[tuple[str, Number, Number], ...]


@dataclass(frozen=True)
class Site:
    """One operation of the main graph with its argument ranges and what its transfer function gave."""

    index: int
    op: Operation
    args: tuple[Range | None, ...]
    outcome: Outcome
    transfer: bool
    """Whether the operator has a transfer function (False: its outputs are unknown)."""


@dataclass(frozen=True)
class Analysis:
    ranges: dict[str, Range]
    sites: list[Site]
    assumptions: dict[str, dict[str, Any]]
    """Each graph input whose range was declared: its bounds and where they were declared."""
    problem: str | None
    """Why the analysis cannot be trusted at all (a malformed metadata range), else None."""


def _declared_shape(graph: Graph, name: str) -> tuple[int, ...] | None:
    t = graph.tensor(name).type
    if t is None or t.kind != "tensor" or t.shape is None or not all(isinstance(d, int) for d in t.shape):
        return None
    return tuple(int(d) for d in t.shape if isinstance(d, int))


def _input_range(ctx: CheckContext, name: str, elem: int) -> tuple[Range, dict[str, Any] | None, str | None]:
    graph = ctx.model.graph
    shape = _declared_shape(graph, name)
    given = {n: (lo, hi) for n, lo, hi in (ctx.config.input_ranges or ())}
    source, bounds, problem = None, None, None
    if name in given:
        source, bounds = "--input-range", given[name]
    else:
        text = ctx.model.metadata.get(RANGE_KEY + name)
        if text is not None:
            try:
                source, bounds = "metadata", parse_range(text)
            except RangeSyntaxError as exc:
                problem = f"metadata {RANGE_KEY}{name}: {exc}"
    if bounds is None or not (is_float(elem) or is_int(elem)):
        r = top(elem, shape)
        return dataclasses.replace(r, known=is_float(elem) or is_int(elem)), None, problem
    r = of_type(elem, bounds[0], bounds[1], shape=shape)
    return r, {"lo": bounds[0], "hi": bounds[1], "from": source}, problem


def _initial(ctx: CheckContext, graph: Graph, name: str) -> Range:
    t = graph.tensors[name]
    iv = t.initial_value
    if iv is None or not ctx.config.read_weights or iv.sparse:
        return top(iv.data_type if iv else 0)
    try:
        return of_value(iv.data_type, np.asarray(iv.read()))
    except (SonnxError, OSError, ValueError):  # a value the loader cannot decode: unknown, never a guess
        return top(iv.data_type)


def _derived(ctx: CheckContext) -> tuple[dict[str, tuple[int, ...]], dict[str, int]]:
    """The static shapes and the element types onnx's inference derives from enforced facts (spec 9.4)."""
    derived, _ = derived_model(ctx)
    shapes: dict[str, tuple[int, ...]] = {}
    elems: dict[str, int] = {}
    if derived is None:
        return shapes, elems
    for name, t in derived.graph.tensors.items():
        if t.type is None or t.type.kind != "tensor":
            continue
        if t.type.elem_type:
            elems[name] = t.type.elem_type
        if t.type.is_static and t.type.shape is not None:
            shapes[name] = tuple(int(d) for d in t.type.shape if isinstance(d, int))
    return shapes, elems


def _shape_value(op: Operation, args: tuple[Range | None, ...]) -> Outcome | None:
    """Shape of a tensor whose shape is fixed: its exact value (``start``/``end`` as the operator slices)."""
    x = args[0] if args else None
    if op.operator != "Shape" or x is None or x.shape is None:
        return None
    start, end = op.attribute("start"), op.attribute("end")
    dims = list(x.shape)[slice(None if start is None else int(start.value), None if end is None else int(end.value))]
    return Outcome([of_value(TensorProto.INT64, np.asarray(dims, np.int64))])


def _order(graph: Graph, known: set[str]) -> list[int]:
    """A dependency order of the operations; an operation on or after a cycle is left out."""
    waiting = {j: {n for n in op.input_mapping if n and n not in known} for j, op in enumerate(graph.operations)}
    readers: dict[str, list[int]] = {}
    for j, names in waiting.items():
        for n in names:
            readers.setdefault(n, []).append(j)
    ready = [j for j, names in waiting.items() if not names]
    order: list[int] = []
    while ready:
        j = min(ready)
        ready.remove(j)
        order.append(j)
        for n in graph.operations[j].output_mapping:
            for k in readers.pop(n, []) if n else []:
                waiting[k].discard(n)
                if not waiting[k]:
                    ready.append(k)
    return order


def _run(ctx: CheckContext) -> Analysis:
    graph = ctx.model.graph
    ranges: dict[str, Range] = {}
    assumptions: dict[str, dict[str, Any]] = {}
    problems: list[str] = []
    for name in graph.initialized:
        ranges[name] = _initial(ctx, graph, name)
    for name in graph.inputs:
        t = graph.tensor(name).type
        elem = t.elem_type if t is not None and t.kind == "tensor" else 0
        r, declared, problem = _input_range(ctx, name, elem)
        ranges[name] = r
        if declared is not None:
            assumptions[name] = declared
        if problem is not None:
            problems.append(problem)
    shapes, elems = _derived(ctx)
    sites: list[Site] = []
    for j in _order(graph, set(ranges)):
        op = graph.operations[j]
        args = tuple(ranges.get(n) if n else None for n in op.input_mapping)
        fn = TRANSFERS.get(op.operator) if op.domain == "" and not op.subgraphs else None
        outcome = _shape_value(op, args) or (fn(op, args) if fn is not None else Outcome([]))
        outs = list(outcome.outputs)
        if op.operator == "Split" and outs:
            outs = outs * len(op.output_mapping)
        for k, name in enumerate(op.output_mapping):
            if not name:
                continue
            r = outs[k] if k < len(outs) else top(elems.get(name, 0))
            if (r.elem == 0 or not r.known) and elems.get(name):
                r = top(elems[name])
            if r.shape is None and name in shapes:
                r = dataclasses.replace(r, shape=shapes[name])
            ranges[name] = r
        sites.append(Site(j, op, args, outcome, fn is not None))
    return Analysis(ranges, sites, assumptions, "; ".join(problems) or None)


def analyse(ctx: CheckContext) -> Analysis:
    """The interval analysis of ``ctx.model``'s main graph, computed once per check and shared by the rules."""
    return cached(ctx.cache, ("rules.intervals",), lambda: _run(ctx))
