"""NumPy kernels of the ONNX operators, one module ``op_<operator>.py`` per operator.

Registration is explicit: every operator module exports ``KERNELS``, and each
catalog lists its modules by name, once; no module scanning. :data:`REGISTRY`
is the table the executor uses.

The table is built in :mod:`.registry` and given here on first use (PEP 562):
importing a small module of this package (:mod:`.values`, read by the rules)
does not import every operator module with it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .base import Kernel, KernelError, KernelRegistry, UnsupportedOperatorError, call_kernel

if TYPE_CHECKING:
    from .registry import CATALOGS, MODULES, REGISTRY

_LAZY = frozenset({"CATALOGS", "MODULES", "REGISTRY"})
"""The names that :mod:`.registry` defines, imported when first asked for."""


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(f"{__name__}.registry"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CATALOGS",
    "MODULES",
    "REGISTRY",
    "Kernel",
    "KernelError",
    "KernelRegistry",
    "UnsupportedOperatorError",
    "call_kernel",
]
