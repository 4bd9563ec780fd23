"""Inlining of model-local functions (ONNX ``ModelProto.functions``).

The SONNX graph spec says a graph with function nodes must be convertible to
an equivalent graph without them, by expansion at the place of use. This
module does that expansion on the converted :class:`~sonnx.model.Graph`
values, without recursion:

1. the call graph among local functions is built (a call anywhere in a
   function's body, nested graphs included, is an edge), and every recursive
   chain is listed (:mod:`.cycles`); calls of functions on a chain are left in
   place as opaque operations;
2. the other functions get an *expanded template*, in callee-first order: the
   body with every call of an already expanded function replaced by that
   function's template;
3. every call in the main graph (and in every graph nested in it) is replaced
   by a copy of its template in which the formal inputs and outputs become
   the actual ones (an omitted optional input ``""`` stays ``""``), every other
   name becomes a fresh name ``<call>/<function>/<name>`` unique in the model,
   and every attribute reference is resolved from the call's attributes, then
   the function's defaults, or dropped.

Details that matter for faithfulness:

* a body name that is neither a formal input nor a formal output is local to
  the function, even when the caller has a tensor of that name (a function
  does not see its caller's scope), so it is renamed like any other;
* a formal output that is also a formal input (or repeats an earlier output)
  has no operation of the body computing it; the copy gets an ``Identity``
  operation from the actual input to the actual output;
* an omitted actual output (``""`` or missing) gets a fresh name, since the
  body still computes it;
* every inlined call of a *watched* function (the loader watches those
  named like an operator ONNX defines) is recorded as an
  :class:`~sonnx.model.graph.InlinedCall`: the call with the names it has in
  the inlined graph, and that graph. A template carries the records of the
  calls inlined into it, renamed with the rest at each instantiation, so a
  call reached through other functions is recorded where it lands;
* expansion is bounded by :data:`MAX_INLINED_OPERATIONS` (nested calls can
  grow exponentially): the number of operations each function expands to is
  computed from the call counts first (no graph is built for it), and a
  function or a model whose expansion would pass the bound is refused as
  unsupported before anything is expanded, with the exact count.
"""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType
from typing import NamedTuple

from ..base.errors import UnsupportedModelError
from ..model.graph import Attribute, Function, Graph, InlinedCall, Operation, Tensor
from .attributes import bind_references
from .cycles import elementary_cycles
from .graph_tree import names_in, post_order, tree, with_new_subgraphs

FnKey = tuple[str, str, str]
"""(domain, name, overload) of a local function; the overload is ``""`` when unused."""

MAX_INLINED_OPERATIONS = 10_000_000
"""Most operations inlining may produce; more (exponential expansion) is refused as unsupported."""


def qualified_name(key: FnKey) -> str:
    """How a function is named in recursive chains: ``domain.name``, plus ``:overload`` when given."""
    domain, name, overload = key
    text = f"{domain}.{name}" if domain else name
    return f"{text}:{overload}" if overload else text


class LocalFunction(NamedTuple):
    """A model-local function as converted, with its ONNX key and attribute defaults."""

    key: FnKey
    function: Function
    defaults: tuple[Attribute, ...]


class _Template(NamedTuple):
    name: str
    body: Graph
    formal_inputs: tuple[str, ...]
    defaults: dict[str, Attribute]
    size: int
    calls: tuple[_Record, ...]
    """Watched calls inlined into the body, located in ``body`` or in a graph nested in it."""


class _Record(NamedTuple):
    """A watched call; ``graph`` None while the graph that will hold it is still being built."""

    function: FnKey
    call: Operation
    graph: Graph | None


def _passthrough_count(body: Graph) -> int:
    """How many Identity operations an instantiation adds: formal outputs that are inputs or repeat an output."""
    seen: set[str] = set(body.inputs)
    count = 0
    for o in body.outputs:
        if o in seen:
            count += 1
        seen.add(o)
    return count


