"""Running a partitioned model, and writing it as ONNX with one node per subgraph.

*Execution equivalence* (``PARTITION-EXEC``): each subgraph runs as a model
of its own on the NumPy executor, in a topological order of the fused
graph; the values at its declared outputs are handed to the subgraphs that
declare them as inputs. The graph outputs must have the same dtype, shape
and bytes as when the whole model runs on the same inputs. This is a test on
the given inputs, not a proof for all inputs; the details say which inputs.

*Fused model*: the main graph holds one operation per subgraph, operator
``<subgraph id>`` in domain :data:`DOMAIN`; the model's local functions hold
one function per subgraph whose body is the subgraph's operations. Constant
initializers stay initializers of the main graph and are passed to the call
as extra inputs after the declared inputs (ONNX functions cannot hold
initializers, and turning weights into ``Constant`` nodes would copy a
weight shared by two subgraphs). The file is written by
:func:`sonnx.loader.writer.save_model`; the loader inlines the calls back, so
``sonnx-check`` and the executor see the original operations.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..base.errors import SonnxError, ToolError
from ..base.verdict import Severity, Status, Verdict, Witness
from ..execution.executor import execute
from ..loader.sandbox import Failure, contained
from ..model.graph import Function, Model, Operation, Tensor, freeze_mapping, make_graph
from ..ops.values import same_value
from .schema import Partition
from .structure import NodeIndex
from .verify import _members, fused_edges, sub_model

DOMAIN = "sonnx.partition"
DOMAIN_VERSION = 1
EXEC = "PARTITION-EXEC"
MIN_IR_FOR_FUNCTIONS = 8


def fused_order(ix: NodeIndex, partition: Partition) -> list[int]:
    """Subgraph indices in a topological order of the fused graph (ties by position in the list).

    The partition must cover the nodes exactly once and be acyclic once fused
    (check it first); otherwise a :class:`ToolError` is raised.
    """
    subs = partition.subgraphs
    part_of = [-1] * len(ix)
    for s, sg in enumerate(subs):
        for j in _members(ix, sg):
            if part_of[j] != -1:
                raise ToolError(f"node {ix.keys[j]!r} is in two subgraphs; check the partition first")
            part_of[j] = s
    if -1 in part_of:
        raise ToolError("some node is in no subgraph; check the partition first")
    succ: dict[int, list[int]] = {s: [] for s in range(len(subs))}
    indeg = [0] * len(subs)
    for a, b, _ in fused_edges(ix, part_of):
        succ[a].append(b)
        indeg[b] += 1
    ready = [s for s in range(len(subs)) if indeg[s] == 0]
    order: list[int] = []
    while ready:
        ready.sort()
        s = ready.pop(0)
        order.append(s)
        for t in succ[s]:
            indeg[t] -= 1
            if indeg[t] == 0:
                ready.append(t)
    if len(order) != len(subs):
        raise ToolError("the fused graph has a cycle; check the partition first")
    return order


def execute_partitioned(model: Model, partition: Partition, feeds: Mapping[str, Any]) -> dict[str, Any]:
    """Run each subgraph as its own model, passing boundary values; return the graph outputs by name."""
    ix = NodeIndex(model)
    g = model.graph
    env: dict[str, Any] = {}
    for n in g.initialized:
        value = g.tensors[n].initial_value
        assert value is not None
        env[n] = value.read()
    env.update(feeds)
    for s in fused_order(ix, partition):
        sg = partition.subgraphs[s]
        sub = sub_model(model, ix, sg)
        missing = [n for n in sg.inputs if n not in env]
        if missing:
            raise ToolError(f"subgraph {sg.id}: no value for input(s) {', '.join(missing)} at its turn")
        env.update(execute(sub, {n: env[n] for n in sg.inputs}))
    return {o: env[o] for o in g.outputs}




def first_difference(whole: Mapping[str, Any], other: Mapping[str, Any]) -> str | None:
    """The first output (in the whole model's order) whose bytes differ in ``other``, or None."""
    return next((name for name, ref in whole.items() if not same_value(ref, other[name])), None)


def _compare_runs(
    rule: str, runs: Callable[[], tuple[Mapping[str, Any], Mapping[str, Any]]], what: str, differs: str
) -> Verdict | None:
    """None when ``runs`` gives two runs whose outputs agree bit for bit; else the UNKNOWN or VIOLATED verdict.

    ``differs`` is the witness's text, with ``{name!r}`` for the first output that differs.
    """
    try:
        whole, other = runs()
    except SonnxError as exc:
        return Verdict.unknown(rule, f"could not execute: {exc.one_line()}", engine="executor")
    name = first_difference(whole, other)
    if name is None:
        return None
    witness = Witness(differs.format(name=name), {"output": name, "inputs": what})
    return Verdict.violated(rule, witness, Severity.ERROR, engine="executor")


def exec_verdict(model: Model, partition: Partition, feeds: Mapping[str, Any], what: str) -> Verdict:
    """PARTITION-EXEC: the partitioned run gives the whole model's outputs bit for bit on ``feeds``."""
    differs = _compare_runs(
        EXEC, lambda: (execute(model, feeds), execute_partitioned(model, partition, feeds)), what,
        "output {name!r} differs between the whole model and the partitioned run",
    )
    if differs is not None:
        return differs
    compared = sorted(set(model.graph.outputs))
    details = {"inputs": what, "outputs_compared": compared, "subgraphs_run": len(partition.subgraphs)}
    return Verdict.tested(EXEC, f"1 input set ({what})", details, engine="executor")


def fused_model(model: Model, partition: Partition) -> Model:
    """The model with each subgraph fused into one call of a model-local function (see module doc)."""
    ix = NodeIndex(model)
    g = model.graph
    order = fused_order(ix, partition)
    calls: list[Operation] = []
    functions: list[Function] = []
    boundary: set[str] = set()
    for s in order:
        sg = partition.subgraphs[s]
        formal = list(sg.boundary_inputs)
        calls.append(Operation(sg.id, DOMAIN, sg.id, tuple(formal), tuple(sg.outputs)))
        boundary.update(sg.outputs)
        members = sorted(_members(ix, sg), key=lambda j: j)
        ops = [g.operations[j] for j in members]
        body_tensors: dict[str, Tensor] = {}
        for n in set(formal) | {o for op in ops for o in op.output_mapping if o}:
            t = g.tensors.get(n)
            if t is not None and t.type is not None:
                body_tensors[n] = Tensor(n, t.type, None)
        body = make_graph(sg.id, formal, list(sg.outputs), ops, body_tensors)
        functions.append(Function(DOMAIN, sg.id, body, opset_imports=freeze_mapping(dict(model.opset_imports))))
    keep = set(g.inputs) | set(g.outputs) | boundary
    tensors = {n: t for n, t in g.tensors.items() if n in keep or t.initial_value is not None}
    main = make_graph(g.name, list(g.inputs), list(g.outputs), calls, tensors)
    imports = dict(model.opset_imports)
    imports[DOMAIN] = DOMAIN_VERSION
    return Model(
        graph=main,
        ir_version=max(model.ir_version, MIN_IR_FOR_FUNCTIONS),
        opset_imports=freeze_mapping(imports),
        functions=tuple(functions),
        source=model.source,
        weights_loaded=model.weights_loaded,
        metadata=model.metadata,
    )


def write_fused(model: Model, partition: Partition, path: str) -> None:
    """Build the fused model and write it with :func:`sonnx.loader.writer.save_model`."""
    from ..loader.writer import save_model

    save_model(fused_model(model, partition), path)


FUSED = "PARTITION-FUSED"


def _checker_refusal(path: str) -> str:
    """In a child process: '' when onnx.checker accepts the file at ``path``, else its message on one line."""
    import onnx

    try:
        onnx.checker.check_model(path)
    except Exception as exc:  # onnx.checker raises ValidationError and others
        return " ".join(str(exc).split()) or type(exc).__name__
    return ""


def fused_verdict(model: Model, partition: Partition, path: str, feeds: Mapping[str, Any] | None, what: str) -> Verdict:
    """PARTITION-FUSED: write the fused model to ``path``; it passes ``onnx.checker``, the SONNX rules
    (after the loader inlines the calls) and, with ``feeds``, gives the whole model's outputs bit for bit."""
    from ..loader.derived import Given
    from ..loader.load import load_model_and_derived
    from ..rules import PROFILE_SONNX, CheckConfig, run_rules
    from ..rules.derived import asks_for_derived

    write_fused(model, partition, path)
    refusal = contained(_checker_refusal, path)  # native code: a crash or a limit ends the child only
    if isinstance(refusal, Failure):
        return Verdict.unknown(
            FUSED, f"onnx.checker {refusal.reason} on the fused model", Severity.ERROR, engine="executor"
        )
    if refusal:
        return Verdict.violated(
            FUSED,
            Witness(f"onnx.checker refuses the fused model: {refusal}", {"file": path}),
            Severity.ERROR,
            engine="executor",
        )
    fused, derived = load_model_and_derived(path, derive=lambda m: asks_for_derived(m, PROFILE_SONNX))
    bad = [v for v in run_rules(fused, CheckConfig(derived_types=Given(fused, derived))) if v.fails]
    if bad:
        v = bad[0]
        return Verdict.violated(
            FUSED,
            Witness(f"the fused model violates {v.rule_id}: {v.witness.summary if v.witness else ''}", {"file": path}),
            Severity.ERROR,
            engine="executor",
        )
    details: dict[str, Any] = {"file": path, "onnx_checker": "passed", "sonnx_rules": "passed"}
    if feeds is not None:
        differs = _compare_runs(
            FUSED, lambda: (execute(model, feeds), execute(fused, feeds)), what,
            "output {name!r} of the fused model differs from the whole model's",
        )
        if differs is not None:
            return differs
        details["executed"] = what
    if feeds is None:
        return Verdict(FUSED, Status.PROVED, engine="executor", details=details)
    return Verdict.tested(FUSED, f"checked, and executed on 1 input set ({what})", details, engine="executor")
