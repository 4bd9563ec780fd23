"""A hostile bundle cannot make ``sonnx evidence verify`` write, read outside the bundle or wait.

Each forger here keeps the manifest's hashes consistent (:func:`rehash`), so
the hash check passes and the later steps meet the hostile content.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from sonnx.checking.evidence.smt_scripts import ScriptError, rebuild
from tests.common.bundles import EX, copy_of, rehash, verify, write


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("hostile") / "b"
    assert write(dest, EX / "seed001_example.onnx", "--engine", "both") == 1  # R1 violated; the bundle is written
    return dest


def _smt(d: Path) -> Path:
    return sorted((d / "smt").glob("*.smt2"))[0]


def test_an_output_channel_option_never_reaches_a_solver(bundle: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    d = copy_of(bundle, tmp_path)
    smt = _smt(d)
    smt.write_text(f'(set-option :regular-output-channel "{victim}")\n' + smt.read_text())
    code, out = verify(d)  # hashes not updated: stops before parsing anything
    assert code == 1 and "stopped after the hash check" in out and not victim.exists()
    rehash(d, f"smt/{smt.name}")
    code, out = verify(d)
    # the file is not the one sonnx generates for the model, so no solver ever reads it
    assert code == 1 and f"smt/{smt.name}: differs from the file the re-run check renders" in out
    assert not victim.exists()


@pytest.mark.parametrize(
    "script",
    [
        '(set-option :regular-output-channel "/tmp/x")',
        "(set-info :status sat)",
        '(echo "hello")',
        "(get-model)",
        "(get-info :all-statistics)",
        "(push 1)",
        "(reset)",
        "(assert (> x 0)",
        "(assert |unterminated)",
        '(assert "unterminated)',
        "x (check-sat)",
        ")",
        "((assert true))",
    ],
)
def test_the_allow_list_refuses_hostile_scripts(script: str) -> None:
    with pytest.raises(ScriptError):
        rebuild("(set-logic QF_UF)\n(declare-fun x () Int)\n" + script + "\n(check-sat)\n")


def test_the_allow_list_keeps_an_obligation_exactly() -> None:
    body = '(declare-fun |a b| () Bool)\n(assert (or |a b| (= "x ( y" "x ( y")))\n(check-sat)\n'
    assert rebuild("; comment\n(set-logic QF_UF) " + body) == "(set-logic QF_UF)\n" + body


def test_answers_pointing_outside_the_bundle_are_refused(bundle: Path, tmp_path: Path) -> None:
    d = copy_of(bundle, tmp_path)
    answers = json.loads((d / "smt" / "answers.json").read_text())
    answers["obligations"][0]["file"] = "/etc/hostname"
    answers["obligations"][1]["file"] = "smt/../../../../dev/zero"
    answers["solver"]["rlimit"] = 0  # the bundle's limits are never used
    (d / "smt" / "answers.json").write_text(json.dumps(answers))
    rehash(d, "smt/answers.json")
    code, out = verify(d)
    assert code == 1 and "smt/answers.json: differs from the file the re-run check renders" in out


def test_an_inputs_path_outside_the_bundle_is_refused(bundle: Path, tmp_path: Path) -> None:
    d = copy_of(bundle, tmp_path)
    manifest = json.loads((d / "manifest.json").read_text())
    manifest["options"]["inputs"] = "/etc/hostname"
    manifest["options"]["orders"] = 1
    (d / "manifest.json").write_text(json.dumps(manifest))
    code, out = verify(d)
    assert code == 1 and "the recorded inputs file '/etc/hostname' is not a listed bundle file" in out


def test_a_fifo_as_manifest_does_not_hang(bundle: Path, tmp_path: Path) -> None:
    d = copy_of(bundle, tmp_path)
    (d / "manifest.json").unlink()
    os.mkfifo(d / "manifest.json")
    result: list[tuple[int, str]] = []
    t = threading.Thread(target=lambda: result.append(verify(d)), daemon=True)
    t.start()
    t.join(30)
    assert not t.is_alive(), "verify waited on a FIFO"
    code, _out = result[0]
    assert code == 2


def test_symbolic_links_and_special_files_are_differences(bundle: Path, tmp_path: Path) -> None:
    d = copy_of(bundle, tmp_path)
    os.symlink("/etc/hostname", d / "link")
    code, out = verify(d)
    assert code == 1 and "link: a symbolic link in the bundle" in out
    d2 = copy_of(bundle, tmp_path / "two")
    target = d2 / "report.html"
    target.unlink()
    os.symlink("/etc/hostname", target)  # a listed file replaced by a link outside
    code, out = verify(d2)
    assert code == 1 and "report.html" in out and "outside the bundle" in out


@pytest.mark.rule("FORMAT-ONNX")
def test_a_deeply_nested_model_gets_a_bundle_that_verifies(tmp_path: Path) -> None:
    """The bundle writer uses sonnx's loader, not onnx.load (which stops at 100 levels of nesting)."""
    from sonnx.loader import wire

    model = tmp_path / "deep.onnx"
    model.write_bytes(wire.encode_nested_if_model(150))
    dest = tmp_path / "bundle"
    # exit 2: FORMAT-ONNX is UNKNOWN, since onnx.checker's parser also stops at 100 levels; every graph rule holds
    assert write(dest, model) == 2
    code, out = verify(dest)
    assert code == 0, out


def test_external_data_of_a_constant_attribute_is_bundled(tmp_path: Path) -> None:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    value = numpy_helper.from_array(np.arange(64, dtype=np.float32), "k")
    vi = helper.make_tensor_value_info
    nodes = [helper.make_node("Constant", [], ["k"], value=value), helper.make_node("Add", ["x", "k"], ["y"])]
    g = helper.make_graph(nodes, "g", [vi("x", TensorProto.FLOAT, [64])], [vi("y", TensorProto.FLOAT, [64])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    folder = tmp_path / "src"
    folder.mkdir()
    onnx.save_model(m, str(folder / "c.onnx"), save_as_external_data=True, location="k.bin", size_threshold=0,
                    convert_attribute=True)
    dest = tmp_path / "bundle"
    assert write(dest, folder / "c.onnx") == 0
    assert (dest / "model" / "k.bin").is_file()
    code, out = verify(dest)
    assert code == 0, out
