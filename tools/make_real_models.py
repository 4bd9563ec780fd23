"""Write the corpus of real exports in ``tests/data/real/``.

Real converters, small configurations, seeded random weights, nothing
downloaded. The families:

* torch.onnx with both exporters (TorchScript, ``dynamo=False``, at opset 17;
  dynamo at opset 18): MobileNetV3, ShuffleNetV2, ConvNeXt, ViT, BERT, GPT-2
  (here), and in ``tools/real_torch.py`` LSTM and GRU, a ``torch.jit.script``
  loop whose trip count is a graph input, ``torch.cond``, a small U-Net, and
  ALBERT, DistilBERT, RoBERTa and ELECTRA encoders;
* skl2onnx pipelines (here), and in ``tools/real_classic.py`` k-nearest
  neighbours, SVC, SVR, KMeans, IsolationForest, string inputs (LabelEncoder,
  a ColumnTransformer one-hot encoding a string column), a
  ``map(string -> float)`` input (DictVectorizer), and through onnxmltools a
  LightGBM classifier and an XGBoost regressor;
* in ``tools/real_misc.py``: onnxruntime.quantization (dynamic, static QDQ,
  static QOperator) of a float MLP, a float16 conv net (onnxconverter_common),
  an onnxscript model with a model-local function, and a model whose
  initializers sit in an external file (``<name>.onnx.data``).

The files are committed; this script is not run in CI. It needs its own
environment::

    python3 -m venv /tmp/real && /tmp/real/bin/pip install torch torchvision transformers onnxscript \\
        scikit-learn skl2onnx pandas lightgbm xgboost onnxmltools onnxconverter-common onnx onnxruntime
    /tmp/real/bin/python tools/make_real_models.py [--out tests/data/real] [--only FILE,...]

It writes ``<model>.<exporter>.onnx`` for each model and ``manifest.json``
(versions of the converters, opsets, operators and bytes of each file).
``--only`` rewrites just the files named (or starting with the prefixes given)
and keeps the other entries of the manifest, so that a new converter release
does not silently replace the committed exports.

``--full`` writes instead the full-size models of the real-model benchmark
(``benchmarks/bench_real_models.py``): torchvision's resnet18, squeezenet1_1,
shufflenet_v2_x0_5, mobilenet_v3_small, efficientnet_b0, regnet_x_400mf and
vit_b_16 at 1x3x224x224, and transformers' BERT-base and GPT-2 small at their
published sizes with 128 tokens, each with seeded random weights (``weights=None``,
configurations written out here: nothing is downloaded). They are too large to
commit; the default folder ``benchmarks/models/`` is ignored by git::

    /work/realenv/bin/python tools/make_real_models.py --full [--out benchmarks/models] [--only resnet18,...]

Every full export uses the TorchScript exporter at opset 17 with constant
folding, and writes ``<model>.onnx``, ``<model>.inputs.npz`` (seeded inputs)
and ``manifest.json``.

[Non-normative: PyPI's torchvision links its C extension against the CUDA
build of torch; with a CPU-only torch its import fails while registering the
``torchvision::nms`` operator. No model here needs those operators, so the
two registration modules are replaced by empty stand-ins before the import.]
"""

from __future__ import annotations

import argparse
import json
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import onnx

ROOT = Path(__file__).resolve().parents[1]


def _torchvision() -> Any:
    for name in ("torchvision._meta_registrations", "torchvision._autograd_registrations"):
        sys.modules.setdefault(name, types.ModuleType(name))
    import torchvision

    return torchvision


