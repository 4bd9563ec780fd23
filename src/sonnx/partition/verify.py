"""Verifying a partition of a model, whoever produced it.

Five verdicts, each PROVED, VIOLATED with a witness, or UNKNOWN with a reason:

* ``PARTITION-COVER``: subgraph ids are unique, every name in ``nodes``
  names an operation of the main graph, and every operation is in exactly
  one subgraph;
* ``PARTITION-INPUTS``: per subgraph, ``inputs`` together with
  ``constant_initializers`` are exactly its true inputs (names its nodes
  require and no node of it produces), without repetition, and
  ``constant_initializers`` holds only constant initializers;
* ``PARTITION-OUTPUTS``: per subgraph, ``outputs`` are exactly the tensors
  its nodes produce that are required outside it or are graph outputs;
* ``PARTITION-ACYCLIC``: the fused graph (each subgraph contracted to one
  node) is acyclic. Proved by z3 with the rank encoding of GRAPH-ACYCLIC
  (:func:`sonnx.smt.encodings.graph_acyclic.rank_body` over the fused edges); a satisfying
  ranking is read back and re-checked edge by edge. A cycle comes from an
  unsat core of guarded edge constraints, shortened by
  :func:`sonnx.smt.certify.shortest_cycle` and re-refuted on its own; the
  witness lists the subgraphs on it and the tensor of each step;
* ``PARTITION-RULES``: each subgraph, taken as a graph of its own (declared
  inputs as graph inputs, constant initializers with their values, declared
  outputs as graph outputs), satisfies the SONNX rules
  (:func:`sonnx.rules.run_rules`, graph rules only: a subgraph was never a
  file, so FORMAT-ONNX has nothing to check there; the whole model's file is
  checked by ``sonnx-check``); the types GRAPH-IF-BRANCHES derives for a
  subgraph are those of the ONNX bytes :func:`sonnx.loader.writer.model_bytes` gives
  it (spec 9.4); error-severity violations fail it, warnings are listed in its
  details.

The exit code follows ``sonnx-check``: 1 when a verdict is VIOLATED, else 2
when one is UNKNOWN, else 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..base.errors import EXIT_OK, EXIT_UNUSABLE, EXIT_VIOLATED
from ..base.progress import Say, quiet
from ..base.verdict import Severity, Status, Verdict, Witness
from ..base.witness import brief
from ..loader.derived import IN_MEMORY
from ..model.graph import Model, Tensor, TensorType, make_graph
from ..rules import CheckConfig, run_rules
from ..smt.cycles import shortest_cycle
from ..smt.encodings.graph_acyclic import rank_body
from ..smt.solver import SolverSettings, model_values, solve
from .schema import Partition, Subgraph
from .structure import Edge, NodeIndex

COVER = "PARTITION-COVER"
INPUTS = "PARTITION-INPUTS"
OUTPUTS = "PARTITION-OUTPUTS"
ACYCLIC = "PARTITION-ACYCLIC"
RULES = "PARTITION-RULES"
LIMIT = 20

TITLES = {
    COVER: "the subgraphs are disjoint and cover every node",
    INPUTS: "each subgraph declares exactly its true inputs",
    OUTPUTS: "each subgraph declares exactly its true outputs",
    ACYCLIC: "fusing each subgraph into one node leaves the graph acyclic",
    RULES: "each subgraph, as a graph of its own, satisfies the SONNX rules",
}


@dataclass
class PartitionReport:
    """The verdicts on one partition of one model."""

    model: str
    partition: str
    verdicts: list[Verdict] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        if any(v.fails for v in self.verdicts):
            return EXIT_VIOLATED
        if any(v.status is Status.UNKNOWN for v in self.verdicts):
            return EXIT_UNUSABLE
        return EXIT_OK

    def to_json(self) -> dict[str, Any]:
        outcome = {EXIT_OK: "PROVED", EXIT_VIOLATED: "VIOLATED"}.get(self.exit_code, "UNKNOWN")
        if outcome == "PROVED" and any(v.status is Status.TESTED for v in self.verdicts):
            outcome = "TESTED"  # the execution checks ran on samples
        return {
            "model": self.model,
            "partition": self.partition,
            "outcome": outcome,
            "exit_code": self.exit_code,
            "verdicts": [v.to_json() for v in self.verdicts],
        }

    def text(self, titles: dict[str, str] | None = None) -> str:
        """One line per verdict, with its witness or reason (``titles`` names the checks)."""
        shown = titles if titles is not None else TITLES
        lines = [f"{self.model}: partition {self.partition}"]
        for v in self.verdicts:
            lines.append(f"  {v.rule_id:<18} {v.status.value:<8} {shown.get(v.rule_id, '')}")
            if v.witness is not None:
                lines.append(f"    witness: {v.witness.summary}")
            if v.reason is not None:
                lines.append(f"    reason: {v.reason}")
        return "\n".join(lines) + "\n"


def _violated(rule: str, summary: str, data: dict[str, Any], engine: str = "direct") -> Verdict:
    return Verdict.violated(rule, Witness(summary, data), Severity.ERROR, engine)


def assignment(ix: NodeIndex, subgraphs: Sequence[Subgraph]) -> tuple[list[list[int]], Verdict]:
    """Which subgraphs list each operation, and the PARTITION-COVER verdict."""
    where: list[list[int]] = [[] for _ in range(len(ix))]
    unknown: list[dict[str, str]] = []
    ids: dict[str, int] = {}
    dup_ids: list[str] = []
    for s, sg in enumerate(subgraphs):
        if sg.id in ids and sg.id not in dup_ids:
            dup_ids.append(sg.id)
        ids.setdefault(sg.id, s)
        for key in sg.nodes:
            j = ix.by_key.get(key)
            if j is None:
                unknown.append({"subgraph": sg.id, "node": key})
            else:
                where[j].append(s)
    overlap = [
        {"node": ix.keys[j], "subgraphs": [subgraphs[s].id for s in w]} for j, w in enumerate(where) if len(w) > 1
    ]
    missing = [ix.keys[j] for j, w in enumerate(where) if not w]
    if not (unknown or overlap or missing or dup_ids):
        return where, Verdict.proved(COVER)
    parts = []
    if dup_ids:
        parts.append(f"subgraph id(s) used twice: {brief(dup_ids)}")
    if unknown:
        parts.append(f"{len(unknown)} listed node(s) not in the model: {brief([u['node'] for u in unknown])}")
    if overlap:
        shown = [f"{o['node']} in {' and '.join(o['subgraphs'])}" for o in overlap]
        parts.append(f"{len(overlap)} node(s) in more than one subgraph: {brief(shown)}")
    if missing:
        parts.append(f"{len(missing)} node(s) in no subgraph: {brief(missing)}")
    data = {
        "duplicate_ids": dup_ids[:LIMIT],
        "unknown_nodes": unknown[:LIMIT],
        "overlapping_nodes": overlap[:LIMIT],
        "uncovered_nodes": missing[:LIMIT],
    }
    return where, _violated(COVER, "; ".join(parts), data)


def _members(ix: NodeIndex, sg: Subgraph) -> list[int]:
    seen: dict[int, None] = {}
    for key in sg.nodes:
        j = ix.by_key.get(key)
        if j is not None:
            seen[j] = None
    return list(seen)


def _compare(declared: Sequence[str], true: Sequence[str]) -> dict[str, list[str]]:
    d, t = set(declared), set(true)
    repeated = sorted(n for n, k in Counter(declared).items() if k > 1)  # linear (list.count was quadratic)
    return {
        "missing": [n for n in true if n not in d],
        "extra": [n for n in declared if n not in t],
        "repeated": repeated,
    }


def boundary_verdicts(ix: NodeIndex, subgraphs: Sequence[Subgraph]) -> tuple[Verdict, Verdict]:
    """PARTITION-INPUTS and PARTITION-OUTPUTS, from each subgraph's listed nodes."""
    bad_in: list[dict[str, Any]] = []
    bad_out: list[dict[str, Any]] = []
    for sg in subgraphs:
        members = _members(ix, sg)
        diff = _compare(sg.boundary_inputs, ix.true_inputs(members))
        not_const = [n for n in sg.constant_initializers if n not in ix.constant_initializers]
        if diff["missing"] or diff["extra"] or diff["repeated"] or not_const:
            bad_in.append({"subgraph": sg.id, **diff, "not_constant_initializers": not_const})
        diff = _compare(sg.outputs, ix.true_outputs(members))
        if diff["missing"] or diff["extra"] or diff["repeated"]:
            bad_out.append({"subgraph": sg.id, **diff})
    return _boundary(INPUTS, "inputs", bad_in), _boundary(OUTPUTS, "outputs", bad_out)


