"""The torch families of the real-export corpus beyond the first image and text models.

Recurrent nets (LSTM, GRU), a ``torch.jit.script`` loop whose trip count is a
graph input, ``torch.cond`` (an ``If`` node), a small U-Net-like segmentation
net, and tiny ALBERT, DistilBERT, RoBERTa and ELECTRA encoders (vocabulary 64,
hidden size 32, two layers). Every model has seeded weights and is small
enough to commit; ``tools/make_real_models.py`` calls :func:`export_more_torch`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

Example = Callable[[], tuple[tuple[Any, ...], dict[str, Any]]]
"""Seeded example inputs: (positional arguments, keyword arguments)."""


def _recurrent(torch: Any, cell: str) -> Any:
    class Recurrent(torch.nn.Module):
        """A one-layer recurrent net over a [batch, time, features] sequence and a linear head."""

        def __init__(self) -> None:
            super().__init__()
            self.rnn = getattr(torch.nn, cell)(8, 16, batch_first=True)
            self.head = torch.nn.Linear(16, 4)

        def forward(self, sequence: Any) -> Any:
            hidden, _ = self.rnn(sequence)
            return self.head(hidden)

    return Recurrent()


def _loop(torch: Any) -> Any:
    class Iterate(torch.nn.Module):
        """Applies an affine step ``steps`` times: the ONNX Loop's trip count is the input ``steps``."""

        def __init__(self) -> None:
            super().__init__()
            self.step = torch.nn.Linear(4, 4)

        def forward(self, x: torch.Tensor, steps: torch.Tensor) -> torch.Tensor:
            y = x
            for _ in range(int(steps)):
                y = torch.tanh(self.step(y))
            return y

    return torch.jit.script(Iterate())


def _cond(torch: Any) -> Any:
    class Branch(torch.nn.Module):
        """Scales or shifts its input depending on the sign of its sum (``torch.cond``, an ONNX If)."""

        def forward(self, x: Any) -> Any:
            return torch.cond(x.sum() > 0, lambda t: t * 2.0 + 1.0, lambda t: torch.relu(t) - 1.0, (x,))

    return Branch()


def _unet(torch: Any) -> Any:
    nn = torch.nn

    class TinyUNet(torch.nn.Module):
        """Two levels down, back up by a transposed convolution and a resize, with skip concatenations."""

        def __init__(self) -> None:
            super().__init__()
            self.enc1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
            self.enc2 = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.ReLU())
            self.mid = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())
            self.up2 = nn.ConvTranspose2d(16, 16, 2, stride=2)
            self.dec2 = nn.Sequential(nn.Conv2d(32, 8, 3, padding=1), nn.ReLU())
            self.dec1 = nn.Sequential(nn.Conv2d(16, 8, 3, padding=1), nn.ReLU())
            self.classes = nn.Conv2d(8, 3, 1)

        def forward(self, image: Any) -> Any:
            e1 = self.enc1(image)
            e2 = self.enc2(e1)
            m = self.mid(e2)
            d2 = self.dec2(torch.cat([self.up2(m), e2], dim=1))
            up = torch.nn.functional.interpolate(d2, scale_factor=2.0, mode="bilinear", align_corners=False)
            return self.classes(self.dec1(torch.cat([up, e1], dim=1)))

    return TinyUNet()


def _encoder(torch: Any, inner: Any, with_types: bool) -> Any:
    class Hidden(torch.nn.Module):
        """A transformers encoder called with keywords, returning its last hidden state."""

        def __init__(self) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any = None) -> Any:
            kwargs = {"token_type_ids": token_type_ids} if with_types else {}
            return self.inner(input_ids=input_ids, attention_mask=attention_mask, **kwargs).last_hidden_state

    return Hidden()