def torch_models() -> dict[str, tuple[Callable[[], Any], Callable[[], tuple[Any, ...]], list[str]]]:
    """name -> (model factory, example inputs as (first positional argument, keyword arguments), input names)."""
    import torch

    tv = _torchvision()  # before transformers, which imports torchvision itself
    from transformers import BertConfig, BertModel, GPT2Config, GPT2Model

    models = tv.models
    from torchvision.models.convnext import CNBlockConfig, ConvNeXt
    from torchvision.models.vision_transformer import VisionTransformer

    def image(size: int) -> Callable[[], tuple[Any, ...]]:
        return lambda: (torch.randn(1, 3, size, size), {})

    def tokens() -> tuple[Any, ...]:
        ids = torch.randint(0, 64, (1, 12))
        return ids, {"attention_mask": torch.ones(1, 12, dtype=torch.int64)}

    class Encoder(torch.nn.Module):
        """A transformers model called with keywords, returning its last hidden state (what exports trace)."""

        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            out = self.inner(input_ids=input_ids, attention_mask=attention_mask, use_cache=False)
            return out.last_hidden_state

    def bert() -> Any:
        cfg = BertConfig(vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                         intermediate_size=64, max_position_embeddings=32)
        return Encoder(BertModel(cfg))

    def gpt2() -> Any:
        return Encoder(GPT2Model(GPT2Config(vocab_size=64, n_positions=32, n_embd=32, n_layer=2, n_head=2)))

    return {
        "mobilenet_v3_small": (lambda: models.mobilenet_v3_small(num_classes=10, width_mult=0.25), image(64),
                               ["image"]),
        "shufflenet_v2": (lambda: models.shufflenet_v2_x0_5(num_classes=10), image(64), ["image"]),
        "convnext_tiny": (
            lambda: ConvNeXt([CNBlockConfig(16, 32, 1), CNBlockConfig(32, None, 1)], num_classes=10),
            image(32),
            ["image"],
        ),
        "vit_tiny": (
            lambda: VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32,
                                      mlp_dim=64, num_classes=10),
            image(32),
            ["image"],
        ),
        "bert_tiny": (bert, tokens, ["input_ids", "attention_mask"]),
        "gpt2_tiny": (gpt2, tokens, ["input_ids", "attention_mask"]),
    }


EXPORTS = {
    # model -> exporters; the TorchScript exporter at opset 17, dynamo at 18
    "mobilenet_v3_small": ("torchscript", "dynamo"),
    "shufflenet_v2": ("torchscript",),
    "convnext_tiny": ("torchscript", "dynamo"),
    "vit_tiny": ("torchscript", "dynamo"),
    "bert_tiny": ("torchscript", "dynamo"),
    "gpt2_tiny": ("torchscript", "dynamo"),
}


def export_torch(out: Path, wanted: Callable[[str], bool]) -> list[dict[str, Any]]:
    import real_torch
    import torch

    # the fused attention fast path has no ONNX export: use the composite form
    torch.backends.mha.set_fastpath_enabled(False)
    written = []
    for name, (factory, example, input_names) in torch_models().items():
        for exporter in EXPORTS[name]:
            path = out / f"{name}.{exporter}.onnx"
            if not wanted(path.name):
                continue
            torch.manual_seed(0)
            model = factory().eval()
            first, kwargs = example()
            real_torch.export_one(model, (first,), kwargs, path, exporter, input_names)
            written.append(_describe(path, f"torch {torch.__version__} ({exporter})"))
            print(f"wrote {path}", flush=True)
    return written


FULL_SEQUENCE = 128
"""Tokens per input of the full-size text models."""


