"""The symbolic value domain: every tensor value is a term over the graph inputs.

Running a graph in this domain shows what each output computes, as an
expression of operators applied to inputs; for the seed-001 example the
run gives ``O2 = Mul(Add(I1, I2), c)``. A tensor that holds an initial value,
and the output of an operation with no inputs (``Constant``), is an atom
named after the tensor: a constant is known by name, not by its bytes.

Multi-output operators give one term per output, written ``Split(x)[1]``.
``If`` gives ``If(cond, then_term, else_term)`` per output, running both
branches symbolically; other control-flow operators give an opaque term of
their explicit and implicit inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .graph import Graph, Operation, Tensor
from .semantics import Scope


class Term(NamedTuple):
    """A symbolic value: an atom (no arguments) or an operator applied to terms."""

    head: str
    args: tuple[Term, ...] = ()
    output: int | None = None
    is_atom: bool = False

    def __str__(self) -> str:
        # Iterative rendering: nested terms can be as deep as the graph is long.
        out: list[str] = []
        stack: list[object] = [self]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
                continue
            assert isinstance(item, Term)
            if item.is_atom:
                out.append(item.head)
                continue
            out.append(item.head + "(")
            tail = ")" if item.output is None else f")[{item.output}]"
            stack.append(tail)
            for k in range(len(item.args) - 1, -1, -1):
                stack.append(item.args[k])
                if k:
                    stack.append(", ")
        return "".join(out)


ABSENT = Term("<absent>", is_atom=True)
"""The value of an omitted optional input."""


def atom(name: str) -> Term:
    """An atom: a graph input or a named constant."""
    return Term(name, is_atom=True)


class SymbolicInterpretation:
    """Interpret every operator as an uninterpreted function symbol."""

    def initial_value(self, tensor: Tensor) -> Term:
        return atom(tensor.name)

    def apply(self, operation: Operation, args: Sequence[Term | None], scope: Scope[Term]) -> Sequence[Term]:
        outs = operation.output_mapping
        if not operation.input_mapping and not operation.implicit_inputs:
            return [atom(n) for n in outs]
        full = tuple(a if a is not None else ABSENT for a in args)
        if operation.operator == "If" and operation.domain == "":
            return self._if(operation, full, scope)
        if operation.implicit_inputs:
            full = full + tuple(atom(n) for n in operation.implicit_inputs)
        if len(outs) == 1:
            return [Term(operation.operator, full)]
        return [Term(operation.operator, full, k) for k in range(len(outs))]

    def _if(self, operation: Operation, args: tuple[Term, ...], scope: Scope[Term]) -> Sequence[Term]:
        then_attr = operation.attribute("then_branch")
        else_attr = operation.attribute("else_branch")
        if then_attr is None or else_attr is None:
            return [Term("If", args, k) for k in range(len(operation.output_mapping))]
        then_g: Graph = then_attr.value
        else_g: Graph = else_attr.value
        t = scope.run_nested(then_g, ())
        e = scope.run_nested(else_g, ())
        return [Term("If", (args[0], t[k], e[k])) for k in range(len(operation.output_mapping))]
