"""Rewrite theorem: fusing a Pad into AveragePool / MaxPool, under corrected preconditions.

Run ``python -m proofs.rewrite_pad_pool`` (from the repository root): prints PROVED or FAILED and exits 0 or 1.
"""

from __future__ import annotations

import z3

from proofs._kit import Obligation, Outcome, Result, main, run_obligations, satisfiable
from proofs.rewrite_common import (
    PadWindow,
    fusion_counterexample_batch_axis,
    fusion_counterexample_negative_pad,
    fusion_read_obligations,
    model_note,
    refute,
    rewiring_obligations,
)

ID = "rewrite-pad-pool"
TITLE = "Fusing a Pad into pooling: sound only under corrected preconditions"
SUPPORTS: tuple[str, ...] = ()
"""A rewrite theorem justifies a pass, not a graph rule."""
RESTS_ON: tuple[str, ...] = ()
"""No review item: every step of this theorem is an obligation z3 discharges."""
THEOREM = f"""
{model_note('element values are reals (R)')}
Pass `pad-pool` (src/sonnx/rewrite/pad_pool.py). The pass's preconditions
include one no ONNX text states but onnxruntime imposes on pooling: every
fused pad (cb + pb, ce + pe) smaller than the kernel size; it is a hypothesis
of every obligation below (the arithmetic does not need it). Same per-axis model as
rewrite-pad-conv (Pad counts pb, pe >= 0, pool padding cb, ce >= 0, every
padded coordinate u), with the pooling rules of the ONNX text:
output size floor((E - e) / s) + 1, or in ceil mode ceil((E - e) / s) + 1
minus one when the last window starts at or after n_in + cb (E the padded
extent, e the window extent, n_in the pool's input size); the divisor of
AveragePool counts the positions in [0, E) (count_include_pad = 1) or in
[cb, cb + n_in) (count_include_pad = 0); MaxPool's padding never wins and a
window needs one input position. Machine-checked, for all sizes, counts,
extents e >= 1 and strides s >= 1, and every spatial rank: every window
element reads the same input element or padding (lemma of rewrite-pad-conv);
floor-mode output sizes agree; ceil-mode sizes agree when pe = 0; the
counted positions agree for count_include_pad = 1, and for a pool without
padding of its own (cb = ce = 0) with count_include_pad = 0 before and 1
after; so the sums (same terms, same order) and the divisors agree. MaxPool:
with the Pad value equal to the window padding (-inf, the lowest value), the
maxima agree, and a fused window with an input position was a window with an
input position before (so both are defined).
Counterexamples found for the seed's conditions (constant, value 0, counts
>= 0): MaxPool with value 0 (a window holding one Pad zero and the input
value -1 has maximum 0 before and -1 after); AveragePool with
count_include_pad = 0 (a Pad zero at u = cb is counted before, not after);
ceil_mode = 1 with end padding (n = 1, pe = 2, stride 2, extent 1: 2
outputs before, 1 after); MaxPool's Indices output (positions refer to the
padded tensor before, to the input after); plus the batch/channel-axis and
negative-count counterexamples of rewrite-pad-conv. The pass uses the
corrected preconditions (docs/rewrite.rst).
"""


def _ceil_out(extent: z3.ArithRef, e: z3.ArithRef, s: z3.ArithRef, n_in_plus_begin: z3.ArithRef) -> z3.ArithRef:
    span = extent - e
    o = (span + s - 1) / s + 1  # ceil(span / s) + 1 for span >= 0, s >= 1
    return z3.If((o - 1) * s >= n_in_plus_begin, o - 1, o)


def check() -> Result:
    w = PadWindow()
    e, s, ks = z3.Ints("extent stride kernel")
    u = z3.Int("u_count")
    # runtime precondition of the pass (onnxruntime refuses pooling pads >= kernel): each fused pad < kernel size,
    # the kernel size at most the window extent (extent = (kernel - 1) * dilation + 1)
    runtime = z3.And(ks >= 1, ks <= e, w.cb + w.pb < ks, w.ce + w.pe < ks)
    geometry = z3.And(w.domain(), e >= 1, s >= 1, w.total_before() >= e, runtime)
    floor_before = (w.total_before() - e) / s + 1
    floor_after = (w.total_after() - e) / s + 1
    ceil_before = _ceil_out(w.total_before(), e, s, w.padded_size() + w.cb)
    ceil_after = _ceil_out(w.total_after(), e, s, w.n + w.cb + w.pb)
    counted_incl_before = z3.Lambda([u], z3.And(0 <= u, u < w.total_before()))
    counted_incl_after = z3.Lambda([u], z3.And(0 <= u, u < w.total_after()))
    counted_excl_before = z3.Lambda([u], z3.And(w.cb <= u, u < w.cb + w.padded_size()))
    counted_excl_after = z3.Lambda([u], z3.And(w.cb + w.pb <= u, u < w.cb + w.pb + w.n))
    obs: list[Obligation] = [
        *fusion_read_obligations(),
        Obligation("floor mode: the output sizes agree", z3.Implies(geometry, floor_before == floor_after)),
        Obligation(
            "ceil mode: the output sizes agree when the Pad's end count is 0",
            z3.Implies(z3.And(geometry, w.pe == 0), ceil_before == ceil_after),
        ),
        Obligation(
            "count_include_pad = 1: the counted positions agree",
            z3.Implies(geometry, counted_incl_before == counted_incl_after),
        ),
        Obligation(
            "no pool padding, count_include_pad 0 before and 1 after: the counted positions agree",
            z3.Implies(z3.And(geometry, w.cb == 0, w.ce == 0), counted_excl_before == counted_incl_after),
        ),
        Obligation(
            "MaxPool: a fused window position on the input was inside the pool's input before (both defined)",
            z3.Implies(z3.And(w.domain(), w.reads_x_after()), w.in_pad_output()),
        ),
        *rewiring_obligations(),
    ]
    xv, before_max, after_max = z3.Reals("x_value max_before max_after")
    v = PadWindow("_c")
    extra: list[Outcome] = [
        satisfiable("non-vacuous: a padded axis with a window", [geometry, w.pb == 1, e == 3, s == 2]),
        refute(
            "MaxPool with Pad value 0: window {Pad zero, input -1} has max 0 before, -1 after",
            [xv == -1, before_max == z3.If(xv >= 0, xv, 0), after_max == xv, before_max != after_max],
        ),
        refute(
            "AveragePool with count_include_pad = 0: a Pad zero is counted before, not after",
            [
                w.domain(),
                w.pb == 1,
                w.u == w.cb,
                z3.Select(counted_excl_before, w.u) != z3.Select(counted_excl_after, w.u),
            ],
        ),
        refute(
            "ceil_mode = 1 with end padding: the number of windows changes",
            [
                v.domain(),
                v.n == 1,
                v.pb == 0,
                v.pe == 2,
                v.cb == 0,
                v.ce == 0,
                e == 1,
                s == 2,
                _ceil_out(v.total_before(), e, s, v.padded_size() + v.cb)
                != _ceil_out(v.total_after(), e, s, v.n + v.cb + v.pb),
            ],
        ),
        refute(
            "MaxPool Indices: the chosen position is counted in the padded tensor before, in the input after",
            [w.domain(), w.pb == 1, w.reads_x_after(), w.u - w.cb != w.src_after()],
        ),
        fusion_counterexample_negative_pad(),
        fusion_counterexample_batch_axis(),
    ]
    return run_obligations(TITLE, obs, extra)


if __name__ == "__main__":
    main(check, THEOREM)