def more_torch_models() -> dict[str, tuple[Callable[[], Any], Example, list[str], tuple[str, ...]]]:
    """name -> (model factory, example inputs, input names, exporters)."""
    import torch
    from transformers import (
        AlbertConfig,
        AlbertModel,
        DistilBertConfig,
        DistilBertModel,
        ElectraConfig,
        ElectraModel,
        RobertaConfig,
        RobertaModel,
    )

    def seq() -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (torch.randn(1, 5, 8),), {}

    def loop_inputs() -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (torch.randn(1, 4), torch.tensor(3, dtype=torch.int64)), {}

    def tokens(types: bool) -> Example:
        def make() -> tuple[tuple[Any, ...], dict[str, Any]]:
            ids = torch.randint(3, 64, (1, 12))
            kwargs = {"attention_mask": torch.ones(1, 12, dtype=torch.int64)}
            if types:
                kwargs["token_type_ids"] = torch.randint(0, 2, (1, 12))
            return (ids,), kwargs

        return make

    small = dict(vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64)
    text = ["input_ids", "attention_mask"]
    both = ("torchscript", "dynamo")
    return {
        "lstm_tiny": (lambda: _recurrent(torch, "LSTM"), seq, ["sequence"], ("torchscript",)),
        "gru_tiny": (lambda: _recurrent(torch, "GRU"), seq, ["sequence"], ("torchscript",)),
        "loop_tripcount": (lambda: _loop(torch), loop_inputs, ["x", "steps"], ("torchscript",)),
        "cond_branch": (lambda: _cond(torch), lambda: ((torch.randn(2, 3),), {}), ["x"], ("dynamo",)),
        "unet_tiny": (lambda: _unet(torch), lambda: ((torch.randn(1, 3, 32, 32),), {}), ["image"], both),
        "albert_tiny": (
            lambda: _encoder(torch, AlbertModel(AlbertConfig(embedding_size=16, type_vocab_size=2,
                                                             max_position_embeddings=32, **small)), True),
            tokens(True), [*text, "token_type_ids"], both),
        "distilbert_tiny": (
            lambda: _encoder(torch, DistilBertModel(DistilBertConfig(vocab_size=64, dim=32, n_layers=2, n_heads=2,
                                                                     hidden_dim=64, max_position_embeddings=32)),
                             False),
            tokens(False), text, both),
        "roberta_tiny": (
            lambda: _encoder(torch, RobertaModel(RobertaConfig(max_position_embeddings=40, type_vocab_size=1,
                                                               **small)), False),
            tokens(False), text, both),
        "electra_tiny": (
            lambda: _encoder(torch, ElectraModel(ElectraConfig(embedding_size=16, max_position_embeddings=32,
                                                               **small)), False),
            tokens(False), text, both),
    }


SAVED_INPUTS = ("albert_tiny", "loop_tripcount")
"""Models whose example inputs are also written to ``inputs/<model>.npz``: their integer inputs have a domain
that inputs drawn at random miss (token type ids index a two-row table; a trip count drawn in [-10, 10] is
often zero or negative, and the loop body then never runs)."""


def export_one(model: Any, args: tuple[Any, ...], kwargs: dict[str, Any], path: Path, exporter: str,
               input_names: list[str]) -> None:
    """Export ``model`` to ``path``: the TorchScript exporter at opset 17 with constant folding, or dynamo at 18."""
    import torch

    with torch.no_grad():
        if exporter == "torchscript":
            torch.onnx.export(model, args, str(path), kwargs=kwargs, dynamo=False, opset_version=17,
                              input_names=input_names, do_constant_folding=True)
        else:
            program = torch.onnx.export(model, args, kwargs=kwargs, dynamo=True, opset_version=18,
                                        input_names=input_names, optimize=True)
            program.save(str(path))


def export_more_torch(out: Path, describe: Callable[[Path, str], dict[str, Any]],
                      wanted: Callable[[str], bool]) -> list[dict[str, Any]]:
    """Export every model of :func:`more_torch_models` (TorchScript at opset 17, dynamo at 18)."""
    import torch

    torch.backends.mha.set_fastpath_enabled(False)
    written = []
    for name, (factory, example, input_names, exporters) in more_torch_models().items():
        for exporter in exporters:
            path = out / f"{name}.{exporter}.onnx"
            if not wanted(path.name):
                continue
            torch.manual_seed(0)
            model = factory().eval()
            args, kwargs = example()
            export_one(model, tuple(args), kwargs, path, exporter, input_names)
            written.append(describe(path, f"torch {torch.__version__} ({exporter})"))
            print(f"wrote {path}", flush=True)
            if name in SAVED_INPUTS:
                (out / "inputs").mkdir(exist_ok=True)
                values = dict(zip(input_names, [*args, *kwargs.values()], strict=True))
                np.savez(out / "inputs" / f"{name}.npz", **{k: v.numpy() for k, v in values.items()})
    return written
