"""Shared pieces of the rewrite theorems (``proofs/rewrite_*.py``): counterexamples and graph rewiring.

Not a theorem itself (not in ``registry.MODULES``). Two helpers:

* :func:`refute` asks z3 for a *model* of a formula: a counterexample to a
  precondition that is too weak. Finding it is the expected outcome (``ok``),
  and the model is printed so that the docs can show it. Its formulas assert
  the difference it reports, so it shows that the values exist, not that the
  pass is sound: it is never counted as evidence;
* :func:`rewiring_obligations` states, over an uninterpreted sort of tensor
  names, what every pass that deletes one operation ``y := F(x)`` and
  redirects the readers of ``y`` to ``x`` must keep: each reader sees the
  same value (given ``val(y) = val(x)``, which each pass's own theorem
  proves), every name read is still defined (GRAPH-C3), no name gains a
  second producer (GRAPH-C1), and the reader set of ``x`` only grows, so no
  operation becomes dead (GRAPH-R1).
"""

from __future__ import annotations

from collections.abc import Sequence

import z3

from proofs._kit import Obligation, Outcome, not_evidence, solve


def model_note(values: str) -> str:
    """The sentence every rewrite theorem's statement opens with: what its model is over, and what it is not."""
    return (
        f"Model: sizes, indices, counts and versions are mathematical integers (Z); {values}. This is not "
        "IEEE-754 float arithmetic (no rounding, NaN, infinity or signed zero is modelled), so what a runtime "
        "computes on floats is outside this proof."
    )


REFUTE_NOT_EVIDENCE = "a counterexample motivating a precondition; its formulas assert the difference it reports"


def refute(name: str, formulas: Sequence[z3.BoolRef]) -> Outcome:
    """``ok`` when z3 finds a model of ``formulas`` (the counterexample exists); the model is the detail."""
    a = solve(formulas)
    if a.status == "sat":
        shown = ", ".join(f"{k} = {v}" for k, v in a.constants)
        return not_evidence(Outcome(name, True, f"counterexample found: {shown}"), REFUTE_NOT_EVIDENCE)
    return Outcome(name, False, f"no counterexample found ({a.status})")


def rewiring_obligations() -> list[Obligation]:
    """The graph-level obligations of deleting ``y := F(x)`` and redirecting the readers of ``y`` to ``x``."""
    N = z3.DeclareSort("Name")
    V = z3.DeclareSort("Value")
    val = z3.Function("val", N, V)
    defined = z3.Function("defined", N, z3.BoolSort())
    producers = z3.Function("producers", N, z3.IntSort())
    read = z3.Function("read", N, z3.BoolSort())
    x, y, n = z3.Consts("x y n", N)

    def redirect(m: z3.ExprRef) -> z3.ExprRef:
        return z3.If(m == y, x, m)

    # Before: C3 (every read name is defined), C1 (one producer each), y produced by the deleted operation
    # only, x read by it (so defined), x != y (GRAPH-ACYCLIC excludes an operation reading its own output).
    before = z3.And(
        z3.ForAll([n], z3.Implies(read(n), defined(n))),
        z3.ForAll([n], producers(n) <= 1),
        producers(y) == 1,
        defined(x),
        x != y,
    )

    def defined_after(m: z3.ExprRef) -> z3.BoolRef:
        return z3.And(defined(m), m != y)

    def producers_after(m: z3.ExprRef) -> z3.ArithRef:
        return z3.If(m == y, producers(m) - 1, producers(m))

    same_value = val(y) == val(x)
    return [
        Obligation(
            "rewiring: every reader sees the value it saw before (given val(y) = val(x))",
            z3.Implies(same_value, z3.ForAll([n], val(redirect(n)) == val(n))),
        ),
        Obligation(
            "rewiring keeps GRAPH-C3: every name read after the rewrite is defined",
            z3.Implies(before, z3.ForAll([n], z3.Implies(read(n), defined_after(redirect(n))))),
        ),
        Obligation(
            "rewiring keeps GRAPH-C1: no name has two producers after the rewrite",
            z3.Implies(before, z3.ForAll([n], producers_after(n) <= 1)),
        ),
        Obligation(
            "rewiring keeps GRAPH-R1: a name read before is still read (x gains y's readers)",
            z3.Implies(
                before,
                z3.ForAll(
                    [n],
                    z3.Implies(
                        z3.And(read(n), n != y),
                        z3.Exists([z3.Const("m", N)], z3.And(read(z3.Const("m", N)), redirect(z3.Const("m", N)) == n)),
                    ),
                ),
            ),
        ),
    ]


def pad_axis(
    n: z3.ArithRef, b: z3.ArithRef, e: z3.ArithRef, t: z3.ArithRef
) -> tuple[z3.ArithRef, z3.BoolRef, z3.ArithRef]:
    """Pad on one axis of size n with counts b (begin) and e (end), any sign: crop first, then pad.

    Returns (output size, whether output index t reads the input, the input index it reads).
    """
    lo_crop = z3.If(b < 0, -b, 0)
    hi_crop = z3.If(e < 0, -e, 0)
    kept = n - lo_crop - hi_crop
    pb = z3.If(b > 0, b, 0)
    pe = z3.If(e > 0, e, 0)
    inside = z3.And(pb <= t, t < pb + kept)
    return kept + pb + pe, inside, t - pb + lo_crop


def on_axes(rank: z3.ArithRef, body: z3.ExprRef, i: z3.ArithRef) -> z3.ArrayRef:
    """The array i -> body for 0 <= i < rank, 0 elsewhere (so two index arrays compare on the rank only)."""
    return z3.Lambda([i], z3.If(z3.And(0 <= i, i < rank), body, 0))


