"""A short seeded run of the file mutation fuzz in CI; ``make fuzz-files`` runs the long campaign."""

from __future__ import annotations

import faulthandler
import os
import signal
import time
from pathlib import Path

import pytest

from tests.fuzz.files import campaign, run_forked


def test_a_short_seeded_campaign_finds_no_traceback_internal_error_signal_or_hang(tmp_path: Path) -> None:
    c = campaign(25, seed=20261123, save=tmp_path / "failures")
    assert c.runs == 25 * 5
    assert c.failures == [], [f"{f.status}: {' '.join(f.command)}: {f.detail[:200]}" for f in c.failures]


def _killed() -> tuple[int, str]:
    # pytest's faulthandler would print a traceback for this deliberate signal into the test log.
    faulthandler.disable()
    os.kill(os.getpid(), signal.SIGSEGV)
    return 0, ""


def _sleeps() -> tuple[int, str]:
    time.sleep(30)
    return 0, ""


def _computes() -> tuple[int, str]:
    while True:
        sum(range(10_000))


def _raises() -> tuple[int, str]:
    raise KeyError("boom")


@pytest.mark.parametrize(
    "entry,status",
    [
        (_killed, f"signal {int(signal.SIGSEGV)}"),
        (_sleeps, "hang"),
        (_computes, "hang"),
        (_raises, "traceback"),
        (lambda: (2, "sonnx run: internal error: TypeError: x\n"), "internal error"),
        (lambda: (3, ""), "exit 3"),
        (lambda: (2, "sonnx run: error: a one-line refusal\n"), "ok"),
    ],
)
def test_the_harness_classifies_each_way_a_run_can_end(entry: object, status: str) -> None:
    # CPU limit 1 s; wall limit 3 s (a sleeping run uses no CPU, so only the wall limit stops it), but 60 s for
    # the computing run: on a loaded machine it may get less than a third of a core, and must still meet the CPU
    # limit first (seen: a run under coverage beside a mutation campaign got under 1 s of CPU in 3 s)
    wall = 60 if entry is _computes else 3
    got = run_forked(["x"], time_limit=1, entry=entry, wall_limit=wall)  # type: ignore[arg-type]
    assert got.status == status, got
    if entry is _computes:
        assert "CPU time" in got.detail, got
    if entry is _sleeps:
        assert "wall time" in got.detail, got
