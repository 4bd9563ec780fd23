"""Input values for execution: from .npz / .npy files, or seeded random draws from declared types.

Used by ``sonnx run``, ``sonnx-check --orders`` and the cross-checks, so that
every tool that executes a model reads inputs the same way.
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from typing import Any

import numpy as np

from .errors import InputError, UsageError
from .executor import random_inputs
from .model.graph import Model


def _load_array(path: str) -> np.ndarray:
    try:
        value = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise InputError(f"{path}: not a readable .npy file ({exc})") from None
    if not isinstance(value, np.ndarray):
        raise InputError(f"{path}: holds several arrays; use --inputs for an .npz file")
    return value


def load_inputs(model: Model, npz: str | None, npy: Sequence[str], seed: int) -> dict[str, Any]:
    """Graph-input values: ``npz`` (keyed by input name), then ``NAME=FILE.npy`` items, then random ones.

    Inputs given by neither file are drawn at random from their declared
    types with ``seed``. A key that names no graph input is an error.
    """
    given: dict[str, Any] = {}
    if npz is not None:
        try:
            with np.load(npz, allow_pickle=False) as data:
                if not isinstance(data, np.lib.npyio.NpzFile):
                    raise InputError(f"{npz}: not an .npz archive")
                given.update({k: data[k] for k in data.files})
        except FileNotFoundError:
            raise InputError(f"{npz}: no such file") from None
        except (OSError, ValueError, zipfile.BadZipFile) as exc:
            raise InputError(f"{npz}: not a readable .npz file ({exc})") from None
    for item in npy:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise UsageError(f"--input {item!r}: expected NAME=FILE.npy")
        given[name] = _load_array(path)
    names = set(model.graph.inputs)
    unknown = sorted(set(given) - names)
    if unknown:
        raise UsageError(f"not graph inputs of the model: {', '.join(unknown)}")
    drawn = random_inputs(model, seed, skip=frozenset(given))
    drawn.update(given)
    return drawn
