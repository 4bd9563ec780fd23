"""SVMClassifier (ai.onnx.ml): support-vector classification, the top class and class scores.

Support-vector mode (``vectors_per_class`` given): the support vectors v_s
(``support_vectors``, rows of F) are grouped by class, ``vectors_per_class[c]``
of them for class c; ``coefficients`` holds E - 1 rows, one value per support
vector. For every pair of classes i < j (in the order (0,1), (0,2), ...,
(1,2), ...), the decision is

    d_ij = sum over v_s of class i of coefficients[j-1][s] K(x, v_s)
         + sum over v_s of class j of coefficients[i][s] K(x, v_s) + rho[p]

(K from ``kernel_type`` and ``kernel_params``, :mod:`sonnx.ops._svm`); d_ij > 0
is a vote for i, otherwise for j, and the label is the class with the most
votes (the first of equal ones). Z holds the decisions, [N, E(E-1)/2], or
``[-d_01, d_01]`` for two classes. With ``prob_a`` and ``prob_b``, Z holds
class probabilities instead: each pair gives ``r_ij = 1 / (1 + exp(A_p d_ij
+ B_p))`` (kept within [1e-7, 1 - 1e-7]), and the probabilities are the
pairwise coupling of the r_ij (the iterative method of Wu, Lin and Weng,
2004, with libsvm's stopping rule, for two classes as well). The label stays
the vote. [Non-normative: these are the probabilities of scikit-learn's
libsvm and of onnxruntime.]

Linear mode (no ``vectors_per_class``): ``coefficients`` holds one row w_c of F
per class, the scores are ``x . w_c + rho[c]`` (``rho[0]`` for every class
when only one is given; the kernel does not apply), the label is the top
score. One row with two labels
is a binary classifier on one score s: the second label when s > 0, Z =
``[-s, s]``.

``post_transform`` is applied to Z last. Float32 and integer inputs compute
in float32, double inputs in float64; Z is float32.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._linear import work_type
from ._ml import as_matrix, class_labels
from ._ml import post_transform as transform
from ._svm import kernel_matrix, kernel_parameters
from .base import Kernel

_MIN_PROB = 1e-7


def _pairs(n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """The class pairs i < j in libsvm's order."""
    i, j = np.triu_indices(n_classes, k=1)
    return i.astype(np.int64), j.astype(np.int64)


def couple(r: np.ndarray) -> np.ndarray:
    """Class probabilities [N, k] from pairwise probabilities r [N, k, k] (r[i, j] = P(i | i or j)), float64.

    Minimises sum over i != j of (r_ji p_i - r_ij p_j)^2 with sum p = 1 by
    coordinate steps until the optimality residual of every example is below
    0.005 / k (at most max(100, k) sweeps).
    """
    n, k = r.shape[0], r.shape[1]
    off = ~np.eye(k, dtype=bool)
    q = -np.swapaxes(r, 1, 2) * r  # Q[t, j] = -r[j, t] r[t, j]
    diagonal = np.where(off[None], np.swapaxes(r, 1, 2) ** 2, 0).sum(axis=2)  # sum over j != t of r[j, t]^2
    q[:, np.arange(k), np.arange(k)] = diagonal
    p = np.full((n, k), 1.0 / k)
    eps = 0.005 / k
    active = np.ones(n, dtype=bool)
    # The sweeps are sequential: each refines the previous estimate (examples that converged stop moving).
    for _ in range(max(100, k)):
        qp = np.einsum("ntj,nj->nt", q, p)
        pqp = (p * qp).sum(axis=1)
        converged = np.abs(qp - pqp[:, None]).max(axis=1) < eps
        active &= ~converged
        if not active.any():
            break
        # one coordinate after the other (Gauss-Seidel): each step uses the ones before it
        for t in range(k):
            with np.errstate(divide="ignore", invalid="ignore"):
                diff = np.where(active, (pqp - qp[:, t]) / q[:, t, t], 0.0)
            diff = np.where(np.isfinite(diff), diff, 0.0)
            p[:, t] += diff
            scale = 1.0 + diff
            pqp = (pqp + diff * (diff * q[:, t, t] + 2 * qp[:, t])) / (scale * scale)
            qp = (qp + diff[:, None] * q[:, t, :]) / scale[:, None]
            p = p / scale[:, None]
    return p


