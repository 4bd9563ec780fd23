"""The independent runtimes a cross-check compares the NumPy executor with.

Two oracles exist: ``reference`` (onnx's reference evaluator, pure Python) and
``onnxruntime`` (an optional dependency, the ``crosscheck`` extra). Neither is
ground truth (docs/evidence.rst, "Known oracle defects"); each is a
dissimilar implementation whose agreement or disagreement is evidence.

Running an oracle never raises: the result says ``ran``, ``not available``
(the package cannot be imported), ``cannot load model`` (the runtime refuses
the model, e.g. an IR or opset version it does not support) or ``failed to
run``. When onnxruntime refuses the model's IR version only, the model is
re-saved at a lower IR version if that is lossless (:func:`lossless_ir_downgrade`)
and the note says so.
"""

from __future__ import annotations

import heapq
import importlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper

from ..loader.irfields import ELEMENT_TYPES
from ..loader.sandbox import RUNTIME_TIME_LIMIT, Failure, contained, runtime_memory_budget
from ..ops.values import EmptyOptional

ONNXRUNTIME_SETTINGS = {
    "providers": ["CPUExecutionProvider"],
    "graph_optimization_level": "ORT_DISABLE_ALL",
    "intra_op_num_threads": 1,
    "inter_op_num_threads": 1,
}
"""onnxruntime runs the graph as written (no fusion) on one thread, so that its
results do not depend on the machine's core count."""

_CLASSIC_TYPES_MAX = 16  # BFLOAT16: the types up to it that irfields does not list exist since IR 4 at the latest


@dataclass
class OracleRun:
    """What one oracle did with the model and the inputs."""

    name: str
    status: str
    """``ran``, ``not available``, ``cannot load model`` or ``failed to run``."""
    version: str | None = None
    message: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    outputs: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def ran(self) -> bool:
        return self.status == "ran"


def _one_line(exc: BaseException, limit: int = 400) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{type(exc).__name__}: {text}"


ONNXRUNTIME_MISSING = "oracle onnxruntime not available: install the extra with pip install 'sonnx[crosscheck]'"
"""Why the onnxruntime oracle did not run when it cannot be imported, with the one step that makes it run."""


def import_onnxruntime() -> Any:
    """The onnxruntime module, or None when it cannot be imported (the optional extra is not installed)."""
    try:
        return importlib.import_module("onnxruntime")
    except Exception:  # ImportError, or a broken installation: either way the oracle is missing
        return None


def oracle_version(name: str) -> str | None:
    """The version oracle ``name`` records for its runs here, None when it is not installed.

    The reference evaluator ships with onnx; onnxruntime is optional.
    """
    if name == "reference":
        return f"onnx {onnx.__version__}"
    ort = import_onnxruntime()
    return None if ort is None else f"onnxruntime {getattr(ort, '__version__', '?')}"


def _element_types(proto: onnx.ModelProto) -> set[int]:
    """Every element type the model mentions: value types, initializers, tensor attributes, Cast targets."""
    found: set[int] = set()

    def value_type(t: onnx.TypeProto) -> None:
        kind = t.WhichOneof("value")
        if kind in ("tensor_type", "sparse_tensor_type"):
            found.add(getattr(t, kind).elem_type)
        elif kind in ("sequence_type", "optional_type"):
            value_type(getattr(t, kind).elem_type)
        elif kind == "map_type":
            found.add(t.map_type.key_type)
            value_type(t.map_type.value_type)

    def nodes(ns: Any) -> None:
        for n in ns:
            for a in n.attribute:
                if a.type == onnx.AttributeProto.TENSOR:
                    found.add(a.t.data_type)
                elif a.type == onnx.AttributeProto.GRAPH:
                    graph(a.g)
                elif a.type == onnx.AttributeProto.GRAPHS:
                    for g in a.graphs:
                        graph(g)
                elif a.type == onnx.AttributeProto.INT and a.name in ("to", "dtype", "output_dtype"):
                    found.add(a.i)

    def graph(g: onnx.GraphProto) -> None:
        for v in [*g.input, *g.output, *g.value_info]:
            value_type(v.type)
        for t in g.initializer:
            found.add(t.data_type)
        for s in g.sparse_initializer:
            found.add(s.values.data_type)
        nodes(g.node)

    graph(proto.graph)
    for f in proto.functions:
        nodes(f.node)
    found.discard(0)
    return found


