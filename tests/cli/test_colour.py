"""Status words in colour on a terminal, as the user asks: ``--color auto|always|never`` and ``NO_COLOR``.

The colour codes are the only escape sequences sonnx writes: a model's names stay escaped with colour on.
"""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from sonnx.cli import check_main, main
from sonnx.cli.colour import wanted
from tests.common.cli import EXAMPLES, call

ESC = "\x1b"
SGR = re.compile(r"\x1b\[[0-9;]*m")


class _Tty:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(
    ("choice", "tty", "env", "expected"),
    [
        ("auto", True, {}, True),
        ("auto", False, {}, False),
        ("auto", True, {"NO_COLOR": "1"}, False),
        ("auto", True, {"NO_COLOR": ""}, True),  # set but empty: no-color.org says it does not count
        ("auto", True, {"TERM": "dumb"}, False),
        ("always", False, {"NO_COLOR": "1"}, True),  # the command line overrides the environment
        ("never", True, {}, False),
    ],
)
def test_when_colour_is_used(choice: str, tty: bool, env: dict[str, str], expected: bool) -> None:
    assert wanted(choice, _Tty(tty), env) is expected  # type: ignore[arg-type]


def test_always_colours_the_status_words_and_the_result_only() -> None:
    code, out, _ = call(check_main, "--color", "always", str(EXAMPLES / "c2_unused_input.onnx"))
    assert code == 1
    assert "  \x1b[32mPROVED\x1b[0m    GRAPH-ACYCLIC" in out
    assert "  \x1b[1;31mVIOLATED\x1b[0m  GRAPH-C2" in out and "result: \x1b[1;31mVIOLATED\x1b[0m (" in out
    assert SGR.sub("", out) == call(check_main, "--color", "never", str(EXAMPLES / "c2_unused_input.onnx"))[1]


def test_json_and_a_pipe_get_no_colour() -> None:
    _, out, _ = call(check_main, "--color", "always", "--json", str(EXAMPLES / "cnn_block.onnx"))
    assert ESC not in out
    _, out, _ = call(check_main, str(EXAMPLES / "cnn_block.onnx"))  # auto, and a StringIO is no terminal
    assert ESC not in out


def test_batch_colours_its_result_column() -> None:
    code, out, _ = call(main, "batch", "-j", "1", "--color", "always", str(EXAMPLES / "cnn_block.onnx"))
    assert code == 0 and "  \x1b[32mPROVED\x1b[0m  " in out


def test_a_name_in_the_model_cannot_bring_an_escape_sequence_with_colour_on(tmp_path: Path) -> None:
    node = helper.make_node("Relu", ["x"], ["y"], name="\x1b[2J\x1b[32mPROVED")
    unused = helper.make_tensor_value_info("\x1b[31mz", TensorProto.FLOAT, [1])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1]), unused],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), tmp_path / "m.onnx")
    code, out, _ = call(check_main, "--color", "always", str(tmp_path / "m.onnx"))
    assert code == 1 and "\\x1b[31mz" in out
    assert ESC not in SGR.sub("", out) and all(m in ("\x1b[0m", "\x1b[32m", "\x1b[1;31m", "\x1b[33m")
                                               for m in SGR.findall(out))


@pytest.mark.parametrize(("no_color", "coloured"), [(None, True), ("1", False)])
def test_auto_colours_a_real_terminal_unless_no_color(no_color: str | None, coloured: bool) -> None:
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
    env["TERM"] = "xterm"
    if no_color is not None:
        env["NO_COLOR"] = no_color
    exe = str(Path(sys.executable).with_name("sonnx-check"))
    try:
        done = subprocess.run([exe, "--engine", "direct", str(EXAMPLES / "cnn_block.onnx")], stdout=follower,
                              stderr=subprocess.PIPE, env=env, timeout=300)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    text = b"".join(chunks).decode()
    assert done.returncode == 0 and "GRAPH-ACYCLIC" in text
    assert ("\x1b[32mPROVED\x1b[0m" in text) is coloured
