"""``sonnx batch``: the same verdicts as ``sonnx-check`` one model at a time, whatever runs them.

The corpus is the shipped examples and onnx's light models. Serially, on a
local process pool and on a Dask LocalCluster of two worker processes, every
model's JSON entry must equal the one ``sonnx-check --json`` prints for that
model alone; bundles written by a batch must be byte-identical to
``sonnx-check --evidence``'s. A worker killed mid-batch (Dask), and a pool
worker that dies, must cost no result and duplicate none.
"""

from __future__ import annotations

import io
import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import onnx
import pytest
from benchmarks.bench_structural import build

import sonnx.checking.batch
from examples.make_examples import EXAMPLES
from sonnx.base.errors import ToolError, UsageError
from sonnx.base.progress import quiet
from sonnx.checking.batch import MAX_ATTEMPTS, Collector, Task, check_task, engines, find_models, run_batch, tasks
from sonnx.checking.batch.engines import run_pool
from sonnx.checking.options import CheckOptions
from sonnx.checking.report import json_document
from sonnx.cli import check_main, main
from tests.batch import crashers

ROOT = Path(__file__).resolve().parents[2]
LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"


def corpus() -> list[str]:
    return [*find_models([str(ROOT / "examples")]), *find_models([str(LIGHT)])]


def entries(reports: Any) -> list[dict[str, Any]]:
    return json_document(reports, "sonnx", 0)["models"]


def one_by_one(paths: list[str], extra: list[str] | None = None) -> list[dict[str, Any]]:
    """Each model's entry of ``sonnx-check --json MODEL``, run alone."""
    out = []
    for path in paths:
        stdout = io.StringIO()
        check_main(["-q", "--json", *(extra or []), path], stdout, io.StringIO())
        [entry] = json.loads(stdout.getvalue())["models"]
        out.append(entry)
    return out


@pytest.fixture(scope="module")
def reference() -> tuple[list[str], list[dict[str, Any]]]:
    paths = corpus()
    assert len(paths) == len(EXAMPLES) + len(list(LIGHT.glob("*.onnx")))  # every example and light real model
    return paths, one_by_one(paths)


@pytest.mark.parametrize(
    ("workers", "executor"), [(1, None), (2, "pool"), (2, "dask")], ids=["serial", "pool", "dask-localcluster"]
)
def test_every_executor_gives_sonnx_checks_verdicts(
    reference: tuple[list[str], list[dict[str, Any]]], workers: int, executor: str | None
) -> None:
    paths, expected = reference
    batch = run_batch(paths, CheckOptions(), workers=workers, executor=executor)
    assert batch.executor == ("serial" if workers == 1 else executor)
    assert [i.path for i in batch.items] == paths
    assert entries(batch.reports) == expected
    assert batch.exit_code == max(e["exit_code"] for e in expected) == 1
    assert all(i.attempts == 1 for i in batch.items)
    if executor == "dask":
        assert batch.where.startswith("Dask LocalCluster, 2 worker processes")
        assert len({i.worker for i in batch.items}) == 2, "both workers should have taken models"


def test_find_models_sorts_deduplicates_and_recurses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "b" / "deep").mkdir(parents=True)
    for name in ("a.onnx", "b/z.onnx", "b/deep/y.onnx", "b/notes.txt", "c.ONNX"):
        (tmp_path / name).write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    assert find_models(["b", "a.onnx", "./a.onnx", "b/deep/y.onnx"]) == ["a.onnx", "b/deep/y.onnx", "b/z.onnx"]
    assert find_models(["**/*.onnx"]) == ["a.onnx", "b/deep/y.onnx", "b/z.onnx"]
    assert find_models(["missing.onnx"]) == ["missing.onnx"]  # its check says why it cannot be read
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match=r"holds no \.onnx file"):
        find_models(["empty"])
    with pytest.raises(UsageError, match="matches no model"):
        find_models(["nothing/*.onnx"])