def _boundary(rule: str, what: str, bad: list[dict[str, Any]]) -> Verdict:
    if not bad:
        return Verdict.proved(rule)
    b = bad[0]
    bits = []
    if b["missing"]:
        bits.append(f"true {what} not declared: {brief(b['missing'])}")
    if b["extra"]:
        bits.append(f"declared {what} that are not true {what}: {brief(b['extra'])}")
    if b["repeated"]:
        bits.append(f"declared twice: {brief(b['repeated'])}")
    if b.get("not_constant_initializers"):
        bits.append(f"not constant initializers: {brief(b['not_constant_initializers'])}")
    more = f" ({len(bad) - 1} more subgraph(s) wrong)" if len(bad) > 1 else ""
    return _violated(
        rule, f"subgraph {b['subgraph']}: {'; '.join(bits)}{more}", {"count": len(bad), "subgraphs": bad[:LIMIT]}
    )


def fused_edges(ix: NodeIndex, part_of: Sequence[int]) -> list[Edge]:
    """Edges between distinct subgraphs (one per ordered pair, labelled by the smallest tensor name)."""
    best: dict[tuple[int, int], str] = {}
    for a, b, t in ix.edges:
        pa, pb = part_of[a], part_of[b]
        if pa != pb and ((pa, pb) not in best or t < best[(pa, pb)]):
            best[(pa, pb)] = t
    return [(pa, pb, t) for (pa, pb), t in sorted(best.items())]


