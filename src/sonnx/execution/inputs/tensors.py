"""Seeded random tensor values for the graph inputs, drawn from their declared types.

Every tool that draws a tensor input (``sonnx run``, ``sonnx-check --orders``,
the cross-checks, the partitioned runs, the evidence bundle, the validation of
``sonnx rewrite`` and ``sonnx equiv``) draws it here, so that one seed names the
same values everywhere: a verdict that records ``input_seed`` can be replayed
bit for bit. Integers are drawn inside what the model admits
(:mod:`.domain`); maps, sequences and optionals are drawn by :mod:`.drawing`
with these tensors as their elements.

The size of a draw is worked out in exact integers and compared with the
memory available before anything is allocated: a declared shape too large to
hold is a one-line :class:`~sonnx.base.errors.InputSizeError` (exit 2), not a
process killed by the kernel for lack of memory.
"""

from __future__ import annotations

import math
import os
from collections.abc import Collection
from typing import Any

import numpy as np
from onnx import TensorProto

from ...base.errors import ExecutionError, InputSizeError
from ...model.graph import Model, TensorType
from ...ops.values import numpy_dtype
from .domain import Domain, input_domains

__all__ = ["available_memory", "draw_bytes", "random_array", "random_inputs"]


def random_inputs(
    model: Model, seed: int, symbolic_dim: int = 1, skip: Collection[str] = ()
) -> dict[str, np.ndarray]:
    """Seeded random values for every graph input without an initial value, from its declared type.

    Floats are standard normal, integers in [-10, 10] (unsigned in [0, 10])
    unless the model bounds them (:func:`sonnx.execution.inputs.domain.input_domains`: an
    index into a table, a trip count, a size), then inside that domain;
    booleans fair coins; a symbolic or unknown dimension takes ``symbolic_dim``.
    Inputs named in ``skip`` (values the caller already has) are not drawn, so
    they need no declared shape.
    """
    g = model.graph
    drawn = [n for n in g.inputs if g.tensor(n).initial_value is None and n not in skip]
    sizes = {n: draw_bytes(n, g.tensor(n).type, symbolic_dim) for n in drawn}
    if len(drawn) > 1:
        _check_room(sum(sizes.values()), f"the {len(drawn)} inputs drawn together")
    rng = np.random.default_rng(seed)
    domains = input_domains(model) if drawn else {}
    out: dict[str, np.ndarray] = {}
    for name in drawn:
        out[name] = random_array(name, g.tensor(name).type, rng, symbolic_dim, domains.get(name))
    return out


_FLOAT_TYPES = frozenset(
    {
        TensorProto.FLOAT16,
        TensorProto.BFLOAT16,
        TensorProto.FLOAT8E4M3FN,
        TensorProto.FLOAT8E4M3FNUZ,
        TensorProto.FLOAT8E5M2,
        TensorProto.FLOAT8E5M2FNUZ,
        TensorProto.FLOAT4E2M1,
        TensorProto.FLOAT6E2M3,
        TensorProto.FLOAT6E3M2,
        TensorProto.FLOAT8E8M0,
    }
)
"""Floating element types that NumPy lacks or ranks apart (drawn in float32, then rounded to the type;
FLOAT8E8M0, which has no sign bit, from the absolute values)."""

_SMALL_INT_RANGES: dict[int, tuple[int, int]] = {TensorProto.INT4: (-8, 7), TensorProto.UINT4: (0, 15)}
"""Sub-byte integer types: their whole range."""


def _draw_shape(name: str, ttype: TensorType | None, symbolic_dim: int) -> tuple[int, ...]:
    """The shape drawn for a declared type: symbolic and unknown dimensions take ``symbolic_dim``."""
    if ttype is None or ttype.kind != "tensor" or ttype.elem_type == 0 or ttype.shape is None:
        raise ExecutionError(f"input {name!r} has no declared tensor type and shape; give its value")
    negative = [d for d in ttype.shape if isinstance(d, int) and d < 0]
    if negative:
        raise InputSizeError(f"input {name!r} declares dimension {negative[0]}, which is not a size; give its value")
    return tuple(d if isinstance(d, int) else symbolic_dim for d in ttype.shape)


def _peak_width(et: int, dtype: np.dtype[Any]) -> int:
    """Bytes per element that drawing a value of element type ``et`` holds at its peak (see :func:`random_array`)."""
    if et == TensorProto.STRING:
        return 96  # a length, a pointer and a short str object per element
    if dtype.kind == "c":
        return 48 + dtype.itemsize  # two float64 draws, their complex sum, then the cast
    return 8 + 4 + dtype.itemsize  # a 64-bit draw, float32 rounding where floats are drawn, then the cast


