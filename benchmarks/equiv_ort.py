"""``sonnx equiv`` on onnxruntime's basic-level optimized models of the benchmark CNNs.

For each CNN of :mod:`benchmarks.cnn_models` the script saves the model,
lets onnxruntime write its optimized graph at the basic level
(``SessionOptions.graph_optimization_level = ORT_ENABLE_BASIC`` and
``optimized_model_filepath``), and compares the two with
:func:`sonnx.checking.equiv.equivalence` (structural diff, numbers on the seeded
input sets, both ``sonnx-check`` verdicts). Run:

    .venv/bin/python benchmarks/equiv_ort.py [--size 224] [--json OUT.json]

It prints one text report per model, then a summary line per model, and
exits 0 when every pair is equivalent, 1 otherwise.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import onnx
import onnxruntime as ort

from benchmarks.cnn_models import mobilenet_like, resnet50_like, vgg_like
from sonnx.checking.equiv import equivalence, text

MODELS = {"resnet50_like": resnet50_like, "vgg_like": vgg_like, "mobilenet_like": mobilenet_like}


def optimize_basic(src: Path, dst: Path) -> None:
    """Let onnxruntime write its basic-level optimized graph of ``src`` to ``dst`` (CPU provider)."""
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    opts.optimized_model_filepath = str(dst)
    ort.InferenceSession(str(src), opts, providers=["CPUExecutionProvider"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=224, help="input image size (default 224)")
    parser.add_argument("--json", metavar="OUT.json", help="also write every report as JSON")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    reports: dict[str, Any] = {}
    summary = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, build in MODELS.items():
            a, b = Path(tmp) / f"{name}.onnx", Path(tmp) / f"{name}.ort_basic.onnx"
            onnx.save(build(size=args.size), str(a))
            optimize_basic(a, b)
            rep = equivalence(str(a), str(b), seed=args.seed)
            sys.stdout.write(f"=== {name} (size {args.size})\n{text(rep)}\n")
            reports[name] = rep.to_json()
            decided = [(n, c) for r in rep.sets for n, c in r.outputs.items() if n not in r.informative]
            extra = [(n, c) for r in rep.sets for n, c in r.outputs.items() if n in r.informative]

            def figures(pairs: list) -> str:
                if not pairs:
                    return "none compared"
                worst = max((c.max_abs or 0.0) for _, c in pairs if c.mismatch is None)
                ulp = max((c.max_ulp or 0) for _, c in pairs)
                outside = sum(c.outside for _, c in pairs)
                return f"max abs {worst:.3g}, max ulp {ulp}, {outside} elements outside tolerance"

            summary.append(
                f"{name}: {rep.verdict}; operations {rep.diff.operations[0]} -> {rep.diff.operations[1]}; "
                f"removed {dict(sorted(rep.diff.removed.items()))}; added {dict(sorted(rep.diff.added.items()))}; "
                f"outputs: {figures(decided)}; intermediates {sorted({n for n, _ in extra})}: {figures(extra)}"
            )
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    sys.stdout.write(f"summary (onnxruntime {ort.__version__}, {stamp}):\n" + "\n".join(summary) + "\n")
    if args.json:
        doc = {"onnxruntime": ort.__version__, "date": stamp, "size": args.size, "reports": reports}
        Path(args.json).write_text(json.dumps(doc, indent=2, default=str) + "\n", encoding="utf-8")
    return 0 if all(r["exit_code"] == 0 for r in reports.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
