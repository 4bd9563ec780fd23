"""Obligations solved on worker processes (``--jobs N``) say exactly what one process says.

The identity tests run the same check serially and on a pool of two workers
and compare every verdict, every obligation (name, text, z3's answer, the
exported file) and, through ``sonnx-check``, the ``--smt-dir`` files and the
evidence bundle byte for byte. Certificates are cut into parts of a few
instances here (``PART``), so that one rule's obligations are many pool jobs.
The failure tests make workers exhaust their resource limit, raise and die:
each is UNKNOWN with its reason, never a pass, and never a traceback.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import sonnx.smt.engine as engine
from sonnx.base.verdict import Status
from sonnx.loader import load_model
from sonnx.smt import SolverSettings, common, pool, run_smt
from sonnx.smt.encodings import graph_acyclic
from sonnx.smt.engine import SmtRun
from sonnx.smt.pool import Job, Solving
from tests.common.bundles import files_of
from tests.common.cli import check

from . import pool_workers

PART = 400
"""Instances per certificate part in these tests: a model of 1,200 operations gives each rule several parts."""


@pytest.fixture(autouse=True)
def small_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(common, "PART", PART)


def dag(path: Path, n: int = 1200, defects: tuple[str, ...] = ()) -> Path:
    """A random DAG of ``n`` Add operations (every unread tensor a graph output), with planted ``defects``.

    ``dead``: an operation whose output nothing uses; ``unread``: a graph input
    no operation reads; ``twice``: a tensor written by two operations;
    ``random``: a RandomUniformLike whose value reaches a graph output.
    """
    rng = np.random.default_rng(n)
    nodes = []
    names = ["x"]
    for i in range(n):
        lo = max(0, len(names) - 50)
        a, b = names[int(rng.integers(lo, len(names)))], names[int(rng.integers(0, len(names)))]
        nodes.append(helper.make_node("Add", [a, b], [f"t{i}"], name=f"n{i}"))
        names.append(f"t{i}")
    used = {x for nd in nodes for x in nd.input}
    outputs = [t for t in names[1:] if t not in used]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])]
    if "random" in defects:
        nodes.append(helper.make_node("RandomUniformLike", ["x"], ["r"], name="rand"))
        nodes.append(helper.make_node("Add", ["r", "t0"], ["noisy"], name="noise"))
        outputs.append("noisy")
    if "dead" in defects:
        nodes.append(helper.make_node("Neg", ["t1"], ["unused"], name="dead"))
    if "twice" in defects:
        nodes.append(helper.make_node("Neg", ["x"], ["t5"], name="again"))
    if "unread" in defects:
        inputs.append(helper.make_tensor_value_info("spare", TensorProto.FLOAT, [1]))
    outs = [helper.make_tensor_value_info(t, TensorProto.FLOAT, [1]) for t in outputs]
    m = helper.make_model(helper.make_graph(nodes, "dag", inputs, outs), opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return path


def summary(run: SmtRun) -> tuple[list[dict[str, Any]], list[tuple[str, str, str, str]]]:
    """What a run says: every verdict as JSON, every obligation as (name, script, z3's answer, exported file)."""
    return [v.to_json() for v in run.verdicts], [(o.name, o.script(), o.answer, o.render()) for o in run.obligations]


def both(path: Path, settings: SolverSettings | None = None) -> tuple[SmtRun, SmtRun]:
    """The model's proofs in this process and on two workers (certificate mode)."""
    m = load_model(str(path), read_weights=False)
    serial = run_smt(m, settings, mode="certificate", jobs=1)
    with Solving(2) as workers:
        assert workers.parallel, workers.note
        parallel = run_smt(m, settings, mode="certificate", solving=workers)
    return serial, parallel


CASES = {
    "satisfied": (),
    "violated": ("dead", "unread", "random"),
    "written twice": ("twice",),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_serial_and_parallel_runs_say_the_same(case: str, tmp_path: Path) -> None:
    serial, parallel = both(dag(tmp_path / "m.onnx", defects=CASES[case]))
    assert summary(parallel) == summary(serial)
    parts = [o.name for o in serial.obligations if ".part" in o.name]
    assert len(parts) >= 8, parts  # several pool jobs per rule, so an order or a lost part would show
    statuses = {v.rule_id: v.status for v in serial.verdicts}
    if case == "satisfied":
        assert set(statuses.values()) == {Status.PROVED}, statuses
    else:
        assert Status.VIOLATED in statuses.values(), statuses


def lying_ranks(real: Any) -> Any:
    """Kahn's ranks with the last operation's (unread) output ranked below it: one wrong write instance.

    The write instances come after the read instances, so the wrong one is in the last part.
    """

    def lie(f: Any) -> Any:
        rank, trank = real(f)
        trank = [*trank]
        trank[f.wr_t[len(f.wr_t) - 1] - f.t_base] = rank[f.n - 1] - 1
        return rank, trank

    return lie


@pytest.mark.rule("GRAPH-ACYCLIC")
def test_a_rejected_part_is_the_same_part_in_both_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A wrong instance in the last part of a certificate: both runs reject it there, and record the same answers."""
    monkeypatch.setattr(graph_acyclic, "ranks_of", lying_ranks(graph_acyclic.ranks_of))
    serial, parallel = both(dag(tmp_path / "m.onnx"))
    assert summary(parallel) == summary(serial)
    v = serial.verdicts[0]
    assert v.rule_id == "GRAPH-ACYCLIC" and v.status is Status.UNKNOWN
    assert "rejected the rank certificate" in (v.reason or "")
    answers = [o.answer for o in serial.obligations if o.name.startswith("graph_acyclic.certificate.part")]
    assert answers[-1] == "unsat" and set(answers[:-1]) == {"sat"}, answers


def test_the_comparison_sees_a_worker_that_drops_obligations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The identity comparison is not vacuous: a worker answering sat unsolved makes the runs differ."""
    monkeypatch.setattr(graph_acyclic, "ranks_of", lying_ranks(graph_acyclic.ranks_of))
    m = load_model(str(dag(tmp_path / "m.onnx")), read_weights=False)
    serial = run_smt(m, mode="certificate", jobs=1)
    with Solving(2, pool_workers.claims_sat) as liar:
        parallel = run_smt(m, mode="certificate", solving=liar)
    assert summary(parallel) != summary(serial)
    assert parallel.verdicts[0].status is Status.PROVED  # what the lie would have made of the wrong certificate


# -- through sonnx-check: --jobs, --smt-dir and the evidence bundle ---------------------------------------------------


@pytest.fixture
def pool_for_small_models(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Workers start for every model (normally from POOL_MIN_OPERATIONS operations)."""
    monkeypatch.setattr(pool, "POOL_MIN_OPERATIONS", 0)
    yield


@pytest.mark.parametrize("case", ["satisfied", "violated"])
def test_jobs_change_no_byte_of_the_obligations_or_the_bundle(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pool_for_small_models: None
) -> None:
    """Each run in a directory of its own, with the same relative paths (the report and bundle name the files)."""
    model = dag(tmp_path / "m.onnx", defects=CASES[case])
    seen = []
    for jobs in ("1", "2"):
        (tmp_path / jobs).mkdir()
        monkeypatch.chdir(tmp_path / jobs)
        code, out, err = check(
            "--progress", "--jobs", jobs, "--smt-dir", "smt", "--evidence", "bundle", "--json", str(model)
        )
        assert code == (0 if case == "satisfied" else 1), err
        assert ("solving on 2 worker processes" in err) == (jobs == "2"), err
        seen.append((out, files_of(Path("smt")), files_of(Path("bundle"))))
    assert seen[0] == seen[1]
    assert len(seen[0][1]) >= 8  # the obligations really were many pool jobs


def test_jobs_must_be_positive(tmp_path: Path) -> None:
    code, out, err = check("--jobs", "0", str(dag(tmp_path / "m.onnx", 3)))
    assert code == 2 and out == "" and "--jobs 0" in err and "Traceback" not in err


# -- failures in the workers: UNKNOWN with the reason, never a pass -------------------------------------------------


def test_worker_cpu_time_is_counted_for_pool_answers_only(tmp_path: Path) -> None:
    """Timings (for the benchmarks) count a worker's CPU seconds when a worker solved, none when this process did."""
    serial, parallel = both(dag(tmp_path / "m.onnx", 600))
    assert sum(t.worker_cpu for t in serial.timings.values()) == 0
    assert sum(t.worker_cpu for t in parallel.timings.values()) > 0


def test_a_closed_solving_has_no_pool_and_closes_again_quietly() -> None:
    solving = Solving(2)
    assert solving.parallel and solving.note == "", solving.note  # a pool that started has nothing to say
    solving.close()
    assert not solving.parallel
    solving.close()


def test_closing_cancels_the_jobs_no_worker_has_started() -> None:
    """Closing (at the end of a run, or when it is interrupted) drops the queued jobs instead of solving them.

    Two workers hold one job each at most, so at least eight of ten jobs of half a second each are still
    queued when ``close`` is called at once; each is then ``unknown``, never a pass.
    """
    solving = Solving(2, pool_workers.slow)
    assert solving.parallel, solving.note
    tickets = [solving.submit(Job("(assert true)", SolverSettings(), False)) for _ in range(10)]
    solving.close()
    answers = [solving.answer(t) for t in tickets]
    closed = [a for a in answers if a.result == "unknown"]
    assert len(closed) >= 8, answers
    assert {a.reason for a in closed} == {"the solving was closed before this obligation had its answer"}
    assert all(a.result == "sat" for a in answers if a not in closed)


@pytest.mark.rule("GRAPH-ACYCLIC", "GRAPH-C3", "GRAPH-R1", "GRAPH-R1-TRANSITIVE")
def test_rlimit_exhaustion_in_a_worker_stays_unknown(tmp_path: Path) -> None:
    serial, parallel = both(dag(tmp_path / "m.onnx", 300), SolverSettings(rlimit=1))
    assert summary(parallel) == summary(serial)
    unknown = {v.rule_id: v.reason or "" for v in parallel.verdicts if v.status is Status.UNKNOWN}
    for rid in ("GRAPH-ACYCLIC", "GRAPH-C3", "GRAPH-R1", "GRAPH-R1-TRANSITIVE"):
        assert "resource limit" in unknown.get(rid, ""), (rid, parallel.verdicts)
    by_rule = {o.rule_id: o.answer for o in parallel.obligations if o.answer == "unknown"}
    assert not [v for v in parallel.verdicts if v.rule_id in by_rule and v.status is Status.PROVED]


@pytest.mark.rule("GRAPH-ACYCLIC", "GRAPH-C3", "GRAPH-DETERMINISM")
@pytest.mark.parametrize(
    ("make_worker", "reason"),
    [
        (lambda _tmp: pool_workers.dies_on_ranks, "worker process died on this obligation, twice"),
        (
            lambda _tmp: pool_workers.raises_on_ranks,
            "worker process failed: RuntimeError: planted failure in the worker",
        ),
        # a job lost with a broken pool is solved again in a pool of its own; if it fails there, that is the reason
        (
            lambda tmp: pool_workers.DiesThenRaises(str(tmp / "died")),
            "the solver's worker process failed: RuntimeError: planted failure on the second try",
        ),
    ],
    ids=["dies", "raises", "dies-then-raises"],
)
def test_a_failing_worker_is_unknown_for_its_rule_alone(make_worker: Any, reason: str, tmp_path: Path) -> None:
    m = load_model(str(dag(tmp_path / "m.onnx", 600)), read_weights=False)
    with Solving(2, make_worker(tmp_path)) as workers:
        run = run_smt(m, mode="certificate", solving=workers)
    v = {x.rule_id: x for x in run.verdicts}
    # the comparisons of ranks are one script for GRAPH-ACYCLIC and GRAPH-C3 here: its lost answer is both rules'
    for rid in ("GRAPH-ACYCLIC", "GRAPH-C3"):
        assert v[rid].status is Status.UNKNOWN and reason in (v[rid].reason or ""), v
    # every other obligation, including those queued on the dead worker, was solved (again) and proves its rule
    others = [x for rid, x in v.items() if rid not in ("GRAPH-ACYCLIC", "GRAPH-C3", "GRAPH-DETERMINISM")]
    assert {x.status for x in others} == {Status.PROVED}, others


@pytest.mark.rule("GRAPH-ACYCLIC")
def test_a_dying_worker_through_the_command_line_is_exit_2_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine, "open_solving", lambda jobs, ops: Solving(2, pool_workers.dies_on_ranks))
    code, out, err = check("--engine", "smt", str(dag(tmp_path / "m.onnx", 1100)))
    assert code == 2, (out, err)
    assert "GRAPH-ACYCLIC" in out and "died on this obligation" in out
    assert "Traceback" not in out + err and "internal error" not in out + err


def test_a_worker_imports_the_solver_not_the_engine() -> None:
    """Workers start from a server that imported sonnx.smt.pool: it must not pull in the encodings (start-up time)."""
    import subprocess
    import sys

    import sonnx.smt as smt_pkg

    assert sorted(smt_pkg.__all__) == sorted(smt_pkg._EXPORTS)
    code = "import sys, sonnx.smt.pool; print(sorted(m for m in sys.modules if m.startswith('sonnx.smt.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "sonnx.smt.engine" not in out and "sonnx.smt.solver" in out, out


def _in_a_daemon(path: str, out: Any) -> None:
    m = load_model(path, read_weights=False)
    with Solving(2) as workers:
        run = run_smt(m, mode="certificate", solving=workers)
        out.put(([v.status.value for v in run.verdicts], run.workers, workers.note))


def test_a_process_that_may_not_have_children_solves_in_place(tmp_path: Path) -> None:
    """A daemonic process (a multiprocessing or Dask worker) cannot start a pool: its obligations are solved in it."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    proc = ctx.Process(target=_in_a_daemon, args=(str(dag(tmp_path / "m.onnx", 300)), out), daemon=True)
    proc.start()
    statuses, workers, note = out.get(timeout=120)
    proc.join()
    assert set(statuses) == {"PROVED"} and workers == 1, (statuses, note)
    assert note.startswith("worker processes could not start (AssertionError: daemonic processes"), note
    assert note.endswith("); solving in this process"), note


def test_a_pool_that_cannot_be_made_solves_in_place_and_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    """The other way a pool fails to start: its worker processes are refused (no processes on this system)."""

    def refused(worker: Any, jobs: int) -> Any:
        raise OSError("no processes here")

    monkeypatch.setattr(pool, "_workers", refused)
    with Solving(2) as workers:
        assert not workers.parallel
        assert workers.note == "worker processes could not start (OSError: no processes here); solving in this process"
        ticket = workers.submit(Job("(declare-fun x () Int)(assert (< x 0))", SolverSettings(), False))
        assert ticket.pool is None and ticket.answer is not None and ticket.answer.result == "sat"


def test_a_dead_worker_costs_its_job_alone_and_is_replaced() -> None:
    """After a worker dies, its job is solved again alone; later jobs go to the same pool's workers, not here."""
    with Solving(2, pool_workers.dies_on_ranks) as workers:
        first = workers._pool
        victim = workers.submit(Job(pool_workers.VICTIM + "\n(assert false)\n", SolverSettings()))
        assert "died on this obligation, twice" in workers.answer(victim).reason
        later = workers.submit(Job("(declare-fun a () Int)(assert (< a 1))\n", SolverSettings()))
        assert workers._pool is first and later.pool is first  # sent to a worker, not solved in this process
        assert workers.answer(later).result == "sat"


def test_jobs_sent_with_dying_ones_are_answered_by_the_same_pool(tmp_path: Path) -> None:
    """Two workers die at once, each holding a victim: only the victims are lost; the jobs queued beside them
    are answered by the pool's replacement workers."""
    gate = tmp_path / "release"
    with Solving(2, pool_workers.DiesWhenReleased(str(gate))) as workers:
        first = workers._pool
        assert first is not None
        victims = [workers.submit(Job(pool_workers.VICTIM + f"\n(assert (= {k} {k}))\n", SolverSettings()))
                   for k in (1, 2)]
        others = [workers.submit(Job(f"(declare-fun a () Int)(assert (< a {k}))\n", SolverSettings()))
                  for k in range(4)]
        gate.touch()  # both workers hold a victim now; they die only when released
        assert [workers.answer(t).result for t in others] == ["sat"] * 4
        lost = [workers.answer(t) for t in victims]
        assert all(a.result == "unknown" and "died on this obligation" in a.reason for a in lost), lost
        assert workers._pool is first


def test_a_job_submitted_after_a_death_is_answered() -> None:
    """A worker died before the next submission: the pool has started no replacement yet, and takes the job."""
    with Solving(2, pool_workers.dies_on_ranks) as workers:
        assert workers._pool is not None
        first = set(workers._pool.pids())
        victim = workers.submit(Job(pool_workers.VICTIM + "\n(assert false)\n", SolverSettings()))
        deadline = time.monotonic() + 60
        while set(workers._pool.pids()) == first and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(workers._pool.pids()) == 1  # the death was seen, and nothing waited to need a replacement
        later = workers.submit(Job("(declare-fun a () Int)(assert (< a 1))\n", SolverSettings()))
        assert workers.answer(later).result == "sat"
        assert "died on this obligation, twice" in workers.answer(victim).reason
