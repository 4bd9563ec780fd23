"""Firings that write their result over their input's array, decided once per plan from its tables.

Relu's result has its input's shape and type, and each element depends on the
element at the same position only, so it can be written over the input
(:func:`sonnx.ops.op_relu.relu_in_place`, the same bits as the ordinary
kernel). That saves allocating and filling a new array, but is correct only if
no value of the run other than the input itself can be changed by it. The
plan lets an operation ``i`` reading ``t`` write over ``t``'s array when all of
the following hold; each is a fact about the graph's names, true on every run
and under every schedule:

1. ``t`` is neither a graph input nor an initializer (values that the caller
   or the model owns and that later runs read again) nor a graph output (the
   run returns it): the plan is made with the names it ``keep``s, and ``t``
   is not seeded and not kept;
2. operation ``i`` is the only operation that requires ``t``, counting the
   names the nested graphs of control-flow operations read from outside
   (``Operation.required_inputs``): once ``i`` has fired, no other firing
   reads ``t``'s value, and the run drops it (module ``plan``);
3. every operation that gives ``t`` a value is of an operator in
   :data:`FRESH`, whose kernels return arrays allocated during the call and
   kept nowhere else: ``t``'s array is then no input, attribute or initializer,
   no view of one, and no remembered array. With 2, no view of it exists
   either, since only an operation that reads ``t`` could have made one.

Under 1-3 the array bound to ``t`` is referenced only by the run's values and
by the argument list of firing ``i``. At run time the firing still checks
that it received a writable NumPy array of a numeric type, and otherwise calls
the ordinary kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import numpy as np

from ..model.graph import Operation
from ..ops.op_relu import relu_in_place

IN_PLACE: dict[tuple[str, str], Callable[[np.ndarray], np.ndarray]] = {("", "Relu"): relu_in_place}
"""Operators with a form that writes over their single input, by (domain, operator)."""

FRESH: frozenset[tuple[str, str]] = frozenset(
    ("", op) for op in ("Add", "BatchNormalization", "Conv", "Gemm", "MatMul", "Mul", "Sub")
)
"""Operators whose kernels, in every version, return for every output an array allocated by the call and
referenced nowhere else (``tests/model/test_in_place.py`` checks it on onnx's backend cases)."""


class InPlace:
    """The firing of an operation in :data:`IN_PLACE` whose input the plan proved its own (see the module text)."""

    __slots__ = ("_bound", "_fn")

    def __init__(self, bound: Callable[..., tuple[Any, ...]], fn: Callable[[np.ndarray], np.ndarray]) -> None:
        self._bound = bound
        self._fn = fn

    def __call__(self, inputs: Sequence[Any | None], scope: Any = None) -> tuple[Any, ...]:
        x = inputs[0] if len(inputs) == 1 else None
        if type(x) is np.ndarray and x.flags.writeable and x.dtype.kind in "fiu":
            return (self._fn(x),)
        return self._bound(inputs, scope)


def in_place_firings(
    operations: Sequence[Operation],
    seeded: Collection[str],
    keep: Collection[str] | None,
    readers: Mapping[str, int],
) -> dict[int, Callable[[np.ndarray], np.ndarray]]:
    """The operations (by index) that may write over their input, each with its in-place form.

    ``seeded`` are the names with a value before anything fires, ``keep`` the
    names the run never drops (None: nothing is dropped, so nothing is written
    over), ``readers`` how many operations require each name.
    """
    if keep is None:
        return {}
    producers: dict[str, list[Operation]] = {}
    for op in operations:
        for name in op.output_mapping:
            if name:
                producers.setdefault(name, []).append(op)
    found: dict[int, Callable[[np.ndarray], np.ndarray]] = {}
    for i, op in enumerate(operations):
        fn = IN_PLACE.get((op.domain, op.operator))
        if fn is None or len(op.input_mapping) != 1 or len(op.output_mapping) != 1:
            continue
        t = op.input_mapping[0]
        if not t or t in seeded or t in keep or readers.get(t) != 1 or op.required_inputs != (t,):
            continue
        made_by = producers.get(t, [])
        if made_by and all((p.domain, p.operator) in FRESH for p in made_by):
            found[i] = fn
    return found
