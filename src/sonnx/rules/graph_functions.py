"""GRAPH-FUNCTIONS: no direct or indirect recursion among model-local functions.

Seed statement (informal specification V2, "Functions nodes"): a graph with
function nodes must always be convertible into an equivalent graph without
function nodes (the functions are expanded in place), which rules out any
direct or indirect recursion.

Two sources, both reported: the recursive call chains the loader found while
inlining (``Model.call_cycles``, which knows function overloads and calls made
from attribute defaults), and the call graph this rule rebuilds from
``Model.functions`` (f calls g when an operation of f's body, at any nesting
depth, has g's domain and name). The rebuilt graph leaves out functions whose
(domain, name) is shared by several overloads, since an operation alone does
not say which overload it calls; those are left to the loader's list. Every
chain of the second source comes with the call sites that make it up, so it can
be checked against the model.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..base.verdict import Severity, Verdict
from ..model.graph import Function, Model
from .base import CheckContext, Listing

ID = "GRAPH-FUNCTIONS"
SEVERITY = Severity.ERROR
LISTING = Listing("recursive function call chain(s)", "chains", lambda e: " -> ".join(e["chain"]), 3)

Key = tuple[str, str]
Site = dict[str, Any]


def qualified(key: Key) -> str:
    """``domain.name`` (just ``name`` in the default domain), as the loader writes chains."""
    domain, name = key
    return f"{domain}.{name}" if domain else name


def call_graph(model: Model) -> dict[Key, dict[Key, Site]]:
    """For each function with a unique key: the functions it calls, each with its first call site."""
    counts = Counter(f.key for f in model.functions)
    funcs: dict[Key, Function] = {f.key: f for f in model.functions if counts[f.key] == 1}
    edges: dict[Key, dict[Key, Site]] = {}
    for key in sorted(funcs):
        calls: dict[Key, Site] = {}
        for path, g in funcs[key].body.nested():
            for j, op in enumerate(g.operations):
                callee = (op.domain, op.operator)
                if callee in funcs and callee not in calls:
                    calls[callee] = {"scope": path, "index": j, "operation": op.label}
        edges[key] = calls
    return edges


def _shortest_cycle(edges: dict[Key, dict[Key, Site]], start: Key) -> list[Key] | None:
    parent: dict[Key, Key] = {}
    queue = [start]
    for a in queue:
        for b in sorted(edges[a]):
            if b == start:
                path = [a]
                while path[-1] != start:
                    path.append(parent[path[-1]])
                return path[::-1]
            if b not in parent:
                parent[b] = a
                queue.append(b)
    return None


def rebuilt_cycles(model: Model) -> list[tuple[tuple[str, ...], list[Site]]]:
    """Recursive chains of the rebuilt call graph: one shortest cycle through each function on a cycle."""
    edges = call_graph(model)
    found: dict[tuple[str, ...], list[Site]] = {}
    covered: set[Key] = set()
    for key in sorted(edges):
        if key in covered:
            continue
        cycle = _shortest_cycle(edges, key)
        if cycle is None:
            continue
        covered.update(cycle)
        low = cycle.index(min(cycle, key=qualified))
        cycle = cycle[low:] + cycle[:low]
        chain = (*(qualified(k) for k in cycle), qualified(cycle[0]))
        sites = [{"caller": qualified(a), **edges[a][b]} for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True)]
        found.setdefault(chain, sites)
    return sorted(found.items())


def check(ctx: CheckContext) -> Verdict:
    chains: dict[tuple[str, ...], dict[str, Any]] = {}
    for chain in ctx.model.call_cycles:
        chains[tuple(chain)] = {"chain": list(chain), "sources": ["loader"]}
    for chain, sites in rebuilt_cycles(ctx.model):
        entry = chains.setdefault(chain, {"chain": list(chain), "sources": []})
        entry["sources"].append("call graph")
        entry["calls"] = sites
    listed = [chains[c] for c in sorted(chains)]
    return LISTING.verdict(listed, ID, SEVERITY)
