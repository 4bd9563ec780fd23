"""Progress on a terminal is one line rewritten in place; elsewhere it is a log; long work counts its steps.

A terminal is played by a text stream whose ``isatty`` says yes, and the
bytes written to it are replayed by :func:`screen`, a small model of a
terminal (carriage return, clear to the end of the line, newline). A run
whose report and progress go to the same terminal must leave on the screen
the report and nothing of the progress.
"""

from __future__ import annotations

import argparse
import io
from pathlib import Path
from typing import TextIO

import onnx
import pytest
from onnx import TensorProto, helper

import sonnx
from sonnx.base import progress
from sonnx.base.progress import LOG_INTERVAL, Progress, Steps, time_left
from sonnx.cli import check_main
from sonnx.cli.common import progress_for
from sonnx.cli.main import guarded
from sonnx.execution.orders import check_orders
from sonnx.loader import load_model
from tests.common.cli import EXAMPLES

CNN = str(EXAMPLES / "cnn_block.onnx")
PROGRESS_MARK = "sonnx-check: ["


class Terminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def screen(written: str) -> list[str]:
    """The lines a terminal shows after receiving ``written`` (CR, ``ESC [ K`` and newline interpreted)."""
    lines: list[str] = [""]
    col = 0
    i = 0
    while i < len(written):
        if written.startswith("\x1b[K", i):
            lines[-1] = lines[-1][:col]
            i += 3
            continue
        c = written[i]
        if c == "\r":
            col = 0
        elif c == "\n":
            lines.append("")
            col = 0
        else:
            line = lines[-1]
            lines[-1] = line[:col] + c + line[col + 1 :]
            col += 1
        i += 1
    return lines[:-1] if lines[-1] == "" else lines


def _wide(path: Path, width: int = 45) -> Path:
    """``width`` independent Neg operations on one input, each an output: more valid orders than are listed, so
    EXEC-ORDERS draws seeded random schedules, all of them distinct."""
    vi = helper.make_tensor_value_info
    nodes = [helper.make_node("Neg", ["x"], [f"y{k}"]) for k in range(width)]
    outputs = [vi(f"y{k}", TensorProto.FLOAT, [2]) for k in range(width)]
    g = helper.make_graph(nodes, "wide", [vi("x", TensorProto.FLOAT, [2])], outputs)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, path)
    return path


@pytest.fixture
def colour_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.mark.usefixtures("colour_terminal")
def test_on_a_terminal_progress_is_rewritten_in_place_and_gone_before_the_report() -> None:
    tty = Terminal()
    code = check_main(["--orders", "3", "--color", "never", CNN], stdout=tty, stderr=tty)
    written = tty.getvalue()
    assert code == 0
    assert written.count(PROGRESS_MARK) > 10  # the progress was shown ...
    assert "\n" not in "".join(part.split("\x1b[K")[0] for part in written.split("\r") if PROGRESS_MARK in part)
    shown = screen(written)
    assert not any(PROGRESS_MARK in line for line in shown)  # ... and nothing of it is left on the screen
    assert shown[0] == f"model: {CNN}" and shown[-1].startswith("result: PROVED")
    plain = io.StringIO()
    assert check_main(["--orders", "3", "--color", "never", "--quiet", CNN], stdout=plain, stderr=io.StringIO()) == 0
    assert shown == plain.getvalue().splitlines()  # exactly the report a run without progress prints


@pytest.mark.usefixtures("colour_terminal")
def test_an_error_after_progress_is_one_clean_line(tmp_path: Path) -> None:
    tty = Terminal()
    code = check_main([str(tmp_path / "missing.onnx")], stdout=tty, stderr=tty)
    assert code == 2 and PROGRESS_MARK in tty.getvalue()
    shown = screen(tty.getvalue())
    assert len(shown) == 1 and shown[0].startswith("sonnx-check: ") and "no such file" in shown[0], shown


@pytest.mark.usefixtures("colour_terminal")
@pytest.mark.usefixtures("colour_terminal")
def test_a_command_that_prints_nothing_after_its_progress_leaves_no_line() -> None:
    tty = Terminal()

    def works_silently(args: argparse.Namespace, stdout: TextIO, stderr: TextIO, prog: str) -> int:
        progress_for(args, prog, stderr)("working")
        return 0

    assert guarded(works_silently, argparse.Namespace(progress=None), "sonnx", tty, tty) == 0
    assert "working" in tty.getvalue() and screen(tty.getvalue()) == []


def test_the_line_in_place_is_cut_to_the_terminal_width(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 120)
    deep.mkdir()
    model = deep / "cnn.onnx"
    model.write_bytes(Path(CNN).read_bytes())
    tty = Terminal()  # no file descriptor: the width is taken to be 80 columns
    err = Terminal()
    assert check_main([str(model)], stdout=tty, stderr=err) == 0
    shown_parts = [part.split("\x1b[K")[0] for part in err.getvalue().split("\r") if part.startswith(PROGRESS_MARK)]
    assert shown_parts and max(len(p) for p in shown_parts) == 79  # a wrapped line could not be rewritten
    with pytest.MonkeyPatch.context() as env:
        env.setenv("COLUMNS", "40")
        err = Terminal()
        assert check_main([str(model)], stdout=Terminal(), stderr=err) == 0
    shown_parts = [part.split("\x1b[K")[0] for part in err.getvalue().split("\r") if part.startswith(PROGRESS_MARK)]
    assert max(len(p) for p in shown_parts) == 39


