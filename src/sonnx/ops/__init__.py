"""NumPy kernels of the SONNX operator set, one module per operator.

Registration is explicit: every module exports ``KERNELS``, listed here; no
module scanning. :data:`REGISTRY` is the table the executor uses.
"""

from __future__ import annotations

from . import add, catalog_nn, catalog_tensor, if_op, loop, relu, scan
from .base import Kernel, KernelError, KernelRegistry, UnsupportedOperatorError, call_kernel

MODULES = (add, relu, if_op, loop, scan, *catalog_tensor.MODULES, *catalog_nn.MODULES)

REGISTRY = KernelRegistry(k for m in MODULES for k in m.KERNELS)

__all__ = ["REGISTRY", "Kernel", "KernelError", "KernelRegistry", "UnsupportedOperatorError", "call_kernel"]
