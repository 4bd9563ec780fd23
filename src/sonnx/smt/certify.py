"""Untrusted producers of certificates and counter-certificates for the SMT engine.

Nothing computed here is believed. A certificate (ranks, firing times and the
write that defines each tensor, distances, the read that uses each input or
output...) or a counter-certificate (a cycle, a set of tensors that can never
be defined, dead or non-contributing operations) only chooses *which* raw facts
and which values an obligation mentions; the solver then checks the claim
against the raw facts of :mod:`.facts`. A wrong result here makes its
obligation fail (the verdict is UNKNOWN, a tool defect); it can never make a
rule pass or fail. These algorithms may join facts freely (writers of a
tensor, readers of a tensor): that is their job, and the solver re-checks it.

Fact references are indices into a scope's fact arrays (``rd_*`` for read
facts, ``wr_*`` for write facts); operations and tensors are numbered locally
(``j`` = global id - ``op_base``, tensor - ``t_base``). The producers a
satisfied model meets (ranks, firing times, uses, distances) work on whole
arrays (:mod:`.arrays`: the same results as the loops they replace, in far
less time); those of violations stay plain loops.

The tables of who reads and writes each tensor that all producers share are
in :mod:`.fact_index`; the search for a cycle (GRAPH-ACYCLIC's
counter-certificate) is in :mod:`.cycles`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .arrays import I64, as_np, expand, first_rows
from .fact_index import Index, indegrees, index_of
from .facts import ScopeFacts

# -- GRAPH-ACYCLIC -------------------------------------------------------------------------


Ranks = tuple[np.ndarray, np.ndarray]
"""R per local operation and T per local tensor (lists are taken too)."""


def ranks_of(f: ScopeFacts) -> Ranks | None:
    """:func:`ranks` of a scope, computed once per run."""
    if "ranks" not in f.cache:
        f.cache["ranks"] = ranks(f, index_of(f))
    return f.cache["ranks"]  # type: ignore[return-value]


def ranks(f: ScopeFacts, ix: Index) -> Ranks | None:
    """Kahn ranks from 1: R per operation, T per tensor (its writers' highest rank, 0 without one); None if cyclic.

    Kahn's sort one rank at a time: the operations whose dependencies are all
    ranked get the next rank together, so R is the length of the longest
    chain of dependencies ending at the operation.
    """
    rank, indeg = kahn(f, ix)
    if indeg.any():
        return None
    trank = np.zeros(f.n_tensors, I64)
    np.maximum.at(trank, ix.wr_x, rank[ix.wr_j])
    return rank, trank


def kahn(f: ScopeFacts, ix: Index) -> tuple[np.ndarray, np.ndarray]:
    """Kahn's sort one rank at a time: the rank of each operation (from 1), and the in-degrees it leaves.

    An operation left with a positive in-degree was never ranked: it is on a
    cycle or depends on one (the set is the same in whatever order the
    ready operations are taken).
    """
    indeg = indegrees(f, ix)
    rank = np.ones(f.n, I64)
    ready = np.flatnonzero(indeg == 0)
    level = 1
    while ready.size:
        rank[ready] = level
        ready = _kahn_loop(f, ix, indeg, ready) if ready.size < SMALL else _kahn_arrays(ix, indeg, ready)
        level += 1
    return rank, indeg


SMALL = 32
"""Levels of fewer operations than this are stepped by a plain loop, larger ones with whole arrays.

A step over arrays has a fixed cost whatever its size, and a chain has a
level per operation, so a long chain stepped over arrays alone is slow
(figures: benchmarks/README.md, "Figures behind choices in the code"); both
steps give the same next level.
"""


def _kahn_arrays(ix: Index, indeg: np.ndarray, ready: np.ndarray) -> np.ndarray:
    """Remove the edges out of ``ready``; the operations left without incoming edges, ascending."""
    _, w = expand(ix.wr_ptr, ready)
    _, r = expand(ix.r_ptr, ix.wr_x[w])
    b, count = np.unique(ix.rd_j[ix.r_idx[r]], return_counts=True)
    indeg[b] -= count
    return b[indeg[b] == 0]


def _kahn_loop(f: ScopeFacts, ix: Index, indeg: np.ndarray, ready: np.ndarray) -> np.ndarray:
    """:func:`_kahn_arrays` as a loop."""
    nxt: list[int] = []
    wr_ptr, wr_t, rd_o, base = f.wr_ptr, ix.wr_t, ix.rd_o, f.op_base
    for a in ready.tolist():
        for i in range(wr_ptr[a], wr_ptr[a + 1]):
            for r in ix.readers(wr_t[i]):
                b = rd_o[r] - base
                indeg[b] -= 1
                if indeg[b] == 0:
                    nxt.append(b)
    return np.array(sorted(nxt), I64)


# -- GRAPH-C3 ------------------------------------------------------------------------------

INPUT, INIT, CAPTURE, WRITE = 0, 1, 2, 3
"""How a tensor is defined: the kind of its defining fact (graph input, initializer, capture, write)."""


@dataclass
class Derivation:
    """Least firing times of one scope (GRAPH-C3's certificate), by local operation and tensor number.

    ``fire``: each operation's firing time (from 1), -1 when it never fires;
    ``time``: when each tensor is defined (0 for inputs, initializers and
    captured names), -1 when never; ``how`` and ``fact``: the kind of the fact
    that defines it (:data:`INPUT`...) and that fact's index among the
    scope's facts of its kind.
    """

    fire: np.ndarray
    time: np.ndarray
    how: np.ndarray
    fact: np.ndarray


def derivation(f: ScopeFacts, ix: Index) -> Derivation:
    """The least fixpoint of definedness, one firing time at a time.

    Graph inputs, initializers and captured names are defined at time 0 (the
    first fact of a tensor defines it: inputs, then initializers, then
    captures). An operation fires at 1 + the latest time at which a tensor it
    reads is defined; the first of its write facts to a tensor not yet
    defined defines that tensor at that time (operations of one time in
    ascending order, so a tensor written twice is defined by the write a
    heap ordered by (time, operation) would pop first).
    """
    n, nt = f.n, f.n_tensors
    time = np.full(nt, -1, I64)
    how = np.zeros(nt, I64)
    fact = np.zeros(nt, I64)
    for kind, ts in (
        (INPUT, [t for _, t in f.inputs]),
        (INIT, list(f.initialized)),
        (CAPTURE, [t for t, _ in f.captures]),
    ):
        x = as_np(ts) - f.t_base
        k = first_rows(x)
        k = k[time[x[k]] == -1]
        time[x[k]], how[x[k]], fact[x[k]] = 0, kind, k
    # each operation waits for the distinct tensors it reads that are not defined yet
    waits = first_rows(ix.rd_j, ix.rd_x)
    waits = waits[time[ix.rd_x[waits]] == -1]
    wj, wx = ix.rd_j[waits], ix.rd_x[waits]
    missing = np.bincount(wj, minlength=n).astype(I64)
    by_tensor = np.argsort(wx, kind="stable")
    wait_ptr = np.zeros(nt + 1, I64)
    np.cumsum(np.bincount(wx, minlength=nt), out=wait_ptr[1:])
    waiting = wj[by_tensor]
    fire = np.full(n, -1, I64)
    ready = np.flatnonzero(missing == 0)
    now = 1
    lists: list[list[int]] = []
    while ready.size:
        fire[ready] = now
        if ready.size < SMALL:
            if not lists:
                lists = [wait_ptr.tolist(), waiting.tolist()]
            ready = _define_loop(f, ix, ready, now, (time, how, fact, missing), lists)
        else:
            _, w = expand(ix.wr_ptr, ready)
            x = ix.wr_x[w]
            new = first_rows(x)
            new = new[time[x[new]] == -1]
            tx, tw = x[new], w[new]
            time[tx], how[tx], fact[tx] = now, WRITE, tw
            _, at = expand(wait_ptr, tx)
            b, count = np.unique(waiting[at], return_counts=True)
            missing[b] -= count
            ready = b[missing[b] == 0]
        now += 1
    return Derivation(fire, time, how, fact)


def _define_loop(
    f: ScopeFacts,
    ix: Index,
    ready: np.ndarray,
    now: int,
    state: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    lists: list[list[int]],
) -> np.ndarray:
    """One firing time of :func:`derivation` as a loop: define what ``ready`` writes; the operations it completes."""
    time, how, fact, missing = state
    wait_ptr, waiting = lists
    nxt: list[int] = []
    wr_ptr, wr_t, base = f.wr_ptr, ix.wr_t, f.t_base
    for j in ready.tolist():
        for i in range(wr_ptr[j], wr_ptr[j + 1]):
            x = wr_t[i] - base
            if time[x] != -1:
                continue
            time[x], how[x], fact[x] = now, WRITE, i
            for k in waiting[wait_ptr[x] : wait_ptr[x + 1]]:
                missing[k] -= 1
                if missing[k] == 0:
                    nxt.append(k)
    return np.array(sorted(nxt), I64)


def blocked_reads(f: ScopeFacts, ix: Index, der: Derivation) -> dict[int, int]:
    """For each operation that never fires: its first read fact whose tensor is never defined."""
    r = np.flatnonzero((der.fire[ix.rd_j] == -1) & (der.time[ix.rd_x] == -1))
    first = first_rows(ix.rd_j[r])
    return dict(zip(ix.rd_j[r[first]].tolist(), r[first].tolist(), strict=True))


# -- GRAPH-R1, GRAPH-R1-TRANSITIVE, GRAPH-C2 ----------------------------------------------

READ, OUTPUT = 0, 1
"""How an operation's written tensor is used: by a read fact, or as a graph output."""


@dataclass
class Uses:
    """Per local operation: one of its write facts, and the read fact or graph-output position using its tensor.

    ``kind`` is :data:`READ` or :data:`OUTPUT` (-1: the operation has no
    such write), ``wfact`` the write fact's index, ``other`` the read fact's
    index or the output position.
    """

    kind: np.ndarray
    wfact: np.ndarray
    other: np.ndarray


@dataclass
class Distances(Uses):
    """:class:`Uses` along which each operation reaches a graph output, and its distance (-1: none)."""

    dist: np.ndarray


def _output_positions(f: ScopeFacts) -> np.ndarray:
    """Per local tensor: its first position among the graph outputs, -1 when it is none."""
    pos = np.full(f.n_tensors, -1, I64)
    if f.outputs:
        x = as_np([t for _, t in f.outputs]) - f.t_base
        k = first_rows(x)
        pos[x[k]] = as_np([f.outputs[i][0] for i in k.tolist()])
    return pos


def uses(f: ScopeFacts, ix: Index) -> tuple[Uses, list[int]]:
    """Per operation its first write fact whose tensor is read (the first read fact) or a graph output; the dead ones.

    A read is preferred to the output position for the same write.
    """
    n = f.n
    readers = np.diff(ix.r_ptr)[ix.wr_x]
    out_pos = _output_positions(f)[ix.wr_x]
    used = np.flatnonzero((readers > 0) | (out_pos >= 0))
    first = used[first_rows(ix.wr_j[used])]
    j = ix.wr_j[first]
    read = readers[first] > 0
    kind, wfact, other = np.full(n, -1, I64), np.zeros(n, I64), np.zeros(n, I64)
    kind[j] = np.where(read, READ, OUTPUT)
    wfact[j] = first
    other[j[~read]] = out_pos[first[~read]]
    other[j[read]] = ix.r_idx[ix.r_ptr[ix.wr_x[first[read]]]]
    return Uses(kind, wfact, other), np.flatnonzero(kind < 0).tolist()


def distances(f: ScopeFacts, ix: Index) -> tuple[Distances, list[int]]:
    """Per operation its distance to a graph output and the next step on a shortest way there; and the others.

    A breadth-first search back from the writers of the graph outputs (in
    output order): each operation is reached first through the write fact,
    and read fact, that a search taking steps in fact order would take first.
    """
    n = f.n
    kind, wfact, other = np.full(n, -1, I64), np.zeros(n, I64), np.zeros(n, I64)
    dist = np.full(n, -1, I64)
    pos = _output_positions(f)
    outs = as_np([t for _, t in f.outputs]) - f.t_base
    outs = outs[first_rows(outs)] if outs.size else outs
    owner, at = expand(ix.w_ptr, outs)
    w = ix.w_idx[at]
    step_kind, step_other = OUTPUT, pos[outs[owner]]
    level = 0
    while w.size:
        a = ix.wr_j[w]
        new = np.flatnonzero(dist[a] == -1)
        new = new[first_rows(a[new])]
        reached = a[new]
        dist[reached], kind[reached], wfact[reached] = level, step_kind, w[new]
        other[reached] = step_other[new] if isinstance(step_other, np.ndarray) else step_other
        level += 1
        while 0 < reached.size < SMALL:  # a plain loop through the narrow levels
            reached = _reach_loop(f, ix, reached, level, (dist, kind, wfact, other))
            level += 1
        # the next level: the writers of every tensor the newly reached operations read, read fact by read fact
        _, r = expand(ix.rd_ptr, reached)
        owner, at = expand(ix.w_ptr, ix.rd_x[r])
        w, step_kind, step_other = ix.w_idx[at], READ, r[owner]
    return Distances(kind, wfact, other, dist), np.flatnonzero(dist < 0).tolist()


def _reach_loop(
    f: ScopeFacts, ix: Index, frontier: np.ndarray, level: int, state: tuple[np.ndarray, ...]
) -> np.ndarray:
    """One level of :func:`distances` as a loop: the operations first reached from ``frontier``, in order."""
    dist, kind, wfact, other = state
    nxt: list[int] = []
    rd_ptr, rd_t, wr_o, base = f.rd_ptr, ix.rd_t, ix.wr_o, f.op_base
    for b in frontier.tolist():
        for r in range(rd_ptr[b], rd_ptr[b + 1]):
            for i in ix.writers(rd_t[r]):
                a = wr_o[i] - base
                if dist[a] == -1:
                    dist[a], kind[a], wfact[a], other[a] = level, READ, i, r
                    nxt.append(a)
    return np.array(nxt, I64)


def input_readers(f: ScopeFacts, ix: Index) -> tuple[dict[int, tuple[str, int]], list[tuple[int, int]]]:
    """Per graph-input position: ("exempt", an imposed position of the same name) or ("read", read fact).

    Also the unread, non-exempt inputs as (position, tensor), first position of each name.
    """
    exempt: dict[int, int] = {}
    if f.loop_body:
        for k, t in f.inputs[:2]:
            exempt.setdefault(t, k)
    out: dict[int, tuple[str, int]] = {}
    unread: list[tuple[int, int]] = []
    seen: set[int] = set()
    for k, t in f.inputs:
        if t in exempt:
            out[k] = ("exempt", exempt[t])
            continue
        rs = ix.readers(t)
        if rs:
            out[k] = ("read", rs[0])
        elif t not in seen:
            unread.append((k, t))
        seen.add(t)
    return out, unread
