"""Ranks of tensors that hold whenever the model runs: what an axis attribute's range is decided on.

GRAPH-ATTRIBUTES checks an axis against the rank of the tensor it indexes,
so that rank must be a fact of every run, not a declaration a runtime may
ignore. The facts taken (spec, rule GRAPH-ATTRIBUTES):

* a main-graph input's declared rank: onnxruntime refuses a fed value of
  another rank (measured on 1.32); the reference evaluator does not check it,
  so for it the verdict holds for inputs that conform to the declared types,
  the only inputs sonnx's executor accepts. When the input also has an
  initializer, the initializer's rank must be the same;
* an initializer's rank (its dims), and a ``Constant``'s;
* the rank an operation's definition gives its output from the ranks of its
  inputs, for the operators listed in :data:`SAME_AS_FIRST`,
  :data:`BROADCAST` and :func:`_derive` (a value exists only when the
  operation succeeded, and then it has that rank).

Declared ranks of intermediate values (``value_info``), of graph outputs and
of nested graphs' inputs are not facts: runtimes do not enforce them.
Nothing here recurses; each tensor is settled once per check run.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..base.caching import cached
from ..model.graph import InitialValue, Operation
from ..model.index import GraphIndex, index
from ..model.structure import outer_definers, scopes

SAME_AS_FIRST = frozenset(
    "Abs Acos Acosh Asin Asinh Atan Atanh AveragePool BatchNormalization Cast CastLike Ceil Celu Clip Conv "
    "ConvInteger ConvTranspose Cos Cosh CumSum DepthToSpace DequantizeLinear Dropout Elu Erf Exp Floor "
    "GatherElements Gelu GlobalAveragePool GlobalLpPool GlobalMaxPool GroupNormalization HardSigmoid HardSwish "
    "Hardmax Identity InstanceNormalization IsInf IsNaN LRN LayerNormalization LeakyRelu Log LogSoftmax "
    "LpNormalization LpPool MaxPool MeanVarianceNormalization Mish Neg Not QLinearConv QuantizeLinear "
    "RMSNormalization Reciprocal Relu Resize ReverseSequence Round Scatter ScatterElements ScatterND Selu Shrink "
    "Sigmoid Sign Sin Sinh Slice Softmax Softplus Softsign SpaceToDepth Split Sqrt Tan Tanh ThresholdedRelu "
    "Tile TopK Transpose Trilu Upsample Pad".split()
)
"""Operators of the default domain whose outputs all have the rank of input 0 (Dropout's mask, TopK's indices,
MaxPool's indices and Split's pieces included; BatchNormalization and LayerNormalization only output 0)."""

FIRST_OUTPUT_ONLY = frozenset({"BatchNormalization", "LayerNormalization", "GroupNormalization"})

BROADCAST = frozenset(
    "Add And BitShift BitwiseAnd BitwiseOr BitwiseXor Div Equal Greater GreaterOrEqual Less LessOrEqual Max Mean "
    "Min Mod Mul Or PRelu Pow Sub Sum Where Xor".split()
)
"""Operators whose output has the largest rank of their inputs (multidirectional broadcasting)."""


class Ranks:
    """The established rank of each tensor name of each scope, computed on demand and kept."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.scopes = scopes(ctx)
        self.outer = outer_definers(ctx)
        self.rank: dict[tuple[int, str], int | None] = {}
        self._indexes: list[GraphIndex | None] = [None] * len(self.scopes)

    def ix(self, scope: int) -> GraphIndex:
        """The index of scope ``scope``'s graph (looked up once per scope)."""
        found = self._indexes[scope]
        if found is None:
            found = self._indexes[scope] = index(self.ctx, self.scopes[scope].graph)
        return found

    def home(self, scope: int, name: str) -> int | None:
        """The scope whose graph defines ``name`` as seen from ``scope`` (None when none does)."""
        cur = scope
        while not self.ix(cur).defines(name):
            if name not in self.outer[cur]:
                return None
            cur = self.outer[cur][name]
        return cur

    def of(self, scope: int, name: str) -> int | None:
        """The rank of ``name`` read in ``scope`` when it is established, else None."""
        if not name:
            return None
        start = self.home(scope, name)
        if start is None:
            return None
        stack: list[tuple[int, str]] = [(start, name)]
        expanded: set[tuple[int, str]] = set()
        while stack:
            key = stack[-1]
            if key in self.rank:
                stack.pop()
                continue
            if key not in expanded:  # a second visit settles with what is known (a cycle leaves a rank open)
                expanded.add(key)
                need = self._missing(*key)
                if need:
                    stack.extend(need)
                    continue
            self.rank[key] = self._settle(*key)
            stack.pop()
        return self.rank[(start, name)]

    def _where(self, scope: int, name: str) -> tuple[int, str] | None:
        home = self.home(scope, name) if name else None
        return None if home is None else (home, name)

    def _producer(self, scope: int, name: str) -> Operation | None:
        ix = self.ix(scope)
        if name in ix.multi or name in ix.input_set:
            return None
        j = ix.prod.get(name)
        return None if j is None else self.scopes[scope].graph.operations[j]

    def _missing(self, scope: int, name: str) -> list[tuple[int, str]]:
        op = self._producer(scope, name)
        if op is None or op.domain != "" or op.operator == "Constant":
            return []
        wanted = [w for n in op.input_mapping if (w := self._where(scope, n)) is not None]
        for s, n in list(wanted):  # a Shape feeding a length: its input's rank, settled first (no recursion)
            shape = self._producer(s, n)
            if shape is not None and shape.domain == "" and shape.operator == "Shape" and shape.input_mapping:
                w = self._where(s, shape.input_mapping[0])
                if w is not None:
                    wanted.append(w)
        return [w for w in wanted if w not in self.rank]

    def _input_rank(self, scope: int, name: str) -> int | None:
        w = self._where(scope, name)
        return None if w is None else self.rank.get(w)

    def _settle(self, scope: int, name: str) -> int | None:
        g = self.scopes[scope].graph
        ix = self.ix(scope)
        if name in ix.multi:
            return None
        t = g.tensors.get(name)
        dims = None if t is None or t.initial_value is None else len(t.initial_value.dims)
        if name in ix.input_set:
            if scope != 0 or t is None or t.type is None or t.type.kind != "tensor" or t.type.shape is None:
                return None
            declared = len(t.type.shape)
            return declared if dims is None or dims == declared else None
        op = self._producer(scope, name)
        if op is None:
            return dims
        if op.domain != "":
            return None
        if op.operator == "Constant":
            return _constant_rank(op)
        ins = [self._input_rank(scope, n) if n else None for n in op.input_mapping]
        return _derive(
            op, op.output_mapping.index(name), ins, lambda n: self.elements(scope, n), lambda n: self.last_dim(scope, n)
        )

    def elements(self, scope: int, name: str, depth: int = 0) -> int | None:
        """How many elements ``name`` holds when that is fixed in every run, else None.

        Fixed: a constant's dims, one element for an established rank 0, the
        length of Shape's output (its input's rank, cut by start and end), a
        count kept by Cast, Identity, Reshape, Squeeze and Unsqueeze, the sum
        over a Concat, the longest of broadcast vectors, ConstantOfShape with a
        constant shape, and a Slice of a vector with constant bounds. The
        search stops after :data:`DEPTH` steps (then None).
        """
        w = self._where(scope, name)
        if w is None or depth > DEPTH:
            return None
        s, n = w
        if self.rank.get(w) == 0:
            return 1
        t = self.scopes[s].graph.tensors.get(n)
        ix = self.ix(s)
        if n in ix.multi or n in ix.input_set:
            return None
        op = self._producer(s, n)
        if op is None:
            return None if t is None or t.initial_value is None else math.prod(t.initial_value.dims)
        if op.domain != "":
            return None
        m = op.input_mapping
        if op.operator == "Constant":
            v = op.attribute("value")
            return math.prod(v.value.dims) if v is not None and v.type == "TENSOR" else None
        if op.operator == "Shape" and m:
            r = self.of(s, m[0])
            return None if r is None else _shape_length(op, r)
        if op.operator in ("Cast", "Identity", "Reshape", "Squeeze", "Unsqueeze") and m:
            return self.elements(s, m[0], depth + 1)
        if op.operator == "Concat" and m:
            parts = [self.elements(s, x, depth + 1) for x in m]
            known = [c for c in parts if c is not None]
            return sum(known) if len(known) == len(parts) else None
        if op.operator in BROADCAST and m and all(self.of(s, x) in (0, 1) for x in m if x):
            parts = [self.elements(s, x, depth + 1) for x in m if x]  # vectors and scalars broadcast to one length
            counts = [c for c in parts if c is not None]
            if len(counts) != len(parts):
                return None
            return 0 if 0 in counts else max(counts)
        if op.operator == "ConstantOfShape" and m:
            shape = self.constant(s, m[0])
            return None if shape is None else math.prod(shape)
        if op.operator == "Slice" and len(m) >= 3 and self.of(s, m[0]) == 1:
            return self._slice_length(s, m, depth)
        return None

    def _slice_length(self, s: int, m: tuple[str, ...], depth: int) -> int | None:
        """The length of a Slice (version 10 and later) of a vector of fixed length, with constant bounds."""
        n = self.elements(s, m[0], depth + 1)
        args = [self.constant(s, x) if x else None for x in (*m[1:5], "", "", "")[:4]]
        starts, ends, axes, steps = args
        if n is None or starts is None or ends is None or len(starts) != 1 or len(ends) != 1:
            return None
        if (len(m) > 3 and m[3] and axes is None) or (len(m) > 4 and m[4] and steps is None):
            return None
        if axes is not None and (len(axes) != 1 or axes[0] not in (0, -1)):
            return None
        step = 1 if steps is None else steps[0]
        if step == 0 or (steps is not None and len(steps) != 1):
            return None
        return len(range(n)[starts[0] : ends[0] : step])

    def constant(self, scope: int, name: str, depth: int = 0) -> list[int] | None:
        """The integers of ``name`` when every run gives it the same at most 1-D value, else None.

        Read from a Constant or an initializer (not a graph input), or folded
        through Identity, Reshape, Squeeze, Unsqueeze, Concat, Neg, and Add, Sub,
        Mul and integer Mod (the remainder takes the divisor's sign) of such
        values, within :data:`DEPTH` steps and int32's range (no wrap-around).
        """
        w = self._where(scope, name)
        if w is None or w[1] in self.ix(w[0]).input_set or depth > DEPTH:
            return None
        s, n = w
        op = self._producer(s, n)
        t = self.scopes[s].graph.tensors.get(n)
        v: InitialValue | None
        if op is None and t is not None and t.initial_value is not None and self.ctx.model.weights_loaded:
            v = t.initial_value
        elif op is not None and op.domain == "" and op.operator == "Constant" and (a := op.attribute("value")):
            v = a.value if a.type == "TENSOR" else None
        elif op is not None and op.domain == "":
            return self._fold(s, op, depth)
        else:
            return None
        try:
            arr = np.asarray(v.read()) if v is not None else None
        except Exception:  # an unreadable value is no fact
            return None
        if arr is None or arr.dtype.kind not in "iu" or arr.ndim > 1:
            return None
        return [int(x) for x in arr.reshape(-1)]

    def _fold(self, s: int, op: Operation, depth: int) -> list[int] | None:
        m = [x for x in op.input_mapping if x]
        o = op.operator
        if o in ("Identity", "Reshape", "Squeeze", "Unsqueeze", "Neg") and m:
            if o in ("Reshape", "Unsqueeze") and self.of(s, op.output_mapping[0]) not in (0, 1):
                return None
            x = self.constant(s, m[0], depth + 1)
            return None if x is None else [-v for v in x] if o == "Neg" else x
        args = [self.constant(s, x, depth + 1) for x in m]
        known = [a for a in args if a is not None]
        if len(known) != len(args) or not known:
            return None
        if o == "Concat":
            return [v for a in known for v in a]
        if o not in ("Add", "Sub", "Mul", "Mod") or len(known) != 2 or op.attributes:
            return None
        a, b = known
        if len(a) != len(b) and 1 not in (len(a), len(b)):
            return None
        size = max(len(a), len(b))
        a, b = a * size if len(a) == 1 else a, b * size if len(b) == 1 else b
        if o == "Mod" and 0 in b:
            return None
        ops = {"Add": lambda x, y: x + y, "Sub": lambda x, y: x - y, "Mul": lambda x, y: x * y,
               "Mod": lambda x, y: x % y}
        out = [ops[o](x, y) for x, y in zip(a, b, strict=True)]
        return out if all(-(1 << 31) <= v < (1 << 31) for v in out) else None  # no wrap in int32 nor int64

    def last_dim(self, scope: int, name: str) -> int | None:
        """The last dimension of a constant ``name`` (an initializer or a Constant's value), else None."""
        w = self._where(scope, name)
        if w is None:
            return None
        s, n = w
        if n in self.ix(s).input_set:
            return None
        op = self._producer(s, n)
        t = self.scopes[s].graph.tensors.get(n)
        if op is None and t is not None and t.initial_value is not None:
            dims = t.initial_value.dims
        elif op is not None and op.domain == "" and op.operator == "Constant" and (v := op.attribute("value")):
            dims = v.value.dims if v.type == "TENSOR" else ()
        else:
            return None
        return int(dims[-1]) if dims else None


