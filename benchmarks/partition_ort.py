"""Check onnxruntime's own partition of a model with ``sonnx partition --check``.

For each model (``examples/cnn_block.onnx`` and the three benchmark CNNs at
32x32 input), for each onnxruntime graph optimization level:

1. an onnxruntime session is created with the session config entry
   ``session.record_ep_graph_assignment_info=1`` (and, for the levels above
   ``disable``, ``optimized_model_filepath`` so that onnxruntime's optimized
   graph is saved too);
2. ``InferenceSession.get_provider_graph_assignment_info()`` is converted to
   the partition format (:mod:`sonnx.partition.ort`) and written to
   ``benchmarks/out/ort_partitions/<model>.<level>.<file|opt>.json`` (the
   models themselves go to a temporary folder: they are large);
3. ``sonnx partition --check`` verifies it against the model file and, for
   the optimized levels, against onnxruntime's saved optimized model.

Usage: ``.venv/bin/python benchmarks/partition_ort.py [--size 32] [--out DIR]``.
Prints one table row per check (verdicts of each rule, exit code); the
results are recorded in ``docs/partition.rst``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
from pathlib import Path

import onnx

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.cnn_models import MODELS  # noqa: E402
from sonnx.cli import main as sonnx_main  # noqa: E402
from sonnx.loader import load_model  # noqa: E402
from sonnx.partition import save_partition  # noqa: E402
from sonnx.partition.ort import ort_assignment, partition_from_assignment  # noqa: E402

LEVELS = {"disable": "ORT_DISABLE_ALL", "basic": "ORT_ENABLE_BASIC", "extended": "ORT_ENABLE_EXTENDED"}


def assignment_at(path: str, level: str, optimized: str | None) -> list[tuple[str, list[str]]]:
    """onnxruntime's assignment at one optimization level (saving the optimized graph when asked)."""
    if level == "disable":
        return ort_assignment(path, optimization="disable")
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.graph_optimization_level = getattr(ort.GraphOptimizationLevel, LEVELS[level])
    so.add_session_config_entry("session.record_ep_graph_assignment_info", "1")
    if optimized:
        so.optimized_model_filepath = optimized
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    return [(str(e.ep_name), [str(n.name) for n in e.get_nodes()]) for e in sess.get_provider_graph_assignment_info()]


def check(model_path: str, part_path: str) -> dict[str, object]:
    out, err = io.StringIO(), io.StringIO()
    code = sonnx_main(["partition", "--check", model_path, part_path, "--json"], stdout=out, stderr=err)
    if code == 2 and not out.getvalue():
        return {"exit": code, "error": err.getvalue().strip()}
    report = json.loads(out.getvalue())
    return {"exit": code, "verdicts": {v["rule"]: v for v in report["verdicts"]}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=32, help="input height and width of the benchmark CNNs")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "out" / "ort_partitions"))
    args = parser.parse_args()
    import onnxruntime as ort

    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:  # the models are large; only the partitions are kept
        return run(args.size, args.out, work, ort.__version__, ort.get_available_providers())


def run(size: int, out: str, work: str, version: str, available: list[str]) -> int:
    files = {"cnn_block": str(ROOT / "examples" / "cnn_block.onnx")}
    for name, build in MODELS.items():
        path = os.path.join(work, f"{name}.onnx")
        onnx.save(build(size=size, classes=10), path)  # type: ignore[operator]
        files[name] = path
    print(f"onnxruntime {version}, providers {available}")
    header = ["model", "ops", "ORT level", "checked against", "subgraphs", "COVER", "INPUTS", "OUTPUTS", "ACYCLIC"]
    print("| " + " | ".join([*header, "RULES", "exit"]) + " |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, path in files.items():
        original = load_model(path)
        for level in LEVELS:
            optimized = os.path.join(work, f"{name}.{level}.optimized.onnx") if level != "disable" else None
            assignment = assignment_at(path, level, optimized)
            targets = [("model file", path)] + ([("ORT optimized model", optimized)] if optimized else [])
            for label, target in targets:
                model = original if target == path else load_model(target)
                part = partition_from_assignment(model, assignment, os.path.basename(target))
                part_path = os.path.join(out, f"{name}.{level}.{'file' if target == path else 'opt'}.json")
                save_partition(part, part_path)
                res = check(target, part_path)
                if "error" in res:
                    print(
                        f"| {name} | {len(model.graph.operations)} | {level} | {label} | {len(part.subgraphs)} "
                        f"| error: {res['error']} |||||| {res['exit']} |"
                    )
                    continue
                vs = res["verdicts"]
                assert isinstance(vs, dict)
                cells = [vs[f"PARTITION-{r}"]["status"] for r in ("COVER", "INPUTS", "OUTPUTS", "ACYCLIC", "RULES")]
                print(
                    f"| {name} | {len(model.graph.operations)} | {level} | {label} | {len(part.subgraphs)} | "
                    + " | ".join(cells)
                    + f" | {res['exit']} |"
                )
                for v in vs.values():
                    if v["status"] == "VIOLATED":
                        print(f"|   witness {v['rule']}: {v['witness']['summary'][:160]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
