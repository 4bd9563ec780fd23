"""ImageDecoder: an encoded image (a 1-D uint8 tensor of the file's bytes) decoded to uint8 [H, W, C].

``pixel_format`` RGB or BGR gives 3 channels in that order, Grayscale 1
channel. Decoding uses Pillow (the ``images`` extra), which reads every
format ONNX lists (BMP, JPEG, JPEG 2000, TIFF, PNG, WebP, PBM/PGM/PPM/PNM);
Pillow converts grayscale with ITU-R 601-2 luma weights. Bytes Pillow cannot
decode give an empty [0, 0, C] image, as ONNX asks.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from .base import Kernel

_CHANNELS = {"RGB": 3, "BGR": 3, "Grayscale": 1}


def image_decoder(encoded: np.ndarray, *, pixel_format: str = "RGB", **_attrs: Any) -> np.ndarray:
    """One version."""
    if pixel_format not in _CHANNELS:
        raise ValueError(f"pixel_format must be RGB, BGR or Grayscale, got {pixel_format!r}")
    if encoded.dtype != np.uint8 or encoded.ndim != 1:
        raise ValueError(f"ImageDecoder takes a 1-D uint8 tensor, got {encoded.dtype}{list(encoded.shape)}")
    try:
        from PIL import Image, UnidentifiedImageError  # optional (the images extra): imported when used
    except ImportError:
        raise ValueError("ImageDecoder needs Pillow: pip install 'sonnx[images]'") from None
    channels = _CHANNELS[pixel_format]
    try:
        with Image.open(io.BytesIO(encoded.tobytes())) as image:
            decoded = np.asarray(image.convert("L" if channels == 1 else "RGB"), dtype=np.uint8)
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        return np.zeros((0, 0, channels), dtype=np.uint8)
    if channels == 1:
        return decoded[:, :, np.newaxis].copy()
    return decoded[:, :, ::-1].copy() if pixel_format == "BGR" else decoded.copy()


KERNELS = (Kernel("ImageDecoder", (20,), image_decoder),)
