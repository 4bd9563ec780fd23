"""Dimensions as integer terms over the symbolic input dimensions (spec/operators.rst, section 3, OP-SHAPES).

A dimension is a Python ``int`` when it is the same for every admissible
input, and otherwise a z3 integer term over the variables of the symbolic
dimensions of the main graph's inputs. Keeping fixed sizes as plain integers
makes the usual case (a fully static convolution net) cost no solver work: a
condition between two integers is a Python ``bool``, decided on the spot.

The domains of the variables come from ``sonnx-check --dims`` (parsed here, so
that both the options record and the rule read one syntax): ``N=1..64`` or
``N=8``, several separated by commas; a name without a declared range ranges
over the integers of at least 1 (spec/operators.rst, section 1).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, TypeAlias

from ..base.errors import UsageError

if TYPE_CHECKING:  # z3 is imported where a formula is built: the sonnx profile's check builds none
    import z3

    from ..model.graph import Model

Term: TypeAlias = "int | z3.ArithRef"
"""One dimension (or one element of a small integer vector the analysis follows)."""
Cond: TypeAlias = "bool | z3.BoolRef"
"""A condition on the symbolic dimensions: a ``bool`` when it does not depend on them."""

DimRange = tuple[str, int, int]
"""A declared domain: the name of a symbolic dimension, its least and its greatest value."""

MAX_DIM = 2**62
"""The largest bound ``--dims`` accepts (a dimension the int64 shapes of ONNX can hold, with room)."""

_ITEM = re.compile(r"^([A-Za-z_][A-Za-z0-9_.:/\[\]\- ]*?)\s*=\s*(\d+)\s*(?:\.\.\s*(\d+))?$")


def parse_dims(texts: Iterable[str]) -> tuple[DimRange, ...]:
    """The domains written as ``NAME=LO..HI`` or ``NAME=K`` (comma-separated, repeatable), in the order given.

    A malformed item, an empty range (``HI < LO``), a least value below 1 or
    a name given twice is a :class:`UsageError` (exit 2).
    """
    out: dict[str, DimRange] = {}
    for text in texts:
        for raw in text.split(","):
            item = raw.strip()
            m = _ITEM.match(item)
            if m is None:
                raise UsageError(f"--dims {item!r}: expected NAME=LO..HI or NAME=K with integers (e.g. N=1..64)")
            name, lo = m.group(1).strip(), int(m.group(2))
            hi = int(m.group(3)) if m.group(3) is not None else lo
            check_range(name, lo, hi)
            if name in out:
                raise UsageError(f"--dims: the dimension {name!r} is given twice")
            out[name] = (name, lo, hi)
    return tuple(out.values())


def check_range(name: object, lo: object, hi: object) -> DimRange:
    """``(name, lo, hi)`` when it is a usable domain, else a :class:`UsageError` (also for a recorded one)."""
    if not isinstance(name, str) or not name or name != name.strip():
        raise UsageError(f"--dims: {name!r} is not a dimension name")
    for v in (lo, hi):
        if isinstance(v, bool) or not isinstance(v, int):
            raise UsageError(f"--dims {name}: the bounds must be integers")
    assert isinstance(lo, int) and isinstance(hi, int)
    if lo < 1:
        raise UsageError(f"--dims {name}={lo}..{hi}: a dimension of an admissible input is at least 1")
    if hi < lo:
        raise UsageError(f"--dims {name}={lo}..{hi}: the range is empty")
    if hi > MAX_DIM:
        raise UsageError(f"--dims {name}: the bound {hi} is above 2**62")
    return (name, lo, hi)


def dims_text(ranges: Sequence[DimRange]) -> str:
    """The ``--dims`` argument that stands for ``ranges``."""
    return ",".join(f"{n}={lo}" if lo == hi else f"{n}={lo}..{hi}" for n, lo, hi in ranges)


def dim_name(graph_input: str, axis: int, dim: object) -> str:
    """The name the analysis gives the symbolic dimension ``dim`` at ``axis`` of a main-graph input: the name the
    model declares, or ``input[axis]`` for a dimension it leaves unnamed."""
    return dim if isinstance(dim, str) and dim else f"{graph_input}[{axis}]"


def dim_names(model: Model) -> list[str]:
    """The names of the symbolic dimensions of the main graph's inputs, as the analysis names them."""
    names: dict[str, None] = {}
    g = model.graph
    for name in g.inputs:
        t = g.tensors.get(name)
        if t is None or t.initial_value is not None or t.type is None or t.type.shape is None:
            continue
        for k, d in enumerate(t.type.shape):
            if not (isinstance(d, int) and d >= 0):
                names[dim_name(name, k, d)] = None
    return list(names)


