"""The calls of model-local functions that shadow a standard operator, where inlining put them.

Spec rules GRAPH-FUNCTION-SHADOWING, GRAPH-R2 and GRAPH-DETERMINISM
(spec/graph.rst, section 4). A call of a function that shadows a standard
operator has two meanings: the function's body, which the loader inlined and
the rules check operation by operation, and the standard operator, which
onnxruntime and onnx's reference evaluator run instead. GRAPH-R2 and
GRAPH-DETERMINISM weigh the second meaning at each such call; this module
finds the calls. The loader records every inlined call of a function named
like an ONNX operator (:class:`~sonnx.model.graph.InlinedCall`, calls inside
other functions included); the ones whose function shadows an operator at
the model's opset (:func:`.graph_function_shadowing.shadowed`) are kept, once
per scope whose graph holds the call's inlined body.
"""

from __future__ import annotations

from typing import NamedTuple

from ..base.caching import cached
from ..model.graph import Operation
from ..model.index import index
from ..model.structure import scopes
from .base import CheckContext
from .graph_function_shadowing import shadowed
from .schemas import normal_domain

CALL_GRAPHS = (
    "the graphs the call gives as attributes would run as the standard operator's nested graphs, and no rule "
    "classifies them"
)
"""Why a call that gives graph attributes is of unknown class where the table finds the operator deterministic
(both engines): those graphs are in the model only where the function's body uses them."""


def gives_graphs(call: Operation) -> bool:
    """Whether ``call`` gives a graph attribute (a local ``If``, ``Loop``...)."""
    return any(a.type in ("GRAPH", "GRAPHS") for a in call.attributes)


class ShadowedCall(NamedTuple):
    """A call of a shadowing function: the operation as written (names of the inlined graph) and its scope."""

    scope: int
    call: Operation
    function: str
    """How the rule GRAPH-FUNCTION-SHADOWING names the function."""
    standard: str
    """The standard operator the runtimes run, ``domain::name-since``."""

    @property
    def label(self) -> str:
        """How witnesses name the call and both its meanings."""
        return call_label(self.call, self.function, self.standard)


def call_label(call: Operation, function: str, standard: str) -> str:
    """How both engines' witnesses name a call of a shadowing function and its two meanings."""
    return f"{call.label} (a call of function {function}, run by the runtimes as {standard})"


def shadowed_calls(ctx: CheckContext) -> list[ShadowedCall]:
    """Every recorded call of a function that shadows a standard operator, in each scope holding it (cached)."""

    def build() -> list[ShadowedCall]:
        imports = ctx.model.opset_imports
        shadows = {}
        for fn in ctx.model.functions:
            s = shadowed(fn, imports)
            if s is not None:
                shadows[(normal_domain(fn.domain), fn.name, fn.overload)] = s
        if not shadows:
            return []
        where: dict[int, list[int]] = {}
        for i, sc in enumerate(scopes(ctx)):
            where.setdefault(id(sc.graph), []).append(i)
        out: list[ShadowedCall] = []
        for rec in ctx.model.inlined_calls:
            s = shadows.get(rec.function)
            if s is None:
                continue
            std = f"{s['standard_operator']}-{s['since_version']}"
            out.extend(ShadowedCall(i, rec.call, s["function"], std) for i in where.get(id(rec.graph), ()))
        return out

    return cached(ctx.cache, ("rules.shadowed_calls",), build)


def writers(ctx: CheckContext, c: ShadowedCall) -> list[int]:
    """The operations of the call's scope that write one of its outputs (the inlined body's, or pass-throughs)."""
    ix = index(ctx, scopes(ctx)[c.scope].graph)
    return sorted({j for o in c.call.output_mapping if o for j in ix.producers(o)})