def draw_bytes(name: str, ttype: TensorType | None, symbolic_dim: int = 1) -> int:
    """About how many bytes drawing a random value of the declared type takes at its peak (exact integers)."""
    shape = _draw_shape(name, ttype, symbolic_dim)
    assert ttype is not None
    return math.prod(shape) * _peak_width(ttype.elem_type, numpy_dtype(ttype.elem_type))


def _machine_memory() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def available_memory() -> int | None:
    """Bytes of memory this process can still get, or None when unknown.

    The machine's (Linux's MemAvailable, else its physical memory), less
    when the process's address space is limited (``RLIMIT_AS``).
    """
    room = _machine_memory()
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        with open("/proc/self/statm", "rb") as fh:
            used = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError, IndexError):
        return room
    if soft == resource.RLIM_INFINITY:
        return room
    left = max(0, soft - used)
    return left if room is None else min(room, left)


def _gib(n: int) -> str:
    return f"{n / 2**30:.3g} GiB"


def _check_room(needed: int, what: str) -> None:
    """An :class:`InputSizeError` when ``needed`` bytes exceed what numpy can index or the memory available.

    Checked before drawing: an allocation the system grants lazily and cannot
    back would end the process with the kernel's out-of-memory kill, not an error.
    """
    if needed >= 2**63:
        raise InputSizeError(f"{what}: about 2^{needed.bit_length() - 1} bytes, more than numpy can address")
    room = available_memory()
    if room is not None and needed > room:
        raise InputSizeError(
            f"{what}: not enough memory to draw: about {_gib(needed)} needed, {_gib(room)} available"
        )


def random_array(
    name: str, ttype: TensorType | None, rng: np.random.Generator, symbolic_dim: int, domain: Domain | None = None
) -> np.ndarray:
    """One random array of the declared type ``ttype``.

    Floats are standard normal (complex: both parts), integers uniform in
    ``domain`` when given, else in [-10, 10] (unsigned in [0, 10]; 4-bit
    integers over their whole range), booleans
    fair coins, strings short lowercase words. A declared shape too large to
    draw (numpy refuses its size, or memory cannot hold it; the size is worked
    out in exact integers first) is an :class:`InputSizeError`, never an
    internal error or a process killed for lack of memory.
    """
    shape = _draw_shape(name, ttype, symbolic_dim)
    assert ttype is not None
    count = math.prod(shape)
    _check_room(draw_bytes(name, ttype, symbolic_dim), f"input {name!r} declares {count} elements {list(shape)}")
    try:
        return _draw(name, ttype.elem_type, shape, rng, domain)
    except (MemoryError, ValueError) as exc:  # numpy's own refusals of a size ("array is too big")
        raise InputSizeError(
            f"input {name!r} declares {count} elements {list(shape)}: {' '.join(str(exc).split()) or 'out of memory'}"
        ) from None


def _draw(
    name: str, et: int, shape: tuple[int, ...], rng: np.random.Generator, domain: Domain | None = None
) -> np.ndarray:
    dtype = numpy_dtype(et)
    if et == TensorProto.BOOL:
        return np.asarray(rng.random(shape) < 0.5)
    if domain is not None and (et in _SMALL_INT_RANGES or dtype.kind in "iu"):
        return np.asarray(rng.integers(domain.low, domain.high + 1, size=shape)).astype(dtype)
    if et in _SMALL_INT_RANGES:
        low, high = _SMALL_INT_RANGES[et]
        return np.asarray(rng.integers(low, high + 1, size=shape)).astype(dtype)
    if et == TensorProto.STRING:
        letters = np.array(list("abcdefghijklmnopqrstuvwxyz"), dtype=object)
        words = ["".join(letters[rng.integers(0, 26, size=int(n))]) for n in rng.integers(1, 8, size=shape).flat]
        return np.array(words, dtype=object).reshape(shape)
    if et in _FLOAT_TYPES or dtype.kind == "f":
        drawn = np.asarray(rng.standard_normal(shape), dtype=np.float32)
        return (np.abs(drawn) if et == TensorProto.FLOAT8E8M0 else drawn).astype(dtype)
    if dtype.kind == "c":
        return np.asarray(rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype.kind == "u":
        return np.asarray(rng.integers(0, 11, size=shape)).astype(dtype)
    if dtype.kind == "i":
        return np.asarray(rng.integers(-10, 11, size=shape)).astype(dtype)
    raise ExecutionError(f"input {name!r}: cannot draw random values of type {dtype}")