def check_dim_names(model: Model, dims: Sequence[DimRange]) -> None:
    """A :class:`UsageError` when ``--dims`` names a dimension the model's inputs do not have."""
    known = dim_names(model)
    for name, _, _ in dims:
        if name not in known:
            shown = ", ".join(known[:8]) or "none"
            raise UsageError(f"--dims: the model has no symbolic input dimension {name!r} (it has: {shown})")


def is_fixed(t: Term) -> bool:
    return isinstance(t, int)


def norm(t: Term) -> Term:
    """``t`` as a Python ``int`` when z3 simplifies it to a number."""
    import z3

    if isinstance(t, int):
        return t
    s = z3.simplify(t)
    if z3.is_int_value(s):
        return int(s.as_long())
    return s


def norm_cond(c: Cond) -> Cond:
    """``c`` as a Python ``bool`` when z3 simplifies it to true or false."""
    import z3

    if isinstance(c, bool):
        return c
    s = z3.simplify(c)
    if z3.is_true(s):
        return True
    if z3.is_false(s):
        return False
    return s


def eq(a: Term, b: Term) -> Cond:
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    return norm_cond(a == b)


def ge(a: Term, b: Term) -> Cond:
    if isinstance(a, int) and isinstance(b, int):
        return a >= b
    return norm_cond(a >= b)


def _joined(conds: Iterable[Cond], absorbing: bool, join: Callable[..., z3.BoolRef]) -> Cond:
    """``conds`` joined by ``join``, the constant ``absorbing`` deciding at once and ``not absorbing`` dropped."""

    parts: list[z3.BoolRef] = []
    for c in conds:
        if c is absorbing:
            return absorbing
        if c is not (not absorbing):
            parts.append(c)
    if not parts:
        return not absorbing
    return norm_cond(join(*parts)) if len(parts) > 1 else parts[0]


def all_of(conds: Iterable[Cond]) -> Cond:
    import z3

    return _joined(conds, False, z3.And)


def any_of(conds: Iterable[Cond]) -> Cond:
    import z3

    return _joined(conds, True, z3.Or)


def pick(c: Cond, a: Term, b: Term) -> Term:
    """``a`` where ``c`` holds, else ``b``."""
    import z3

    if c is True:
        return a
    if c is False:
        return b
    if isinstance(a, int) and isinstance(b, int) and a == b:
        return a
    return norm(z3.If(c, a, b))


def fdiv(a: Term, b: int) -> Term:
    """``floor(a / b)`` for a positive integer ``b`` (z3's integer division is Euclidean: floor for b > 0)."""
    if b <= 0:
        raise ValueError("fdiv needs a positive divisor")
    if isinstance(a, int):
        return a // b
    return norm(a / b)


def cdiv(a: Term, b: int) -> Term:
    """``ceil(a / b)`` for a positive integer ``b``."""
    return fdiv(a + b - 1, b)


def product(terms: Iterable[Term]) -> Term:
    out: Term = 1
    for t in terms:
        out = out * t
    return norm(out)


def maximum(a: Term, b: Term) -> Term:
    if isinstance(a, int) and isinstance(b, int):
        return max(a, b)
    return pick(ge(a, b), a, b)


def minimum(a: Term, b: Term) -> Term:
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    return pick(ge(a, b), b, a)
