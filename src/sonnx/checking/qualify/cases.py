"""The qualification test procedures: a table of cases, each with its expected verdicts and exit code.

A case names a model (a planted defect built by :mod:`.models`, or a shipped
example read from the package's copy of ``examples/``), the options of the check
(profile, engine and any other field of
:class:`~sonnx.checking.options.CheckOptions`), what the check must give, and
the TORs it verifies. The expectations are hand-written: the shipped examples'
come from ``examples/expected.json``, the planted models' are in the rows
below. A rule of the profile that a case does not list as violated, warned,
unknown or tested must be PROVED. The table is data: a feature of the check
gains its cases by adding rows (new ``options``, new statuses in ``expect``),
not code.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from ...rules.base import PROFILE_SONNX, PROFILE_STRICT
from ..options import Engine
from . import requirements as tor

SUITES = ("small", "full")
EXAMPLES_PACKAGE = "sonnx.data"
EXAMPLES_FOLDER = "examples"
"""The shipped examples and their expectations travel with the package (``sonnx/data/examples/``), a copy of
``examples/`` that a test keeps equal, so the kit runs them from a wheel as from a checkout."""


@dataclass(frozen=True)
class Expected:
    """What a case's check must give: its exit code and every verdict that is not PROVED.

    ``violated`` are rules VIOLATED with severity *error*, ``warnings`` VIOLATED
    with severity *warning*, ``unknown`` UNKNOWN, ``tested`` TESTED; every other
    verdict of the profile's rules must be PROVED. ``error``: the input must be
    refused as unusable, with no verdict. ``verified``: for an evidence case, the
    exit code ``sonnx evidence verify`` must give.
    """

    exit_code: int
    violated: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    tested: tuple[str, ...] = ()
    error: bool = False
    verified: int | None = None
    others: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Rules expected with another status, by the status's name as the report writes it (a status that a
    feature of the check adds, such as a waived finding's, gets its rows without a new field here)."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"exit_code": self.exit_code}
        if self.error:
            out["error"] = True
        else:
            out.update(violated=list(self.violated), warnings=list(self.warnings), unknown=list(self.unknown))
            if self.tested:
                out["tested"] = list(self.tested)
            out.update({status: list(rules) for status, rules in self.others.items()})
        if self.verified is not None:
            out["evidence_verify_exit_code"] = self.verified
        return out


@dataclass(frozen=True)
class Case:
    """One qualification test procedure."""

    id: str
    title: str
    model: str
    """``planted:<name>`` (a model of :mod:`.models`) or ``example:<file>`` (a shipped example)."""
    expect: Expected
    profile: str = PROFILE_SONNX
    engine: Engine = "both"
    options: Mapping[str, Any] = field(default_factory=dict)
    """Further fields of CheckOptions (``oracles``...), as the check takes them."""
    tors: tuple[str, ...] = ()
    """The TORs of the tool's behaviour this case verifies; the rules' TORs follow from ``expect``."""
    kind: str = "check"
    """``check``: run the check and compare; ``evidence``: also write a bundle and verify it."""
    files: Mapping[str, str] = field(default_factory=dict)
    """Files the check reads besides the model (an inputs file, a list the check is given), by name: their text,
    in which ``{model_sha256}`` stands for the SHA-256 of the case's model. An option whose value is one of these
    names is given the path of the written file."""
    needs: tuple[str, ...] = ()
    """Distributions the case needs besides sonnx's own dependencies (``onnxruntime``)."""
    small: bool = False
    """Part of the small suite (for CI) as well as the full one."""

    @property
    def file_name(self) -> str:
        """The name of the model file the kit writes under ``models/``."""
        return self.model.split(":", 1)[1] if self.model.startswith("example:") else f"{self.model[8:]}.onnx"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "model": f"models/{self.file_name}",
            "kind": self.kind,
            "profile": self.profile,
            "engine": self.engine,
            "options": {k: list(v) if isinstance(v, tuple) else v for k, v in self.options.items()},
            "files": {name: f"models/{self.id}.{name}" for name in self.files},
            "needs": list(self.needs),
            "suite": "small" if self.small else "full",
            "tors": list(self.tors),
            "expected": self.expect.to_json(),
        }


