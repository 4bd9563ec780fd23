"""Model-local functions (``ModelProto.functions``) and operator-set imports.

Each ``FunctionProto`` becomes a :class:`~sonnx.model.Function` whose body is
a :class:`~sonnx.model.Graph` with the formal inputs and outputs as its
inputs and outputs. Inside the body, an attribute that refers to a formal
attribute (``ref_attr_name``) is kept as a reference (see
:class:`~sonnx.loader.attributes.AttributeRef`); inlining resolves it.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import onnx

from ..base.errors import ModelFormatError, UnsupportedModelError
from ..model.graph import Function
from .attributes import normalise_domain
from .convert import GraphConverter
from .inline import FnKey, LocalFunction, qualified_name

MAX_AI_ONNX_OPSET = int(onnx.defs.onnx_opset_version())
"""The newest ``ai.onnx`` operator set the installed ``onnx`` knows."""


def opset_map(entries: Any, display: str, where: str) -> dict[str, int]:
    """Domain -> version of ``OperatorSetIdProto`` entries, ``ai.onnx`` spelled ``""``.

    The default domain must be at a version ``onnx`` knows (1 to
    :data:`MAX_AI_ONNX_OPSET`); other domains are recorded at any version.
    One domain imported at two different versions is contradictory.
    """
    out: dict[str, int] = {}
    for e in entries:
        domain = normalise_domain(e.domain)
        version = int(e.version)
        shown = domain or "ai.onnx"
        if domain in out and out[domain] != version:
            raise ModelFormatError(
                f"{display}: {where} imports domain {shown!r} twice, at versions {out[domain]} and {version}"
            )
        if domain == "" and not 1 <= version <= MAX_AI_ONNX_OPSET:
            raise UnsupportedModelError(
                f"{display}: {where} imports ai.onnx opset {version}; this tool knows opsets 1 to {MAX_AI_ONNX_OPSET}"
            )
        out[domain] = version
    return out


def collect_functions(functions: Any, converter: GraphConverter, display: str) -> list[LocalFunction]:
    """Convert every ``FunctionProto``; two definitions under one key are rejected as ambiguous."""
    out: list[LocalFunction] = []
    seen: dict[FnKey, int] = {}
    for position, fp in enumerate(functions):
        domain = normalise_domain(fp.domain)
        overload = fp.overload
        key: FnKey = (domain, fp.name, overload)
        if key in seen:
            raise ModelFormatError(
                f"{display}: model-local function {qualified_name(key)!r} is defined twice"
                f" (entries {seen[key]} and {position})"
            )
        seen[key] = position
        opsets = opset_map(fp.opset_import, display, f"function {qualified_name(key)!r}")
        body, defaults = converter.convert_function(fp)
        names = tuple(fp.attribute) + tuple(a.name for a in fp.attribute_proto)
        function = Function(
            domain=domain,
            name=fp.name,
            body=body,
            attribute_names=names,
            opset_imports=MappingProxyType(opsets),
            overload=overload,
            attribute_defaults=defaults,
        )
        out.append(LocalFunction(key, function, defaults))
    return out


def check_function_opsets(functions: list[LocalFunction], model_opsets: dict[str, int], display: str) -> None:
    """Refuse a function whose own operator-set imports give one of its operations another schema.

    A function's body is inlined into graphs that run under the model's
    operator sets. Where a function imports a domain at another version than
    the model, an operation of the body whose schema differs between the two
    versions would change meaning when inlined (a Dropout of opset 6, whose
    mode is its is_test attribute, read as a Dropout of opset 17). ONNX's
    checker refuses such a model; so does sonnx (exit 2), naming the
    operation and both schema versions.
    """
    for lf in functions:
        fn = lf.function
        for domain, version in fn.opset_imports.items():
            model_version = model_opsets.get(domain)
            if model_version is None or model_version == version:
                continue
            for _path, graph in fn.body.nested():
                for op in graph.operations:
                    if op.domain != domain:
                        continue
                    try:
                        mine = onnx.defs.get_schema(op.operator, version, domain).since_version
                        theirs = onnx.defs.get_schema(op.operator, model_version, domain).since_version
                    except onnx.defs.SchemaError:
                        continue  # an unknown operator is the rules' finding, not an opset clash
                    if mine != theirs:
                        shown = domain or "ai.onnx"
                        raise UnsupportedModelError(
                            f"{display}: function {qualified_name(lf.key)!r} imports {shown} {version}, the model "
                            f"{model_version}: its {op.operator} would be version {mine} in the function and "
                            f"{theirs} once inlined (ONNX's checker refuses this too)"
                        )
