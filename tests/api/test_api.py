"""The Python API: ``import sonnx`` stays cheap, and each function gives what its command gives."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import sonnx
from sonnx.base.errors import UsageError
from sonnx.cli import check_main, main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CNN = str(EXAMPLES / "cnn_block.onnx")


def cli_entry(argv: list[str]) -> dict[str, object]:
    out = io.StringIO()
    check_main(["-q", "--json", *argv], out, io.StringIO())
    [entry] = json.loads(out.getvalue())["models"]
    return entry


def api_entry(report: sonnx.ModelReport, profile: str = "sonnx") -> dict[str, object]:
    from sonnx.checking.report import json_document

    [entry] = json_document([report], profile, report.exit_code)["models"]
    return entry


def test_import_sonnx_loads_nothing_heavy() -> None:
    code = (
        "import sys, sonnx\n"
        "heavy = [m for m in ('sonnx.api', 'sonnx.checking.pipeline', 'numpy', 'onnx', 'z3') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "assert sonnx.check.__module__ == 'sonnx.api'\n"
        "assert 'sonnx.api' in sys.modules\n"
        "print(sonnx.__version__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == sonnx.__version__


def test_every_public_name_resolves_and_is_listed() -> None:
    from sonnx import _EXPORTS

    assert sonnx.__all__ == ["__version__", *_EXPORTS]
    for name in sonnx.__all__:
        assert getattr(sonnx, name) is not None
        assert name in dir(sonnx)
    assert issubclass(sonnx.InputError, sonnx.SonnxError) and issubclass(sonnx.ToolError, sonnx.SonnxError)
    with pytest.raises(AttributeError):
        sonnx.no_such_name  # noqa: B018


@pytest.mark.parametrize("name", ["seed001_example.onnx", "acyclic_cycle.onnx", "cnn_block.onnx"])
def test_check_of_a_path_is_sonnx_check(name: str) -> None:
    path = str(EXAMPLES / name)
    assert api_entry(sonnx.check(path)) == cli_entry([path])
    strict = sonnx.check(Path(path), profile="sonnx-strict", engine="direct", operators=["Conv", "Relu", "ai.onnx:Add"])
    assert api_entry(strict, "sonnx-strict") == cli_entry(
        ["--profile", "sonnx-strict", "--engine", "direct", "--operators", "Conv,Relu,ai.onnx:Add", path]
    )


@pytest.mark.rule("GRAPH-R1")
def test_check_of_a_loaded_model_gives_the_same_verdicts() -> None:
    path = str(EXAMPLES / "seed001_example.onnx")
    model = sonnx.load(path)
    assert isinstance(model, sonnx.Model)
    report = sonnx.check(model, path=path)
    assert api_entry(report) == api_entry(sonnx.check(path))
    assert sonnx.check(model).path == "<model>"
    assert report.exit_code == 1 and report.verdict("GRAPH-R1").status is sonnx.Status.VIOLATED  # type: ignore[union-attr]


def test_check_keeps_an_unreadable_model_in_the_report(tmp_path: Path) -> None:
    report = sonnx.check(str(tmp_path / "missing.onnx"))
    assert isinstance(report.error, sonnx.InputError) and report.exit_code == 2 and report.outcome == "ERROR"


def test_check_writes_the_evidence_bundle_of_a_path(tmp_path: Path) -> None:
    report = sonnx.check(CNN, engine="direct", evidence=tmp_path / "bundle")
    assert report.exit_code == 0 and (tmp_path / "bundle" / "manifest.json").is_file()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"colour": "red"}, "unknown check option"),
        ({"profile": "lenient"}, "unknown profile"),
        ({"engine": "magic"}, "unknown engine"),
        ({"seed": -1}, "invalid seed"),
        ({"oracles": "reference,nobody"}, "unknown oracle"),
        ({"operators": ["Add"]}, "only applies with --profile sonnx-strict"),
        ({"tolerance": {"atol": 1e-3}}, "apply to --cross-check"),
    ],
)
def test_wrong_options_are_usage_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        sonnx.check(CNN, **kwargs)  # type: ignore[arg-type]


def test_a_loaded_model_cannot_ask_for_what_needs_its_file(tmp_path: Path) -> None:
    model = sonnx.load(CNN)
    with pytest.raises(UsageError, match="evidence copies the model file"):
        sonnx.check(model, evidence=str(tmp_path / "b"))
    with pytest.raises(UsageError, match="give path= for a Model"):
        sonnx.check(model, oracles="reference")
    with pytest.raises(UsageError, match="names an already loaded Model"):
        sonnx.check(CNN, path="other.onnx")
    with pytest.raises(UsageError, match="load it with its weights"):
        sonnx.check(sonnx.load(CNN, read_weights=False), orders=2)
    with pytest.raises(UsageError, match="expected a model path"):
        sonnx.check(42)  # type: ignore[arg-type]


def test_run_gives_the_outputs_sonnx_run_writes(tmp_path: Path) -> None:
    out = tmp_path / "out.npz"
    assert main(["run", "-q", "--seed", "3", "--output", str(out), CNN], io.StringIO(), io.StringIO()) == 0
    got = sonnx.run(CNN, seed=3)
    with np.load(out) as saved:
        assert sorted(saved.files) == sorted(got)
        for name in got:
            np.testing.assert_array_equal(saved[name], got[name])
    model = sonnx.load(CNN)
    again = sonnx.run(model, seed=3, schedule="random:7")
    for name in got:
        np.testing.assert_array_equal(again[name], got[name])


def test_run_takes_inputs_by_name() -> None:
    model = sonnx.load(CNN)
    [name] = model.graph.inputs
    drawn = sonnx.run(model, seed=5)
    from sonnx.api import feeds_for

    feeds = feeds_for(model, None, 5)
    given = sonnx.run(model, {name: feeds[name]}, seed=0)
    for key in drawn:
        np.testing.assert_array_equal(drawn[key], given[key])
    with pytest.raises(UsageError, match="not graph inputs"):
        sonnx.run(model, {"nope": np.zeros(1)})
    with pytest.raises(UsageError, match="--schedule"):
        sonnx.run(model, schedule="backwards")
    with pytest.raises(sonnx.ExecutionError):
        sonnx.run(model, {name: np.zeros((1,), dtype=np.int64)})


def test_crosscheck_is_sonnx_crosscheck() -> None:
    report = sonnx.crosscheck(CNN, oracles="reference", seed=1)
    assert isinstance(report, sonnx.CrossCheckReport)
    out = io.StringIO()
    code = main(["crosscheck", "-q", "--json", "--oracles", "reference", "--seed", "1", CNN], out, io.StringIO())
    assert code == report.exit_code == 0 and report.outcome == "AGREE"
    assert json.loads(out.getvalue()) == json.loads(json.dumps(report.to_json()))
    model = sonnx.load(CNN)
    assert sonnx.crosscheck(model, oracles=["reference"], seed=1, path=CNN).to_json() == report.to_json()
    with pytest.raises(UsageError, match="give path= for a Model"):
        sonnx.crosscheck(model)
    with pytest.raises(UsageError, match="unknown oracle"):
        sonnx.crosscheck(CNN, oracles="nobody")


def test_batch_checks_a_directory() -> None:
    batch = sonnx.batch([EXAMPLES], workers=1, engine="direct")
    assert isinstance(batch, sonnx.Batch)
    assert [Path(i.path).name for i in batch.items] == sorted(p.name for p in EXAMPLES.glob("*.onnx"))
    assert batch.exit_code == 1


@pytest.mark.rule("GRAPH-IF-BRANCHES")
def test_check_of_a_model_built_in_memory_derives_its_branches_types() -> None:
    # a caller's model held by no file: GRAPH-IF-BRANCHES reads the bytes it is written as (spec 9.4)
    from sonnx.model.graph import Operation, Tensor, TensorType, make_graph
    from sonnx.model.graph import make_operation as op

    f32 = TensorType("tensor", 1, (2,))

    def built(then_op: Operation) -> sonnx.Model:
        then_g = make_graph("t", [], ["a"], [then_op], {"a": Tensor("a", f32)})
        else_g = make_graph("e", [], ["b"], [op("Neg", ["x"], ["b"])], {"b": Tensor("b", f32)})
        g = make_graph(
            "main", ["c", "x"], ["y"], [op("If", ["c"], ["y"], name="s", then_branch=then_g, else_branch=else_g)],
            {"c": Tensor("c", TensorType("tensor", 9, ())), "x": Tensor("x", f32), "y": Tensor("y", f32)},
        )
        return sonnx.Model(g, 8, opset_imports={"": 17})

    ok = sonnx.check(built(op("Identity", ["x"], ["a"])), engine="direct")
    assert ok.verdict("GRAPH-IF-BRANCHES").status is sonnx.Status.PROVED  # type: ignore[union-attr]
    cast = sonnx.check(built(op("Cast", ["x"], ["a"], to=7)), engine="direct")
    assert cast.verdict("GRAPH-IF-BRANCHES").status is sonnx.Status.VIOLATED  # type: ignore[union-attr]


@pytest.mark.parametrize("seed", [-1, 2**63, True, 1.0])
def test_run_and_crosscheck_take_the_seeds_the_command_line_takes(seed: object) -> None:
    """One seed check for the API, the options and the command line: 0 to 2**63 - 1, integers only."""
    for call_api in (sonnx.run, sonnx.crosscheck):
        with pytest.raises(UsageError, match="invalid seed"):
            call_api(CNN, seed=seed)  # type: ignore[operator]


def test_the_largest_seed_is_taken() -> None:
    assert set(sonnx.run(CNN, seed=2**63 - 1)) == set(sonnx.load(CNN).graph.outputs)


def test_run_and_crosscheck_leave_a_files_weights_in_the_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """A model named by its path serves one call: it is loaded with its weights read from the file when the plan
    decodes them (one copy of the weights in memory, not the serialized bytes beside the arrays), and it gives
    the same bits as the model loaded whole."""
    from sonnx import api
    from sonnx.loader import load_model

    calls: list[dict[str, object]] = []

    def spy(path: str, **options: object) -> object:
        calls.append(options)
        return load_model(path, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(api, "load_model", spy)
    got = sonnx.run(CNN, seed=3)
    whole = sonnx.run(load_model(CNN), seed=3)
    assert calls == [{"weights_from_file": True}]
    assert sorted(got) == sorted(whole)
    assert all(got[n].dtype == whole[n].dtype and got[n].tobytes() == whole[n].tobytes() for n in got)
    sonnx.crosscheck(CNN, oracles="reference", seed=3)
    assert calls[-1] == {"weights_from_file": True}