def lossless_ir_downgrade(proto: onnx.ModelProto, target: int) -> tuple[onnx.ModelProto | None, str]:
    """``proto`` re-saved at IR version ``target`` when nothing it uses needs a later one; else (None, why).

    Lossless means: the opsets it imports exist at ``target`` (onnx's version
    table), every element type it mentions exists at ``target``, functions
    (IR 8), their attribute defaults (IR 9), overloads and value_info (IR 10) are
    only kept where ``target`` has them (sonnx.loader.irfields for the element types), and
    onnx's checker accepts the result. Only the ``ir_version`` field changes.
    """
    if proto.ir_version <= target:
        return None, f"the model's IR version {proto.ir_version} is not above {target}"
    needed = helper.find_min_ir_version_for(list(proto.opset_import), ignore_unknown=True)
    if needed > target:
        return None, f"its opsets need IR version {needed}"
    for t in sorted(_element_types(proto)):
        since = ELEMENT_TYPES.get(t, 4 if t <= _CLASSIC_TYPES_MAX else None)
        if since is None or since > target:
            name = TensorProto.DataType.Name(t) if t in TensorProto.DataType.values() else str(t)
            return None, f"element type {name} needs a later IR version"
    if proto.functions and target < 8:
        return None, "model-local functions need IR version 8"
    if any(f.overload for f in proto.functions) and target < 10:
        return None, "function overloads need IR version 10"
    if any(f.attribute_proto for f in proto.functions) and target < 9:
        return None, "function attribute defaults need IR version 9"
    if any(f.value_info for f in proto.functions) and target < 10:
        return None, "function value_info needs IR version 10"
    lower = onnx.ModelProto()
    lower.CopyFrom(proto)
    lower.ir_version = target
    refusal = contained(_checker_refusal, lower)  # native code: a crash ends the child only
    if isinstance(refusal, Failure):
        return None, f"onnx's checker {refusal.reason} on it at IR version {target}"
    if refusal:
        return None, f"onnx's checker rejects it at IR version {target}: {refusal}"
    return lower, f"re-saved at IR version {target} (lossless: only the ir_version field changed)"


def _checker_refusal(proto: onnx.ModelProto) -> str:
    """In a child process: '' when onnx's structural checker accepts ``proto``, else its message."""
    try:
        onnx.checker.check_model(proto)
    except Exception as exc:
        return _one_line(exc) or type(exc).__name__
    return ""


def _feed(value: Any) -> Any:
    """One input as the runtimes take it: tensors as C-ordered arrays, sequences as lists, maps as dicts of
    Python scalars, the empty optional as None."""
    if isinstance(value, EmptyOptional):
        return None
    if isinstance(value, list):
        return [_feed(v) for v in value]
    if isinstance(value, dict):
        return {k: v.item() if isinstance(v, np.generic) else v for k, v in value.items()}
    # np.asarray keeps a 0-d value 0-d (np.ascontiguousarray would feed it as shape [1])
    return np.asarray(value, order="C")


def _feeds(feeds: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _feed(v) for k, v in feeds.items()}


def _free_names(g: onnx.GraphProto) -> set[str]:
    """Names a (nested) graph reads from enclosing scopes: used but defined nowhere inside it."""
    defined = (
        {v.name for v in g.input} | {t.name for t in g.initializer} | {s.values.name for s in g.sparse_initializer}
    )
    used: set[str] = set()
    for n in g.node:
        used.update(i for i in n.input if i)
        for sub in _subgraphs(n):
            used |= _free_names(sub)
        defined.update(o for o in n.output if o)
    return used - defined


def _subgraphs(n: onnx.NodeProto) -> list[onnx.GraphProto]:
    out: list[onnx.GraphProto] = []
    for a in n.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            out.append(a.g)
        elif a.type == onnx.AttributeProto.GRAPHS:
            out.extend(a.graphs)
    return out


