"""``python -m proofs [ID ...] [--json]``: run the theorems (all of ``registry.MODULES``, or those named).

Each theorem runs in a fresh z3 context per query (see ``_kit``), so the
answers do not depend on which theorems ran before. Exit 0 when every theorem
run is PROVED (with or without review items: see ``_kit``), 1 when one is FAILED, 2 for an unknown ID.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys

from proofs._kit import report, result_record
from proofs.registry import MODULES


def run(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m proofs", description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("ids", nargs="*", metavar="ID", help=f"theorem modules to run (default: all of {len(MODULES)})")
    ap.add_argument("--json", action="store_true", help="one JSON line per theorem instead of the reports")
    args = ap.parse_args(argv)
    unknown = [i for i in args.ids if i not in MODULES]
    if unknown:
        known = ", ".join(MODULES)
        print(f"python -m proofs: unknown theorem(s) {', '.join(unknown)}; known: {known}", file=sys.stderr)
        return 2
    failed = 0
    for name in args.ids or MODULES:
        mod = importlib.import_module(f"proofs.{name}")
        result = mod.check()
        failed += not result.proved
        if args.json:
            print(json.dumps(result_record(result)))
        else:
            report(result, mod.THEOREM)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(run())
