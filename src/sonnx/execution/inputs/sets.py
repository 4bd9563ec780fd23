"""The input sets of translation validation (``sonnx rewrite``, ``sonnx equiv``): drawn here, and worded here.

Up to three input sets are drawn from the declared input types of the model,
and only those asked for are drawn:

* ``normal``: the values every other tool draws with the seed
  (:func:`sonnx.execution.inputs.complete_inputs`): standard normal values;
  integers uniform in the input's domain (:mod:`.domain`: an index into a
  table, a trip count, a size the model bounds), else in [-10, 10];
* ``signed``: a mix of negative values, +0, -0 and small integers, so that
  a padding value that wins a maximum, or a sign of zero, shows up (integers
  with a domain take the values among -3, 0, 1, 2 inside it, and its ends);
* ``extreme``: half the elements of the normal set replaced by the largest
  finite values of either sign, the smallest normal values and infinities;
  integers by the ends of their domain, or of their type when the model does
  not bound them.

Given input values (``--inputs``) are the normal set, and the other sets are
still derived from them with the seed. :func:`set_source` says where each
set came from, in the words of :meth:`.source.InputSource.describe`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import ml_dtypes
import numpy as np

from ...model.graph import Model
from ...ops.values import numpy_dtype
from . import complete_inputs
from .domain import Domain, input_domains
from .source import InputSource

SETS = ("normal", "signed", "extreme")
"""The input sets, in the order the reports list them."""


def _specials(dtype: np.dtype[Any], kind: str, domain: Domain | None = None) -> np.ndarray:
    if dtype.kind == "f":
        # ml_dtypes' finfo also knows its own float types; some report kind "f" (float8_e5m2), which np.finfo refuses
        info = ml_dtypes.finfo(dtype)
        if kind == "signed":
            return np.array([-1.5, -0.0, 0.0, -3.0, 2.0, -0.25, 1.0, -7.0], dtype=dtype)
        return np.array([info.max, -info.max, info.tiny, -info.tiny, np.inf, -np.inf, 0.0, -1.0], dtype=dtype)
    if dtype.kind in "iu":
        if domain is not None:
            small = [v for v in ((-3, 0, 1, 2) if kind == "signed" else (0, 1)) if domain.low <= v <= domain.high]
            return np.array(list(dict.fromkeys([*small, domain.low, domain.high])), dtype=dtype)
        info_i = np.iinfo(dtype)
        if kind == "signed":
            return np.array([info_i.min if dtype.kind == "u" else -3, 0, 1, 2], dtype=dtype)
        return np.array([info_i.min, info_i.max, 0, 1], dtype=dtype)
    return np.array([False, True], dtype=dtype)


_RNG_OFFSET = {"signed": 1, "extreme": 2}
"""Each derived set has its own random stream (seed + offset), so that one is drawn alike whether or not the
other is asked for."""


def input_sets(
    model: Model, seed: int, sets: Sequence[str] = SETS, given: Mapping[str, Any] | None = None
) -> dict[str, dict[str, Any]]:
    """The input sets named in ``sets`` (only those), keyed by set name then graph-input name.

    ``given`` (every graph input's value, from files) replaces the seeded
    normal set; the other sets are still derived from it with the seed.
    """
    base: dict[str, Any] = dict(given) if given is not None else complete_inputs(model, {}, seed).values
    domains = input_domains(model)
    out: dict[str, dict[str, Any]] = {}
    for kind in sets:
        if kind == "normal":
            out[kind] = base
            continue
        rng = np.random.default_rng(seed + _RNG_OFFSET[kind])
        feeds: dict[str, Any] = {}
        for name, arr in base.items():
            t = model.graph.tensor(name)
            if not isinstance(arr, np.ndarray) or t.type is None or t.type.kind != "tensor":
                feeds[name] = arr
                continue
            dtype = numpy_dtype(t.type.elem_type) if t.type.elem_type else arr.dtype
            if arr.dtype.kind in "fiu" and dtype.kind in "fiu":
                pool = _specials(dtype, kind, domains.get(name))
                picked = pool[rng.integers(0, len(pool), size=arr.shape)]
                if kind == "extreme":
                    keep = rng.random(arr.shape) < 0.5
                    picked = np.where(keep, arr, picked).astype(dtype)
                feeds[name] = np.asarray(picked, dtype=dtype)
            else:
                feeds[name] = arr
        out[kind] = feeds
    return out


def set_source(name: str, seed: int, given: InputSource | None) -> str:
    """Where the values of input set ``name`` come from (named in the reports).

    ``given`` is where the given values came from (None: nothing was given, the
    normal set is drawn with ``seed``); it words the normal set, and the ground
    of the extreme set (:meth:`~sonnx.execution.inputs.InputSource.describe`).
    """
    source = given if given is not None else InputSource(seed, ())
    if name == "normal":
        return source.describe("set")
    derived = seed + _RNG_OFFSET[name]
    if name == "signed":
        return f"drawn with seed {derived}: signs, zeros and small values"
    return f"{source.describe('derived')}, about half the elements replaced by extreme values drawn with seed {derived}"
