"""A closed standard output is a normal end, as for any Unix tool (``sonnx rules | head``).

The reader's end of a pipe is closed before the command starts, so every write fails with EPIPE and the test
does not depend on timing: the command must end silently with 141 (128 + SIGPIPE), never print an internal
error or a traceback. A broken pipe that is not standard output's stays a reported tool defect.
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import TextIO

import pytest

cli_main = importlib.import_module("sonnx.cli.main")  # the module; ``sonnx.cli.main`` the name is the function
ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _with_closed_stdout(argv: list[str]) -> subprocess.CompletedProcess[str]:
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(argv, stdout=write_end, stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=300)
    finally:
        os.close(write_end)


@pytest.mark.parametrize(
    "argv",
    [
        [sys.executable, "-m", "sonnx", "rules"],
        [sys.executable, "-m", "sonnx", "rules", "--json"],
        [str(BIN / "sonnx"), "rules", "GRAPH-C2"],
        [str(BIN / "sonnx-check"), "--engine", "direct", "examples/cnn_block.onnx"],
    ],
    ids=["rules", "rules-json", "rules-one", "check"],
)
def test_a_closed_stdout_ends_the_command_silently_with_141(argv: list[str]) -> None:
    done = _with_closed_stdout(argv)
    assert (done.returncode, done.stderr) == (cli_main.EXIT_CLOSED_PIPE, "")


def test_a_broken_pipe_of_something_else_is_still_a_tool_defect() -> None:
    def runner(args: argparse.Namespace, stdout: TextIO, stderr: TextIO, prog: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    err = io.StringIO()
    code = cli_main.guarded(runner, argparse.Namespace(), "sonnx x", io.StringIO(), err)
    assert code == 2 and err.getvalue().startswith("sonnx x: internal error: BrokenPipeError")
