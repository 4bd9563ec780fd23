"""The SMT engine's own listing of the calls of functions that shadow a standard operator.

Spec rules GRAPH-R2 and GRAPH-DETERMINISM (spec/graph.rst, section 4): a call
of a model-local function that shadows a standard operator is classified
also as that operator, which onnxruntime and onnx's reference evaluator run
instead of the inlined body. The loader's records of inlined calls
(:class:`~sonnx.model.graph.InlinedCall`) say where each call is; which
functions shadow is read from the standard-operator listing the encoding of
GRAPH-FUNCTION-SHADOWING joins with (a trusted base, as the determinism table
is), not from the direct rule's per-function answer. The class of a call is
the solver's evaluation of the determinism table on the call's facts
(:mod:`.graph_r2`); the operations writing its outputs are found from the
write facts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ..model.graph import Model, Operation
from ..rules.function_calls import call_label
from ..rules.graph_arity import qualified
from ..rules.graph_function_shadowing import standard_operators
from ..rules.schemas import normal_domain
from .certify import index_of
from .facts import ScopeFacts


class Call(NamedTuple):
    """A call of a shadowing function in one scope, with the standard operator the runtimes run."""

    facts: ScopeFacts
    op: Operation
    function: str
    standard: str

    @property
    def label(self) -> str:
        """How witnesses name the call, worded as the direct engine words it."""
        return call_label(self.op, self.function, self.standard)


def shadowing_calls(model: Model, facts: Sequence[ScopeFacts]) -> list[Call]:
    """Every recorded call whose function's domain and name join a standard-operator fact, in each scope."""
    if not model.inlined_calls:
        return []
    std = standard_operators(model.opset_imports)
    fns = {(normal_domain(f.domain), f.name, f.overload): f for f in model.functions}
    where: dict[int, list[ScopeFacts]] = {}
    for f in facts:
        where.setdefault(id(f.graph), []).append(f)
    out: list[Call] = []
    for rec in model.inlined_calls:
        fn = fns.get(rec.function)
        since = None if fn is None else std.get((normal_domain(fn.domain), fn.name))
        if fn is None or since is None:
            continue
        shown = f"{normal_domain(fn.domain) or 'ai.onnx'}::{fn.name}-{since}"
        out.extend(Call(f, rec.call, qualified(fn), shown) for f in where.get(id(rec.graph), ()))
    return out


def writers(c: Call) -> list[int]:
    """Operations of the call's scope (local numbers) with a write fact on one of the call's outputs."""
    f = c.facts
    ix = index_of(f)
    found: set[int] = set()
    for name in c.op.output_mapping:
        t = f.tid.get(name) if name else None
        if t is not None:
            found.update(ix.wr_o[i] - f.op_base for i in ix.writers(t))
    return sorted(found)