def acyclic_verdict(edges: list[Edge], ids: Sequence[str], settings: SolverSettings) -> Verdict:
    """PARTITION-ACYCLIC decided by z3 over the fused edges; a cycle comes back as a witness."""
    ans = solve("\n".join(rank_body([(0, edges)], None)), settings, difference_logic=True)
    if ans.result == "unknown":
        return Verdict.unknown(ACYCLIC, ans.reason, engine="smt")
    if ans.result == "sat":
        used = sorted({e[0] for e in edges} | {e[1] for e in edges})
        vals = model_values(ans, [f"r0_{j}" for j in used])
        for a, b, _ in edges:
            ra, rb = vals.get(f"r0_{a}"), vals.get(f"r0_{b}")
            if not isinstance(ra, int) or not isinstance(rb, int) or not ra < rb:
                return Verdict.unknown(ACYCLIC, f"z3's ranks fail re-verification on {ids[a]}->{ids[b]}", engine="smt")
        return Verdict(
            ACYCLIC, Status.PROVED, engine="smt", details={"fused_nodes": len(ids), "fused_edges": len(edges)}
        )
    used = sorted({e[0] for e in edges} | {e[1] for e in edges})
    body = [f"(declare-fun r{j} () Int)" for j in used]
    body += [f"(declare-fun g{k} () Bool)" for k in range(len(edges))]
    body += [f"(assert (=> g{k} (< r{a} r{b})))" for k, (a, b, _) in enumerate(edges)]
    core_ans = solve("\n".join(body), settings, difference_logic=True, assumptions=[f"g{k}" for k in range(len(edges))])
    if core_ans.result != "unsat":
        return Verdict.unknown(
            ACYCLIC, f"the guarded obligation answered {core_ans.result} {core_ans.reason}".strip(), engine="smt"
        )
    core = [edges[int(c[1:])] for c in core_ans.core or []]
    cyc = shortest_cycle(core)
    if cyc is None:
        return Verdict.unknown(ACYCLIC, "the unsat core contains no cycle (a tool defect)", engine="smt")
    again = solve("\n".join(rank_body([(0, cyc)], None)), settings, difference_logic=True)
    if again.result != "unsat":
        return Verdict.unknown(ACYCLIC, f"the cycle found was not refuted on its own ({again.result})", engine="smt")
    steps = [{"from": ids[a], "tensor": t, "to": ids[b]} for a, b, t in cyc]
    shown = " -> ".join([ids[cyc[0][0]]] + [f"({t}) {ids[b]}" for _, b, t in cyc])
    return _violated(
        ACYCLIC,
        f"fused graph has a cycle of {len(cyc)} subgraph(s): {shown}",
        {"length": len(cyc), "cycle": steps},
        engine="smt",
    )


def sub_model(
    model: Model, ix: NodeIndex, sg: Subgraph, inputs: Mapping[str, TensorType | None] | None = None
) -> Model:
    """The subgraph as a model of its own: declared boundary, member operations in file order.

    Constant initializers keep their (lazily read) initial value; the other
    tensors take the parent's declared types, except the subgraph's inputs when
    ``inputs`` gives theirs (:func:`boundary_types`; a name it lacks has no type).
    """
    g = model.graph
    members = sorted(_members(ix, sg))
    ops = [g.operations[j] for j in members]
    tensors: dict[str, Tensor] = {}
    names = set(sg.inputs) | set(sg.outputs)
    for op in ops:
        names.update(o for o in op.output_mapping if o)
    for n in names:
        t = g.tensors.get(n)
        if inputs is not None and n in sg.inputs:
            tensors[n] = Tensor(n, inputs.get(n), None)
        elif t is not None:
            tensors[n] = Tensor(n, t.type, None)
    for n in sg.constant_initializers:
        t = g.tensor(n)
        tensors[n] = Tensor(n, t.type, t.initial_value)
    sub = make_graph(sg.id, list(sg.inputs), list(sg.outputs), ops, tensors)
    return Model(
        graph=sub,
        ir_version=model.ir_version,
        opset_imports=model.opset_imports,
        functions=model.functions,
        call_cycles=model.call_cycles,
        source=f"{model.source}#{sg.id}",
        weights_loaded=model.weights_loaded,
    )


