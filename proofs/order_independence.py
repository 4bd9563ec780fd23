"""Theorem (c): order independence and determinism, by Newman's lemma from (a) and (b).

Also a bounded exhaustive check on the real semantics of ``sonnx.model``:
every graph of up to 5 operations over small operator alphabets (4 when all
operator kinds are mixed; see ``FAMILIES``),
under every schedule, gives the same symbolic outputs.

Run ``python -m proofs.order_independence`` (from the repository root): prints PROVED or FAILED, exit 0/1.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from itertools import product
from typing import NamedTuple

from proofs import confluence, termination
from proofs._kit import Outcome, Result, main, review_note
from sonnx.model import Graph, State, executable, fire, initial_state, make_graph, make_operation, outputs_of
from sonnx.model.symbolic import SymbolicInterpretation, Term, atom

ID = "order_independence"
TITLE = "Order independence and determinism (Newman's lemma; bounded check on sonnx.model)"
SUPPORTS = ("GRAPH-ACYCLIC", "GRAPH-C1", "GRAPH-C1-SOURCES")



class Family(NamedTuple):
    """One enumerated family: graph inputs, operator alphabet, maximal number of operations."""

    inputs: tuple[str, ...]
    alphabet: tuple[tuple[str, int, int], ...]
    """(operator, number of inputs, number of outputs); the symbolic domain treats each as uninterpreted."""
    max_ops: int


FAMILIES = (
    Family(("x",), (("Neg", 1, 1), ("Add", 2, 1)), 5),
    Family(("x",), (("Neg", 1, 1), ("Split", 1, 2)), 5),
    Family(("x",), (("Const", 0, 1), ("Add", 2, 1)), 5),
    Family(("x",), (("Const", 0, 1), ("Neg", 1, 1), ("Add", 2, 1), ("Split", 1, 2)), 4),
)
"""The bounded check's scope. Up to 5 operations: single-output operators with one and two inputs; a
two-output operator; an operator without inputs. The whole alphabet mixed: up to 4 operations (5 would
be over 10^5 graphs and minutes of run time, beyond this check's budget of about a minute)."""


NEWMAN = (
    'M. H. A. Newman, "On theories with a combinatorial definition of equivalence", '
    "Annals of Mathematics 43(2), 1942, pp. 223-243"
)

NEWMAN_STEP = f"cited lemma: Newman's lemma ({NEWMAN}), not re-proved"
RESTS_ON = (NEWMAN_STEP, *termination.RESTS_ON)
"""The steps z3 does not check: Newman's lemma and those of its premise (b) (confluence (a) has none)."""
PROVED_IN_COQ = {NEWMAN_STEP: "SONNX.OrderIndependence.order_independence", **termination.PROVED_IN_COQ}
"""Steps whose statement a Coq theorem proves: the conclusion drawn with Newman's lemma (every maximal run from
the initial state ends in the same state) is proved directly in Coq, without Newman's lemma; and (b)'s."""


def _families_text() -> str:
    return "\n".join(
        f"  family {k + 1}: inputs {', '.join(f.inputs)}; up to {f.max_ops} operations over "
        + ", ".join(f"{n}({i}->{o})" for n, i, o in f.alphabet)
        for k, f in enumerate(FAMILIES)
    )


THEOREM = f"""
Let G be a finite graph satisfying GRAPH-ACYCLIC and C1 as seed 001 states it:
every consumed tensor has exactly one origin (an initial value or one
producer). That implies GRAPH-C1 and GRAPH-C3 and is more than they check (a
consumed tensor that reaches no graph output is not GRAPH-C3's concern), so
the premise is stated as such. Operators are functions of their input values
in this semantics (the interpretation is a function), so no operator premise
is needed; GRAPH-R2, which is about the operators' ONNX definitions, is not a
premise of this theorem.
Consider the relation s -> fire(s, o), for o executable in s, on the states
reachable from the initial state. By (a) it is locally confluent, by (b) it
terminates (every run has at most |operations| steps). By Newman's lemma
({NEWMAN}): a terminating, locally confluent relation is confluent, so every
state has exactly one normal form. Hence every maximal run from the initial
state, whatever the schedule, ends in the same final state (order
independence); by (b) that run fires every operation exactly once; and since
fire is a function of the state, the final state, so the graph outputs, is a
function of the initial values (determinism).
Machine-checked here: the premises (a) and (b) are re-run and must be PROVED
(Newman's lemma itself is cited, not re-proved); and a bounded exhaustive
check on the real sonnx.model semantics (initial_state, executable, fire,
outputs_of with the symbolic interpretation), for each family below: every
graph with the family's graph inputs and 1..max operations over its alphabet,
with every wiring (each input of an operation reads a graph input or an output
of another operation, argument order significant; all produced tensors are
graph outputs), enumerated up to isomorphism, is run under every schedule
(every maximal sequence of firings); each run fires every operation exactly
once, and all runs of a graph reach the same final state, so the same outputs.
{_families_text()}
Second route: Coq proves order independence and determinism directly, for
every graph and every operator interpretation, from GRAPH-C1 and
GRAPH-C1-SOURCES alone, without Newman's lemma (SONNX.OrderIndependence.order_independence,
SONNX.OrderIndependence.determinism; the file-order runner:
SONNX.OrderIndependence.runner_correct). So the Newman step is not a review
item; the z3 premises repeat the Coq result on the z3 state model, and what
this module adds is the bounded check above on the Python code itself.
""" + review_note(RESTS_ON, PROVED_IN_COQ)

Wiring = tuple[tuple[str, tuple[int, ...]], ...]
"""One graph: per operation (operator, indices of the tensors it reads); tensor k is the k-th defined."""


def _arity(fam: Family, op: str) -> tuple[int, int]:
    for name, n_in, n_out in fam.alphabet:
        if name == op:
            return n_in, n_out
    raise KeyError(op)


def _op_terms(fam: Family, w: Wiring) -> list[Term]:
    """The symbolic term of each operation (its first output), constants anonymised."""
    tensors: list[Term] = [atom(n) for n in fam.inputs]
    result: list[Term] = []
    for op, args in w:
        n_in, n_out = _arity(fam, op)
        if n_in == 0:
            tensors.append(atom("Const"))
            result.append(tensors[-1])
            continue
        a = tuple(tensors[k] for k in args)
        if n_out == 1:
            tensors.append(Term(op, a))
        else:
            tensors.extend(Term(op, a, k) for k in range(n_out))
        result.append(tensors[len(tensors) - n_out])
    return result


def _key(fam: Family, w: Wiring) -> frozenset[tuple[Term, int]]:
    """Isomorphism invariant: the multiset of operation terms.

    An operation is determined by its operator and its argument terms, and all
    constants look alike, so two wirings with the same multiset of operation
    terms differ only by the order of the operations and the names of their
    tensors: they are isomorphic. (The converse holds as well, so the
    representatives are pairwise non-isomorphic.)
    """
    return frozenset(Counter(_op_terms(fam, w)).items())


def _extensions(fam: Family, w: Wiring) -> Iterator[Wiring]:
    """Every wiring obtained by appending one operation that reads already defined tensors."""
    k = len(fam.inputs) + sum(_arity(fam, op)[1] for op, _ in w)
    for op, n_in, _n_out in fam.alphabet:
        for args in product(range(k), repeat=n_in):
            yield (*w, (op, args))


def enumerate_graphs(fam: Family) -> dict[int, list[Wiring]]:
    """Representatives of every wiring of the family up to isomorphism, by number of operations.

    Completeness: an acyclic graph with n+1 operations has an operation no other
    one reads (a sink); removing it leaves an n-operation graph, isomorphic to a
    representative; appending the matching operation to that representative
    gives a graph isomorphic to the original. So extending every representative
    of size n by every possible last operation reaches every class of size n+1.
    """
    levels: dict[int, list[Wiring]] = {0: [()]}
    for n in range(1, fam.max_ops + 1):
        seen: dict[frozenset[tuple[Term, int]], Wiring] = {}
        for w in levels[n - 1]:
            for e in _extensions(fam, w):
                seen.setdefault(_key(fam, e), e)
        levels[n] = list(seen.values())
    return levels


def to_graph(fam: Family, w: Wiring) -> Graph:
    """The sonnx graph of a wiring; every produced tensor is a graph output."""
    names = list(fam.inputs)
    ops = []
    for j, (op, args) in enumerate(w):
        _n_in, n_out = _arity(fam, op)
        outs = [f"t{j}"] if n_out == 1 else [f"t{j}_{k}" for k in range(n_out)]
        ops.append(make_operation(op, [names[k] for k in args], outs, name=f"n{j}"))
        names.extend(outs)
    return make_graph("g", list(fam.inputs), names[len(fam.inputs) :], ops)


def all_schedules(graph: Graph) -> tuple[int, list[str]]:
    """Check every schedule of ``graph``; return (number of maximal runs, problems found).

    The runs are the paths of the graph of states keyed by the set of fired
    operations. The first state met for a fired set is its reference; every
    transition (a state, an executable operation) is fired with sonnx's
    ``fire`` and its result must equal the reference of the new fired set. By
    induction on the length of a schedule, the state after any schedule is then
    the reference of its fired set, so covering every transition covers every
    schedule (there are as many schedules as paths, counted alongside). Each
    terminal state must have every operation fired.
    """
    interp = SymbolicInterpretation()
    n_ops = len(graph.operations)
    start: State[Term] = initial_state(graph, {n: atom(n) for n in graph.inputs})
    ref: dict[frozenset[int], State[Term]] = {start.fired: start}
    paths: dict[frozenset[int], int] = {start.fired: 1}
    problems: list[str] = []
    runs = 0
    frontier = [start.fired]
    for _step in range(n_ops + 1):
        nxt: list[frozenset[int]] = []
        for fired in frontier:
            s = ref[fired]
            ready = executable(graph, s)
            if not ready:
                runs += paths[fired]
                if len(fired) != n_ops:
                    problems.append(f"a maximal run ends with {len(fired)} of {n_ops} operations fired")
                outputs_of(graph, s)
                continue
            for i in ready:
                t = fire(graph, s, i, interp)
                if t.fired != fired | {i}:
                    problems.append(f"firing {i} did not add exactly {i} to the fired set")
                    continue
                if t.fired in ref:
                    if ref[t.fired] != t:
                        problems.append(f"two schedules firing {sorted(t.fired)} reach different states")
                else:
                    ref[t.fired] = t
                    paths[t.fired] = 0
                    nxt.append(t.fired)
                paths[t.fired] += paths[fired]
        frontier = nxt
    if frontier:
        problems.append("a run is longer than the number of operations")
    return runs, problems


def bounded_check() -> list[Outcome]:
    outcomes: list[Outcome] = []
    for k, fam in enumerate(FAMILIES):
        t0 = time.perf_counter()
        levels = enumerate_graphs(fam)
        graphs = runs = 0
        bad = ""
        for n in range(1, fam.max_ops + 1):
            for w in levels[n]:
                r, problems = all_schedules(to_graph(fam, w))
                graphs += 1
                runs += r
                if problems and not bad:
                    bad = f"graph {w}: {problems[0]}"
        sizes = ", ".join(f"{len(levels[n])} with {n}" for n in range(1, fam.max_ops + 1))
        dt = time.perf_counter() - t0
        name = f"bounded exhaustive check, family {k + 1}"
        if bad:
            outcomes.append(Outcome(name, False, bad))
        else:
            outcomes.append(
                Outcome(name, True, f"{graphs} graphs up to isomorphism ({sizes} operations), {runs} schedules, "
                        f"one final state per graph ({dt:.1f} s)")
            )
    return outcomes


def check() -> Result:
    res = Result(TITLE, steps=(NEWMAN_STEP,), coq=dict(PROVED_IN_COQ))
    for premise in (confluence, termination):
        r = premise.check()
        cited = tuple(item for item, _ in r.coq_items)
        res.outcomes.append(
            Outcome(
                f"premise {premise.ID}",
                r.proved,
                r.verdict if r.proved else "FAILED: " + str(r.outcomes),
                needs_hypotheses=r.uses_hypotheses,
                rests_on=r.review_items + cited,
            )
        )
    res.outcomes.extend(bounded_check())
    return res


if __name__ == "__main__":
    main(check, THEOREM)
