"""Raw facts about the values of constant inputs, for the conditions of GRAPH-R2.

Some conditions of the determinism table read the value of an input (the
``training_mode`` of a ``Dropout``, the indices of a scatter, the divisor of
``Mod``, the input of a cast to ``FLOAT8E8M0``). The spec states what counts
as known: an initializer that is not a graph input, or the output of a
``Constant``, found by name in the operation's graph or the graph that a
capture fact binds the name to; a graph input, a computed value or a name
assigned twice is a run-time value; a constant whose bytes were not (or could
not be) read is unread. This module lists those facts: the kind of the value
(:data:`RUNTIME`, :data:`UNREAD`, :data:`VALUE`) and, for a value, its
elements as SMT-LIB terms (integers as integer numerals, floating-point
numbers as exact IEEE double literals, so NaN, infinities and -0 keep their
meaning). What the values mean for the condition is the formula's business
(:mod:`.classify`).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..model.graph import InitialValue, Model, Operation
from .facts import ScopeFacts, scope_of_tensor

RUNTIME, UNREAD, VALUE = 0, 1, 2


@dataclass
class Const:
    kind: int
    what: str
    array: np.ndarray | None = None


def num(x: int) -> str:
    """An integer as an SMT-LIB numeral (negative ones as ``(- n)``)."""
    return str(x) if x >= 0 else f"(- {-x})"


def fp64(x: float) -> str:
    """An exact IEEE double literal."""
    bits = struct.unpack(">Q", struct.pack(">d", float(x)))[0]
    return f"(fp #b{bits >> 63:01b} #b{(bits >> 52) & 0x7FF:011b} #b{bits & ((1 << 52) - 1):052b})"


def terms(a: np.ndarray) -> list[str]:
    """The elements of ``a`` in flat order as SMT-LIB terms (integers, or doubles for anything else)."""
    flat = a.reshape(-1)
    if flat.dtype.kind in "iub":
        return [num(int(v)) for v in flat.tolist()]
    return [fp64(v) for v in flat.astype(np.float64).tolist()]


def _read(model: Model, value: InitialValue, what: str, is_initializer: bool) -> Const:
    if not model.weights_loaded and (is_initializer or value.external is not None):
        return Const(UNREAD, f"{what}: the model was loaded without its weights, so the value was not read")
    try:
        return Const(VALUE, what, np.asarray(value.read()))
    except Exception as exc:  # an unreadable value is unknown, never a pass
        return Const(UNREAD, f"{what}: its value could not be read ({type(exc).__name__}: {exc})")


class Resolver:
    """Finds the definition of a name read by an operation (per-scope tables built on first use)."""

    def __init__(self, model: Model, facts: Sequence[ScopeFacts]) -> None:
        self.model = model
        self.facts = facts
        self._writes: dict[int, dict[int, list[int]]] = {}

    def writers(self, f: ScopeFacts, name: str) -> list[Operation]:
        """The operations of scope ``f`` that write tensor ``name`` (none for a name ``f`` does not know)."""
        t = f.tid.get(name) if name else None
        if t is None:
            return []
        return [f.graph.operations[o - f.op_base] for o in self._writers(f).get(t, [])]

    def _writers(self, f: ScopeFacts) -> dict[int, list[int]]:
        w = self._writes.get(f.index)
        if w is None:
            w = self._writes[f.index] = {}
            for o, _, t in f.writes():
                w.setdefault(t, []).append(o)
        return w

    def resolve(self, f: ScopeFacts, t: int, role: str) -> Const:
        """What is known of the value of tensor ``t`` (read in scope ``f``): a constant's elements, or why not."""
        cur, x = f, t
        while True:
            writes = self._writers(cur).get(x, [])
            is_input = any(u == x for _, u in cur.inputs)
            if writes or is_input or x in cur.initialized:
                break
            bound = [u for v, u in cur.captures if v == x]
            if not bound:
                return Const(RUNTIME, f"{role} {f.name(t)!r} is not defined in any enclosing graph")
            cur, x = scope_of_tensor(self.facts, bound[0]), bound[0]
        where = f"{role} {cur.name(x)!r} (defined in {cur.path})"
        if len(writes) > 1:
            return Const(RUNTIME, f"{where} is assigned more than once")
        if is_input:
            return Const(RUNTIME, f"{where} is a graph input, given at run time")
        if not writes:
            iv = cur.graph.tensor(cur.name(x)).initial_value
            assert iv is not None
            return _read(self.model, iv, f"{where}, an initializer,", True)
        producer = cur.graph.operations[writes[0] - cur.op_base]
        value = producer.attribute("value")
        if producer.operator != "Constant" or producer.domain != "" or value is None or value.type != "TENSOR":
            return Const(RUNTIME, f"{where} is computed by {producer.label}")
        return _read(self.model, value.value, f"{where}, a Constant,", False)


def attr_fact(op: Any, name: str) -> tuple[int, int]:
    """(0, 0) when the attribute is absent, (1, value) for an INT, (2, 0) for another type."""
    a = op.attribute(name)
    if a is None:
        return 0, 0
    if a.type == "INT":
        return 1, int(a.value)
    return 2, 0