def _planted(name: str, title: str, expect: Expected, **kw: Any) -> Case:
    profile = kw.get("profile", PROFILE_SONNX)
    suffix = "-STRICT" if profile == PROFILE_STRICT else ""
    case_id = f"QP-PLANT-{name.upper().replace('_', '-')}{suffix}{kw.pop('tag', '')}"
    return Case(case_id, title, f"planted:{name}", expect, **kw)


_WAIVER = """schema = "sonnx-waivers/1"

[[waiver]]
id = "QW-1"
rule = "GRAPH-C2"
model_sha256 = "{model_sha256}"
scope = "qualification"
tensor = "spare"
justification = "the qualification kit's accepted finding: a spare input the harness feeds"
author = "sonnx qualify"
date = 2026-11-01
"""
"""A waivers file accepting ``unused_input``'s finding (docs/waivers.rst)."""

_DECLARED = """version = 1

[[operator]]
domain = "com.example"
name = "Mystery"
deterministic = true
inputs = { min = 1, max = 1, types = ["float"] }
outputs = { min = 1, max = 1 }
attributes = {}
"""
"""Operator declarations of ``custom_operator``'s Mystery (docs/integration.rst, operator declarations)."""

_UNKNOWN = (tor.UNKNOWN_NEVER_PASSES, tor.EXIT_CODES)
_AGREE = (tor.ENGINES_AGREE,)
E = Expected

