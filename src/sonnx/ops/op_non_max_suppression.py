"""NonMaxSuppression: greedy selection of high-scoring boxes that do not overlap already selected ones.

For every batch ``b`` and class ``c`` independently: the boxes whose score is
not below ``score_threshold`` (all boxes when it is omitted) are visited by
decreasing score (ties by increasing box index); a box is selected unless its
intersection over union with a box selected before it is strictly greater than
``iou_threshold`` (default 0); at most ``max_output_boxes_per_class`` boxes
(default 0: none) are selected. The result lists ``[b, c, box]`` rows, batch
by batch, class by class, each class in selection order.

Boxes are ``[y1, x1, y2, x2]`` (any two opposite corners) with
``center_point_box=0``, ``[x_center, y_center, width, height]`` with 1.
``IoU = area(A & B) / (area(A) + area(B) - area(A & B))``, taken as 0 when a
box has no area. [Non-normative: the operator text removes boxes whose score is
*less than* the threshold, so a score equal to it is kept; onnxruntime and
onnx's reference evaluator drop it too.]

Versions: 10 and 11 compute the same (11 states the strict IoU comparison).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def _scalar(t: np.ndarray | None, name: str) -> float | None:
    if t is None or t.size == 0:
        return None
    if t.size != 1:
        raise ValueError(f"{name} must be a scalar, not a tensor of shape {list(t.shape)}")
    return float(t.reshape(-1)[0])


def _corners(boxes: np.ndarray, center_point_box: int) -> tuple[np.ndarray, ...]:
    """``(y_min, x_min, y_max, x_max)`` of every box (arrays of shape ``B x N``)."""
    if center_point_box == 0:
        y1, x1, y2, x2 = (boxes[..., i] for i in range(4))
        return np.minimum(y1, y2), np.minimum(x1, x2), np.maximum(y1, y2), np.maximum(x1, x2)
    if center_point_box == 1:
        xc, yc, w, h = (boxes[..., i] for i in range(4))
        half_w, half_h = w / 2, h / 2
        return yc - half_h, xc - half_w, yc + half_h, xc + half_w
    raise ValueError(f"center_point_box must be 0 or 1, not {center_point_box}")


def iou_with(corners: tuple[np.ndarray, ...], i: int, others: np.ndarray) -> np.ndarray:
    """Intersection over union of box ``i`` with each box of ``others`` (0 where either has no area)."""
    y0, x0, y1, x1 = corners
    area = (y1[others] - y0[others]) * (x1[others] - x0[others])
    area_i = (y1[i] - y0[i]) * (x1[i] - x0[i])
    ih = np.minimum(y1[i], y1[others]) - np.maximum(y0[i], y0[others])
    iw = np.minimum(x1[i], x1[others]) - np.maximum(x0[i], x0[others])
    inter = np.maximum(ih, 0) * np.maximum(iw, 0)
    union = area_i + area - inter
    ok = (area_i > 0) & (area > 0) & (union > 0)
    return np.where(ok, inter / np.where(ok, union, 1), 0)


def non_max_suppression(
    boxes: np.ndarray,
    scores: np.ndarray,
    max_output_boxes_per_class: np.ndarray | None = None,
    iou_threshold: np.ndarray | None = None,
    score_threshold: np.ndarray | None = None,
    *,
    center_point_box: int = 0,
    **_attrs: Any,
) -> np.ndarray:
    """NonMaxSuppression-10 and -11."""
    if boxes.ndim != 3 or boxes.shape[2] != 4:
        raise ValueError(f"boxes must be num_batches x spatial_dimension x 4, not {list(boxes.shape)}")
    if scores.ndim != 3 or scores.shape[0] != boxes.shape[0] or scores.shape[2] != boxes.shape[1]:
        raise ValueError(f"scores {list(scores.shape)} do not match boxes {list(boxes.shape)}")
    limit = _scalar(max_output_boxes_per_class, "max_output_boxes_per_class")
    max_boxes = 0 if limit is None else int(limit)
    iou_thr = _scalar(iou_threshold, "iou_threshold")
    iou_thr = 0.0 if iou_thr is None else iou_thr
    if not 0.0 <= iou_thr <= 1.0:
        raise ValueError(f"iou_threshold must lie in [0, 1], not {iou_thr}")
    score_thr = _scalar(score_threshold, "score_threshold")
    if max_boxes <= 0:
        return np.zeros((0, 3), dtype=np.int64)
    corners = _corners(boxes, int(center_point_box))
    iou_limit = np.asarray(iou_thr, dtype=boxes.dtype)
    rows: list[tuple[int, int, int]] = []
    # Every (batch, class) is an independent selection problem over the batch's boxes.
    for b in range(scores.shape[0]):
        box_corners = tuple(v[b] for v in corners)
        for c in range(scores.shape[1]):
            s = scores[b, c]
            candidates = np.arange(s.shape[0]) if score_thr is None else np.flatnonzero(s >= score_thr)
            # by decreasing score, ties by increasing index
            remaining = candidates[np.argsort(-s[candidates], kind="stable")]
            selected = 0
            # Greedy selection is inherently sequential (whether a box survives depends on the boxes
            # selected before it): one iteration per selected box, which suppresses every remaining
            # box overlapping it with one vectorised IoU computation.
            while remaining.size and selected < max_boxes:
                best, remaining = int(remaining[0]), remaining[1:]
                rows.append((b, c, best))
                selected += 1
                remaining = remaining[~(iou_with(box_corners, best, remaining) > iou_limit)]
    return np.asarray(rows, dtype=np.int64).reshape(-1, 3)


KERNELS = (Kernel("NonMaxSuppression", (10, 11), non_max_suppression),)
