"""Rewrite theorem: a constant-0 Pad with counts >= 0 on the spatial axes fuses into Conv's pads.

Run ``python -m proofs.rewrite_pad_conv`` (from the repository root): prints PROVED or FAILED and exits 0 or 1.
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

ID = "rewrite-pad-conv"
TITLE = "Fusing a zero Pad into Conv is sound (auto_pad NOTSET/VALID)"
SUPPORTS: tuple[str, ...] = ()
"""A rewrite theorem justifies a pass, not a graph rule."""
RESTS_ON: tuple[str, ...] = ()
"""No review item: every step of this theorem is an obligation z3 discharges."""
THEOREM = f"""
{model_note('element values are reals (R)')}
Pass `pad-conv` (src/sonnx/rewrite/pad_conv.py). Per spatial axis: input
size n >= 1, Pad counts pb, pe >= 0, Conv padding cb, ce >= 0; a window
element reads padded coordinate u = o * stride + j * dilation, the same u
before and after (kernel, stride, dilation and the output index o are
unchanged, so the proof is over every u, hence every kernel size, stride
and dilation). Machine-checked for all sizes and counts: the padded extent
n + pb + pe + cb + ce is the same, so the output size
floor((extent - ((k - 1) d + 1)) / s) + 1 is the same; u reads the input
before iff after, at the same input index; a position the Pad wrote is
padding after. For every spatial rank (symbolic R, parameters as arrays
over the axes, any tensor X as a function of index arrays): when the Pad
value equals Conv's padding value (0), every window element reads the same
value, so every product w * x and every sum, in the same order, is the same
over the reals. (On floats, the same terms in the same order give the same
bits for a +0.0 fill: an argument outside this model, not machine-checked; a
-0.0 fill, which reals cannot tell from +0.0, is refused by the pass.)
Counterexamples found for the seed's conditions (constant, value 0,
counts >= 0), which the pass adds: a Pad on the batch or channel axis (the
Conv output keeps n + p on the batch axis before, n after); auto_pad
SAME_UPPER (the padding is derived from the padded size: n = 4, pb = pe = 1,
stride 1 gives 6 output positions before and 4 after). And for the
"counts >= 0" condition itself: a negative count (crop) merged into the
padding reads an element the Pad had removed.
"""


def check() -> Result:
    obs: list[Obligation] = [*fusion_read_obligations(), *rewiring_obligations()]
    n, pb, pe, s = z3.Ints("n pb pe stride")

    def same_upper_out(size: z3.ArithRef) -> z3.ArithRef:
        return (size + s - 1) / s  # ceil(size / s) for s >= 1 (integer division)

    w = PadWindow()
    extra: list[Outcome] = [
        satisfiable("non-vacuous: a padded axis", [w.domain(), w.pb == 1, w.cb == 1]),
        fusion_counterexample_negative_pad(),
        fusion_counterexample_batch_axis(),
        refute(
            "auto_pad SAME_UPPER kept after removing the Pad changes the output size",
            [n == 4, pb == 1, pe == 1, s == 1, same_upper_out(n + pb + pe) != same_upper_out(n)],
        ),
    ]
    return run_obligations(TITLE, obs, extra)


if __name__ == "__main__":
    main(check, THEOREM)