class Inliner:
    """Finds recursive chains among local functions and inlines the calls of the others."""

    def __init__(
        self, path: str, functions: list[LocalFunction], overloads: dict[int, dict[int, str]] | None,
        watched: frozenset[FnKey] = frozenset(),
    ) -> None:
        self.path = path
        self.functions = {f.key: f for f in functions}
        self.overloads = overloads or {}
        self.watched = watched
        self._records: list[_Record] = []
        """Watched calls found by the expansion under way (a template's, then the model's)."""
        self.templates: dict[FnKey, _Template] = {}
        self.operator_names: set[str] = set()
        """Names of the functions that have a template: a cheap first filter for calls."""
        self.call_cycles: tuple[tuple[str, ...], ...] = ()
        self._prepare()

    # -- call graph and templates ------------------------------------------------

    def _calls_in(self, g: Graph) -> list[tuple[int, FnKey]]:
        """(index, key) of every operation of ``g`` (this level only) that calls a local function."""
        table = self.overloads.get(id(g))
        found = []
        for i, op in enumerate(g.operations):
            key = (op.domain, op.operator, table.get(i, "") if table else "")
            if key in self.functions:
                found.append((i, key))
        return found

    def _prepare(self) -> None:
        edges: dict[FnKey, set[FnKey]] = {}
        for key, fn in self.functions.items():
            roots = [fn.function.body]
            for a in fn.defaults:
                if a.type == "GRAPH" and isinstance(a.value, Graph):
                    roots.append(a.value)
                elif a.type == "GRAPHS":
                    roots.extend(a.value)
            callees: set[FnKey] = set()
            for root in roots:
                for g in post_order(root):
                    callees.update(k for _, k in self._calls_in(g))
            edges[key] = callees
        names = {k: qualified_name(k) for k in self.functions}
        self.call_cycles, recursive = elementary_cycles(names, edges, self.path)

        # Callee-first order over the functions that are not on a cycle.
        ordered: list[FnKey] = []
        visited: set[FnKey] = set()
        for start in sorted(self.functions, key=lambda k: (names[k], k)):
            if start in recursive or start in visited:
                continue
            visited.add(start)
            stack: list[tuple[FnKey, list[FnKey]]] = [(start, sorted(edges[start] - recursive))]
            while stack:
                key, todo = stack[-1]
                if todo:
                    nxt = todo.pop()
                    if nxt not in visited:
                        visited.add(nxt)
                        stack.append((nxt, sorted(edges[nxt] - recursive)))
                    continue
                stack.pop()
                ordered.append(key)
        # Sizes first, from the call counts alone: an exponential expansion is refused before it is built.
        self.sizes: dict[FnKey, int] = {}
        for key in ordered:
            fn = self.functions[key]
            size = self.cost(fn.function.body) + _passthrough_count(fn.function.body)
            if size > MAX_INLINED_OPERATIONS:
                raise UnsupportedModelError(
                    f"{self.path}: function {names[key]!r} expands to {size:,} operations (more than"
                    f" {MAX_INLINED_OPERATIONS:,}); refused before inlining"
                )
            self.sizes[key] = size
        for key in ordered:
            self._make_template(self.functions[key])
        self._records = []

    @property
    def inlined_calls(self) -> tuple[InlinedCall, ...]:
        """The watched calls the expansions since :meth:`_prepare` inlined, each once."""
        out: dict[tuple[int, int], InlinedCall] = {}
        for r in self._records:
            assert r.graph is not None
            out.setdefault((id(r.call), id(r.graph)), InlinedCall(r.function, r.call, r.graph))
        return tuple(out.values())

    def cost(self, root: Graph) -> int:
        """How many operations ``root`` (with its nested graphs) holds once every expandable call is inlined.

        Each call of a function counts that function's size (its expansion
        plus the Identity operations a pass-through output may need); the
        function sizes are known callee-first, so nothing is expanded here.
        """
        total = 0
        sizes = getattr(self, "sizes", {})
        for g in post_order(root):
            calls = {i: k for i, k in self._calls_in(g) if k in sizes}
            total += len(g.operations) - len(calls) + sum(sizes[k] for k in calls.values())
        return total

    def check_total(self, root: Graph) -> None:
        """Refuse, before expanding, a graph whose inlined form would pass :data:`MAX_INLINED_OPERATIONS`."""
        total = self.cost(root)
        if total > MAX_INLINED_OPERATIONS:
            raise UnsupportedModelError(
                f"{self.path}: inlining model-local functions would produce {total:,} operations (more than"
                f" {MAX_INLINED_OPERATIONS:,}); refused before inlining"
            )

    def _make_template(self, fn: LocalFunction) -> None:
        body = fn.function.body
        used = names_in(body)
        self._records = []
        expanded = self.expand(body, used)
        defaults: dict[str, Attribute] = {}
        for a in fn.defaults:
            if a.type == "GRAPH" and isinstance(a.value, Graph):
                a = Attribute(a.name, a.type, self.expand(a.value, used))
            elif a.type == "GRAPHS":
                a = Attribute(a.name, a.type, tuple(self.expand(x, used) for x in a.value))
            defaults.setdefault(a.name, a)
        size = sum(len(g.operations) for g in post_order(expanded)) + len(body.outputs)
        calls = tuple(self._records)
        self.templates[fn.key] = _Template(fn.function.name, expanded, body.inputs, defaults, size, calls)
        self.operator_names.add(fn.key[1])

    # -- expansion -----------------------------------------------------------------

    def expand(self, root: Graph, used: set[str] | None = None) -> Graph:
        """``root`` with every call of an expandable local function inlined, at every depth.

        ``used`` holds the names already taken in the tree ``root`` belongs to;
        it is computed from ``root`` when first needed, and fresh names are
        added to it.
        """
        if not self.templates:
            return root
        names: list[set[str]] = [] if used is None else [used]

        def taken() -> set[str]:
            if not names:
                names.append(names_in(root))
            return names[0]

        new: dict[int, Graph] = {}
        for g, holders in tree(root):
            new[id(g)] = self._expand_level(g, holders, new, taken)
        return new[id(root)]

    def _expand_level(
        self, g: Graph, holders: list[int], new: dict[int, Graph], taken: Callable[[], set[str]]
    ) -> Graph:
        """``g`` with its calls inlined and its nested graphs replaced by their expanded versions.

        Only the operations that may change are visited one by one: calls
        (found by operator name first, a set lookup per operation) and
        holders of nested graphs. An unchanged level is returned as is.
        """
        ops = g.operations
        operators = self.operator_names
        table = self.overloads.get(id(g))
        templates = self.templates
        hits: dict[int, tuple[FnKey, _Template]] = {}
        for i in [i for i, op in enumerate(ops) if op[0] in operators]:
            op = ops[i]
            key = (op[1], op[0], table.get(i, "") if table else "")
            tmpl = templates.get(key)
            if tmpl is not None:
                hits[i] = key, tmpl
        replaced: dict[int, Operation] = {}
        for i in holders:
            op = ops[i]
            attrs = with_new_subgraphs(op.attributes, new)
            if attrs is not op.attributes:
                replaced[i] = op._replace(attributes=attrs)
        if not hits and not replaced:
            return g
        out: list[Operation] = []
        extra: dict[str, Tensor] = {}
        here: list[_Record] = []
        start = 0
        for i in sorted(set(hits) | set(replaced)):
            out.extend(ops[start:i])
            start = i + 1
            cur = replaced.get(i, ops[i])
            hit = hits.get(i)
            if hit is None:
                out.append(cur)
                continue
            key, tmpl = hit
            if key in self.watched:
                here.append(_Record(key, cur, None))
            produced, tensors = self._instantiate(tmpl, cur, taken(), here)
            out.extend(produced)
            for nm, t in tensors.items():
                extra.setdefault(nm, t)
        out.extend(ops[start:])
        tensors = dict(g.tensors)
        for nm, t in extra.items():
            tensors.setdefault(nm, t)
        level = Graph(g.name, g.inputs, g.outputs, MappingProxyType(tensors), tuple(out), g.redeclared, g.metadata)
        self._records.extend(r if r.graph is not None else r._replace(graph=level) for r in here)
        return level

    def _instantiate(
        self, tmpl: _Template, call: Operation, used: set[str], records: list[_Record]
    ) -> tuple[list[Operation], dict[str, Tensor]]:
        """The operations and declared tensors that replace ``call``; the template's records go to ``records``.

        A record in the template's body gets the graph being built (None), one in a graph nested in the body
        that graph's copy, each with its call renamed and its attribute references resolved like the body's
        operations. A record in a graph the copy does not hold (an attribute's default, passed by reference)
        is kept as it is.
        """
        body = tmpl.body
        actual_in, actual_out = call.input_mapping, call.output_mapping
        prefix = call.name or next((o for o in actual_out if o), "") or "call"
        base = f"{prefix}/{tmpl.name}/"

        mapping: dict[str, str] = {}
        for k, formal in enumerate(tmpl.formal_inputs):
            if formal not in mapping:
                mapping[formal] = actual_in[k] if k < len(actual_in) else ""
        passthrough: list[tuple[str, str]] = []
        for k, formal in enumerate(body.outputs):
            actual = actual_out[k] if k < len(actual_out) else ""
            if formal in mapping:
                # An output that is an input (or a repeated output) passes a value through.
                if actual:
                    passthrough.append((mapping[formal], actual))
            elif actual:
                mapping[formal] = actual
        formals = set(mapping)

        def rename(x: str) -> str:
            if not x:
                return x
            r = mapping.get(x)
            if r is None:
                r = base + x
                if r in used:
                    k = 1
                    while f"{r}~{k}" in used:
                        k += 1
                    r = f"{r}~{k}"
                used.add(r)
                mapping[x] = r
            return r

        bindings: dict[str, Attribute] = {}
        for a in call.attributes:
            bindings.setdefault(a.name, a)
        for name, a in tmpl.defaults.items():
            bindings.setdefault(name, a)

        new: dict[int, Graph] = {}
        produced: list[Operation] = []
        for g in post_order(body):
            ops = [
                Operation(
                    op.operator,
                    op.domain,
                    base + op.name if op.name else "",
                    tuple(map(rename, op.input_mapping)),
                    tuple(map(rename, op.output_mapping)),
                    bind_references(op.attributes, bindings, new) if op.attributes else (),
                )
                for op in g.operations
            ]
            if g is body:
                produced = ops
                continue
            new[id(g)] = Graph(
                g.name,
                tuple(map(rename, g.inputs)),
                tuple(map(rename, g.outputs)),
                MappingProxyType({rename(n): t._replace(name=rename(n)) for n, t in g.tensors.items()}),
                tuple(ops),
                tuple((rename(n), role) for n, role in g.redeclared),
                g.metadata,
            )
        for source, target in passthrough:
            produced.append(Operation("Identity", "", base + "passthrough", (source,), (target,)))
        for r in tmpl.calls:
            if r.graph is not body and (r.graph is None or id(r.graph) not in new):
                records.append(r)
                continue
            op = r.call
            renamed = Operation(
                op.operator, op.domain, base + op.name if op.name else "", tuple(map(rename, op.input_mapping)),
                tuple(map(rename, op.output_mapping)), bind_references(op.attributes, bindings, new, keep=True),
            )
            records.append(_Record(r.function, renamed, None if r.graph is body else new[id(r.graph)]))
        tensors = {
            rename(n): t._replace(name=rename(n)) for n, t in body.tensors.items() if n not in formals
        }
        return produced, tensors