def _support_vector_mode(
    rows: np.ndarray,
    n_classes: int,
    vectors_per_class: Sequence[int],
    support_vectors: Sequence[float] | None,
    coefficients: Sequence[float] | None,
    rho: Sequence[float] | None,
    prob_a: Sequence[float] | None,
    prob_b: Sequence[float] | None,
    kernel_type: str,
    params: tuple[float, float, float],
) -> tuple[np.ndarray, np.ndarray]:
    """Vote winners [N] and Z [N, ...] of the one-against-one classifier."""
    dtype = rows.dtype
    counts = np.asarray(vectors_per_class, dtype=np.int64)
    if len(counts) != n_classes:
        raise ValueError(f"vectors_per_class has {len(counts)} entries for {n_classes} classes")
    total = int(counts.sum())
    features = rows.shape[1]
    vectors = np.asarray(support_vectors or [], dtype=np.float32).astype(dtype)
    if len(vectors) != total * features:
        raise ValueError(f"{len(vectors)} support vector values for {total} vectors of {features} features")
    coef = np.asarray(coefficients or [], dtype=np.float32).astype(dtype)
    if len(coef) != (n_classes - 1) * total:
        raise ValueError(f"{len(coef)} coefficients, {n_classes - 1} rows of {total} are needed")
    coef = coef.reshape(n_classes - 1, total)
    pi, pj = _pairs(n_classes)
    n_pairs = len(pi)
    offsets = np.asarray(rho or [], dtype=np.float32).astype(dtype)
    if len(offsets) != n_pairs:
        raise ValueError(f"rho has {len(offsets)} values for {n_pairs} class pairs")
    owner = np.repeat(np.arange(n_classes), counts)  # the class of each support vector
    # weights [S, pairs]: a vector of class i weighs coefficients[j-1] in pair (i, j), one of class j coefficients[i]
    in_i = owner[:, None] == pi[None, :]
    in_j = owner[:, None] == pj[None, :]
    row_for = np.where(in_i, pj[None, :] - 1, pi[None, :])
    weights = np.where(in_i | in_j, coef[np.clip(row_for, 0, n_classes - 2), np.arange(total)[:, None]], 0)
    kernel = kernel_matrix(rows, vectors.reshape(total, features), kernel_type, params)
    decisions = (kernel @ weights.astype(dtype) + offsets).astype(dtype)
    winners = np.where(decisions > 0, pi, pj)
    votes = (winners[:, :, None] == np.arange(n_classes)).sum(axis=1)
    chosen = np.argmax(votes, axis=1)
    if prob_a:
        a = np.asarray(prob_a, dtype=np.float32).astype(np.float64)
        b = np.asarray(prob_b or [], dtype=np.float32).astype(np.float64)
        if len(a) != n_pairs or len(b) != n_pairs:
            raise ValueError(f"prob_a and prob_b need {n_pairs} values each, not {len(a)} and {len(b)}")
        with np.errstate(over="ignore"):
            pairwise = 1.0 / (1.0 + np.exp(decisions.astype(np.float64) * a + b))
        pairwise = np.clip(pairwise, _MIN_PROB, 1 - _MIN_PROB)
        r = np.zeros((rows.shape[0], n_classes, n_classes))
        r[:, pi, pj] = pairwise
        r[:, pj, pi] = 1 - pairwise
        return chosen, couple(r).astype(np.float32)
    if n_classes == 2:
        return chosen, np.concatenate([-decisions, decisions], axis=1).astype(np.float32)
    return chosen, decisions.astype(np.float32)


def svm_classifier(
    x: np.ndarray,
    *,
    classlabels_ints: Sequence[int] | None = None,
    classlabels_strings: Sequence[str] | None = None,
    coefficients: Sequence[float] | None = None,
    kernel_params: Sequence[float] | None = None,
    kernel_type: str = "LINEAR",
    post_transform: str = "NONE",
    prob_a: Sequence[float] | None = None,
    prob_b: Sequence[float] | None = None,
    rho: Sequence[float] | None = None,
    support_vectors: Sequence[float] | None = None,
    vectors_per_class: Sequence[int] | None = None,
    **_attrs: Any,
) -> tuple[np.ndarray, np.ndarray]:
    """Version 1 (the only one)."""
    labels = class_labels(classlabels_ints, classlabels_strings)
    n_classes = len(labels)
    dtype = work_type(x)
    rows = as_matrix(x).astype(dtype)
    params = kernel_parameters(kernel_params)
    if vectors_per_class:
        if n_classes < 2:
            raise ValueError("a support-vector classifier needs at least 2 classes")
        chosen, z = _support_vector_mode(rows, n_classes, vectors_per_class, support_vectors, coefficients, rho,
                                         prob_a, prob_b, kernel_type, params)
        return labels[chosen], transform(z, post_transform)
    features = rows.shape[1]
    coef = np.asarray(coefficients or [], dtype=np.float32).astype(dtype)
    if features == 0 or len(coef) % features:
        raise ValueError(f"{len(coef)} coefficients are not a whole number of rows of {features} features")
    n_rows = len(coef) // features
    offsets = np.asarray(rho or [0.0], dtype=np.float32).astype(dtype)
    if len(offsets) not in (1, n_rows):
        raise ValueError(f"rho has {len(offsets)} values for {n_rows} rows of coefficients")
    scores = rows @ coef.reshape(n_rows, features).T + offsets
    if n_rows == 1 and n_classes == 2:
        s = scores[:, 0]
        z = np.stack([-s, s], axis=1).astype(np.float32)
        return labels[(s > 0).astype(np.int64)], transform(z, post_transform)
    if n_rows != n_classes:
        raise ValueError(f"{n_rows} rows of coefficients for {n_classes} classes")
    chosen = np.argmax(scores, axis=1) if rows.shape[0] else np.zeros(0, dtype=np.int64)
    return labels[chosen], transform(scores.astype(np.float32), post_transform)


KERNELS = (Kernel("SVMClassifier", (1,), svm_classifier, domain="ai.onnx.ml"),)
