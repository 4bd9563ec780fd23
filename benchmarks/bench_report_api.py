"""Benchmark: what showing a ``ModelReport`` in Python costs, against an older sonnx source tree in the same run.

For the example ``seed001_example.onnx`` and chains of N Add operations (``bench_structural.build``), each
tree checks the model (``--engine``, default auto) in a fresh process, then renders the report once: ``repr``
(what a console and a notebook's plain view print), and ``_repr_html_`` where the tree has it (what a notebook
shows). The parent alternates the trees model by model and prints a Markdown table: bytes and CPU seconds of
each rendering. Usage::

    python -m benchmarks.bench_report_api --base-src OLDER/src [--sizes 1000,10000] [--repeat 2] [--engine auto]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.bench_structural import build

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
EXAMPLE = HERE.parent / "examples" / "seed001_example.onnx"

SNIPPET = """
import json, sys, time
import sonnx
report = sonnx.check(sys.argv[1], engine=sys.argv[2])
t0 = time.process_time()
shown = repr(report)
t1 = time.process_time()
html = report._repr_html_() if hasattr(report, "_repr_html_") else ""
t2 = time.process_time()
print(json.dumps({"repr_bytes": len(shown.encode()), "repr_cpu": t1 - t0,
                  "html_bytes": len(html.encode()), "html_cpu": t2 - t1}))
"""


def measure(src: Path, model: Path, engine: str) -> dict[str, float]:
    """Check ``model`` with the sonnx of ``src`` and ``engine`` in a fresh process and render its report once."""
    env = {**os.environ, "PYTHONPATH": str(src), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-c", SNIPPET, str(model), engine], env=env, capture_output=True, text=True,
                          check=True)
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-src", type=Path, required=True, help="the src/ folder of the sonnx to compare with")
    parser.add_argument("--sizes", default="1000,10000", help="operations of the chain models")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--engine", default="auto", help="the check's engine (auto: what sonnx.check runs by default)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        models = [("seed001_example.onnx (4 ops)", EXAMPLE)]
        for n in (int(s) for s in args.sizes.split(",")):
            path = Path(tmp) / f"chain{n}.onnx"
            build("chain", n, path)
            models.append((f"chain of {n:,} Add", path))
        print("| model | repr bytes: base | repr bytes: this | repr CPU s: base | repr CPU s: this | ratio "
              "| _repr_html_ bytes | _repr_html_ CPU s |")
        print("|---|---|---|---|---|---|---|---|")
        for name, path in models:
            runs: dict[str, list[dict[str, float]]] = {"base": [], "this": []}
            for _ in range(args.repeat):  # alternated, so that both trees see the same load
                runs["base"].append(measure(args.base_src, path, args.engine))
                runs["this"].append(measure(SRC, path, args.engine))
            base = min(runs["base"], key=lambda f: f["repr_cpu"])
            this = min(runs["this"], key=lambda f: f["repr_cpu"])
            ratio = this["repr_cpu"] / base["repr_cpu"] if base["repr_cpu"] else float("nan")
            print(f"| {name} | {base['repr_bytes']:,.0f} | {this['repr_bytes']:,.0f} | {base['repr_cpu']:.4f} "
                  f"| {this['repr_cpu']:.4f} | {ratio:.3f} | {this['html_bytes']:,.0f} | {this['html_cpu']:.4f} |",
                  flush=True)


if __name__ == "__main__":
    main()