@pytest.mark.rule("GRAPH-R1", "GRAPH-R1-OUTPUTS", "GRAPH-R1-TRANSITIVE", "GRAPH-ARITY")
def test_the_summary_table_and_exit_code(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    names = ["cnn_block", "r1_dead_chain", "r1_unused_output", "missing"]
    code = main(["batch", "-q", "-j", "1", "--engine", "direct", *(f"examples/{n}.onnx" for n in names)])
    out = capsys.readouterr()
    assert code == 2
    lines = out.out.splitlines()
    assert lines[0].split() == ["model", "result", "time", "violated", "rules"]
    rows = {line.split()[0]: line for line in lines[1:5]}
    assert rows["examples/cnn_block.onnx"].split()[1:2] == ["PROVED"]
    assert rows["examples/r1_dead_chain.onnx"].endswith("GRAPH-R1, GRAPH-R1-TRANSITIVE, GRAPH-R1-OUTPUTS (warning)")
    # and its Dropout leaves the optional ratio and training_mode out
    assert rows["examples/r1_unused_output.onnx"].endswith("GRAPH-R1-OUTPUTS (warning), GRAPH-ARITY (warning)")
    assert "ERROR" in rows["examples/missing.onnx"] and "no such file" in rows["examples/missing.onnx"]
    assert lines[5].startswith("batch: 4 models (1 ERROR, 2 PROVED, 1 VIOLATED); profile sonnx; serial")
    assert lines[5].endswith("exit 2")


@pytest.mark.rule("GRAPH-R1", "GRAPH-R1-OUTPUTS", "GRAPH-R1-TRANSITIVE", "GRAPH-ARITY")
def test_json_junit_and_sarif_cover_the_whole_batch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    models = [str(ROOT / "examples" / n) for n in ("seed001_example.onnx", "cnn_block.onnx")]
    junit, sarif = tmp_path / "b.xml", tmp_path / "b.sarif"
    code = main(["batch", "-q", "-j", "1", "--json", "--junit", str(junit), "--sarif", str(sarif), *models])
    assert code == 1
    doc = json.loads(capsys.readouterr().out)
    assert [m["path"] for m in doc["models"]] == sorted(models)
    assert doc["models"] == one_by_one(sorted(models))
    assert doc["batch"]["executor"] == "serial" and len(doc["batch"]["models"]) == 2
    import xml.etree.ElementTree as ET

    suites = ET.parse(junit).getroot().findall("testsuite")
    assert [s.get("name") for s in suites] == sorted(models)
    assert all(s.get("time") is not None for s in suites)
    log = json.loads(sarif.read_text(encoding="utf-8"))
    assert [a["location"]["uri"] for a in log["runs"][0]["artifacts"]] == [Path(m).as_uri() for m in sorted(models)]
    # cnn_block's MaxPool leaves its optional Indices out: a GRAPH-ARITY warning in the sonnx profile
    assert {r["ruleId"] for r in log["runs"][0]["results"]} == {
        "GRAPH-R1", "GRAPH-R1-OUTPUTS", "GRAPH-R1-TRANSITIVE", "GRAPH-ARITY"
    }


def test_bundles_are_byte_identical_to_sonnx_checks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    names = ["examples/cnn_block.onnx", "examples/seed001_example.onnx", "examples/r2_random.onnx"]
    root = tmp_path / "fleet"
    batch = run_batch(names, CheckOptions(evidence=str(root), orders=2), workers=2, executor="dask")
    assert batch.exit_code == 1
    (tmp_path / "alone").mkdir()
    for name in names:
        alone = tmp_path / "alone" / Path(name).stem
        err = io.StringIO()
        code = check_main(["-q", "--orders", "2", "--evidence", str(alone), name], io.StringIO(), err)
        assert code == batch.items[names.index(name)].report.exit_code, err.getvalue()
        bundle = root / name
        files = sorted(p.relative_to(bundle) for p in bundle.rglob("*") if p.is_file())
        assert files == sorted(p.relative_to(alone) for p in alone.rglob("*") if p.is_file())
        assert "manifest.json" in {str(f) for f in files}
        for f in files:
            assert (bundle / f).read_bytes() == (alone / f).read_bytes(), f"{name}: {f} differs"


def test_evidence_destinations_are_checked_before_any_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    root = tmp_path / "ev"
    (root / "examples" / "cnn_block.onnx").mkdir(parents=True)
    (root / "examples" / "cnn_block.onnx" / "old").write_text("x")
    with pytest.raises(UsageError, match="not an empty directory"):
        run_batch(["examples/c2_unused_input.onnx", "examples/cnn_block.onnx"], CheckOptions(evidence=str(root)),
                  workers=1)
    assert not (root / "examples" / "c2_unused_input.onnx").exists()
    outside = tmp_path / "m.onnx"
    outside.write_bytes((ROOT / "examples" / "cnn_block.onnx").read_bytes())
    with pytest.raises(UsageError, match="outside the current directory"):
        run_batch([str(outside)], CheckOptions(evidence=str(tmp_path / "ev2")), workers=1)


def _slow_models(tmp_path: Path, count: int) -> list[str]:
    """Chains of 10,000 Add operations: a few seconds of check each, time enough to kill a worker mid-check."""
    first = tmp_path / "slow0.onnx"
    build("chain", 10_000, first)
    paths = [first]
    for k in range(1, count):
        copy = tmp_path / f"slow{k}.onnx"
        copy.write_bytes(first.read_bytes())
        paths.append(copy)
    return [str(p) for p in paths]


def test_a_worker_killed_mid_batch_costs_no_result(tmp_path: Path) -> None:
    """Dask gives up on the killed worker's task at once (allowed-failures 0), so sonnx's own resubmission runs."""
    import dask
    from distributed import Client, LocalCluster

    slow = _slow_models(tmp_path, 3)
    paths = sorted([*slow, str(ROOT / "examples" / "cnn_block.onnx"), str(ROOT / "examples" / "c2_unused_input.onnx")])
    alone = {
        p: entries([check_task(Task(0, p, CheckOptions(), "m")).report])[0] for p in paths if p not in slow[1:]
    }
    # the copies of the slow model differ from the first one by their path only
    expected = [alone[p] if p in alone else {**alone[slow[0]], "path": p} for p in paths]
    killed: list[str] = []

    def executing(dask_worker: Any) -> list[str]:
        return [str(ts.key) for ts in dask_worker.state.executing]

    def killer(address: str, stop: threading.Event) -> None:
        with Client(address, timeout=30) as watcher:
            pids = watcher.run(os.getpid)
            seen: set[str] = set()
            while not stop.is_set():
                for worker, keys in watcher.run(executing).items():
                    fresh = [k for k in keys if k not in seen]
                    seen.update(keys)
                    slow_keys = [k for k in fresh if paths[int(k.split("-")[2])] in slow]
                    if slow_keys:  # a slow check that has just started: kill its worker now
                        os.kill(pids[worker], signal.SIGKILL)
                        killed.append(slow_keys[0])
                        return
                time.sleep(0.02)

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                          worker_dashboard_address=None, silence_logs=50) as cluster:
            stop = threading.Event()
            thread = threading.Thread(target=killer, args=(cluster.scheduler_address, stop))
            thread.start()
            try:
                batch = run_batch(paths, CheckOptions(), scheduler=cluster.scheduler_address)
            finally:
                stop.set()
                thread.join()
    assert len(killed) == 1, "the killer found no slow check running"
    index = int(killed[0].split("-")[2])
    assert [i.path for i in batch.items] == paths  # every model once, in order
    assert entries(batch.reports) == expected
    assert batch.items[index].attempts == 2, "the killed model must have been submitted again"
    # a task queued on the killed worker behind the running one is lost with it, and submitted again too
    assert {i.attempts for i in batch.items} <= {1, 2}


