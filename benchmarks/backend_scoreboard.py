"""Conformance scoreboard: onnx's BackendTest run against sonnx and onnx's reference evaluator.

Both backends run the same test cases of the installed onnx in the same
process, through ``onnx.backend.test.BackendTest`` and its own comparison
(``assert_similar_outputs``, each case's rtol and atol): the node cases and
the simple, PyTorch-converted, PyTorch-operator and light-model suites. The
``real`` suite is onnx's light models, read from the package. A case passes when the
backend's outputs match; a refusal, an exception or a difference is a
failure. No deviation table is applied here: these are raw counts.

Usage::

    python benchmarks/backend_scoreboard.py [--json OUT.json] [--backends sonnx,reference] [--kinds node,...]

Prints a Markdown table and, with ``--json``, writes per-suite counts and the
name of every failing case (the docs' conformance page renders that file).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import platform
import sys
import time
import unittest
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnx.backend.test
from onnx.backend.base import Backend, BackendRep
from onnx.reference import ReferenceEvaluator

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sonnx.execution.backend import SonnxBackend  # noqa: E402

SUITES = {
    "OnnxBackendNodeModelTest": "node",
    "OnnxBackendSimpleModelTest": "simple",
    "OnnxBackendPyTorchConvertedModelTest": "pytorch-converted",
    "OnnxBackendPyTorchOperatorModelTest": "pytorch-operator",
    "OnnxBackendRealModelTest": "light",
}
"""BackendTest's class name -> suite. onnx's "real" suite is its light models (local files, ONNX zoo layouts
with generated weights; expected outputs come with the package or from the reference evaluator)."""


class _ReferenceRep(BackendRep):
    def __init__(self, model: onnx.ModelProto) -> None:
        self._sess = ReferenceEvaluator(model)
        self._names = [i.name for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        feeds = dict(inputs) if isinstance(inputs, dict) else dict(zip(self._names, inputs, strict=False))
        return tuple(self._sess.run(None, feeds))


class ReferenceBackend(Backend):
    """onnx's reference evaluator behind the Backend interface (as onnx's own tests wrap it)."""

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device == "CPU"

    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> _ReferenceRep:
        return _ReferenceRep(model)


BACKENDS: dict[str, type[Backend]] = {"sonnx": SonnxBackend, "reference": ReferenceBackend}


def _case_name(test: unittest.TestCase) -> tuple[str, str]:
    suite = SUITES.get(type(test).__name__, type(test).__name__)
    name = test.id().rsplit(".", 1)[-1].removesuffix("_cpu")
    return suite, name


def score(backend: type[Backend], kinds: set[str]) -> dict[str, Any]:
    """Run the BackendTest suites of ``kinds`` against ``backend``; counts and failing case names per suite."""
    bt = onnx.backend.test.BackendTest(backend, "scoreboard")
    selected = [t for t in _iterate(bt.test_suite) if _case_name(t)[0] in kinds and t.id().endswith("_cpu")]
    result = unittest.TestResult()
    start = time.perf_counter()
    with warnings.catch_warnings(), np.errstate(all="ignore"), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        unittest.TestSuite(selected).run(result)
    seconds = time.perf_counter() - start
    failed: dict[str, list[str]] = {}
    for test, _tb in result.failures + result.errors:
        suite, name = _case_name(test)  # type: ignore[arg-type]
        failed.setdefault(suite, []).append(name)
    skipped = {_case_name(t)[1] for t, _ in result.skipped}  # type: ignore[arg-type]
    out: dict[str, Any] = {"seconds": round(seconds, 1), "suites": {}}
    for kind in sorted(kinds):
        cases = [_case_name(t)[1] for t in selected if _case_name(t)[0] == kind]
        bad = sorted(failed.get(kind, []))
        out["suites"][kind] = {
            "cases": len(cases),
            "passed": len(cases) - len(bad) - len([c for c in cases if c in skipped]),
            "failed": bad,
            "skipped": sorted(c for c in cases if c in skipped),
        }
    return out


def _iterate(suite: unittest.TestSuite) -> list[unittest.TestCase]:
    out: list[unittest.TestCase] = []
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            out.extend(_iterate(item))
        else:
            out.append(item)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--backends", default="sonnx,reference")
    ap.add_argument("--kinds", default=",".join(SUITES.values()))
    ap.add_argument("--json", metavar="OUT.json")
    args = ap.parse_args(argv)
    kinds = set(args.kinds.split(","))
    report: dict[str, Any] = {
        "onnx": onnx.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d"),
        "backends": {},
    }
    for name in args.backends.split(","):
        print(f"running {name} ...", file=sys.stderr, flush=True)
        report["backends"][name] = score(BACKENDS[name], kinds)
    names = list(report["backends"])
    print(f"onnx {report['onnx']}, numpy {report['numpy']}, python {report['python']}, {report['date']}\n")
    print("| suite | cases | " + " | ".join(f"{n} passed" for n in names) + " |")
    print("|---|---|" + "---|" * len(names))
    for kind in sorted(kinds):
        first = report["backends"][names[0]]["suites"][kind]
        cells = [str(report["backends"][n]["suites"][kind]["passed"]) for n in names]
        print(f"| {kind} | {first['cases']} | " + " | ".join(cells) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
