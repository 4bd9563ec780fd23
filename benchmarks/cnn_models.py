"""Classic CNN models with random weights, built with onnx.helper (no download).

``resnet50_like``, ``vgg_like`` and ``mobilenet_like`` follow the layer
structure of ResNet-50 (bottleneck blocks 3-4-6-3), VGG-11 and MobileNet v1
(depthwise-separable blocks, ReLU6 as Clip); weights are seeded random (He
scaling, so activations stay finite), BatchNormalization is kept as its own
operation. Used by the executor benchmark, and by tests and issues that need
realistic models (cross-checks, rewrites, partitions).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR_VERSION = 8


class _Builder:
    """Accumulates nodes and initializers with generated names."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.count = 0

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def const(self, prefix: str, value: np.ndarray) -> str:
        n = self.name(prefix)
        self.inits.append(numpy_helper.from_array(value.astype(np.float32), n))
        return n

    def node(self, op: str, inputs: list[str], **attrs: object) -> str:
        out = self.name(op.lower() + "_")
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def conv(self, x: str, cin: int, cout: int, k: int, stride: int = 1, group: int = 1, bias: bool = False) -> str:
        fan_in = (cin // group) * k * k
        w = self.rng.standard_normal((cout, cin // group, k, k)) * np.sqrt(2.0 / fan_in)
        inputs = [x, self.const("w", w)]
        if bias:
            inputs.append(self.const("b", 0.01 * self.rng.standard_normal(cout)))
        p = k // 2
        return self.node("Conv", inputs, kernel_shape=[k, k], strides=[stride, stride], pads=[p, p, p, p], group=group)

    def bn(self, x: str, c: int) -> str:
        scale = self.const("gamma", 1.0 + 0.1 * self.rng.standard_normal(c))
        bias = self.const("beta", 0.1 * self.rng.standard_normal(c))
        mean = self.const("mean", 0.1 * self.rng.standard_normal(c))
        var = self.const("var", 1.0 + 0.1 * np.abs(self.rng.standard_normal(c)))
        return self.node("BatchNormalization", [x, scale, bias, mean, var], epsilon=1e-5)

    def relu(self, x: str) -> str:
        return self.node("Relu", [x])

    def relu6(self, x: str) -> str:
        lo = self.const("lo", np.array(0.0))
        hi = self.const("hi", np.array(6.0))
        return self.node("Clip", [x, lo, hi])

    def head(self, x: str, c: int, classes: int) -> str:
        g = self.node("GlobalAveragePool", [x])
        f = self.node("Flatten", [g], axis=1)
        w = self.const("fc_w", self.rng.standard_normal((classes, c)) * np.sqrt(1.0 / c))
        b = self.const("fc_b", np.zeros(classes))
        y = self.node("Gemm", [f, w, b], transB=1)
        return self.node("Softmax", [y], axis=1)

    def model(self, name: str, x_shape: list[int], out: str, classes: int) -> onnx.ModelProto:
        self.nodes[-1].output[0] = "probabilities"
        for n in self.nodes:
            for k, i in enumerate(n.input):
                if i == out:
                    n.input[k] = "probabilities"
        g = helper.make_graph(
            self.nodes,
            name,
            [helper.make_tensor_value_info("image", TensorProto.FLOAT, x_shape)],
            [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [x_shape[0], classes])],
            initializer=self.inits,
        )
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="sonnx-benchmarks")
        m.ir_version = IR_VERSION
        return m


def resnet50_like(size: int = 224, classes: int = 1000, seed: int = 0) -> onnx.ModelProto:
    """ResNet-50 layout: 7x7 stem, max pool, bottleneck stages of 3, 4, 6, 3 blocks."""
    b = _Builder(seed)
    x = b.relu(b.bn(b.conv("image", 3, 64, 7, stride=2), 64))
    x = b.node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for stage, (blocks, width) in enumerate([(3, 64), (4, 128), (6, 256), (3, 512)]):
        for k in range(blocks):
            stride = 2 if (k == 0 and stage > 0) else 1
            cout = width * 4
            y = b.relu(b.bn(b.conv(x, cin, width, 1), width))
            y = b.relu(b.bn(b.conv(y, width, width, 3, stride=stride), width))
            y = b.bn(b.conv(y, width, cout, 1), cout)
            shortcut = x if (k > 0) else b.bn(b.conv(x, cin, cout, 1, stride=stride), cout)
            x = b.relu(b.node("Add", [y, shortcut]))
            cin = cout
    out = b.head(x, cin, classes)
    return b.model("resnet50_like", [1, 3, size, size], out, classes)


def vgg_like(size: int = 224, classes: int = 1000, seed: int = 1) -> onnx.ModelProto:
    """VGG-11 layout: 3x3 convolutions with ReLU, five max pools, then a classifier."""
    b = _Builder(seed)
    x, cin = "image", 3
    for spec in [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]:
        if spec == "M":
            x = b.node("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
        else:
            assert isinstance(spec, int)
            x = b.relu(b.conv(x, cin, spec, 3, bias=True))
            cin = spec
    out = b.head(x, cin, classes)
    return b.model("vgg_like", [1, 3, size, size], out, classes)


def mobilenet_like(size: int = 224, classes: int = 1000, seed: int = 2, width: float = 0.5) -> onnx.ModelProto:
    """MobileNet v1 layout at a width multiplier: depthwise-separable blocks with ReLU6 (Clip)."""
    b = _Builder(seed)

    def ch(c: int) -> int:
        return max(8, int(c * width))

    cin = ch(32)
    x = b.relu6(b.bn(b.conv("image", 3, cin, 3, stride=2), cin))
    for cout, stride in [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + [
        (1024, 2),
        (1024, 1),
    ]:
        x = b.relu6(b.bn(b.conv(x, cin, cin, 3, stride=stride, group=cin), cin))
        c = ch(cout)
        x = b.relu6(b.bn(b.conv(x, cin, c, 1), c))
        cin = c
    out = b.head(x, cin, classes)
    return b.model("mobilenet_like", [1, 3, size, size], out, classes)


MODELS: dict[str, Callable[[], onnx.ModelProto]] = {
    "resnet50_like": resnet50_like,
    "vgg_like": vgg_like,
    "mobilenet_like": mobilenet_like,
}
