"""Kernel registration: every operator module is listed once, in one catalog, and registered."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import sonnx.ops as ops

OPS_DIR = Path(ops.__file__).parent


def test_every_operator_module_is_listed_in_exactly_one_catalog() -> None:
    files = sorted(p.stem for p in OPS_DIR.glob("op_*.py"))
    listed = Counter(name for c in ops.CATALOGS for name in c.NAMES)
    assert sorted(listed) == files
    assert [n for n, k in listed.items() if k > 1] == []


def test_every_listed_module_registers_kernels() -> None:
    for module in ops.MODULES:
        assert module.KERNELS, module.__name__
        for k in module.KERNELS:
            assert k.since_versions == tuple(sorted(set(k.since_versions))), (module.__name__, k.operator)
