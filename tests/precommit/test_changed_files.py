"""``sonnx-check --changed-files``: the paths a commit changes mapped to the models to check.

The models are built here with their weights in an external data file, so that a commit changing only
that file changes a verdict: an integer ``Div`` whose divisor is a weight is PROVED under OP-ERROR-DIV-ZERO
while the weight holds no 0, and VIOLATED once it does.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sonnx.checking.changed import models_for_changes, names_external_data
from tests.common.cli import EXAMPLES, check, one_line
from tests.common.external_data import divide_by_weights, write_weights

STRICT = ("--profile", "sonnx-strict", "--required-metadata", "")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.rule("OP-ERROR-DIV-ZERO")
def test_changing_only_the_weights_checks_the_model_again_and_fails_it(repo: Path) -> None:
    divide_by_weights(repo)
    assert check("--findings-only", "--changed-files", *STRICT, "weights.bin") == (
        0, "model: model.onnx; result: PROVED (0 violated, 0 warnings, 0 unknown, 37 proved)\n", "")
    write_weights(repo / "weights.bin", [1, 0, 1, 1])
    code, out, err = check("--findings-only", "--changed-files", *STRICT, "weights.bin")
    assert (code, err) == (1, "")
    assert out.startswith("model: model.onnx\n  VIOLATED  OP-ERROR-DIV-ZERO ")
    assert "witness: 1 operation(s) meet the error: Div #0 (the divisor can be 0)" in out
    assert "  PROVED " not in out


def test_a_truncated_data_file_is_the_usual_one_line_error(repo: Path) -> None:
    divide_by_weights(repo)
    (repo / "weights.bin").write_bytes(b"\x01\x00\x00\x00")
    code, out, err = check("--changed-files", "weights.bin")
    one_line(code, out, err)
    assert err.startswith("sonnx-check: model.onnx: tensor 'w': external data range [0, 16) is past the end")


def test_an_unrelated_change_checks_nothing(repo: Path) -> None:
    divide_by_weights(repo)
    (repo / "notes.txt").write_text("not a model\n")
    (repo / "sub").mkdir()
    (repo / "sub" / "other.bin").write_bytes(b"\x00" * 16)
    assert check("--findings-only", "--changed-files", "notes.txt", "sub/other.bin") == (0, "", "")
    assert models_for_changes(["notes.txt", "sub/other.bin", "gone.bin"]) == []
    # the machine formats still give their (empty) report
    code, out, _ = check("--changed-files", "--json", "--junit", "j.xml", "notes.txt")
    assert code == 0 and json.loads(out)["models"] == [] and json.loads(out)["exit_code"] == 0
    assert 'tests="0"' in (repo / "j.xml").read_text(encoding="utf-8")


def test_a_changed_model_is_checked_once_even_when_its_data_changes_too(repo: Path) -> None:
    divide_by_weights(repo)
    assert models_for_changes(["weights.bin", "model.onnx"]) == ["model.onnx"]
    assert models_for_changes(["model.onnx", "weights.bin"]) == ["model.onnx"]
    code, out, _ = check("--findings-only", "--changed-files", "model.onnx", "weights.bin")
    assert code == 0 and out.count("model: model.onnx") == 1


def test_the_search_goes_up_from_the_changed_file_never_down_or_sideways(repo: Path) -> None:
    divide_by_weights(repo / "a", name="up.onnx", location="b/w.bin")  # a/up.onnx reads a/b/w.bin
    divide_by_weights(repo / "a" / "b", name="here.onnx", location="w.bin")  # a/b/here.onnx reads a/b/w.bin
    divide_by_weights(repo / "a" / "b" / "c", name="down.onnx", location="w.bin")  # reads a/b/c/w.bin
    divide_by_weights(repo / "side", name="side.onnx", location="w.bin")
    assert models_for_changes(["a/b/w.bin"]) == [os.path.join("a", "b", "here.onnx"), os.path.join("a", "up.onnx")]
    assert models_for_changes(["a/b/c/w.bin"]) == [os.path.join("a", "b", "c", "down.onnx")]
    assert models_for_changes(["side/w.bin"]) == [os.path.join("side", "side.onnx")]


def test_a_data_file_read_through_a_symbolic_link_is_found(repo: Path) -> None:
    divide_by_weights(repo, location="link.bin")
    os.replace(repo / "link.bin", repo / "weights.bin")
    (repo / "link.bin").symlink_to("weights.bin")
    assert models_for_changes(["weights.bin"]) == ["model.onnx"]
    # the commit points the link at another file: the changed path is the link itself
    os.replace(repo / "weights.bin", repo / "weights2.bin")
    (repo / "link.bin").unlink()
    (repo / "link.bin").symlink_to("weights2.bin")
    assert models_for_changes(["link.bin"]) == ["model.onnx"]


def test_a_model_without_external_data_is_not_parsed(repo: Path) -> None:
    (repo / "garbage.onnx").write_bytes(b"\x08\x07\xff\xff not a model")
    (repo / "empty.onnx").write_bytes(b"")
    assert not names_external_data(str(repo / "garbage.onnx"))
    assert not names_external_data(str(repo / "empty.onnx"))
    assert models_for_changes(["notes.txt"]) == []
    # the same file once it spells the key could name any data file: it is checked, and refused
    (repo / "garbage.onnx").write_bytes(b"\x08\x07\xff\xff location weights.bin")
    assert models_for_changes(["weights.bin"]) == ["garbage.onnx"]
    code, out, err = check("--changed-files", "weights.bin")
    one_line(code, out, err)
    assert err.startswith("sonnx-check: garbage.onnx: ")


def test_a_path_outside_the_current_directory_is_looked_up_in_its_own_folder(tmp_path: Path) -> None:
    model = divide_by_weights(tmp_path / "elsewhere")
    here = tmp_path / "here"
    here.mkdir()
    found = models_for_changes([str(tmp_path / "elsewhere" / "weights.bin")], root=str(here))
    assert found == [str(model)]


def test_the_shipped_examples_read_no_external_data() -> None:
    models = sorted(EXAMPLES.glob("*.onnx"))
    assert models and models_for_changes([str(EXAMPLES / "expected.json")], root=str(EXAMPLES)) == []


def test_a_changed_model_without_external_data_is_checked(repo: Path) -> None:
    (repo / "plain").mkdir()
    (repo / "plain" / "good.onnx").write_bytes((EXAMPLES / "cnn_block.onnx").read_bytes())
    assert models_for_changes(["plain/good.onnx", "plain/notes.txt"]) == ["plain/good.onnx"]
    code, out, _ = check("--findings-only", "--changed-files", "plain/good.onnx")
    assert code == 0 and out.startswith("model: plain/good.onnx\n  WARNING   GRAPH-ARITY ")