def boundary_types(model: Model) -> dict[str, TensorType | None]:
    """The types that hold at run time of the parent's tensors, for the inputs of its subgraphs (spec 9.4).

    A subgraph's input is a main-graph input of the subgraph's model, and the
    rules take a main-graph input's declared type as a fact (the runtimes hold
    fed values to it). Fed by the parent, it holds only what the parent's own
    facts give: the types onnx infers for the parent once the declarations no
    runtime enforces are removed (:data:`sonnx.loader.derived.IN_MEMORY`),
    never the parent's ``value_info``. Without such a derivation the inputs
    have no type, and what rests on one stays unknown.
    """
    derived = IN_MEMORY(model, True).model
    return {} if derived is None else {n: t.type for n, t in derived.graph.tensors.items()}


def rules_verdict(
    model: Model, ix: NodeIndex, subgraphs: Sequence[Subgraph], say: Say | None = None
) -> Verdict:
    """PARTITION-RULES: run the SONNX rules on every subgraph taken as a graph of its own, its inputs typed by
    :func:`boundary_types`."""
    failed: list[dict[str, Any]] = []
    warnings: list[dict[str, Any]] = []
    unknown: list[str] = []
    step = max(1, len(subgraphs) // 10)
    types = boundary_types(model)
    for k, sg in enumerate(subgraphs):
        if say is not None and k % step == 0:
            say(f"SONNX rules on subgraph {k + 1} of {len(subgraphs)}")
        for v in run_rules(sub_model(model, ix, sg, types), CheckConfig(derived_types=IN_MEMORY), graph_only=True):
            if v.status is Status.VIOLATED:
                entry = {"subgraph": sg.id, "rule": v.rule_id, "summary": v.witness.summary if v.witness else ""}
                (failed if v.fails else warnings).append(entry)
            elif v.status is Status.UNKNOWN:
                unknown.append(f"{sg.id}: {v.rule_id}: {v.reason}")
    details = {"subgraphs": len(subgraphs), "warnings": warnings[:LIMIT], "warning_count": len(warnings)}
    if failed:
        f = failed[0]
        more = f" ({len(failed) - 1} more violation(s))" if len(failed) > 1 else ""
        return _violated(
            RULES,
            f"subgraph {f['subgraph']} violates {f['rule']}: {f['summary']}{more}",
            {"count": len(failed), "violations": failed[:LIMIT]},
        )
    if unknown:
        return Verdict.unknown(RULES, f"{len(unknown)} rule verdict(s) unknown: {brief(unknown, 2)}")
    return Verdict(RULES, Status.PROVED, details=details)


def check_partition(
    model: Model,
    partition: Partition,
    settings: SolverSettings | None = None,
    model_name: str = "",
    partition_name: str = "",
    progress: Say | None = None,
) -> PartitionReport:
    """Every verdict on ``partition`` of ``model`` (the model must be nameable, see :class:`NodeIndex`)."""
    say = progress or quiet
    say(f"checking {len(partition.subgraphs)} subgraph(s): cover and boundaries")
    ix = NodeIndex(model)
    subs = partition.subgraphs
    report = PartitionReport(model_name or model.source, partition_name or "<partition>")
    where, cover = assignment(ix, subs)
    report.verdicts.append(cover)
    report.verdicts.extend(boundary_verdicts(ix, subs))
    if cover.status is Status.PROVED:
        say("proving the fused graph acyclic (z3)")
        part_of = [w[0] for w in where]
        edges = fused_edges(ix, part_of)
        report.verdicts.append(acyclic_verdict(edges, [s.id for s in subs], settings or SolverSettings()))
    else:
        report.verdicts.append(
            Verdict.unknown(ACYCLIC, "not decided: the subgraphs do not partition the nodes", engine="smt")
        )
    report.verdicts.append(rules_verdict(model, ix, subs, say))
    return report
