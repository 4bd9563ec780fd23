"""Where each tensor of one scope is read and written: the lookup tables the untrusted producers share.

The producers of :mod:`.certify` and :mod:`.cycles` join write facts and read
facts through a tensor (who writes what a reader reads); this module builds
those joins once per scope as CSR tables over the fact arrays of
:mod:`.facts`. Like everything the producers compute, nothing here is
believed: the solver checks every claim built from it against the raw facts.
"""

from __future__ import annotations

import numpy as np

from .arrays import I64, as_np
from .facts import ScopeFacts


class Index:
    """Readers and writers of each tensor of one scope (fact indices), as CSR tables, and the fact arrays.

    ``writers(t)``/``readers(t)`` are views of int32 tables (Python ints when
    iterated), for the loops; ``w_ptr``/``w_idx`` and ``r_ptr``/``r_idx`` the
    same tables as NumPy arrays by local tensor number, and ``rd_j``,
    ``rd_x``, ``wr_j``, ``wr_x`` the fact arrays in local numbering, for the
    array producers.
    """

    def __init__(self, f: ScopeFacts) -> None:
        self.f = f
        nt = f.n_tensors
        self.w_ptr, self.w_idx = _csr(f.wr_t, nt, f.t_base)
        self.r_ptr, self.r_idx = _csr(f.rd_t, nt, f.t_base)
        self._w_ptr, self._w_idx = self.w_ptr.astype(np.int32).data, self.w_idx.astype(np.int32).data
        self._r_ptr, self._r_idx = self.r_ptr.astype(np.int32).data, self.r_idx.astype(np.int32).data
        self.wr_o, self.wr_t, self.rd_o, self.rd_t = f.wr_o, f.wr_t, f.rd_o, f.rd_t
        self.rd_j, self.rd_x = as_np(f.rd_o) - f.op_base, as_np(f.rd_t) - f.t_base
        self.wr_j, self.wr_x = as_np(f.wr_o) - f.op_base, as_np(f.wr_t) - f.t_base
        self.rd_ptr, self.wr_ptr = as_np(f.rd_ptr), as_np(f.wr_ptr)

    def writers(self, t: int) -> memoryview:
        x = t - self.f.t_base
        return self._w_idx[self._w_ptr[x] : self._w_ptr[x + 1]]

    def readers(self, t: int) -> memoryview:
        x = t - self.f.t_base
        return self._r_idx[self._r_ptr[x] : self._r_ptr[x + 1]]

    def writer_counts(self) -> np.ndarray:
        """Number of write facts per tensor (local tensor number)."""
        return np.diff(self.w_ptr)


def index_of(f: ScopeFacts) -> Index:
    """The :class:`Index` of a scope, built once and kept on the facts (every producer of a run shares it)."""
    ix = f.cache.get("index")
    if ix is None:
        ix = f.cache["index"] = Index(f)
    return ix  # type: ignore[return-value]


def _csr(keys: object, n: int, base: int) -> tuple[np.ndarray, np.ndarray]:
    """Fact indices grouped by tensor (ascending within a tensor) and where each tensor's group starts."""
    k = as_np(keys) - base  # type: ignore[arg-type]
    order = np.argsort(k, kind="stable")
    ptr = np.zeros(n + 1, I64)
    if k.size:
        np.cumsum(np.bincount(k, minlength=n), out=ptr[1:])
    return ptr, order.astype(I64)


def indegrees(f: ScopeFacts, ix: Index) -> np.ndarray:
    """Per operation, its dependency edges: the writers of each tensor of its read facts."""
    if not len(f.rd_t):
        return np.zeros(f.n, I64)
    return np.bincount(ix.rd_j, weights=ix.writer_counts()[ix.rd_x], minlength=f.n).astype(I64)