# ------------------------------------------------------------------ Pad followed by a windowed operation


class PadWindow:
    """One spatial axis: a Pad (counts pb, pe >= 0 unless stated) then an operation with padding cb, ce.

    The windowed operation reads padded coordinates u (window start + offset).
    Before the fusion u is a coordinate of the Pad's output padded again by
    (cb, ce); after it, a coordinate of the input padded by (cb + pb, ce + pe).
    """

    def __init__(self, suffix: str = "") -> None:
        self.n, self.pb, self.pe, self.cb, self.ce, self.u = z3.Ints(
            " ".join(f"{v}{suffix}" for v in ("n", "pb", "pe", "cb", "ce", "u"))
        )

    def domain(self) -> z3.BoolRef:
        return z3.And(self.n >= 1, self.pb >= 0, self.pe >= 0, self.cb >= 0, self.ce >= 0)

    # before the fusion
    def padded_size(self) -> z3.ArithRef:
        return self.n + self.pb + self.pe

    def total_before(self) -> z3.ArithRef:
        return self.padded_size() + self.cb + self.ce

    def in_pad_output(self, u: z3.ArithRef | None = None) -> z3.BoolRef:
        u = self.u if u is None else u
        return z3.And(self.cb <= u, u < self.cb + self.padded_size())

    def reads_x_before(self, u: z3.ArithRef | None = None) -> z3.BoolRef:
        u = self.u if u is None else u
        t = u - self.cb
        return z3.And(self.in_pad_output(u), self.pb <= t, t < self.pb + self.n)

    def src_before(self, u: z3.ArithRef | None = None) -> z3.ArithRef:
        u = self.u if u is None else u
        return u - self.cb - self.pb

    # after the fusion
    def total_after(self) -> z3.ArithRef:
        return self.n + (self.cb + self.pb) + (self.ce + self.pe)

    def reads_x_after(self, u: z3.ArithRef | None = None) -> z3.BoolRef:
        u = self.u if u is None else u
        return z3.And(self.cb + self.pb <= u, u < self.cb + self.pb + self.n)

    def src_after(self, u: z3.ArithRef | None = None) -> z3.ArithRef:
        u = self.u if u is None else u
        return u - (self.cb + self.pb)


def fusion_read_obligations() -> list[Obligation]:
    """Per axis and for every rank: each window element reads the same input element or padding."""
    w = PadWindow()
    obs = [
        Obligation(
            "one axis: the padded extent is the same before and after (n + pb + pe + cb + ce)",
            z3.Implies(w.domain(), w.total_before() == w.total_after()),
        ),
        Obligation(
            "one axis: u reads the input before iff after, and the same input index",
            z3.Implies(
                w.domain(),
                z3.And(
                    w.reads_x_before() == w.reads_x_after(),
                    z3.Implies(w.reads_x_after(), w.src_before() == w.src_after()),
                ),
            ),
        ),
        Obligation(
            "one axis: a Pad-written position (inside the Pad's output, not the input) is padding after",
            z3.Implies(
                z3.And(w.domain(), w.in_pad_output(), z3.Not(w.reads_x_before())),
                z3.And(z3.Not(w.reads_x_after()), 0 <= w.u, w.u < w.total_after()),
            ),
        ),
    ]
    # Every rank: per-axis parameters as arrays over the axes, a window position as an array U.
    R = z3.Int("R")
    arrays = {k: z3.Array(k, z3.IntSort(), z3.IntSort()) for k in ("N", "PB", "PE", "CB", "CE", "U")}
    i = z3.Int("i")

    def ax(k: z3.ArithRef) -> PadWindow:
        a = PadWindow("_ax")
        a.n, a.pb, a.pe, a.cb, a.ce, a.u = (arrays[x][k] for x in ("N", "PB", "PE", "CB", "CE", "U"))
        return a

    X = z3.Function("X", z3.ArraySort(z3.IntSort(), z3.IntSort()), z3.RealSort())
    c, P = z3.Reals("pad_value window_padding")
    def every(body: z3.BoolRef) -> z3.BoolRef:
        return z3.ForAll([i], z3.Implies(z3.And(0 <= i, i < R), body))

    dom = every(ax(i).domain())
    before = z3.If(
        every(ax(i).reads_x_before()),
        X(on_axes(R, ax(i).src_before(), i)),
        z3.If(every(ax(i).in_pad_output()), c, P),
    )
    after = z3.If(every(ax(i).reads_x_after()), X(on_axes(R, ax(i).src_after(), i)), P)
    obs.append(
        Obligation(
            "every rank: with Pad value = the window's padding value, every window element reads the same value",
            z3.Implies(z3.And(R >= 0, dom, c == P), before == after),
        )
    )
    return obs


def fusion_counterexample_negative_pad() -> Outcome:
    """A negative Pad count (a crop) cannot be merged into the window padding."""
    n, b, cb, u = z3.Ints("n b cb u")
    kept = n + b  # b < 0 crops -b elements at the start
    before_reads = z3.And(cb <= u, u < cb + kept)  # the cropped tensor, padded by cb
    after_reads = z3.And(cb + b <= u, u < cb + b + n)  # merged padding cb + b on the uncropped input
    return refute(
        "negative Pad count: merging a crop into the padding reads an element the Pad removed",
        [n == 3, b == -1, cb == 1, u == 0, before_reads != after_reads],
    )


def fusion_counterexample_batch_axis() -> Outcome:
    """Padding the batch (or channel) axis changes the consumer's output size on that axis."""
    n, p = z3.Ints("batch pad")
    return refute(
        "Pad on the batch/channel axis: the output keeps n + p there before and n after",
        [n >= 1, p >= 1, n + p != n],
    )
