"""Every input kind from the command line, reports that are never dropped, and reports that name the input file."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from sonnx.cli import check_main, main
from tests.common.bundles import verify, write
from tests.common.cli import call
from tests.inputs import models


def _verdict(out: str, rule: str) -> str:
    """The status word of ``rule`` in a text report."""
    line = next(line for line in out.splitlines() if line.split()[1:2] == [rule])
    return line.split()[0]


def _json_report(out: str) -> dict[str, dict[str, object]]:
    data = json.loads(out)
    report = data["models"][0] if "models" in data else data
    return {v["rule"]: v for v in report["verdicts"]}


def test_run_and_check_take_string_inputs_from_npz(tmp_path: Path) -> None:
    model = str(models.label_encoder(tmp_path / "le.onnx"))
    np.savez(tmp_path / "in.npz", x=np.array(["dog", "cat", "bird"]))
    code, out, err = call(main, "run", model, "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / "o.npz"))
    assert code == 0, err
    with np.load(tmp_path / "o.npz") as got:
        np.testing.assert_array_equal(got["y"], [1, 0, -1])
    code, out, err = call(check_main, model, "--orders", "3", "--cross-check", "onnxruntime", "--inputs",
                          str(tmp_path / "in.npz"))
    assert code == 0, out + err
    assert _verdict(out, "EXEC-ORDERS") == "PROVED" and _verdict(out, "EXEC-CROSSCHECK-ONNXRUNTIME") == "TESTED"
    digest = hashlib.sha256((tmp_path / "in.npz").read_bytes()).hexdigest()
    assert f"tested: 1 input set (inputs from {tmp_path / 'in.npz'}, sha256 {digest[:16]})" in out
    assert "seed 0" not in out and "input_seed" not in out


@pytest.mark.rule("GRAPH-R2")
def test_check_orders_on_a_map_input_prints_the_whole_report(tmp_path: Path) -> None:
    model = str(models.dict_vectorizer(tmp_path / "dv.onnx"))
    code, out, err = call(check_main, model, "--orders", "3", "--cross-check", "onnxruntime")
    assert err == "" and code == 0, out + err
    assert _verdict(out, "GRAPH-R2") == "PROVED" and _verdict(out, "EXEC-ORDERS") == "PROVED"
    assert _verdict(out, "EXEC-CROSSCHECK-ONNXRUNTIME") == "TESTED"


@pytest.mark.rule("GRAPH-R2")
def test_inputs_that_cannot_be_drawn_give_unknown_and_the_rest_of_the_report(tmp_path: Path) -> None:
    model = str(models.cast_map(tmp_path / "cm.onnx"))
    code, out, err = call(check_main, model, "--orders", "2", "--cross-check", "onnxruntime", "--json")
    assert code == 2 and err == ""
    verdicts = _json_report(out)
    assert verdicts["GRAPH-R2"]["status"] == "PROVED"
    for rule in ("EXEC-ORDERS", "EXEC-CROSSCHECK"):
        assert verdicts[rule]["status"] == "UNKNOWN"
        assert "keys the model does not name" in json.dumps(verdicts[rule])
    code, out, err = call(main, "partition", model, "--provider", "cpu=CastMap", "--execute")
    report = out + err  # the partition goes to stdout, the report beside it
    assert code == 2 and "PARTITION-COVER    PROVED" in report and "PARTITION-EXEC     UNKNOWN" in report
    assert "keys the model does not name" in report
    code, out, err = call(main, "run", model)
    assert code == 2 and out == "" and err.count("\n") == 1 and "give its value with --inputs FILE.json" in err
    code, out, err = call(main, "crosscheck", model)
    assert code == 2 and "numpy executor FAILED: no inputs: input 'm' is a map whose keys" in out, out + err


def test_a_json_file_gives_the_map_and_is_named_in_the_verdicts(tmp_path: Path) -> None:
    model = str(models.cast_map(tmp_path / "cm.onnx"))
    inputs = tmp_path / "in.json"
    inputs.write_text('{"m": {"map": {"1": 2.0, "3": 4}}}')
    digest = hashlib.sha256(inputs.read_bytes()).hexdigest()
    code, out, err = call(check_main, model, "--orders", "2", "--cross-check", "onnxruntime", "--inputs", str(inputs),
                          "--seed", "7", "--json")
    assert code == 0, out + err
    verdicts = _json_report(out)
    want = {"files": [{"file": str(inputs), "sha256": digest}], "given": ["m"], "drawn": [], "drawn_with_seed": None}
    orders = verdicts["EXEC-ORDERS"]["details"]
    assert isinstance(orders, dict) and orders["inputs"] == want and "input_seed" not in orders
    cross = verdicts["EXEC-CROSSCHECK-ONNXRUNTIME"]["details"]
    assert isinstance(cross, dict) and cross["inputs"] == want and "seed" not in cross
    assert "seed 7" not in str(cross["tested"])
    code, out, err = call(main, "crosscheck", model, "--inputs", str(inputs))
    assert "AGREE           onnxruntime" in out, out + err
    assert out.startswith(f"cross-check: {model} (inputs from {inputs}, sha256 {digest[:16]})\n")
    code, out, err = call(main, "run", model, "--inputs", str(inputs))
    assert code == 0 and "y: float32 [1, 2]" in out, out + err


def test_partition_fuses_and_runs_a_model_with_a_map_input(tmp_path: Path) -> None:
    model = str(models.dict_vectorizer(tmp_path / "dv.onnx"))
    inputs = tmp_path / "in.json"
    inputs.write_text('{"features": {"map": {"b": 1.5}}}')
    code, out, err = call(main, "partition", model, "--provider", "cpu=DictVectorizer", "--execute",
                          "--fused", str(tmp_path / "fused.onnx"), "--inputs", str(inputs), "--json",
                          "-o", str(tmp_path / "p.json"))
    assert code == 0, out + err
    verdicts = {v["rule"]: v for v in json.loads(out)["verdicts"]}
    assert verdicts["PARTITION-FUSED"]["status"] == "TESTED"
    assert f"inputs from {inputs}" in json.dumps(verdicts["PARTITION-EXEC"])


def test_sequence_and_optional_inputs_from_the_command_line(tmp_path: Path) -> None:
    seq = str(models.sequence_concat(tmp_path / "s.onnx"))
    (tmp_path / "s.json").write_text('{"s": {"sequence": [{"data": [[1, 2, 3], [4, 5, 6]]}]}}')
    code, out, err = call(main, "run", seq, "--inputs", str(tmp_path / "s.json"))
    assert code == 0 and "y: float32 [2, 3]" in out, out + err
    code, out, err = call(main, "crosscheck", seq)
    assert code == 0 and "AGREE           onnxruntime" in out, out + err
    opt = str(models.optional_has(tmp_path / "o.onnx"))
    (tmp_path / "o.json").write_text('{"o": {"optional": null}}')
    code, out, err = call(main, "run", opt, "--inputs", str(tmp_path / "o.json"), "--output", str(tmp_path / "o.npz"))
    assert code == 0, out + err
    with np.load(tmp_path / "o.npz") as got:
        assert not got["y"]


def test_a_bad_json_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    model = str(models.dict_vectorizer(tmp_path / "dv.onnx"))
    (tmp_path / "in.json").write_text('{"features": {"map": {"a": 1}, "map": {}}}')
    for fn, argv in ((main, ["run", model]), (check_main, [model, "--orders", "1"])):
        code, out, err = call(fn, *argv, "--inputs", str(tmp_path / "in.json"))
        assert code == 2 and out == "" and err.count("\n") == 1 and "appears twice" in err, (out, err)


def test_a_bundle_names_its_copy_of_the_inputs_file_and_verifies(tmp_path: Path) -> None:
    model = models.dict_vectorizer(tmp_path / "dv.onnx")
    inputs = tmp_path / "in.json"
    inputs.write_text('{"features": {"map": {"c": 0.5}}}')
    d = tmp_path / "b"
    assert write(d, model, "--orders", "2", "--cross-check", "onnxruntime", "--inputs", str(inputs)) == 0
    assert (d / "inputs" / "in.json").read_bytes() == inputs.read_bytes()
    text = "".join(p.read_text(errors="replace") for p in d.rglob("*.json"))
    assert '"file": "inputs/in.json"' in text and str(tmp_path) not in text
    assert verify(d)[0] == 0
