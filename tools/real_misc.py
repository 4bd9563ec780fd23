"""Quantized, half-precision, onnxscript and external-data members of the real-export corpus.

A small float MLP (TorchScript exporter, opset 17) is the base of three
onnxruntime.quantization outputs: dynamic, static in QDQ format and static in
QOperator format, calibrated on seeded data. A small conv net is converted to
float16 by onnxconverter_common with ``keep_io_types=False`` (its inputs and
outputs are float16 too). An onnxscript model calls a model-local function.
The MLP is also saved with its initializers in ``<name>.onnx.data`` beside it.
``tools/make_real_models.py`` calls :func:`export_misc`.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import onnx

Describe = Callable[[Path, str], dict[str, Any]]

MLP_INPUT = (4, 16)
"""[batch, features] of the float MLP and of its calibration samples."""


def _mlp(out: Path) -> tuple[Path, str]:
    """Export the float MLP into the folder ``out``."""
    import torch

    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32), torch.nn.ReLU(),
                              torch.nn.Linear(32, 4)).eval()
    path = out / "mlp_float.torchscript.onnx"
    with torch.no_grad():
        torch.onnx.export(net, (torch.randn(*MLP_INPUT),), str(path), dynamo=False, opset_version=17,
                          input_names=["x"], output_names=["y"], do_constant_folding=True)
    return path, f"torch {torch.__version__} (torchscript)"


def _calibration() -> Any:
    from onnxruntime.quantization import CalibrationDataReader

    class Seeded(CalibrationDataReader):
        """Eight seeded standard-normal batches for the static quantizer's range estimates."""

        def __init__(self) -> None:
            rng = np.random.default_rng(4)
            self._batches: Iterator[dict[str, np.ndarray]] = iter(
                [{"x": rng.standard_normal(MLP_INPUT).astype(np.float32)} for _ in range(8)])

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self._batches, None)

    return Seeded()


def _quantized(out: Path, mlp: Path, describe: Describe, wanted: Callable[[str], bool]) -> list[dict[str, Any]]:
    import onnxruntime
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_dynamic, quantize_static

    producer = f"onnxruntime.quantization {onnxruntime.__version__}"
    written = []
    path = out / "mlp_dynamic.ort.onnx"
    if wanted(path.name):
        quantize_dynamic(str(mlp), str(path), weight_type=QuantType.QInt8)
        written.append(describe(path, f"{producer} (dynamic)"))
    for fmt, name in ((QuantFormat.QDQ, "mlp_qdq"), (QuantFormat.QOperator, "mlp_qoperator")):
        path = out / f"{name}.ort.onnx"
        if wanted(path.name):
            quantize_static(str(mlp), str(path), _calibration(), quant_format=fmt, activation_type=QuantType.QUInt8,
                            weight_type=QuantType.QInt8)
            written.append(describe(path, f"{producer} (static, {fmt.name})"))
    return written


def _fp16(out: Path, describe: Describe) -> dict[str, Any]:
    import onnxconverter_common
    import torch
    from onnxconverter_common import float16

    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
                              torch.nn.Conv2d(8, 8, 3, stride=2), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1),
                              torch.nn.Flatten(), torch.nn.Linear(8, 5)).eval()
    tmp = out / "conv_fp16.float32.tmp.onnx"
    with torch.no_grad():
        torch.onnx.export(net, (torch.randn(1, 3, 16, 16),), str(tmp), dynamo=False, opset_version=17,
                          input_names=["image"], do_constant_folding=True)
    half = float16.convert_float_to_float16(onnx.load(str(tmp)), keep_io_types=False)
    tmp.unlink()
    onnx.checker.check_model(half, full_check=True)
    path = out / "conv_fp16.torchscript.onnx"
    onnx.save(half, str(path))
    return describe(path, f"torch {torch.__version__} (torchscript), onnxconverter_common "
                          f"{onnxconverter_common.__version__} float16 (keep_io_types=False)")


def _onnxscript(out: Path, describe: Describe) -> dict[str, Any]:
    import onnxscript
    import real_onnxscript

    path = out / "scripted_function.onnxscript.onnx"
    onnx.save(real_onnxscript.model(), str(path))
    return describe(path, f"onnxscript {onnxscript.__version__}")


def _external(out: Path, mlp: Path, describe: Describe, producer: str) -> dict[str, Any]:
    path = out / "mlp_external.torchscript.onnx"
    onnx.save_model(onnx.load(str(mlp)), str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                    location=f"{path.name}.data", size_threshold=0)
    entry = describe(path, f"{producer}, initializers in an external file")
    entry["external_data"] = f"{path.name}.data"
    return entry


def export_misc(out: Path, describe: Describe, wanted: Callable[[str], bool]) -> list[dict[str, Any]]:
    """Export the quantized, float16, onnxscript and external-data models whose file names ``wanted`` accepts."""
    with tempfile.TemporaryDirectory() as scratch:
        base, producer = _mlp(Path(scratch))
        mlp = out / base.name
        written = []
        if wanted(mlp.name):
            shutil.copyfile(base, mlp)
            written.append(describe(mlp, producer))
        written += _quantized(out, base, describe, wanted)
        if wanted("conv_fp16.torchscript.onnx"):
            written.append(_fp16(out, describe))
        if wanted("scripted_function.onnxscript.onnx"):
            written.append(_onnxscript(out, describe))
        if wanted("mlp_external.torchscript.onnx"):
            written.append(_external(out, base, describe, producer))
    for entry in written:
        print(f"wrote {out / entry['file']}", flush=True)
    return written
