"""The table of every kernel: each catalog's modules, and the registry the executor looks kernels up in.

Building the table imports every operator module, which a check that runs
no kernel does not need; it therefore lives here rather than in the package's
``__init__``, and ``sonnx.ops`` gives :data:`REGISTRY`, :data:`CATALOGS` and
:data:`MODULES` from this module on first use.
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
from .base import KernelRegistry

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
"""Every catalog, each listing its operator modules by name."""

MODULES = tuple(m for c in CATALOGS for m in c.MODULES)
"""Every operator module, in catalog order."""

REGISTRY = KernelRegistry(k for m in MODULES for k in m.KERNELS)
"""The kernels of every operator module, looked up by domain, operator and version."""
