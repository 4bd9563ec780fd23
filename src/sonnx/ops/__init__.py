"""NumPy kernels of the ONNX operators, one module ``op_<operator>.py`` per operator.

Registration is explicit: every operator module exports ``KERNELS``, and each
catalog lists its modules by name, once; no module scanning. :data:`REGISTRY`
is the table the executor uses.
"""

from __future__ import annotations

from . import (
    catalog_control,
    catalog_elementwise,
    catalog_indexing,
    catalog_ml,
    catalog_nn,
    catalog_quantization,
    catalog_sequence,
    catalog_sequence_models,
    catalog_shape,
    catalog_tensor,
    catalog_vision,
)
from .base import Kernel, KernelError, KernelRegistry, UnsupportedOperatorError, call_kernel

CATALOGS = (
    catalog_tensor,
    catalog_nn,
    catalog_control,
    catalog_elementwise,
    catalog_indexing,
    catalog_ml,
    catalog_quantization,
    catalog_sequence,
    catalog_sequence_models,
    catalog_shape,
    catalog_vision,
)

MODULES = tuple(m for c in CATALOGS for m in c.MODULES)

REGISTRY = KernelRegistry(k for m in MODULES for k in m.KERNELS)

__all__ = ["CATALOGS", "REGISTRY", "Kernel", "KernelError", "KernelRegistry", "UnsupportedOperatorError", "call_kernel"]
