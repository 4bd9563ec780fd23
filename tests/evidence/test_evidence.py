"""Evidence bundles: content, reproducibility, atomic writing, and ``sonnx evidence verify`` (with tampering)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from sonnx.checking.evidence import bundle as bundle_mod
from sonnx.checking.evidence import render
from sonnx.cli import check_main, main
from tests.common.bundles import EX, ROOT, copy_of, files_of, flip_byte, rehash, verify, write
from tests.common.cli import call


@pytest.fixture(scope="module")
def cnn_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("ev") / "cnn"
    code = write(dest, EX / "cnn_block.onnx", "--cross-check", "reference,onnxruntime", "--orders", "2")
    assert code == 0
    return dest


@pytest.mark.rule("GRAPH-ACYCLIC")
def test_bundle_content(cnn_bundle: Path) -> None:
    m = json.loads((cnn_bundle / "manifest.json").read_text())
    assert m["schema"] == "sonnx-evidence/2" and m["created"] is None
    assert m["model"]["sha256"] == hashlib.sha256((EX / "cnn_block.onnx").read_bytes()).hexdigest()
    assert (cnn_bundle / m["model"]["file"]).read_bytes() == (EX / "cnn_block.onnx").read_bytes()
    for key in ("onnx", "z3", "numpy", "onnxruntime", "cvc5"):
        assert m["build"]["dependencies"][key]
    assert m["build"]["sonnx"] and m["build"]["python"]["version"] and len(m["build"]["package_sha256"]) == 64
    assert m["z3"]["random_seed"] == 0 and m["z3"]["rlimit"] > 0
    assert m["build"]["platform"]["machine"] and m["command_line"][0] == "sonnx-check"
    assert m["command_line"][-1] == "model/cnn_block.onnx" and "source" not in m["model"]
    assert "--cross-check" in m["command_line"] and m["options"]["cross_check"] == ["reference", "onnxruntime"]
    on_disk = set(files_of(cnn_bundle)) - {"manifest.json"}
    assert set(m["files"]) == on_disk
    verdicts = json.loads((cnn_bundle / "verdicts.json").read_text())["models"][0]["verdicts"]
    rules = [v["rule"] for v in verdicts]
    assert "GRAPH-ACYCLIC" in rules and "EXEC-ORDERS" in rules and "EXEC-CROSSCHECK-ONNXRUNTIME" in rules
    answers = json.loads((cnn_bundle / "smt" / "answers.json").read_text())["obligations"]
    assert len(answers) >= 8 and all(a["answer"] in ("sat", "unsat") for a in answers)
    for a in answers:
        text = (cnn_bundle / a["file"]).read_text()
        assert f"; expected answer: {a['answer']}" in text and "(check-sat)" in text
    cc = json.loads((cnn_bundle / "crosscheck.json").read_text())["report"]
    assert cc["seed"] == 0 and cc["inputs"]["image"]["sha256"] and len(cc["oracles"]) == 2
    assert cc["oracles"][1]["outputs"][0]["max_ulp"] is not None
    execution = json.loads((cnn_bundle / "execution.json").read_text())
    assert execution["seed"] == 0 and execution["orders"]["verdict"]["status"] == "PROVED"
    trace = json.loads((cnn_bundle / "traceability.json").read_text())
    assert trace["spec_version"] == render.spec_version() == "0.9.0" and trace["matrix"]["rules"]
    html = (cnn_bundle / "report.html").read_text()
    assert html.count("<svg") == 2 and "Cross-checks" in html and "onnxruntime" in html


def test_verify_accepts_a_fresh_bundle(cnn_bundle: Path) -> None:
    code, out = verify(cnn_bundle)
    assert code == 0, out
    assert out.startswith("verified:") and "SMT obligations re-solved from their files" in out
    assert "files re-derived byte for byte" in out and "every statement of the bundle was re-derived" in out
    assert "with cvc5" in out  # cvc5 is installed in the dev environment


def test_same_model_and_options_give_identical_bytes(cnn_bundle: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    assert write(again, EX / "cnn_block.onnx", "--cross-check", "reference,onnxruntime", "--orders", "2") == 0
    assert files_of(again) == files_of(cnn_bundle)


def test_identical_bytes_across_processes_with_different_hash_seeds(tmp_path: Path) -> None:
    outs = []
    for seed in ("1", "12345"):
        dest = tmp_path / f"b{seed}"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        cmd = [
            sys.executable,
            "-c",
            "import sys; from sonnx.cli import check_main; sys.exit(check_main())",
            "-q",
            str(EX / "seed001_example.onnx"),
            "--evidence",
            str(dest),
        ]
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=ROOT, check=False)
        assert r.returncode == 1, r.stderr
        outs.append(files_of(dest))
    assert outs[0] == outs[1]


def test_timestamp_only_when_asked(tmp_path: Path) -> None:
    assert write(tmp_path / "t", EX / "r1_unused_output.onnx", "--evidence-timestamp") == 0
    m = json.loads((tmp_path / "t" / "manifest.json").read_text())
    assert m["created"] and m["created"].endswith("Z") and "--evidence-timestamp" not in m["command_line"]
    code, out = verify(tmp_path / "t")  # the date cannot be re-derived: refused unless trusted
    assert code == 2 and f"not re-derived: the creation date {m['created']}" in out and "--trust date" in out
    code, out = verify(tmp_path / "t", "--trust", "date")
    assert code == 0 and f"taken on trust: the creation date {m['created']}" in out


def test_tampered_model_byte_fails(cnn_bundle: Path, tmp_path: Path) -> None:
    d = copy_of(cnn_bundle, tmp_path)
    flip_byte(d / "model" / "cnn_block.onnx", 200)
    code, out = verify(d)
    assert code == 1 and "model/cnn_block.onnx: SHA-256 differs" in out


def test_tampered_verdict_byte_fails(cnn_bundle: Path, tmp_path: Path) -> None:
    d = copy_of(cnn_bundle, tmp_path)
    text = (d / "verdicts.json").read_text()
    flip_byte(d / "verdicts.json", text.index('"PROVED"') + 1)  # PROVED -> QROVED
    code, out = verify(d)
    assert code == 1 and "verdicts.json: SHA-256 differs" in out


def test_verdicts_file_broken_as_json_is_a_difference(cnn_bundle: Path, tmp_path: Path) -> None:
    d = copy_of(cnn_bundle, tmp_path)
    flip_byte(d / "verdicts.json", 0)  # "{" becomes "z": no longer JSON
    code, out = verify(d)
    assert code == 1 and "verdicts.json: SHA-256 differs" in out
    # a hash difference stops verification before any file is parsed
    assert "stopped after the hash check" in out and "not readable JSON" not in out
    rehash(d, "verdicts.json")  # a forger who keeps the hashes consistent gets the parse error instead
    code, out = verify(d)
    assert code == 1 and "verdicts.json: differs from the file the re-run check renders" in out
    assert "(line 1: the bundle has 'z'" in out


def test_tampered_smt_byte_fails(cnn_bundle: Path, tmp_path: Path) -> None:
    d = copy_of(cnn_bundle, tmp_path)
    smt = sorted((d / "smt").glob("*.smt2"))[0]
    flip_byte(smt, len(smt.read_bytes()) - 3)
    code, out = verify(d)
    assert code == 1 and f"smt/{smt.name}: SHA-256 differs" in out


@pytest.mark.rule("GRAPH-C2")
def test_forged_verdict_with_consistent_hashes_fails(cnn_bundle: Path, tmp_path: Path) -> None:
    d = copy_of(cnn_bundle, tmp_path)
    doc = json.loads((d / "verdicts.json").read_text())
    v = next(x for x in doc["models"][0]["verdicts"] if x["rule"] == "GRAPH-C2")
    v["status"], v["witness"] = "VIOLATED", {"summary": "forged"}
    (d / "verdicts.json").write_text(json.dumps(doc, indent=2) + "\n")
    rehash(d, "verdicts.json")
    code, out = verify(d)
    assert code == 1 and "verdicts.json: differs from the file the re-run check renders" in out
    assert "the bundle has '\"status\": \"VIOLATED\",', the re-run gives '\"status\": \"PROVED\",'" in out
    assert "verdicts.json: GRAPH-C2: the bundle records VIOLATED, the re-run gives PROVED" in out


@pytest.mark.rule("GRAPH-C2")
def test_a_forged_warning_is_named_with_the_reports_word(cnn_bundle: Path, tmp_path: Path) -> None:
    """verify words a changed verdict as the text report would: WARNING for VIOLATED with severity warning,
    whatever label the forged file writes beside them."""
    d = copy_of(cnn_bundle, tmp_path)
    doc = json.loads((d / "verdicts.json").read_text())
    v = next(x for x in doc["models"][0]["verdicts"] if x["rule"] == "GRAPH-C2")
    v["status"], v["severity"], v["label"], v["witness"] = "VIOLATED", "warning", "PROVED", {"summary": "forged"}
    (d / "verdicts.json").write_text(json.dumps(doc, indent=2) + "\n")
    rehash(d, "verdicts.json")
    code, out = verify(d)
    assert code == 1 and "verdicts.json: GRAPH-C2: the bundle records WARNING, the re-run gives PROVED" in out
    assert out.startswith("FAILED: 3 differences")


def test_executor_run_is_recorded_and_a_forged_output_digest_fails(cnn_bundle: Path, tmp_path: Path) -> None:
    run = json.loads((cnn_bundle / "execution.json").read_text())["run"]
    assert run["ran"] is True and set(run["outputs"]) == {"probabilities"}
    assert run["outputs"]["probabilities"]["shape"] == [1, 10]
    d = copy_of(cnn_bundle, tmp_path)
    doc = json.loads((d / "execution.json").read_text())
    doc["run"]["outputs"]["probabilities"]["sha256"] = "0" * 64
    (d / "execution.json").write_text(json.dumps(doc, indent=2) + "\n")
    rehash(d, "execution.json")
    code, out = verify(d)
    assert code == 1 and "execution.json: differs from the file the re-run check renders" in out and "0" * 64 in out


def test_forged_smt_answer_with_consistent_hashes_fails(cnn_bundle: Path, tmp_path: Path) -> None:
    d = copy_of(cnn_bundle, tmp_path)
    smt = sorted((d / "smt").glob("*.smt2"))[0]
    smt.write_text(smt.read_text().replace("(check-sat)", "(assert false)\n(check-sat)"))
    rehash(d, f"smt/{smt.name}")
    code, out = verify(d)
    assert code == 1 and f"smt/{smt.name}: differs from the file the re-run check renders" in out
    assert "the bundle has '(assert false)'" in out  # never solved: only the file sonnx generates is


def test_forged_model_with_consistent_hashes_fails(tmp_path: Path) -> None:
    d = tmp_path / "b"
    assert write(d, EX / "seed001_example.onnx") == 1
    m = onnx.load(str(EX / "cnn_block.onnx"))
    onnx.save(m, str(d / "model" / "seed001_example.onnx"))  # a conforming model in place of the checked one
    rehash(d, "model/seed001_example.onnx")
    code, out = verify(d)
    assert code == 1 and "verdicts.json: differs from the file the re-run check renders" in out
    assert "a file no check of this model writes" in out  # the R1 obligations of the violating model


def test_unlisted_and_missing_files_fail(cnn_bundle: Path, tmp_path: Path) -> None:
    d = copy_of(cnn_bundle, tmp_path)
    (d / "extra.txt").write_text("x")
    (d / "report.html").unlink()
    code, out = verify(d)
    assert code == 1 and "extra.txt: in the bundle but not listed" in out and "report.html: missing" in out


@pytest.mark.parametrize("damage", ["no manifest", "bad json", "wrong schema", "no directory"])
def test_unreadable_bundle_is_exit_2(cnn_bundle: Path, tmp_path: Path, damage: str) -> None:
    d = copy_of(cnn_bundle, tmp_path)
    manifest = d / "manifest.json"
    if damage == "no manifest":
        manifest.unlink()
    elif damage == "bad json":
        manifest.write_text("{not json")
    elif damage == "wrong schema":
        manifest.write_text('{"schema": "other/1"}')
    else:
        d = tmp_path / "nowhere"
    code, out, err = call(main, "evidence", "verify", str(d))
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err


def test_violating_model_bundle_highlights_the_witness(tmp_path: Path) -> None:
    d = tmp_path / "b"
    assert write(d, EX / "seed001_example.onnx", "--cross-check", "reference") == 1
    html = (d / "report.html").read_text()
    assert 'fill="#f4b0b0"' in html and "Sub:sub" in html  # the dead operation is drawn red
    assert json.loads((d / "manifest.json").read_text())["result"]["outcome"] == "VIOLATED"
    code, out = verify(d)
    assert code == 0 and "records the result VIOLATED" in out


def test_cyclic_model_bundle_draws_and_verifies(tmp_path: Path) -> None:
    d = tmp_path / "b"
    assert write(d, EX / "acyclic_cycle.onnx") == 1
    html = (d / "report.html").read_text()
    assert "<svg" in html and 'fill="#f4b0b0"' in html
    assert verify(d)[0] == 0


def test_unloadable_model_still_gets_a_bundle(tmp_path: Path) -> None:
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07garbage that is not protobuf")
    d = tmp_path / "b"
    assert write(d, bad) == 2
    m = json.loads((d / "manifest.json").read_text())
    assert m["model"]["loaded"] is False and m["result"]["outcome"] == "ERROR"
    assert verify(d)[0] == 0


def test_external_data_is_copied_hashed_and_checked(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    w = numpy_helper.from_array(np.arange(64, dtype=np.float32).reshape(8, 8), "w")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8])
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g", [x], [y], initializer=[w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(src / "mm.onnx"), save_as_external_data=True, location="weights.bin", size_threshold=0)
    d = tmp_path / "b"
    assert write(d, src / "mm.onnx", "--cross-check", "reference,onnxruntime") == 0
    man = json.loads((d / "manifest.json").read_text())
    ext = man["model"]["external_data"]
    assert [e["file"] for e in ext] == ["model/weights.bin"]
    assert ext[0]["sha256"] == hashlib.sha256((src / "weights.bin").read_bytes()).hexdigest()
    assert verify(d)[0] == 0
    flip_byte(d / "model" / "weights.bin", 5)
    code, out = verify(d)
    assert code == 1 and "model/weights.bin: SHA-256 differs" in out


def test_inputs_file_is_bundled(tmp_path: Path) -> None:
    npz = tmp_path / "in.npz"
    np.savez(npz, image=np.full((1, 3, 16, 16), 0.25, np.float32))
    d = tmp_path / "b"
    assert write(d, EX / "cnn_block.onnx", "--cross-check", "reference", "--inputs", str(npz), "--orders", "1") == 0
    assert (d / "inputs" / "in.npz").read_bytes() == npz.read_bytes()
    assert verify(d)[0] == 0


def test_write_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_a: Any, **_k: Any) -> dict[str, str]:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(bundle_mod, "generated_files", broken)
    d = tmp_path / "b"
    code, _, err = call(check_main, "-q", str(EX / "cnn_block.onnx"), "--evidence", str(d))
    assert code == 2 and "No space left on device" in err and err.count("\n") == 1
    assert not d.exists() and list(tmp_path.iterdir()) == []  # no half bundle, no temporary left


@pytest.mark.parametrize(
    "argv,message",
    [
        (["EX/cnn_block.onnx", "EX/unsorted_acyclic.onnx", "--evidence", "OUT"], "exactly one MODEL"),
        (["EX/cnn_block.onnx", "--evidence-timestamp"], "applies to --evidence"),
        (["EX/cnn_block.onnx", "--evidence", "FULL"], "not an empty directory"),
        (["EX/cnn_block.onnx", "--evidence", "NOPARENT"], "does not exist"),
        (["EX/missing.onnx", "--evidence", "OUT"], "no such file"),
    ],
)
def test_evidence_usage_errors(tmp_path: Path, argv: list[str], message: str) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "f").write_text("x")
    subs = {
        "EX/": f"{EX}/",
        "OUT": str(tmp_path / "o"),
        "FULL": str(tmp_path / "full"),
        "NOPARENT": str(tmp_path / "no" / "such" / "b"),
    }
    args = []
    for a in argv:
        for k, v in subs.items():
            a = a.replace(k, v)
        args.append(a)
    code, out, err = call(check_main, "-q", *args)
    assert code == 2 and message in err and out == "" and not (tmp_path / "o").exists()


def test_empty_existing_directory_is_used(tmp_path: Path) -> None:
    d = tmp_path / "empty"
    d.mkdir()
    assert write(d, EX / "r1_unused_output.onnx") == 0
    assert (d / "manifest.json").is_file()


def test_verify_without_cvc5_says_so(cnn_bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cvc5", None)
    code, out = verify(cnn_bundle)
    assert code == 0 and "with cvc5" not in out and "cvc5 is not installed" in out


def test_known_deviation_is_drawn_in_the_report(tmp_path: Path) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4])
    g = helper.make_graph([helper.make_node("Softmax", ["x"], ["y"])], "g", [x], [y])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)])
    m.ir_version = 8
    onnx.save(m, str(tmp_path / "sm.onnx"))
    d = tmp_path / "b"
    assert write(d, tmp_path / "sm.onnx", "--cross-check", "reference,onnxruntime") == 0
    html = (d / "report.html").read_text()
    assert "KNOWN-DEVIATION" in html and "known defect" in html
    assert 'fill="#c03030"' in html and 'fill="#4a9a4a"' in html  # a red bar (reference), a green one
    cc = json.loads((d / "crosscheck.json").read_text())["report"]
    assert cc["oracles"][0]["outcome"] == "KNOWN-DEVIATION" and cc["oracles"][0]["outputs"][0]["outside"] == 24
    assert verify(d)[0] == 0


def test_large_graphs_are_not_drawn(tmp_path: Path) -> None:
    nodes = [helper.make_node("Relu", [f"t{k}"], [f"t{k + 1}"]) for k in range(301)]
    x = helper.make_tensor_value_info("t0", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("t301", TensorProto.FLOAT, [2])
    m = helper.make_model(helper.make_graph(nodes, "chain", [x], [y]), opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(tmp_path / "chain.onnx"))
    d = tmp_path / "b"
    assert write(d, tmp_path / "chain.onnx", "--engine", "direct") == 0
    html = (d / "report.html").read_text()
    assert "<svg" not in html and "301 operations, more than the 300" in html


def test_paths_are_relabelled_only_where_a_path_starts() -> None:
    relabel = render.bundle_paths({"model/m.onnx": "/data/m/m.onnx", "inputs/x.npz": "/tmp/x.npz"})
    text = '"/data/m/m.onnx: bad" in graph main/data/m/loop; /data/m/w.bin; "/tmp/x.npz"; a&quot;/data/m/q'
    assert relabel.apply(text) == (
        '"model/m.onnx: bad" in graph main/data/m/loop; model/w.bin; "inputs/x.npz"; a&quot;model/q'
    )
    # a model at the root of the file system: only the copied files themselves are renamed, never "/" alone
    root = render.bundle_paths({"model/m.onnx": "/m.onnx"})
    assert root.apply("/m.onnx: x N/A / y") == "model/m.onnx: x N/A / y"