def full_models() -> dict[str, tuple[Callable[[], Any], Callable[[], dict[str, np.ndarray]]]]:
    """name -> (model factory, seeded input arrays by input name) for the benchmark's full-size models."""
    tv = _torchvision()  # before transformers, which imports torchvision itself
    import torch
    from transformers import BertConfig, BertModel, GPT2Config, GPT2Model

    class Hidden(torch.nn.Module):
        """A transformers model called with keywords, returning its last hidden state."""

        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            return self.inner(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).last_hidden_state


    def image() -> dict[str, np.ndarray]:
        return {"image": np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(np.float32)}

    def tokens(vocab: int) -> Callable[[], dict[str, np.ndarray]]:
        def make() -> dict[str, np.ndarray]:
            ids = np.random.default_rng(0).integers(0, vocab, size=(1, FULL_SEQUENCE), dtype=np.int64)
            return {"input_ids": ids, "attention_mask": np.ones((1, FULL_SEQUENCE), dtype=np.int64)}

        return make

    m = tv.models
    # BERT-base and GPT-2 small: the published sizes, written out (the library defaults are these too)
    bert_cfg = dict(vocab_size=30522, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                    intermediate_size=3072, max_position_embeddings=512)
    gpt2_cfg = dict(vocab_size=50257, n_positions=1024, n_embd=768, n_layer=12, n_head=12)
    return {
        "resnet18": (lambda: m.resnet18(weights=None), image),
        "squeezenet1_1": (lambda: m.squeezenet1_1(weights=None), image),
        "shufflenet_v2_x0_5": (lambda: m.shufflenet_v2_x0_5(weights=None), image),
        "mobilenet_v3_small": (lambda: m.mobilenet_v3_small(weights=None), image),
        "efficientnet_b0": (lambda: m.efficientnet_b0(weights=None), image),
        "regnet_x_400mf": (lambda: m.regnet_x_400mf(weights=None), image),
        "vit_b_16": (lambda: m.vit_b_16(weights=None), image),
        "bert_base": (lambda: Hidden(BertModel(BertConfig(**bert_cfg))), tokens(bert_cfg["vocab_size"])),
        "gpt2_small": (lambda: Hidden(GPT2Model(GPT2Config(**gpt2_cfg))), tokens(gpt2_cfg["vocab_size"])),
    }


def export_full(out: Path, only: list[str] | None) -> list[dict[str, Any]]:
    """Export the full-size benchmark models (TorchScript exporter, opset 17), with their seeded inputs."""
    import torch

    torch.backends.mha.set_fastpath_enabled(False)
    catalogue = full_models()
    unknown = sorted(set(only or ()) - set(catalogue))
    if unknown:
        raise SystemExit(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(catalogue)}")
    written = []
    for name, (factory, make_inputs) in catalogue.items():
        if only and name not in only:
            continue
        torch.manual_seed(0)
        model = factory().eval()
        feeds = make_inputs()
        names = list(feeds)
        args = tuple(torch.from_numpy(feeds[n]) for n in names)
        path = out / f"{name}.onnx"
        with torch.no_grad():
            torch.onnx.export(model, args, str(path), dynamo=False, opset_version=17, input_names=names,
                              do_constant_folding=True)
        np.savez(out / f"{name}.inputs.npz", **feeds)
        entry = _describe(path, f"torch {torch.__version__} (torchscript)")
        entry["inputs"] = {n: [list(v.shape), str(v.dtype)] for n, v in feeds.items()}
        written.append(entry)
        print(f"wrote {path}", flush=True)
    return written