def test_a_dead_pool_worker_costs_no_result(tmp_path: Path) -> None:
    crash = tmp_path / "crash.onnx"
    crash.write_bytes((ROOT / "examples" / "c2_unused_input.onnx").read_bytes())
    paths = [str(crash), str(ROOT / "examples" / "cnn_block.onnx"), str(ROOT / "examples" / "r2_random.onnx")]
    options = CheckOptions(engine="direct")
    tasks = [Task(k, p, options, Path(p).stem) for k, p in enumerate(paths)]
    collector = Collector(tasks, quiet)
    run_pool(tasks, collector, 2, crashers.dies_once)
    items = collector.result()
    assert entries([i.report for i in items]) == entries([check_task(t).report for t in tasks])
    assert [i.attempts for i in items] == [2, 1, 1]  # the death cost only the model its worker held
    assert (tmp_path / "crash.onnx.attempts").read_text() == "2"


def test_a_model_that_always_kills_its_worker_is_an_error_result(tmp_path: Path) -> None:
    crash = tmp_path / "crash.onnx"
    crash.write_bytes((ROOT / "examples" / "cnn_block.onnx").read_bytes())
    paths = [str(crash), str(ROOT / "examples" / "cnn_block.onnx")]
    tasks = [Task(k, p, CheckOptions(engine="direct"), Path(p).stem) for k, p in enumerate(paths)]
    collector = Collector(tasks, quiet)
    run_pool(tasks, collector, 2, crashers.always_dies)
    lost, fine = collector.result()
    assert lost.report.outcome == "ERROR" and lost.report.exit_code == 2
    assert "lost 3 times" in lost.report.error.one_line()  # type: ignore[union-attr]
    assert lost.attempts == MAX_ATTEMPTS
    assert fine.report.outcome == "PROVED"


def test_a_second_result_for_a_model_is_a_tool_error() -> None:
    tasks = [Task(0, str(ROOT / "examples" / "cnn_block.onnx"), CheckOptions(engine="direct"), "cnn_block")]
    collector = Collector(tasks, quiet)
    collector.submitted(tasks[0])
    result = check_task(tasks[0])
    collector.add(result)
    with pytest.raises(ToolError, match="second result"):
        collector.add(result)
    with pytest.raises(ToolError, match="no result"):
        Collector(tasks, quiet).result()


