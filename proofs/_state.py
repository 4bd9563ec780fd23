"""The abstract graph and execution state shared by the confluence and termination proofs.

Everything is uninterpreted, so no size is fixed:

* sorts ``Op`` (operations), ``Tensor`` and ``Value``;
* ``inp(o, t)``: tensor ``t`` is one of the tensors operation ``o`` requires
  (its input mapping plus implicit inputs), ``out(o, t)``: ``t`` is in ``o``'s
  output mapping, ``init(t)``: ``t`` has a value in the initial state (graph
  input, initializer, captured outer tensor). An operation may have any number
  of inputs and outputs, finite or not;
* ``Eval(o, t, view)``: the value operation ``o`` gives its output ``t`` when
  its inputs hold ``view``. ``view`` is the state's value array with every
  tensor that is not an input of ``o`` replaced by a fixed dummy value, so the
  result depends on the values of ``o``'s inputs only (the operator is a
  function of its inputs; SONNX R2 and spec section 3.4);
* a state is three arrays: ``val`` (Tensor -> Value), ``dfn`` (Tensor -> Bool,
  "has a value") and ``fired`` (Op -> Bool).

This mirrors ``sonnx.model.semantics``: ``is_executable`` (not fired, every
required tensor defined) and ``fire`` (assign the outputs, mark fired).
"""

from __future__ import annotations

from typing import NamedTuple

import z3

Op = z3.DeclareSort("Op")
Tensor = z3.DeclareSort("Tensor")
Value = z3.DeclareSort("Value")

inp = z3.Function("inp", Op, Tensor, z3.BoolSort())
out = z3.Function("out", Op, Tensor, z3.BoolSort())
init = z3.Function("init", Tensor, z3.BoolSort())
Eval = z3.Function("Eval", Op, Tensor, z3.ArraySort(Tensor, Value), Value)
DUMMY = z3.Const("dummy", Value)


class St(NamedTuple):
    val: z3.ArrayRef
    dfn: z3.ArrayRef
    fired: z3.ArrayRef


def state(name: str) -> St:
    return St(
        z3.Array(f"{name}_val", Tensor, Value),
        z3.Array(f"{name}_dfn", Tensor, z3.BoolSort()),
        z3.Array(f"{name}_fired", Op, z3.BoolSort()),
    )


def initial(val0: z3.ArrayRef) -> St:
    """Only the initially valued tensors are defined; nothing has fired."""
    t = z3.Const("t_i", Tensor)
    return St(val0, z3.Lambda([t], init(t)), z3.K(Op, z3.BoolVal(False)))


def c1() -> z3.BoolRef:
    """C1 (at-most-one half): no initially valued tensor is produced; no tensor has two producers."""
    o1, o2 = z3.Consts("c1_o1 c1_o2", Op)
    t = z3.Const("c1_t", Tensor)
    return z3.And(
        z3.ForAll([o1, t], z3.Implies(out(o1, t), z3.Not(init(t)))),
        z3.ForAll([o1, o2, t], z3.Implies(z3.And(out(o1, t), out(o2, t)), o1 == o2)),
    )


def wf(s: St) -> z3.BoolRef:
    """The reachability invariant: a tensor is defined iff it is initial or produced by a fired operation."""
    t = z3.Const("wf_t", Tensor)
    o = z3.Const("wf_o", Op)
    return z3.ForAll(
        [t], s.dfn[t] == z3.Or(init(t), z3.Exists([o], z3.And(s.fired[o], out(o, t))))
    )


def executable(s: St, o: z3.ExprRef) -> z3.BoolRef:
    t = z3.Const("ex_t", Tensor)
    return z3.And(z3.Not(s.fired[o]), z3.ForAll([t], z3.Implies(inp(o, t), s.dfn[t])))


def fire(s: St, o: z3.ExprRef) -> St:
    """Assign every output of ``o`` its value computed from the values of ``o``'s inputs; mark ``o`` fired."""
    t = z3.Const("fi_t", Tensor)
    u = z3.Const("fi_u", Tensor)
    view = z3.Lambda([u], z3.If(inp(o, u), s.val[u], DUMMY))
    val = z3.Lambda([t], z3.If(out(o, t), Eval(o, t, view), s.val[t]))
    dfn = z3.Lambda([t], z3.Or(s.dfn[t], out(o, t)))
    return St(val, dfn, z3.Store(s.fired, o, True))


def same(a: St, b: St) -> z3.BoolRef:
    """Equality of states (extensional equality of the three arrays)."""
    return z3.And(a.val == b.val, a.dfn == b.dfn, a.fired == b.fired)
