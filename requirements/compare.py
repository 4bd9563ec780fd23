"""Print how an installed set of packages differs from the lock (used by ``make test-latest``).

Usage: ``python requirements/compare.py LOCK FREEZE`` where FREEZE is ``pip freeze`` output.
Lines: ``name: locked -> installed`` for every package whose version differs, and
``name: not locked`` / ``name: not installed``. Exit code 0 always: this is a report.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^ ;\\]+)\s*(;[^\\]*)?")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(text: str, python: str) -> dict[str, str]:
    """``name -> version`` of every pin whose marker (if any) names this Python or no version at all."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        m = _PIN.match(line.strip())
        if not m:
            continue
        marker = m.group(3) or ""
        if "python_full_version" in marker and not _marker_holds(marker, python):
            continue
        if "sys_platform == 'win32'" in marker:
            continue
        out[_canonical(m.group(1))] = m.group(2)
    return out


def _marker_holds(marker: str, python: str) -> bool:
    """The python_full_version clauses of a uv marker (``<``, ``>=``, ``==`` with ``.*``), for ``python``."""
    here = tuple(int(p) for p in python.split("."))
    for op, ver in re.findall(r"python_full_version\s*(<=|>=|==|<|>)\s*'([^']+)'", marker):
        if op == "==" and ver.endswith(".*"):
            want = tuple(int(p) for p in ver[:-2].split("."))
            ok = here[: len(want)] == want
        else:
            v = tuple(int(p) for p in ver.split("."))
            ok = {"<": here < v, "<=": here <= v, ">": here > v, ">=": here >= v, "==": here == v}[op]
        if not ok:
            return False
    return True


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: compare.py LOCK FREEZE", file=sys.stderr)
        return 2
    python = ".".join(str(p) for p in sys.version_info[:3])
    locked = pins(Path(argv[0]).read_text(encoding="utf-8"), python)
    installed = pins(Path(argv[1]).read_text(encoding="utf-8"), python)
    lines = []
    for name in sorted((set(locked) | set(installed)) - {"pip"}):  # pip comes with the venv, not the lock
        a, b = locked.get(name), installed.get(name)
        if a == b:
            continue
        if a is None:
            lines.append(f"  {name}: not locked, installed {b}")
        elif b is None:
            lines.append(f"  {name}: locked {a}, not installed")
        else:
            lines.append(f"  {name}: {a} -> {b}")
    print("\n".join(lines) if lines else "  none: the newest releases are the locked ones")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