PLANTED: tuple[Case, ...] = (
    _planted("conforming", "the conforming model proves every rule of sonnx-strict", E(0),
             profile=PROFILE_STRICT, tors=(tor.EXIT_CODES, *_AGREE), small=True),
    _planted("conforming", "the conforming model proves every rule of sonnx", E(0), tors=_AGREE),
    _planted("cycle", "a dependency cycle", E(1, ("FORMAT-ONNX", "GRAPH-ACYCLIC", "GRAPH-C3"),
             unknown=("GRAPH-DETERMINISM",)), tors=_AGREE, small=True),
    _planted("two_producers", "two operations write one tensor", E(1, ("FORMAT-ONNX", "GRAPH-C1"),
             unknown=("GRAPH-DETERMINISM",)), tors=_AGREE, small=True),
    _planted("writes_input", "an operation writes a graph input", E(1, ("FORMAT-ONNX", "GRAPH-ACYCLIC",
             "GRAPH-C1-SOURCES"), unknown=("GRAPH-DETERMINISM",)), tors=_AGREE),
    _planted("unused_input", "a graph input no operation reads", E(1, ("GRAPH-C2",)),
             tors=(tor.EXIT_CODES, *_AGREE), small=True),
    _planted("no_outputs", "a graph without outputs", E(1, ("GRAPH-OUTPUTS", "GRAPH-R1", "GRAPH-R1-TRANSITIVE"),
             ("GRAPH-R1-OUTPUTS",)), tors=_AGREE, small=True),
    _planted("dead_operation", "an operation nothing reads", E(1, ("GRAPH-R1", "GRAPH-R1-TRANSITIVE"),
             ("GRAPH-R1-OUTPUTS",)), tors=_AGREE, small=True),
    _planted("unused_initializer", "an initializer no operation reads: a warning, exit 0",
             E(0, warnings=("GRAPH-INITIALIZERS-USED",)), tors=(tor.EXIT_CODES, *_AGREE)),
    _planted("random_operator", "a non-deterministic operator feeds the output",
             E(1, ("GRAPH-R2", "GRAPH-DETERMINISM")), tors=_AGREE, small=True),
    _planted("shadowing_function", "a local function named like a standard operator",
             E(1, ("GRAPH-FUNCTION-SHADOWING",)), tors=_AGREE),
    _planted("undefined_attribute", "an attribute the operator's schema does not define",
             E(1, ("FORMAT-ONNX", "GRAPH-ATTRIBUTES"), unknown=("GRAPH-R2", "GRAPH-DETERMINISM")), tors=_AGREE),
    _planted("dynamic_shape", "a symbolic input dimension under sonnx-strict",
             E(1, ("STRICT-SHAPES",), unknown=("STRICT-BROADCAST",)), profile=PROFILE_STRICT, small=True),
    _planted("sparse_initializer", "a sparse initializer under sonnx-strict (onnx's checker refuses it too)",
             E(1, ("FORMAT-ONNX", "STRICT-SPARSE"), unknown=("OP-RANGE-FLOAT",)), profile=PROFILE_STRICT),
    _planted("missing_opset", "a custom-domain operator whose domain is not imported, under sonnx-strict",
             E(1, ("FORMAT-ONNX", "STRICT-OPERATORS", "STRICT-OPSET"), unknown=(
                 "GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-ARITY", "GRAPH-ATTRIBUTES", "STRICT-ATTRIBUTES",
                 "STRICT-BROADCAST", "OP-SHAPES", "OP-VALUE-SHAPES", "OP-RANGE-FLOAT")), profile=PROFILE_STRICT),
    _planted("negative_softmax_axis", "a Softmax over axis -1 breaks the working group's Softmax restriction",
             E(1, ("STRICT-OP-RESTRICTIONS",)), profile=PROFILE_STRICT, small=True),
    _planted("inner_dimension_mismatch", "a MatMul whose inner dimensions differ, confirmed by a run",
             E(1, ("FORMAT-ONNX", "OP-SHAPES"), unknown=("STRICT-BROADCAST",)), profile=PROFILE_STRICT, small=True),
    _planted("value_dependent_reshape", "a Reshape whose target shape is an input's value",
             E(1, ("OP-VALUE-SHAPES",), unknown=("OP-SHAPES",)), profile=PROFILE_STRICT),
    _planted("integer_division_by_zero", "an integer divisor whose declared range holds 0, confirmed by a run",
             E(1, ("OP-ERROR-DIV-ZERO",)), profile=PROFILE_STRICT, small=True),
    _planted("log_of_negative", "Log of an input declared in -1..1",
             E(1, ("OP-ERROR-LOG",), ("OP-RANGE-FLOAT",)), profile=PROFILE_STRICT),
    _planted("sqrt_of_negative", "Sqrt of an input declared in -1..1",
             E(1, ("OP-ERROR-SQRT",), ("OP-RANGE-FLOAT",)), profile=PROFILE_STRICT),
    _planted("pow_of_negative", "a negative base to the power 0.5",
             E(1, ("OP-ERROR-POW",), ("OP-RANGE-FLOAT",)), profile=PROFILE_STRICT),
    _planted("index_out_of_range", "Gather indices declared in 0..9 for 4 rows",
             E(1, ("OP-ERROR-INDEX",)), profile=PROFILE_STRICT),
    _planted("integer_overflow", "an int8 Add over the whole int8 range",
             E(1, ("OP-ERROR-INT-OVERFLOW",)), profile=PROFILE_STRICT),
    _planted("float_overflow", "Exp of an input declared in -100..100 overflows: a warning, exit 0",
             E(0, warnings=("OP-RANGE-FLOAT",)), profile=PROFILE_STRICT, tors=(tor.EXIT_CODES,)),
    _planted("custom_operator", "an operator without a schema can only be UNKNOWN: exit 2, never a pass",
             E(2, unknown=("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-ARITY", "GRAPH-ATTRIBUTES")),
             tors=(*_UNKNOWN, *_AGREE), small=True),
    _planted("unused_input", "--ignore GRAPH-C2 never makes its violation a pass: NOT CHECKED, exit 2",
             E(2, others={"NOT CHECKED": ("GRAPH-C2",)}), options={"ignore": ("GRAPH-C2",)},
             tors=(tor.UNKNOWN_NEVER_PASSES, tor.EXIT_CODES), tag="-IGNORED"),
    _planted("unused_input", "a waiver covering the unused input makes the finding WAIVED, exit 0, never PROVED",
             E(0, others={"WAIVED": ("GRAPH-C2",)}), options={"waivers": "waivers.toml", "waivers_date": "2026-11-27"},
             files={"waivers.toml": _WAIVER}, tors=(tor.EXIT_CODES,), tag="-WAIVED"),
    _planted("custom_operator", "a declared custom operator: the four rules PROVED, assuming the declarations",
             E(0), options={"operator_declarations": "declarations.toml"}, files={"declarations.toml": _DECLARED},
             tors=(tor.EXIT_CODES, *_AGREE), tag="-DECLARED"),
    _planted("not_onnx", "a text file is refused as unusable: exit 2, one line", E(2, error=True),
             tors=(tor.UNUSABLE_INPUT, tor.EXIT_CODES), small=True),
    _planted("truncated", "a protobuf record cut off inside a field is refused", E(2, error=True),
             tors=(tor.UNUSABLE_INPUT,)),
    _planted("empty", "an empty file is refused", E(2, error=True), tors=(tor.UNUSABLE_INPUT,)),
    _planted("conforming", "the bundle of a check re-verifies with sonnx evidence verify", E(0, verified=0),
             profile=PROFILE_STRICT, kind="evidence", tors=(tor.EVIDENCE_VERIFIES,), small=True, tag="-EVIDENCE"),
    _planted("unused_input", "the bundle of a violated check re-verifies too", E(1, ("GRAPH-C2",), verified=0),
             kind="evidence", tors=(tor.EVIDENCE_VERIFIES,), tag="-EVIDENCE"),
    _planted("conforming", "the executor agrees with onnxruntime on the conforming model: TESTED",
             E(0, tested=("EXEC-CROSSCHECK-ONNXRUNTIME",)), options={"oracles": ("onnxruntime",)},
             needs=("onnxruntime",), tors=(tor.CROSSCHECK_TESTED,), small=True, tag="-CROSSCHECK"),
    _planted("conforming", "the executor agrees with onnxruntime on input values given in a JSON file",
             E(0, tested=("EXEC-CROSSCHECK-ONNXRUNTIME",)), options={"oracles": ("onnxruntime",), "inputs": "x.json"},
             files={"x.json": '{"x": {"data": [[0.5, -1.0, 2.0, 0.25]], "dtype": "float32"}}\n'},
             needs=("onnxruntime",), tors=(tor.CROSSCHECK_TESTED,), tag="-CROSSCHECK-INPUTS"),
)
"""The planted-defect cases (see :mod:`.models` for each model)."""


