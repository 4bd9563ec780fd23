"""What a shape transfer function sees of one operation, and what it answers (spec/operators.rst, section 3).

A transfer function (the tables of :mod:`.shapes_ops_basic` and
:mod:`.shapes_ops_nn`) receives an :class:`OpView`: the operation, the opset
version in force, and for each input the :class:`Info` the analysis derived
(its shape as terms, and for a small integer vector the analysis can follow,
its elements as terms). It returns the :class:`Info` of each output and
records, through :meth:`OpView.need`, every condition the operator needs of
its input shapes to run (the shape preconditions OP-SHAPES proves), and
through :meth:`OpView.assume`, every condition the analysis itself needs to
have derived the output (failing, it leaves the verdict UNKNOWN, never
VIOLATED). A function that cannot derive an output raises :class:`Uncovered`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ..model.graph import Operation
from .shapes_terms import Cond, Term, eq, norm_cond


class Uncovered(Exception):
    """The analysis cannot derive the outputs' shapes of this operation (the reason is the message)."""


class Info(NamedTuple):
    """What the analysis knows of one tensor for every admissible input."""

    shape: tuple[Term, ...]
    value: tuple[Term, ...] | None = None
    """The elements of a rank-0 or rank-1 integer tensor, when they are terms the analysis follows."""
    floats: tuple[float, ...] | None = None
    """The elements of a stored rank-0 or rank-1 floating-point tensor (the scales of a Resize)."""


class Need(NamedTuple):
    """A condition on the symbolic dimensions that one operation needs."""

    text: str
    cond: Cond
    analysis: bool = False
    """True for a condition of the analysis (its failure leaves the verdict open) rather than of the operator."""


class OpView:
    """One operation as its transfer function sees it; collects the conditions it needs."""

    def __init__(self, op: Operation, opset: int, inputs: Sequence[Info | None]) -> None:
        self.op = op
        self.opset = opset
        self.inputs = tuple(inputs)
        self.needs: list[Need] = []

    def has(self, k: int) -> bool:
        return k < len(self.inputs) and self.inputs[k] is not None

    def info(self, k: int) -> Info:
        if not self.has(k):
            raise Uncovered(f"input {k} is absent")
        got = self.inputs[k]
        assert got is not None
        return got

    def shape(self, k: int) -> tuple[Term, ...]:
        return self.info(k).shape

    def value(self, k: int, what: str) -> tuple[Term, ...]:
        """The elements of input ``k``, which must be known (a stored constant or a followed shape computation)."""
        got = self.info(k).value
        if got is None:
            raise Uncovered(f"its {what} input is computed from values the analysis does not follow")
        return got

    def ints_of(self, k: int, what: str) -> tuple[int, ...]:
        """The elements of input ``k`` as integers, the same for every admissible input."""
        got = self.value(k, what)
        if not all(isinstance(t, int) for t in got):
            raise Uncovered(f"its {what} input depends on the input dimensions")
        return tuple(int(t) for t in got)

    def attr_int(self, name: str, default: int | None = None) -> int:
        a = self.op.attribute(name)
        if a is None or a.type != "INT":
            if default is None:
                raise Uncovered(f"attribute {name} is not given")
            return default
        return int(a.value)

    def attr_ints(self, name: str) -> tuple[int, ...] | None:
        a = self.op.attribute(name)
        if a is None or a.type != "INTS":
            return None
        return tuple(int(x) for x in a.value)

    def attr_str(self, name: str, default: str) -> str:
        a = self.op.attribute(name)
        if a is None or a.type != "STRING":
            return default
        v = a.value
        return v.decode() if isinstance(v, bytes) else str(v)

    def need(self, text: str, cond: Cond) -> None:
        """Record a shape precondition of the operator; a condition false for every input stays recorded."""
        c = norm_cond(cond)
        if c is not True:
            self.needs.append(Need(text, c))

    def assume(self, text: str, cond: Cond) -> None:
        """Record a condition the analysis needs to have derived the outputs as it did."""
        c = norm_cond(cond)
        if c is not True:
            self.needs.append(Need(text, c, analysis=True))


def axis_of(v: OpView, axis: int, rank: int, what: str = "axis") -> int:
    """``axis`` made non-negative for a tensor of ``rank``; an axis out of range fails for every input."""
    if not -rank <= axis < rank:
        v.need(f"{what} {axis} lies in [-{rank}, {rank - 1}]", False)
        raise Uncovered(f"{what} {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def same(v: OpView, text: str, a: Term, b: Term) -> None:
    """Record that dimensions ``a`` and ``b`` must be equal."""
    v.need(text, eq(a, b))
