"""Properties over generated models and capabilities: produced partitions verify; corruptions are caught."""

from __future__ import annotations

from dataclasses import replace

import networkx as nx
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sonnx.base.verdict import Status
from sonnx.execution.inputs import random_inputs
from sonnx.model.graph import Model
from sonnx.partition import Partition, Provider, check_partition, exec_verdict, make_partition
from sonnx.partition.verify import ACYCLIC, COVER, INPUTS, OUTPUTS
from tests.common.partkit import exact, fused_graph, key_of, models, oracle_boundary, providers, singletons, with_ops


def statuses(model: Model, partition: Partition) -> dict[str, Status]:
    return {v.rule_id: v.status for v in check_partition(model, partition).verdicts}


@given(models(), providers())
@settings(max_examples=60)
def test_produced_partitions_verify_and_match_the_oracle(model: Model, provs: list[Provider]) -> None:
    part = make_partition(model, provs)
    report = check_partition(model, part)
    assert report.exit_code == 0, report.text()
    keys = sorted(k for s in part.subgraphs for k in s.nodes)
    assert keys == sorted(key_of(model))
    for s in part.subgraphs:
        ins, outs = oracle_boundary(model, list(s.nodes))
        assert set(s.inputs) | set(s.constant_initializers) == ins
        assert set(s.outputs) == outs
    fg = fused_graph(model, part)
    assert nx.is_directed_acyclic_graph(fg)
    # seed 004: a node goes to the first provider that supports it... unless no cycle-free subgraph could take it;
    # here every node of a provider's operator set is placed on that provider or an earlier one.
    ops = model.graph.operations
    idx = key_of(model)
    rank = {p.name: r for r, p in enumerate(provs)}
    for s in part.subgraphs:
        for k in s.nodes:
            op = ops[idx[k]]
            first = next((r for r, p in enumerate(provs) if p.supports(op.domain, op.operator)), len(provs))
            assert rank.get(s.device, len(provs)) == first


@given(models(), providers())
@settings(max_examples=40)
def test_subgraphs_are_maximal(model: Model, provs: list[Provider]) -> None:
    """No subgraph can absorb a touching subgraph of the same device without making the fused graph cyclic."""
    part = make_partition(model, provs)
    fg = fused_graph(model, part)
    dev = {s.id: s.device for s in part.subgraphs}
    for a, b in fg.edges:
        if dev[a] == dev[b]:
            merged = nx.contracted_nodes(fg, a, b, self_loops=False)
            assert not nx.is_directed_acyclic_graph(merged), (a, b)


@given(models(), providers(), st.randoms(use_true_random=False))
@settings(max_examples=40)
def test_partition_does_not_depend_on_file_order(model: Model, provs: list[Provider], rnd) -> None:  # type: ignore[no-untyped-def]
    order = list(range(len(model.graph.operations)))
    rnd.shuffle(order)
    assert make_partition(model, provs) == make_partition(with_ops(model, order), provs)


@given(models(max_nodes=8), providers())
@settings(max_examples=25)
def test_partitioned_execution_is_bit_identical(model: Model, provs: list[Provider]) -> None:
    part = make_partition(model, provs)
    v = exec_verdict(model, part, random_inputs(model, 0), "seed 0")
    assert v.status is Status.TESTED, v


@given(models(), providers(), st.data())
@settings(max_examples=60)
def test_a_moved_node_is_caught_at_its_old_subgraph(model: Model, provs: list[Provider], data: st.DataObject) -> None:
    part = make_partition(model, provs)
    subs = list(part.subgraphs)
    if len(subs) == 1:  # give the single subgraph a second one to move into
        subs.append(replace(subs[0], id="extra", nodes=(), inputs=(), outputs=(), constant_initializers=()))
    src = data.draw(st.sampled_from([k for k, s in enumerate(subs) if s.nodes]))
    dst = data.draw(st.sampled_from([k for k in range(len(subs)) if k != src]))
    node = data.draw(st.sampled_from(subs[src].nodes))
    moved = [s for s in subs]
    moved[src] = replace(subs[src], nodes=tuple(k for k in subs[src].nodes if k != node))
    moved[dst] = replace(subs[dst], nodes=(*subs[dst].nodes, node))
    report = check_partition(model, Partition(tuple(moved)))
    assert report.exit_code == 1
    named = set()
    for v in report.verdicts:
        if v.rule_id in (INPUTS, OUTPUTS) and v.status is Status.VIOLATED:
            assert v.witness is not None
            named.update(b["subgraph"] for b in v.witness.data["subgraphs"])
    assert subs[src].id in named


@given(models(), providers(), st.data())
@settings(max_examples=60)
def test_a_dropped_output_is_named(model: Model, provs: list[Provider], data: st.DataObject) -> None:
    part = make_partition(model, provs)
    k = data.draw(st.sampled_from([k for k, s in enumerate(part.subgraphs) if s.outputs]))
    sg = part.subgraphs[k]
    lost = data.draw(st.sampled_from(sg.outputs))
    subs = list(part.subgraphs)
    subs[k] = replace(sg, outputs=tuple(o for o in sg.outputs if o != lost))
    verdicts = {v.rule_id: v for v in check_partition(model, Partition(tuple(subs))).verdicts}
    v = verdicts[OUTPUTS]
    assert v.status is Status.VIOLATED and v.witness is not None
    assert v.witness.data["subgraphs"][0] == {"subgraph": sg.id, "missing": [lost], "extra": [], "repeated": []}
    assert verdicts[COVER].status is Status.PROVED and verdicts[INPUTS].status is Status.PROVED


@given(models(), st.data())
@settings(max_examples=60)
def test_a_created_cycle_is_witnessed_through_partitions(model: Model, data: st.DataObject) -> None:
    """Merge two singleton subgraphs joined by a longer path: boundaries stay exact, the fused graph cycles."""
    base = singletons(model)
    assert check_partition(model, base).exit_code == 0
    fg = fused_graph(model, base)
    pairs = [(a, b) for a in fg for b in fg if a != b and any(len(p) > 2 for p in nx.all_simple_paths(fg, a, b))]
    assume(pairs)
    a, b = data.draw(st.sampled_from(sorted(pairs)))
    by_id = {s.id: s for s in base.subgraphs}
    merged = exact(model, by_id[a], [*by_id[a].nodes, *by_id[b].nodes], "merged")
    subs = tuple([merged] + [s for s in base.subgraphs if s.id not in (a, b)])
    report = check_partition(model, Partition(subs))
    verdicts = {v.rule_id: v for v in report.verdicts}
    assert verdicts[COVER].status is Status.PROVED
    assert verdicts[INPUTS].status is Status.PROVED and verdicts[OUTPUTS].status is Status.PROVED
    v = verdicts[ACYCLIC]
    assert v.status is Status.VIOLATED and v.witness is not None and report.exit_code == 1
    cyc = v.witness.data["cycle"]
    assert "merged" in {c["from"] for c in cyc}
    # the witness is a real cycle of the fused graph, step by step
    assert all(cyc[k]["to"] == cyc[(k + 1) % len(cyc)]["from"] for k in range(len(cyc)))
    fg2 = fused_graph(model, Partition(subs))
    assert all(fg2.has_edge(c["from"], c["to"]) for c in cyc)