def _sort_graph(g: onnx.GraphProto, outer: set[str]) -> bool:
    """Put ``g``'s nodes (and those of its subgraphs) in topological order, stable; True if anything moved.

    The order of nodes carries no meaning in the SONNX semantics (and the
    graph stays the same graph); the reference evaluator, however, runs
    nodes in file order and fails on a later producer. A graph whose nodes
    cannot be ordered (a cycle) is left as it is.
    """
    nodes = list(g.node)
    known = set(outer) | {v.name for v in g.input} | {t.name for t in g.initializer}
    known |= {s.values.name for s in g.sparse_initializer}
    producer: dict[str, int] = {}
    for k, n in enumerate(nodes):
        for o in n.output:
            if o and o not in known:
                producer.setdefault(o, k)
    needs: list[set[int]] = []
    for n in nodes:
        reads = {i for i in n.input if i}
        for sub in _subgraphs(n):
            reads |= _free_names(sub)
        needs.append({producer[r] for r in reads if r in producer})
    waiting = [len(d) for d in needs]
    users: dict[int, list[int]] = {}
    for k, d in enumerate(needs):
        for p in d:
            users.setdefault(p, []).append(k)
    ready = [k for k, w in enumerate(waiting) if w == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        k = heapq.heappop(ready)
        order.append(k)
        for u in users.get(k, []):
            waiting[u] -= 1
            if waiting[u] == 0:
                heapq.heappush(ready, u)
    moved = False
    if len(order) == len(nodes) and order != sorted(order):
        del g.node[:]
        g.node.extend(nodes[k] for k in order)
        moved = True
    scope = known | {o for n in nodes for o in n.output if o}
    for n in g.node:
        for sub in _subgraphs(n):
            moved |= _sort_graph(sub, scope)
    return moved


def topologically_sorted(proto: onnx.ModelProto) -> tuple[onnx.ModelProto, bool]:
    """A copy of ``proto`` whose graphs list their nodes in a topological order; and whether any moved."""
    out = onnx.ModelProto()
    out.CopyFrom(proto)
    return out, _sort_graph(out.graph, set())


def run_reference(proto: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> OracleRun:
    """Run onnx's reference evaluator on ``proto`` (its nodes put in topological order first)."""
    result = OracleRun("reference", "ran", version=oracle_version("reference"), settings={"optimized": True})
    try:
        from onnx.reference import ReferenceEvaluator

        proto, moved = topologically_sorted(proto)
        if moved:
            result.notes.append(
                "nodes listed in a topological order for the reference evaluator, which runs them in file order "
                "(the graph is unchanged)"
            )
        sess = ReferenceEvaluator(proto)
    except Exception as exc:
        result.status, result.message = "cannot load model", _one_line(exc)
        return result
    try:
        values: Any = sess.run(None, _feeds(feeds))
    except Exception as exc:
        result.status, result.message = "failed to run", _one_line(exc)
        return result
    result.outputs = dict(zip([o.name for o in proto.graph.output], values, strict=False))
    return result


def _ort_session(ort: Any, proto: onnx.ModelProto) -> Any:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    return ort.InferenceSession(proto.SerializeToString(), options, providers=["CPUExecutionProvider"])


def _max_ir_from_message(message: str) -> int | None:
    """The highest IR version onnxruntime supports, from its refusal message."""
    m = re.search(r"max supported IR version: (\d+)", message)
    return int(m.group(1)) if m else None


def run_onnxruntime(proto: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> OracleRun:
    """Run onnxruntime on ``proto`` (one thread, no graph optimisation)."""
    ort = import_onnxruntime()
    if ort is None:
        return OracleRun("onnxruntime", "not available", message=ONNXRUNTIME_MISSING)
    result = OracleRun("onnxruntime", "ran", version=oracle_version("onnxruntime"), settings=dict(ONNXRUNTIME_SETTINGS))
    try:
        sess = _ort_session(ort, proto)
    except Exception as exc:
        message = _one_line(exc)
        target = _max_ir_from_message(message)
        lower, why = (None, "") if target is None else lossless_ir_downgrade(proto, target)
        if lower is None:
            result.status = "cannot load model"
            result.message = message + (f" (not re-saved at IR version {target}: {why})" if target else "")
            return result
        try:
            sess = _ort_session(ort, lower)
        except Exception as exc2:
            result.status, result.message = "cannot load model", f"{message}; after re-saving: {_one_line(exc2)}"
            return result
        result.notes.append(f"onnxruntime refused IR version {proto.ir_version}; {why}")
    try:
        values = sess.run(None, _feeds(feeds))
    except Exception as exc:
        result.status, result.message = "failed to run", _one_line(exc)
        return result
    result.outputs = dict(zip([o.name for o in sess.get_outputs()], values, strict=False))
    return result


RUNNERS: dict[str, Callable[[onnx.ModelProto, Mapping[str, np.ndarray]], OracleRun]] = {
    "reference": run_reference,
    "onnxruntime": run_onnxruntime,
}


def run_contained(name: str, proto: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> OracleRun:
    """The oracle ``name`` run in a child process (:mod:`sonnx.loader.sandbox`): a runtime that crashes on the
    model, or reaches a limit, is an oracle that failed to run, and the caller goes on."""
    if name == "onnxruntime":
        import_onnxruntime()  # imported here once, not again in every child
    else:
        import onnx.reference  # noqa: F401
    outcome = contained(
        RUNNERS[name], proto, feeds, time_limit=RUNTIME_TIME_LIMIT, memory_budget=runtime_memory_budget()
    )
    if isinstance(outcome, Failure):
        return OracleRun(name, "failed to run", message=f"the runtime {outcome.reason} (it ran in a child process)")
    return outcome
