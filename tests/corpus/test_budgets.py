"""The budget campaign (tests/corpus/budget_campaign.py): its judge, and a seeded selection of the corpus in CI.

The whole corpus runs with ``make corpus-budget``; here, the steps and
models that once hung or dropped their report run on every CI build.
"""

from __future__ import annotations

import pytest

from tests.corpus.budget_campaign import CORPUS, STEP_NAMES, STEPS, Step, campaign, judge

CHECK = next(s for s in STEPS if s.name == "check")
REWRITE = next(s for s in STEPS if s.name == "rewrite")


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(
    ("step", "code", "stdout", "stderr", "verdict"),
    [
        (REWRITE, None, "", "", "over budget"),
        (REWRITE, 3, "", "sonnx: boom", "defect"),
        (REWRITE, 2, "", "sonnx: internal error: KeyError: 'x' (a tool defect; please report it)", "defect"),
        (REWRITE, 2, "", "sonnx: error: unrecognized arguments: --budget 20", "defect"),
        (REWRITE, 2, "", "Traceback (most recent call last):\n  ...\nValueError: x", "defect"),
        (REWRITE, 2, "", "sonnx: cannot rewrite: GRAPH-R2 unknown", "ok"),
        (REWRITE, 1, "REFUSED: m.onnx\n", "", "ok"),
        (CHECK, 2, "", "sonnx-check: input 'features' has no declared tensor type and shape", "defect"),
        (CHECK, 2, "m.onnx: UNKNOWN\n", "", "ok"),
        (CHECK, 0, "m.onnx: PROVED\n", "", "ok"),
    ],
)
def test_the_judge(step: Step, code: int | None, stdout: str, stderr: str, verdict: str) -> None:
    assert judge(step, code, stdout, stderr)[0] == verdict


def test_every_step_on_the_map_input_model_ends_ok() -> None:
    """The model whose map input once dropped reports and broke the fused writer, through every subcommand."""
    (model,) = [p for p in sorted(CORPUS.glob("*.onnx")) if p.name == "sk_dict_vectorizer.skl2onnx.onnx"]
    outcomes = campaign([model], STEPS)
    assert [o.step for o in outcomes] == list(STEP_NAMES)
    assert [o for o in outcomes if o.verdict != "ok"] == []
