"""Backend node test cases sonnx knowingly does not reproduce, as data with reasons.

``DEVIATIONS``: expected failures, run as strict xfails (a case that starts
passing fails the suite until its entry is removed).

``REFUSALS``: cases whose operation sonnx deliberately refuses to execute; the
test asserts that execution fails with a :class:`~sonnx.errors.SonnxError`
whose message matches the pattern, so a kernel that silently computed
something instead would fail. ``REFUSAL_RULES`` apply the same to every case
whose id matches a regular expression (each rule must match some case).
"""

from __future__ import annotations

DEVIATIONS: dict[str, str] = {}

REFUSAL_RULES: tuple[tuple[str, str, str], ...] = ()

_TRAINING = "Dropout in training mode draws a random mask; sonnx executes inference only"

_SEQUENCES = (
    "the nested graphs use sequence or optional operators (SequenceConstruct, SequenceInsert, "
    "OptionalHasElement), which are outside the SONNX operator set and have no sonnx kernel"
)

_NESTED_GATHER_ELEMENTS = (
    "a nested graph (an If branch of the expanded AffineGrid body) uses GatherElements, which has no kernel "
    "yet; remove these entries once it has one"
)

REFUSALS: dict[str, tuple[str, str]] = {
    "test_affine_grid_2d_align_corners_expanded": ("without a kernel: .*GatherElements", _NESTED_GATHER_ELEMENTS),
    "test_affine_grid_2d_expanded": ("without a kernel: .*GatherElements", _NESTED_GATHER_ELEMENTS),
    "test_affine_grid_3d_align_corners_expanded": ("without a kernel: .*GatherElements", _NESTED_GATHER_ELEMENTS),
    "test_affine_grid_3d_expanded": ("without a kernel: .*GatherElements", _NESTED_GATHER_ELEMENTS),
    "test_if_opt": ("without a kernel: .*SequenceConstruct", _SEQUENCES),
    "test_if_seq": ("without a kernel: .*SequenceConstruct", _SEQUENCES),
    "test_loop13_seq": ("without a kernel: .*SequenceInsert", _SEQUENCES),
    "test_loop16_seq_none": ("without a kernel: .*OptionalHasElement", _SEQUENCES),
    "test_training_dropout_default": ("inference only", _TRAINING),
    "test_training_dropout_default_mask": ("inference only", _TRAINING),
    "test_training_dropout": ("inference only", _TRAINING),
    "test_training_dropout_mask": ("inference only", _TRAINING),
    # ratio 0 makes training deterministic, but the graph still asks for training mode
    "test_training_dropout_zero_ratio": ("inference only", _TRAINING),
    "test_training_dropout_zero_ratio_mask": ("inference only", _TRAINING),
}
