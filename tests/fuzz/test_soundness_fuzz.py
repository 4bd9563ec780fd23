"""The soundness campaign in CI: a short seeded run, and the harness's own checks.

``make fuzz-soundness`` runs the long campaign. A PROVED of GRAPH-R2 or
GRAPH-DETERMINISM on a model whose runs differ in onnxruntime or in the
reference evaluator is a wrong PROVED; the short run fails listing them.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import pytest

from sonnx.rules import determinism_table
from tests.fuzz.soundness import Campaign, campaign, differing, disagreement, examine, forked
from tests.fuzz.soundness_models import PLACES, SOURCES, Spec, product, spec

SEED = 20261127
SHORT = 40


def test_the_first_models_of_a_campaign_hold_every_source_and_every_place() -> None:
    walk = product(SEED)
    specs = [spec(k, SEED, walk) for k in range(SHORT)]
    assert {s.source for s in specs} == set(SOURCES)
    covered = {p for s in specs for p in PLACES if s.place in (p, ("fn", *p))}
    assert covered == set(PLACES)


def test_model_k_depends_only_on_the_seed_and_k() -> None:
    walk = product(SEED)
    assert spec(5, SEED, walk) == spec(5, SEED)
    assert spec(len(walk) + 3, SEED) == spec(len(walk) + 3, SEED, walk)
    assert product(SEED) != product(SEED + 1)


def test_a_short_seeded_campaign_finds_no_wrong_proved(tmp_path: Path) -> None:
    c = campaign(SHORT, seed=SEED, save=tmp_path / "soundness", smt_every=10)
    assert c.models == SHORT and not c.check_crashes, c.check_crashes
    saved = sorted(str(tmp_path / "soundness" / "wrong-proved" / f"{n['label']}.onnx") for n in c.wrong)
    assert not saved, f"wrong PROVED (runs of a runtime differ on a model sonnx proved): {', '.join(saved)}"


KNOWN = (
    Spec(1, "Dropout12", (), "init", "bool256", True, False),
    Spec(2, "Dropout12", ("fn",), "fn-default", "bool256", True, False),
    Spec(3, "ShadowRandom", (), "-", "-", True, False),
    Spec(4, "ShadowRandomAiOnnx", (), "-", "-", True, False),
)
"""One model of each class of wrong PROVED the long campaign found (not all of them are among the first 40)."""


@pytest.mark.parametrize("sp", KNOWN, ids=[sp.label() for sp in KNOWN])
def test_the_classes_of_wrong_proved_found_so_far_are_not_proved(sp: Spec) -> None:
    note = examine(sp, ("direct", "smt"))
    assert not note.get("wrong"), f"wrong PROVED {note['proved']}: runs differ in {note['wrong']}"


def test_bitwise_comparison() -> None:
    nan = np.array([np.nan, 1.0], np.float32)
    assert differing(nan, nan.copy()) == 0
    assert differing(np.array([0.0], np.float32), np.array([-0.0], np.float32)) == 0  # equal values
    assert differing(np.array([1, 2, 3]), np.array([1, 5, 3])) == 1
    assert differing(np.array([1, 2], np.int64), np.array([1, 2], np.int32)) == 2
    assert differing(np.zeros((2, 2)), np.zeros(4)) == 4
    assert differing(np.array([True, False]), np.array([True, True])) == 1


def test_runtimes_disagree_on_shapes_or_on_values_beyond_rounding() -> None:
    a = [np.array([1.0, 2.0], np.float32)]
    assert disagreement(a, [np.array([1.0, 2.0 + 1e-7], np.float32)]) == ""
    assert disagreement(a, [np.array([1.0, 2.1], np.float32)]) == "values"
    assert disagreement(a, [np.array([[1.0, 2.0]], np.float32)]) == "shapes"
    assert disagreement([np.array([1, 2], np.int64)], [np.array([1, 3], np.int32)]) == "values"


def _segfault() -> dict[str, object]:
    os.kill(os.getpid(), signal.SIGSEGV)
    return {}


def _raises() -> dict[str, object]:
    raise ZeroDivisionError("boom")


def test_a_child_that_crashes_or_raises_is_reported_not_taken_for_a_result() -> None:
    import faulthandler

    faulthandler.disable()  # the deliberate signal would print a traceback into the log
    try:
        assert forked(_segfault) == {"crash": f"killed by signal {int(signal.SIGSEGV)}"}
    finally:
        faulthandler.enable()
    assert forked(_raises) == {"crash": "ZeroDivisionError: boom"}
    assert forked(lambda: {"a": 1}) == {"a": 1}


RANDOM_IN_MAIN = Spec(7, "RandomNormalLike", (), "absent", "int", True, False)


@pytest.mark.rule("GRAPH-R2")
def test_a_random_operator_is_not_proved_today_so_nothing_runs() -> None:
    note = examine(RANDOM_IN_MAIN, ("direct",))
    assert note["verdicts"]["direct"]["GRAPH-R2"] == "VIOLATED"
    assert note["proved"] == [] and "runtimes" not in note


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM")
def test_a_planted_wrong_proved_is_caught_by_both_runtimes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # a sonnx whose table calls every operator deterministic proves a RandomNormalLike model
    monkeypatch.setattr(determinism_table, "entry_for", lambda *_a: None)
    note = examine(RANDOM_IN_MAIN, ("direct",))
    assert note["proved"] == ["direct:GRAPH-DETERMINISM", "direct:GRAPH-R2"]
    assert note["wrong"] == ["onnxruntime", "reference"], note["runtimes"]
    assert note["runtimes"]["onnxruntime"]["runs"] == 6 and note["runtimes"]["reference"]["runs"] == 3
    note["seed"] = 0
    c = Campaign()
    c.record(note, tmp_path)
    assert [n["label"] for n in c.wrong] == [RANDOM_IN_MAIN.label()]
    saved = sorted(p.name for p in (tmp_path / "wrong-proved").iterdir())
    assert saved == [f"{RANDOM_IN_MAIN.label()}.json", f"{RANDOM_IN_MAIN.label()}.onnx"]


def test_a_refusal_is_counted_apart_not_as_agreement(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Dropout-6 (opset 6): onnx's reference evaluator implements Dropout from version 7 only
    monkeypatch.setattr(determinism_table, "entry_for", lambda *_a: None)
    sp = Spec(3, "Dropout6", (), "absent", "int", True, False)
    note = examine(sp, ("direct",))
    assert "refused" in note["runtimes"]["reference"], note["runtimes"]
    assert "reference" not in note["wrong"]
    note["seed"] = 0
    c = Campaign()
    c.record(note, tmp_path)
    assert any(r["runtime"] == "reference" and r["label"] == sp.label() for r in c.refusals)