def test_a_failing_check_is_a_per_model_error_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise ZeroDivisionError("planted")

    monkeypatch.setattr(tasks, "check_file", broken)
    batch = run_batch([str(ROOT / "examples" / "cnn_block.onnx")], CheckOptions(), workers=1)
    [item] = batch.items
    assert item.report.outcome == "ERROR" and batch.exit_code == 2
    assert "internal error: ZeroDivisionError: planted" in item.report.error.one_line()  # type: ignore[union-attr]


def test_without_dask_a_process_pool_runs_and_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sonnx.checking.batch, "dask_available", lambda: False)
    models = [str(ROOT / "examples" / "cnn_block.onnx"), str(ROOT / "examples" / "c3_incomplete.onnx")]
    assert main(["batch", "-q", "--workers", "2", "--engine", "direct", *models]) == 1
    out = capsys.readouterr()
    assert "local process pool, 2 worker processes" in out.out
    assert out.out.count("note: Dask distributed is not installed") == 1 and "Dask" not in out.err  # said once
    assert main(["batch", "-q", "--json", "--workers", "2", "--engine", "direct", *models]) == 1
    out = capsys.readouterr()
    assert "Dask distributed is not installed" in json.loads(out.out)["batch"]["notes"][0]
    assert out.err.count("note: Dask distributed is not installed") == 1  # JSON is for a program: the person is told
    assert main(["batch", "-q", "--executor", "dask", "--workers", "2", *models]) == 2
    assert "pip install 'sonnx[fleet]'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--workers", "0"], "expected an integer of at least 1"),
        (["-j", "two"], "expected an integer of at least 1"),
        (["--scheduler", "tcp://127.0.0.1:9", "--workers", "2"], "has its own workers"),
        (["--scheduler", "tcp://127.0.0.1:9", "--executor", "pool"], "does not apply with --executor pool"),
        (["--executor", "threads"], "invalid choice"),
        (["--evidence", "x", "--structure-only", "--orders", "1"], "--orders executes the model"),
        (["--docs-url", "https://x.org/d"], "applies to SARIF output"),
    ],
)
def test_bad_batch_options_are_one_line_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["batch", "-q", *argv, str(ROOT / "examples" / "cnn_block.onnx")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and message in err, err


def test_an_unreachable_scheduler_is_a_one_line_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(engines, "CONNECT_TIMEOUT", 1.0)
    code = main(["batch", "-q", "--scheduler", "tcp://127.0.0.1:9", str(ROOT / "examples" / "cnn_block.onnx")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "cannot connect" in err, err


class _Recording(Collector):
    """A collector that remembers the order in which the tasks were handed to workers."""

    def __init__(self, tasks: list[Task]) -> None:
        super().__init__(tasks, quiet)
        self.order: list[int] = []

    def submitted(self, task: Task) -> int:
        self.order.append(task.index)
        return super().submitted(task)


def test_the_pool_starts_the_largest_models_first_and_reports_in_batch_order() -> None:
    names = ["c2_unused_input.onnx", "cnn_block.onnx", "r2_random.onnx", "strict_dense.onnx"]
    paths = [str(ROOT / "examples" / n) for n in names]
    sizes = [os.path.getsize(p) for p in paths]
    assert len(set(sizes)) == len(sizes), "the test needs files of distinct sizes"
    options = CheckOptions(engine="direct")
    batch = [Task(k, p, options, Path(p).stem) for k, p in enumerate(paths)]
    collector = _Recording(batch)
    run_pool(batch, collector, 2)
    assert collector.order == sorted(range(len(paths)), key=lambda k: -sizes[k])
    assert [i.path for i in collector.result()] == paths
    assert entries([i.report for i in collector.result()]) == entries([check_task(t).report for t in batch])


def test_largest_first_puts_unreadable_files_last_in_batch_order(tmp_path: Path) -> None:
    big, small = tmp_path / "big.onnx", tmp_path / "small.onnx"
    big.write_bytes(b"x" * 100)
    small.write_bytes(b"x" * 10)
    options = CheckOptions(engine="direct")
    paths = [str(tmp_path / "gone1.onnx"), str(small), str(tmp_path / "gone2.onnx"), str(big)]
    batch = [Task(k, p, options, str(k)) for k, p in enumerate(paths)]
    assert [t.index for t in engines.largest_first(batch)] == [3, 1, 0, 2]
