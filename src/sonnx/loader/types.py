"""Conversion of ONNX ``TypeProto`` messages to :class:`sonnx.model.TensorType`.

A ``TypeProto`` can nest (a sequence of optionals of maps of ...). The
conversion walks down the chain of element types with a loop and builds the
result back up, so the nesting depth costs no Python stack.
"""

from __future__ import annotations

from typing import Any

from ..model.graph import Dim, TensorType


def convert_shape(shape: Any) -> tuple[Dim, ...]:
    """A ``TensorShapeProto`` as a tuple: ``dim_value`` -> int, ``dim_param`` -> str, neither -> None."""
    dims: list[Dim] = []
    for d in shape.dim:
        which = d.WhichOneof("value")
        if which == "dim_value":
            dims.append(int(d.dim_value))
        elif which == "dim_param":
            dims.append(d.dim_param)
        else:
            dims.append(None)
    return tuple(dims)


def convert_type(tp: Any) -> TensorType | None:
    """The :class:`TensorType` of a ``TypeProto``, or None when no type constructor is set.

    ``tensor`` and ``sparse_tensor`` carry ``elem_type`` and ``shape`` (None
    when the shape field is absent, i.e. the rank is unknown). ``sequence``
    and ``optional`` carry the held type in ``element``. ``map`` carries its
    key type number in ``elem_type`` and its value type in ``element``.
    ``opaque`` carries nothing else.
    """
    # Walk down the wrappers (sequence / optional / map) to the innermost type.
    wrappers: list[tuple[str, int]] = []
    cur = tp
    inner: TensorType | None = None
    while True:
        which = cur.WhichOneof("value")
        if which == "tensor_type" or which == "sparse_tensor_type":
            tt = cur.tensor_type if which == "tensor_type" else cur.sparse_tensor_type
            shape = convert_shape(tt.shape) if tt.HasField("shape") else None
            kind = "tensor" if which == "tensor_type" else "sparse_tensor"
            inner = TensorType(kind, int(tt.elem_type), shape)
            break
        if which == "opaque_type":
            inner = TensorType("opaque")
            break
        if which == "sequence_type":
            wrappers.append(("sequence", 0))
            holder = cur.sequence_type
        elif which == "optional_type":
            wrappers.append(("optional", 0))
            holder = cur.optional_type
        elif which == "map_type":
            wrappers.append(("map", int(cur.map_type.key_type)))
            holder = cur.map_type
        else:
            break  # nothing set: the type is unknown
        field = "value_type" if which == "map_type" else "elem_type"
        if not holder.HasField(field):
            break
        cur = getattr(holder, field)
    if inner is None and not wrappers:
        return None
    for kind, elem in reversed(wrappers):
        inner = TensorType(kind, elem, None, inner)
    return inner


class TypeCache:
    """Converts declared types, sharing one :class:`TensorType` per distinct ``TypeProto``.

    Large graphs declare the same few types over and over (every output of a
    million-operation graph is a float tensor of one shape): keying on the
    serialized message is several times cheaper than converting it again, and
    the shared value costs no further memory.
    """

    def __init__(self) -> None:
        self.known: dict[bytes, TensorType | None] = {}
        """Serialized ``TypeProto`` -> its conversion."""