def example_cases() -> tuple[Case, ...]:
    """One case per row of the shipped examples' expectations (``examples/expected.json``), engine ``auto``."""
    text = resources.files(EXAMPLES_PACKAGE).joinpath(EXAMPLES_FOLDER, "expected.json").read_text("utf-8")
    out = []
    for row in json.loads(text)["cases"]:
        stem = row["model"].removesuffix(".onnx").upper().replace("_", "-")
        suffix = "-STRICT" if row["profile"] == PROFILE_STRICT else ""
        expect = Expected(row["exit_code"], tuple(row["violated"]), tuple(row["warnings"]), tuple(row["unknown"]))
        exit_tor = (tor.UNKNOWN_NEVER_PASSES,) if row["unknown"] and row["exit_code"] else ()
        title = f"shipped example {row['model']} under {row['profile']}"
        out.append(Case(f"QP-EXAMPLE-{stem}{suffix}", title, f"example:{row['model']}", expect,
                        profile=row["profile"], engine="auto", tors=(tor.EXIT_CODES, *exit_tor)))
    return tuple(out)


def suite(name: str) -> tuple[Case, ...]:
    """The cases of the ``small`` suite (for CI) or of the ``full`` one (every case), in table order."""
    cases = (*PLANTED, *example_cases())
    if name == "full":
        return cases
    if name == "small":
        return tuple(c for c in cases if c.small)
    raise ValueError(name)


def rule_tors(case: Case, profile_rules: tuple[str, ...]) -> tuple[str, ...]:
    """The rules' TORs a case verifies: a rule it expects VIOLATED, or PROVED on a model where every rule holds.

    A case verifies the PROVED side of a rule's TOR only when it expects every
    rule of its profile PROVED, so that a check that proves too much elsewhere
    cannot pass it.
    """
    e = case.expect
    if e.error:
        return ()
    broken = (*e.violated, *e.warnings)
    if not broken and not e.unknown:
        return tuple(tor.rule_tor_id(r) for r in profile_rules)
    return tuple(tor.rule_tor_id(r) for r in profile_rules if r in broken)
