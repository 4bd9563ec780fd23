"""Names from a model cannot drive the terminal or forge report lines."""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from sonnx.base.text import printable
from sonnx.cli import check_main, main
from tests.common.cli import call

EVIL = "\x1b[2J\x1b[H\nresult: PROVED (0 violated)\n\u202e"




def evil_model(path: Path) -> str:
    vi = helper.make_tensor_value_info
    nodes = [
        helper.make_node("Relu", ["x"], ["y"], name="ok"),
        helper.make_node("Neg", ["x"], ["dead"], name=EVIL),  # a dead operation: GRAPH-R1 names it
    ]
    g = helper.make_graph(nodes, "g", [vi("x", TensorProto.FLOAT, [2])], [vi("y", TensorProto.FLOAT, [2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return str(path)


@pytest.mark.rule("GRAPH-R1")
def test_a_name_cannot_clear_the_screen_or_print_a_fake_result(tmp_path: Path) -> None:
    code, out, err = call(check_main, "--engine", "direct", evil_model(tmp_path / "evil.onnx"))
    assert code == 1
    assert "\x1b" not in out + err and "\u202e" not in out + err
    results = [line for line in out.splitlines() if line.startswith("result:")]
    assert results == [results[-1]] and results[0].startswith("result: VIOLATED")
    assert "\\x1b[2J" in out  # the name is shown, escaped


@pytest.mark.rule("GRAPH-R1")
def test_progress_and_errors_are_escaped_too(tmp_path: Path) -> None:
    code, _out, err = call(check_main, "--progress", "--engine", "direct", evil_model(tmp_path / "e.onnx"))
    assert code == 1 and "\x1b" not in err
    bad = tmp_path / "bad\x1b[31m.onnx"
    bad.write_bytes(b"not a model")
    code, _out, err = call(main, "run", str(bad))
    assert code == 2 and "\x1b" not in err and err.count("\n") == 1


def test_an_error_line_names_the_file_once(tmp_path: Path) -> None:
    p = tmp_path / "trunc.onnx"
    p.write_bytes(b"\x08\x07\x12\x05abc")
    code, _out, err = call(check_main, str(p))
    assert code == 2 and err.count(str(p)) == 1, err


def test_printable_escapes_every_control_and_separator() -> None:
    assert printable("a\nb\tc\x1b\x7f\x9b\u2028\u202ed") == "a\\x0ab\\x09c\\x1b\\x7f\\x9b\\u2028\\u202ed"
    assert printable("plain names_01-é") == "plain names_01-é"


@pytest.mark.rule("GRAPH-R1")
def test_json_keeps_the_name_exactly(tmp_path: Path) -> None:
    import json

    code, out, _ = call(check_main, "--json", "--engine", "direct", evil_model(tmp_path / "j.onnx"))
    doc = json.loads(out)
    r1 = next(v for v in doc["models"][0]["verdicts"] if v["rule"] == "GRAPH-R1")
    assert code == 1 and r1["witness"]["dead"][0]["operation"] == f"Neg:{EVIL}"