def test_off_a_terminal_progress_is_one_line_per_message() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert check_main(["--progress", "--engine", "direct", CNN], stdout=out, stderr=err) == 0
    text = err.getvalue()
    assert "\r" not in text and "\x1b" not in text
    lines = text.splitlines()
    assert len(lines) > 10 and all(line.startswith(PROGRESS_MARK) for line in lines)
    assert "checking GRAPH-C2" in text


def test_a_dumb_terminal_gets_lines_not_controls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "dumb")
    err = Terminal()
    assert check_main(["--engine", "direct", CNN], stdout=io.StringIO(), stderr=err) == 0
    assert "\r" not in err.getvalue() and "\x1b" not in err.getvalue()
    assert err.getvalue().count("\n") > 10  # a terminal is still told the progress, by default


def test_off_a_terminal_no_progress_by_default() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert check_main([CNN], stdout=out, stderr=err) == 0
    assert err.getvalue() == ""


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_steps_count_and_estimate_the_time_left() -> None:
    said: list[str] = []
    clock = Clock()
    steps = Steps(said.append, "random schedules", 5, clock=clock)
    for _ in range(5):
        clock.now += 2.0
        steps.advance()
    assert said[0] == "random schedules 1/5 (20%), about 8 s left"  # 2 s a step, 4 steps left
    assert said[-1] == "random schedules 5/5 (100%)"  # the last is always said, with no estimate


def test_steps_are_said_at_most_once_per_interval_but_the_first_and_last_always() -> None:
    said: list[str] = []
    clock = Clock()
    steps = Steps(said.append, "work", 100, clock=clock)
    for _ in range(100):
        clock.now += 0.01
        steps.advance()
    assert len(said) == 2  # a whole second passed: the callback's interval is one second
    assert said[0].startswith("work 1/100") and said[1] == "work 100/100 (100%)"
    log = Progress("sonnx-check", True, io.StringIO())
    terminal = Progress("sonnx-check", True, Terminal())
    assert progress.interval_of(log) == LOG_INTERVAL > progress.interval_of(terminal)


def test_steps_without_an_estimate_and_news_of_the_step_under_way() -> None:
    said: list[str] = []
    clock = Clock()
    steps = Steps(said.append, "smt: proofs done", 3, estimate=False, clock=clock)
    steps.advance(0, "10 obligation(s) solved")
    clock.now += 5
    steps.advance(1, "20 obligation(s) solved")
    assert said == [
        "smt: proofs done 0/3 (0%): 10 obligation(s) solved",
        "smt: proofs done 1/3 (33%): 20 obligation(s) solved",
    ]


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.2, "under 1 s"),
        (1.0, "about 1 s"),
        (41.2, "about 42 s"),
        (185, "about 3 min 05 s"),
        (2 * 3600 + 7 * 60 + 3, "about 2 h 07 min"),
    ],
)
def test_time_left_reads_as_a_person_says_it(seconds: float, text: str) -> None:
    assert time_left(seconds) == text


def test_orders_count_the_random_schedules(tmp_path: Path) -> None:
    model = load_model(str(_wide(tmp_path / "wide.onnx")))
    said: list[str] = []
    verdict = check_orders(model, 4, say=said.append)
    assert verdict.status.name == "TESTED", verdict
    assert said[0].startswith("random schedules 1/4 (25%), ") and said[0].endswith(" left")
    assert said[-1] == "random schedules 4/4 (100%)"


def test_orders_count_the_valid_orders_when_all_are_listed() -> None:
    said: list[str] = []
    check_orders(load_model(CNN), 3, say=said.append)
    assert said == ["valid orders 1/1 (100%)"]


def test_smt_says_the_proofs_done_and_the_obligations_solved() -> None:
    said: list[str] = []
    sonnx.check(CNN, engine="smt", progress=said.append)
    counted = [s for s in said if s.startswith("smt: proofs done ")]
    assert counted[0].startswith("smt: proofs done 0/")  # obligations are said as they are answered, ...
    last = counted[-1]  # ... and the end with every proof done
    done, total = last.split()[3].split("/")
    assert done == total and last.endswith(" obligation(s) solved") and int(last.split(": ")[2].split()[0]) > 0


def test_the_cross_check_counts_its_runs() -> None:
    said: list[str] = []
    sonnx.check(CNN, engine="direct", oracles=("reference",), progress=said.append)
    counted = [s for s in said if s.startswith("cross-check runs done")]
    assert counted[0] == "cross-check runs done 1/2 (50%): sonnx's executor"
    assert counted[-1] == "cross-check runs done 2/2 (100%): reference"


def test_a_batch_says_the_time_left_until_its_last_model(tmp_path: Path) -> None:
    said: list[str] = []
    sonnx.batch([CNN, str(EXAMPLES / "seed001_example.onnx")], workers=1, engine="direct", progress=said.append)
    counted = [s for s in said if s.startswith("[")]
    assert counted[0].startswith("[1/2]") and " left" in counted[0].split(")")[-1]
    assert counted[1].startswith("[2/2]") and not counted[1].endswith(" left")
