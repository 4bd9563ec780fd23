"""What a graph declares about a tensor: its type, where its initial value lives, and that value (read lazily).

The tensor side of the vocabulary of :mod:`.graph` (spec/graph.rst: a tensor
is a variable that may hold a value before execution starts, an ONNX
initializer). These records know nothing of operations or graphs; every
name here is also importable from :mod:`.graph`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

Dim = int | str | None
"""A dimension: a fixed size, a symbolic name (``dim_param``) or unknown."""


class TensorType(NamedTuple):
    """The declared type of a tensor (ONNX ``TypeProto``), as far as it is given.

    ``kind`` is the ONNX type constructor: ``tensor``, ``sparse_tensor``,
    ``sequence``, ``optional``, ``map`` or ``opaque``. ``elem_type`` is the
    ``TensorProto.DataType`` number of the elements (0 when undefined or not a
    tensor). ``shape`` is None when the rank is unknown. For ``sequence`` and
    ``optional``, ``element`` is the type of what they hold.
    """

    kind: str
    elem_type: int = 0
    shape: tuple[Dim, ...] | None = None
    element: TensorType | None = None

    @property
    def is_static(self) -> bool:
        """True for a dense tensor with a known element type and every dimension a fixed size."""
        return (
            self.kind == "tensor"
            and self.elem_type != 0
            and self.shape is not None
            and all(isinstance(d, int) for d in self.shape)
        )


class ExternalLocation(NamedTuple):
    """Where a tensor's bytes live outside the model file (ONNX external data)."""

    path: str
    """The resolved absolute path, already checked to stay inside the model's folder."""
    offset: int
    length: int | None


class InitialValue(NamedTuple):
    """The value a tensor holds before execution (an ONNX initializer).

    The bytes are read only when :meth:`read` is called, so a model can be
    checked for structure without loading its weights.
    """

    data_type: int
    dims: tuple[int, ...]
    sparse: bool
    external: ExternalLocation | None
    reader: Callable[[], Any]

    def read(self) -> Any:
        """The value as a NumPy array (reads external data when needed)."""
        return self.reader()


class Tensor(NamedTuple):
    """A declared tensor: its name, its declared type, and its initial value if any."""

    name: str
    type: TensorType | None = None
    initial_value: InitialValue | None = None
