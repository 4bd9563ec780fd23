"""``python -m proofs [ID ...] [--json] [--record DIR]``: run the theorems (all of ``registry.MODULES`` or some).

Each theorem runs in a fresh z3 context per query (see ``_kit``), so the
answers do not depend on which theorems ran before. Exit 0 when every theorem
run is PROVED (with or without review items: see ``_kit``), 1 when one is FAILED, 2 for an unknown ID.
``--json`` prints one line per theorem: its result and the module's name. ``--record DIR`` also writes
every theorem's result and report into ``DIR`` under the digest of the run's inputs (``_record``), for
the docs build; only a run of all the theorems is recorded.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import sys
from pathlib import Path
from typing import Any

from proofs import _record
from proofs._kit import report, result_record
from proofs.registry import MODULES


def run(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m proofs", description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("ids", nargs="*", metavar="ID", help=f"theorem modules to run (default: all of {len(MODULES)})")
    ap.add_argument("--json", action="store_true", help="one JSON line per theorem instead of the reports")
    ap.add_argument("--record", type=Path, metavar="DIR", help="keep the results and reports in DIR (all theorems)")
    args = ap.parse_args(argv)
    unknown = [i for i in args.ids if i not in MODULES]
    if unknown:
        known = ", ".join(MODULES)
        print(f"python -m proofs: unknown theorem(s) {', '.join(unknown)}; known: {known}", file=sys.stderr)
        return 2
    if args.record is not None and args.ids and sorted(args.ids) != sorted(MODULES):
        print("python -m proofs: --record keeps a run of all the theorems, not of some", file=sys.stderr)
        return 2
    # The digest of the code that runs, taken before it runs.
    digest = _record.inputs_digest() if args.record is not None else ""
    failed = 0
    kept: dict[str, dict[str, Any]] = {}
    for name in args.ids or MODULES:
        mod = importlib.import_module(f"proofs.{name}")
        result = mod.check()
        failed += not result.proved
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            report(result, mod.THEOREM)
        kept[name] = {"result": result_record(result), "report": printed.getvalue()}
        if args.json:
            print(json.dumps({**result_record(result), "module": name}))
        else:
            print(printed.getvalue(), end="")
    if args.record is not None:
        _record.remember(args.record / f"{digest}.json", kept)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(run())
