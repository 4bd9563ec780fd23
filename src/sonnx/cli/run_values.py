"""What ``sonnx run`` says about each output value: statistics, and the values themselves when small.

A shape and a type say little about whether a run went well; the minimum, maximum and mean, and how many
elements are NaN or infinite, show a diverging or saturated output at a glance. The statistics are exact
reductions in float64 of the output's elements, NaN left out of the minimum, maximum and mean (the mean is
rounded once, from float64). Outputs with no order (complex numbers, strings, sequences, maps) have none;
boolean ones count their true elements.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

import numpy as np

DEFAULT_PRINT_LIMIT = 100
"""The largest output ``--print`` prints, in elements, unless ``--print-limit`` says otherwise."""


def print_limit(text: str) -> int:
    """``--print-limit``: a count of elements, at least 1."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"invalid count {text!r}: expected an integer of at least 1")
    return n


@dataclass(frozen=True)
class Statistics:
    """The summary of one output tensor's elements."""

    elements: int
    minimum: float | int | None
    maximum: float | int | None
    mean: float | None
    nan: int
    inf: int
    true: int | None = None
    """For a boolean tensor, how many elements are true (it then has no minimum, maximum or mean)."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"elements": self.elements}
        if self.true is not None:
            return {**out, "true": self.true}
        bounds = {k: None if v is None else _json_float(v) for k, v in
                  (("min", self.minimum), ("max", self.maximum), ("mean", self.mean))}
        return {**out, **bounds, "nan": self.nan, "inf": self.inf}

    def line(self) -> str:
        if self.true is not None:
            return f"true {self.true} of {self.elements}"
        if self.minimum is None:
            return f"{self.elements} elements, all NaN" if self.nan else "no elements"
        return (f"min {self.minimum:.6g} max {self.maximum:.6g} mean {self.mean:.6g} "
                f"nan {self.nan} inf {self.inf}")


def value_statistics(value: Any) -> Statistics | None:
    """The statistics of a numeric or boolean tensor; None for anything else (strings, sequences, maps)."""
    if not isinstance(value, np.ndarray):
        return None
    n = int(value.size)
    if value.dtype == np.bool_:
        return Statistics(n, None, None, None, 0, 0, true=int(np.count_nonzero(value)))
    if value.dtype.kind in "iu":
        if n == 0:
            return Statistics(0, None, None, None, 0, 0)
        return Statistics(n, int(value.min()), int(value.max()), float(value.astype(np.float64).mean()), 0, 0)
    if value.dtype.kind != "f" and not _ml_float(value):
        return None  # complex, strings, objects: no order to summarise
    wide = value.astype(np.float64)
    nan = int(np.count_nonzero(np.isnan(wide)))
    inf = int(np.count_nonzero(np.isinf(wide)))
    kept = wide[~np.isnan(wide)]
    if kept.size == 0:
        return Statistics(n, None, None, None, nan, inf)
    return Statistics(n, float(kept.min()), float(kept.max()), float(kept.mean()), nan, inf)


def _ml_float(value: np.ndarray) -> bool:
    """bfloat16 and the float8 types of ml_dtypes, which NumPy does not class as floats."""
    try:
        return bool(np.issubdtype(value.dtype, np.floating)) or value.dtype.name.startswith(("bfloat16", "float8"))
    except TypeError:
        return False


def values_text(value: Any, limit: int) -> str:
    """The values of a small output for the terminal, indented; a larger one says how large it is."""
    size = int(value.size) if isinstance(value, np.ndarray) else None
    if size is not None and size > limit:
        return f"  ({size} elements, more than --print-limit {limit}: not printed)"
    if isinstance(value, np.ndarray):
        text = np.array2string(value, threshold=limit, max_line_width=110)
    else:
        text = repr(value)
        if len(text) > 40 * limit:
            return f"  ({type(value).__name__} value, longer than --print-limit allows: not printed)"
    return "\n".join("  " + line for line in text.splitlines())


def values_json(value: Any, limit: int) -> Any:
    """The values of a small output tensor as nested lists (None when larger than ``limit`` or not a tensor).

    NaN and infinities become the strings ``"nan"``, ``"inf"`` and ``"-inf"``: JSON has no number for them.
    """
    if not isinstance(value, np.ndarray) or value.size > limit:
        return None
    if value.dtype.kind in "biu" or value.dtype.kind in "US":
        return value.tolist()
    if value.dtype.kind != "f" and not _ml_float(value):
        return None
    wide = value.astype(np.float64)
    return np.vectorize(_json_float, otypes=[object])(wide).tolist() if wide.size else wide.tolist()


def _json_float(x: float) -> float | int | str:
    """A number for strict JSON: NaN and infinities, which JSON cannot write as numbers, as strings."""
    if isinstance(x, int):
        return x
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return float(x)