DEPTH = 64
"""Most steps :meth:`Ranks.elements` follows back from a tensor."""


def _shape_length(op: Operation, r: int) -> int | None:
    """The length of Shape's output for an input of rank ``r`` (start and end clamped as the text says)."""
    bounds = []
    for name, default in (("start", 0), ("end", r)):
        a = op.attribute(name)
        if a is not None and a.type != "INT":
            return None
        v = default if a is None else int(a.value)
        v = v + r if v < 0 else v
        bounds.append(min(max(v, 0), r))
    return max(bounds[1] - bounds[0], 0)


def _constant_rank(op: Operation) -> int | None:
    if len(op.attributes) != 1:
        return None
    a = op.attributes[0]
    if a.type in ("TENSOR", "SPARSE_TENSOR"):
        return len(a.value.dims)
    return {"FLOAT": 0, "INT": 0, "STRING": 0, "FLOATS": 1, "INTS": 1, "STRINGS": 1}.get(a.type)


def _ints(op: Operation, name: str) -> tuple[int, ...] | None:
    a = op.attribute(name)
    return tuple(a.value) if a is not None and a.type == "INTS" else None


def _derive(op: Operation, out: int, ins: list[int | None], elements: Any, last_dim: Any) -> int | None:
    """The rank of output ``out`` of ``op`` from its inputs' ranks ``ins`` (None where not established)."""
    o = op.operator
    first = ins[0] if ins else None
    if o in SAME_AS_FIRST:
        return first if out == 0 or o not in FIRST_OUTPUT_ONLY else None
    if o in BROADCAST:
        given = [r for r, n in zip(ins, op.input_mapping, strict=True) if n]
        return max(given) if given and all(r is not None for r in given) else None  # type: ignore[type-var]
    if o in ("Gemm", "Flatten"):
        return 2
    if o == "Shape":
        return 1
    if o == "Size":
        return 0
    if o == "Concat":
        return next((r for r in ins if r is not None), None)
    if o == "MatMul" and len(ins) == 2 and ins[0] is not None and ins[1] is not None:
        a, b = ins[0], ins[1]
        return 0 if a == b == 1 else b - 1 if a == 1 else a - 1 if b == 1 else max(a, b)
    if o == "Gather" and len(ins) == 2 and first is not None and ins[1] is not None:
        return first + ins[1] - 1
    if o == "GatherND" and len(ins) == 2 and first is not None and ins[1] is not None:
        last, batch = last_dim(op.input_mapping[1]), op.attribute("batch_dims")
        if last is None or (batch is not None and batch.type != "INT"):
            return None
        return first + ins[1] - last - 1 - (0 if batch is None else int(batch.value))
    if o.startswith("Reduce") and first is not None:
        k = op.attribute("keepdims")
        return first if k is None or (k.type == "INT" and k.value == 1) else None
    if o in ("ArgMax", "ArgMin") and first is not None:
        k = op.attribute("keepdims")
        if k is not None and k.type != "INT":
            return None
        return first if k is None or k.value == 1 else first - 1 if k.value == 0 else None
    if o == "Reshape":
        shape = _ints(op, "shape")
        if shape is not None:
            return len(shape)
        return elements(op.input_mapping[1]) if len(op.input_mapping) > 1 else None
    if o in ("Unsqueeze", "Squeeze") and first is not None:
        axes = _ints(op, "axes")
        count = len(axes) if axes is not None else elements(op.input_mapping[1]) if len(ins) > 1 else None
        if count is None:
            return None
        return first + count if o == "Unsqueeze" else first - count
    if o == "Expand" and first is not None and len(ins) > 1:
        n = elements(op.input_mapping[1])
        return None if n is None else max(first, n)
    if o == "ConstantOfShape" and ins:
        return elements(op.input_mapping[0])
    return None


def ranks(ctx: Any) -> Ranks:
    """The model's :class:`Ranks` (one per check run)."""
    return cached(ctx.cache, ("rules.ranks",), lambda: Ranks(ctx))
