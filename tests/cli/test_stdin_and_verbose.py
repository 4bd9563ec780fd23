"""``-`` as MODEL reads the model from standard input; ``-v/--verbose`` shows progress and the engines behind
each verdict on stderr, never changing stdout."""

from __future__ import annotations

import importlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.common.bad_models import _external
from tests.common.cli import EXAMPLES, ROOT, check, one_line, sonnx

cli_main = importlib.import_module("sonnx.cli.main")  # the module (``sonnx.cli.main`` the name is the function)
CNN = EXAMPLES / "cnn_block.onnx"
SUBCOMMANDS = [name for name, *_ in cli_main.SUBCOMMANDS]


class _Stdin:
    """A stand-in for ``sys.stdin`` whose binary ``buffer`` holds ``data``."""

    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


def _piped(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    monkeypatch.setattr(sys, "stdin", _Stdin(path.read_bytes()))


def _without_names(doc: Any) -> Any:
    """A JSON report with the model's name taken out (a file's path, or <stdin>); witnesses' ``how`` too."""
    if isinstance(doc, dict):
        return {k: _without_names(v) for k, v in doc.items() if k not in ("path", "how") and not (
            k == "model" and isinstance(v, str))}
    if isinstance(doc, list):
        return [_without_names(v) for v in doc]
    return doc


@pytest.mark.rule("FORMAT-ONNX", "GRAPH-C1")
@pytest.mark.parametrize("name", ["cnn_block.onnx", "c1_two_producers.onnx", "if_branches_mismatch.onnx"])
def test_a_model_piped_in_gets_the_verdicts_of_its_file(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = EXAMPLES / name
    code, out, _ = check("-q", "--json", str(path))
    _piped(monkeypatch, path)
    piped_code, piped_out, err = check("-q", "--json", "-")
    assert piped_code == code and err == ""
    doc = json.loads(piped_out)
    assert doc["models"][0]["path"] == "<stdin>"
    assert _without_names(doc) == _without_names(json.loads(out))


def test_the_text_report_differs_only_in_the_model_name(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = check("-q", str(CNN))
    _piped(monkeypatch, CNN)
    piped_code, piped_out, _ = check("-q", "-")
    assert piped_code == code == 0
    assert piped_out.replace("model: <stdin>", f"model: {CNN}", 1) == out


def test_run_and_crosscheck_read_the_model_from_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    for command in (["run", "--json"], ["crosscheck", "--json", "--oracles", "reference"]):
        code, out, _ = sonnx(*command, "-q", str(CNN))
        _piped(monkeypatch, CNN)
        piped_code, piped_out, _ = sonnx(*command, "-q", "-")
        assert piped_code == code == 0
        doc = json.loads(piped_out)
        assert doc["model"] == "<stdin>"
        assert _without_names(doc) == _without_names(json.loads(out))


def test_a_real_pipe_gives_the_verdicts_of_the_file() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    argv = [sys.executable, "-c", "import sys; from sonnx.cli import check_main; sys.exit(check_main())"]
    with CNN.open("rb") as fh:
        piped = subprocess.run([*argv, "--json", "-"], stdin=fh, capture_output=True, env=env, timeout=300)
    on_file = subprocess.run([*argv, "--json", str(CNN)], capture_output=True, env=env, timeout=300)
    assert piped.returncode == on_file.returncode == 0, piped.stderr
    assert _without_names(json.loads(piped.stdout)) == _without_names(json.loads(on_file.stdout))


def test_stdin_refusals_are_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", _Stdin(b""))
    code, out, err = check("-q", "-")
    assert code == 2 and "sonnx-check: error: <stdin>: empty model (no bytes)" in err, err
    _piped(monkeypatch, CNN)
    code, out, err = check("-q", "-", "-")
    one_line(code, out, err)
    assert "MODEL -: standard input can be read only once" in err, err
    _piped(monkeypatch, CNN)
    code, out, err = check("-q", "-", "--evidence", str(tmp_path / "bundle"))
    one_line(code, out, err)
    assert "--evidence copies the model's file into the bundle; <stdin> has none" in err
    assert not (tmp_path / "bundle").exists()
    for argv in (["rewrite", "-", str(tmp_path / "o.onnx")], ["partition", "-", "--provider", "A=Relu"],
                 ["equiv", str(CNN), "-"], ["batch", "-"]):
        code, out, err = sonnx(*argv, "-q")
        one_line(code, out, err)
        assert f"MODEL -: sonnx {argv[0]} works on the model's file" in err, err


def test_external_data_on_stdin_is_refused_not_looked_for_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _external(tmp_path)  # weights.bin beside it, and in the current directory
    monkeypatch.chdir(tmp_path)
    assert check("-q", str(path))[0] == 0
    _piped(monkeypatch, path)
    code, out, err = check("-q", "-")
    assert code == 2 and out == ""
    assert "<stdin>: tensor 'w': its data is in the external file 'weights.bin'" in err, err


def test_verbose_adds_progress_and_the_engines_on_stderr_and_leaves_stdout_alone() -> None:
    code, out, err = check("-q", "--json", "--orders", "2", str(CNN))
    v_code, v_out, v_err = check("-v", "--json", "--orders", "2", str(CNN))
    assert v_code == code and v_out == out and err == ""
    lines = v_err.splitlines()
    assert any(line.startswith("sonnx-check: [") and "loading" in line for line in lines)  # progress
    assert f"sonnx-check: {CNN}: GRAPH-C1 PROVED by direct+smt/search" in lines
    assert f"sonnx-check: {CNN}: FORMAT-ONNX PROVED by direct" in lines
    assert any(line.startswith(f"sonnx-check: {CNN}: engines: direct and SMT, solver parameters {{") for line in lines)
    [orders] = [line for line in lines if "EXEC-ORDERS" in line]
    assert orders.startswith(f"sonnx-check: {CNN}: EXEC-ORDERS PROVED by executor; recorded {{")
    direct = check("-v", "--engine", "direct", str(CNN))[2].splitlines()
    assert f"sonnx-check: {CNN}: engines: direct only (the SMT engine was not asked for)" in direct


def test_verbose_twice_is_verbose_and_with_quiet_is_refused() -> None:
    def engines(err: str) -> list[str]:  # the -v lines, without the progress lines and their times
        return [line for line in err.splitlines() if not line.startswith("sonnx-check: [")]

    twice, once = check("-vv", str(CNN)), check("-v", str(CNN))
    assert twice[0] == once[0] == 0 and twice[1] == once[1]
    assert engines(twice[2]) == engines(once[2]) and len(engines(once[2])) > 10
    one_line(*check("-v", "-q", str(CNN)))
    code, out, err = sonnx("run", "--quiet", "--verbose", str(CNN))
    one_line(code, out, err)
    assert "-v/--verbose shows what -q/--quiet hides" in err


def test_verbose_on_run_shows_progress() -> None:
    code, _, err = sonnx("run", "-v", str(CNN))
    assert code == 0 and f"loading {CNN}" in err and "done" in err


@pytest.mark.parametrize("command", ["sonnx-check", *SUBCOMMANDS])
def test_every_command_with_quiet_documents_verbose(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    parser = cli_main.check_parser(io.StringIO()) if command == "sonnx-check" else cli_main.sonnx_parser(io.StringIO())
    with pytest.raises(SystemExit):
        parser.parse_args(["--help"] if command == "sonnx-check" else [command, "--help"])
    text = capsys.readouterr().out
    assert ("-v, --verbose" in text) == ("-q, --quiet" in text), command