def export_sklearn(out: Path, wanted: Callable[[str], bool]) -> list[dict[str, Any]]:
    import sklearn
    from skl2onnx import to_onnx
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import GradientBoostingRegressor, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import Normalizer, StandardScaler
    from sklearn.svm import SVC

    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 6)).astype(np.float32)
    y = (x[:, 0] + x[:, 1] * x[:, 2] > 0).astype(np.int64)
    y3 = (x[:, 0] > 0.5).astype(np.int64) + (x[:, 3] > 0).astype(np.int64)
    reg = x[:, 0] * 2 - x[:, 4]
    cases: dict[str, tuple[Any, Any, dict[str, Any] | None]] = {
        "sk_scaler_logreg": (make_pipeline(StandardScaler(), LogisticRegression()), y3, {"zipmap": False}),
        "sk_scaler_logreg_zipmap": (make_pipeline(StandardScaler(), LogisticRegression()), y3, None),
        "sk_random_forest": (RandomForestClassifier(n_estimators=3, max_depth=4, random_state=0), y,
                             {"zipmap": False}),
        "sk_gradient_boosting": (GradientBoostingRegressor(n_estimators=5, max_depth=3, random_state=0), reg, None),
        "sk_normalizer_svc": (make_pipeline(Normalizer(), SVC(C=1.0, random_state=0)), y, {"zipmap": False}),
        "sk_columns": (
            make_pipeline(ColumnTransformer([("pick", StandardScaler(), [0, 2, 5])]), LogisticRegression()),
            y,
            {"zipmap": False},
        ),
    }
    written = []
    for name, (estimator, target, options) in cases.items():
        if not wanted(f"{name}.skl2onnx.onnx"):
            continue
        estimator.fit(x, target)
        kwargs: dict[str, Any] = {"target_opset": {"": 17, "ai.onnx.ml": 3}}
        if options is not None:
            kwargs["options"] = {id(estimator.steps[-1][1] if hasattr(estimator, "steps") else estimator): options}
        onx = to_onnx(estimator, x[:1], **kwargs)
        path = out / f"{name}.skl2onnx.onnx"
        onnx.save(onx, str(path))
        written.append(_describe(path, f"scikit-learn {sklearn.__version__}"))
        print(f"wrote {path}", flush=True)
    return written


def _describe(path: Path, producer: str) -> dict[str, Any]:
    m = onnx.load(str(path))
    onnx.checker.check_model(m)
    ops = sorted({(n.domain or "ai.onnx") + "::" + n.op_type for n in m.graph.node})
    return {
        "file": path.name,
        "producer": producer,
        "opsets": {i.domain or "ai.onnx": i.version for i in m.opset_import},
        "operators": ops,
        "bytes": path.stat().st_size,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--out", default=None, help="folder (default tests/data/real, with --full benchmarks/models)")
    ap.add_argument("--full", action="store_true", help="the full-size models of benchmarks/bench_real_models.py")
    ap.add_argument("--only", default="", help="comma-separated model names with --full, file names or prefixes "
                                               "otherwise (default: all)")
    args = ap.parse_args(argv)
    if args.full:
        out = Path(args.out or ROOT / "benchmarks" / "models")
        out.mkdir(parents=True, exist_ok=True)
        entries = export_full(out, [n for n in args.only.split(",") if n] or None)
        manifest_path = out / "manifest.json"
        old = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.exists() else {"models": []}
        kept = [e for e in old.get("models", []) if e["file"] not in {x["file"] for x in entries}]
        manifest = {"onnx": onnx.__version__, "models": sorted(kept + entries, key=lambda e: e["file"])}
        manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        return 0
    out = Path(args.out or ROOT / "tests" / "data" / "real")
    out.mkdir(parents=True, exist_ok=True)
    prefixes = tuple(n for n in args.only.split(",") if n)

    def wanted(file: str) -> bool:
        return not prefixes or file.startswith(prefixes)

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import real_classic
    import real_misc
    import real_torch

    entries = (export_torch(out, wanted) + real_torch.export_more_torch(out, _describe, wanted)
               + export_sklearn(out, wanted) + real_classic.export_classic(out, _describe, wanted)
               + real_misc.export_misc(out, _describe, wanted))
    manifest_path = out / "manifest.json"
    old = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.exists() else {"models": []}
    fresh = {e["file"]: e for e in entries}
    merged = [fresh.pop(e["file"], e) for e in old.get("models", [])]  # a rewritten file keeps its place
    manifest = {**old, "models": merged + list(fresh.values()), **_versions()}
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


def _versions() -> dict[str, str]:
    """The converter versions of this run (the manifest keeps the newest run's; each entry names its own)."""
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for package in ("onnx", "skl2onnx", "onnxmltools", "onnxruntime", "onnxscript", "onnxconverter-common",
                    "torch", "transformers", "scikit-learn", "lightgbm", "xgboost"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            continue
    return found


if __name__ == "__main__":
    sys.exit(main())
