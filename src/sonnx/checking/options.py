"""The options of one check, as one immutable record validated when it is made.

Every way into the check pipeline builds a :class:`CheckOptions`: the command
line (``sonnx-check`` and ``sonnx check``) from its arguments, the evidence
verifier from a bundle's recorded options, the Python API from keywords. A
record that exists is consistent: every combination the pipeline cannot honour
(``--operators`` outside the strict profile, ``--smt-dir`` without the SMT
engine, ``--structure-only`` with an option that executes the model...) is
refused here, as a :class:`~sonnx.base.errors.UsageError` (exit 2), before any
model is read.

The record also knows how it is written down: :meth:`CheckOptions.recorded`
is the ``options`` object of an evidence bundle's manifest,
:meth:`CheckOptions.from_recorded` reads it back for a replay, and
:meth:`CheckOptions.command_line` rebuilds the ``sonnx-check`` command that
the options stand for.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast
from urllib.parse import urlsplit

from ..base.errors import UsageError
from ..differential.names import ORACLES
from ..differential.tolerance import Tolerance
from ..rules import PROFILE_SONNX, PROFILE_STRICT, PROFILES, CheckConfig
from ..rules.declarations import Declarations, read_declarations
from ..rules.shapes_terms import DimRange, check_range, dims_text
from .option_values import (
    RECORDED_KEYS,
    InputRange,
    check_input_ranges,
    recorded_later,
    strings_or_none,
)
from .selection import check_selectors


def _refuse_training(operators: frozenset[tuple[str, str]]) -> None:
    """A UsageError when the operator set of ``--operators`` names an operator used only for training.

    The table of such operators is STRICT-OPERATORS' data, imported here and
    not with this module: ``--operators`` applies to the strict profile only,
    whose check imports that rule anyway."""
    from ..rules.strict_operators import training_operators

    training = training_operators(operators)
    if training:
        raise UsageError(
            f"--operators: {', '.join(training[:5])} is used only for training, which no SONNX operator set "
            "may contain (REQ-OP-020)"
        )


Engine = Literal["auto", "direct", "smt", "both"]
ENGINES: tuple[Engine, ...] = ("auto", "direct", "smt", "both")

MAX_SEED = 2**63
"""Seeds run from 0 to 2**63 - 1 (NumPy's generators take no negative seed)."""


def check_seed(value: object) -> int:
    """``value`` when it is a seed (an integer, not a bool, below :data:`MAX_SEED`); otherwise a UsageError."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_SEED:
        raise UsageError(f"invalid seed {value!r}: expected an integer from 0 to 2**63 - 1")
    return value

MAX_ORDERS = 10_000
"""The most schedules ``--orders`` runs: each is a whole execution of the model, so the bound keeps a
check (and the replay of a bundle that records its options) finite in time."""

TOLERANCE_KEYS = ("atol", "rtol", "ulp", "quant_steps")
"""The keys of the recorded ``tolerance`` (those of :meth:`Tolerance.to_json`), in order; ``quant_steps`` is
bounded by :data:`sonnx.differential.quant.MAX_QUANT_STEPS` when the record is read back. A named policy adds
the key ``policy`` after them; a record without it (every bundle written before policies had names) reads as
the default policy."""


def operator_pair(item: str) -> tuple[str, str]:
    """``[domain:]Operator`` as ``(domain, operator)``; ``ai.onnx`` and no domain are both ``""``."""
    domain, _, name = item.rpartition(":")
    return ("" if domain in ("", "ai.onnx") else domain), name


def check_docs_url(url: str) -> str:
    """``url`` if it is an absolute http(s) or file URL (the base of the documentation site), else a UsageError."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https", "file") or (parts.scheme != "file" and not parts.netloc):
        raise UsageError(f"--docs-url {url!r}: expected an absolute http(s):// or file:// URL of the docs site")
    if parts.query or parts.fragment:
        raise UsageError(f"--docs-url {url!r}: the base URL may have no query or fragment")
    return url


def operator_names(pairs: frozenset[tuple[str, str]]) -> list[str]:
    """The operator set written back as sorted ``[domain:]Operator`` strings."""
    return sorted(f"{d}:{n}" if d else n for d, n in pairs)


@dataclass(frozen=True)
class CheckOptions:
    """Everything that decides what one check does; see the module text.

    ``operators`` is the strict profile's operator set (None: the built-in
    list). ``engine`` chooses the decision procedures (``auto``: both up to
    :data:`sonnx.checking.proofs.SMT_AUTO_LIMIT` operations, the direct one above).
    ``orders`` adds that many seeded random schedules, ``oracles`` the
    cross-checks with those runtimes under ``tolerance`` (with its
    ``quant_steps``, a tolerance in quantization steps on the outputs a
    quantizing operation writes); both run on the
    values of ``inputs`` (an ``.npz`` file) or drawn with ``seed``.
    ``evidence`` names the directory of the evidence bundle, ``sign`` the
    Ed25519 private key that signs it (a path, not part of what the bundle
    records: it decides who vouches for the check, not what the check does);
    ``docs_url`` is the base URL of the documentation site that the bundle's
    page links each rule ID to (recorded in the manifest; None: no links).
    ``required_metadata`` lists the ``metadata_props`` keys STRICT-METADATA
    requires (None: its default list; strict profile only). ``jobs`` is the
    number of processes that solve the SMT obligations (None: every core this
    process may use); it changes how soon the proofs end, never what they
    say, so a bundle records neither it nor its command line's ``--jobs``.
    """

    profile: str = PROFILE_SONNX
    operators: frozenset[tuple[str, str]] | None = None
    engine: Engine = "auto"
    smt_dir: str | None = None
    structure_only: bool = False
    seed: int = 0
    orders: int = 0
    inputs: str | None = None
    oracles: tuple[str, ...] = ()
    tolerance: Tolerance = field(default_factory=Tolerance)
    evidence: str | None = None
    evidence_timestamp: bool = False
    sign: str | None = None
    docs_url: str | None = None
    required_metadata: tuple[str, ...] | None = None
    jobs: int | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    waivers: str | None = None
    waivers_date: str | None = None
    """``select``/``ignore``: the rule selection (:mod:`sonnx.checking.selection`; None: every rule);
    ``waivers``: the waivers file (:mod:`sonnx.checking.waivers`), judged on ``waivers_date`` (YYYY-MM-DD;
    today's UTC date when not given)."""
    operator_declarations: str | None = None
    """The path of the user's declarations of custom operators (:mod:`sonnx.rules.declarations`), or None."""
    declarations: Declarations | None = field(default=None, compare=False, repr=False)
    """The file of ``operator_declarations`` as read when the record was made (read once; not an option)."""
    dims: tuple[DimRange, ...] = ()
    """The domains of symbolic input dimensions OP-SHAPES proves over (``--dims``; strict profile only)."""
    input_ranges: tuple[InputRange, ...] | None = None
    """The element ranges declared for graph inputs (``--input-range``), assumptions of the error-condition rules
    of spec/operators.rst section 5 (strict profile only); None: none declared."""

    def __post_init__(self) -> None:
        if self.profile not in PROFILES:
            raise UsageError(f"--profile: unknown profile {self.profile!r} (known: {', '.join(PROFILES)})")
        if self.operators is not None and self.profile != PROFILE_STRICT:
            raise UsageError("--operators only applies with --profile sonnx-strict")
        if self.operators is not None:
            _refuse_training(self.operators)
        if self.required_metadata is not None:
            if self.profile != PROFILE_STRICT:
                raise UsageError("--required-metadata only applies with --profile sonnx-strict")
            bad = [k for k in self.required_metadata if not isinstance(k, str) or not k or k != k.strip()]
            if bad:
                raise UsageError(f"--required-metadata: {bad[0]!r} is not a metadata key")
        if self.dims:
            if self.profile != PROFILE_STRICT:
                raise UsageError("--dims only applies with --profile sonnx-strict (rule OP-SHAPES)")
            for item in self.dims:
                if not isinstance(item, tuple) or len(item) != 3:
                    raise UsageError(f"--dims: {item!r} is not a (name, least, greatest) domain")
                check_range(*item)
            if len({n for n, _, _ in self.dims}) != len(self.dims):
                raise UsageError("--dims: a dimension is given twice")
        if self.input_ranges is not None:
            if self.profile != PROFILE_STRICT:
                raise UsageError("--input-range only applies with --profile sonnx-strict")
            check_input_ranges(self.input_ranges)
        if self.engine not in ENGINES:
            raise UsageError(f"--engine: unknown engine {self.engine!r} (known: {', '.join(ENGINES)})")
        if self.smt_dir and self.engine == "direct":
            raise UsageError("--smt-dir needs --engine smt or both")
        check_seed(self.seed)
        if isinstance(self.orders, bool) or not isinstance(self.orders, int) or not 0 <= self.orders <= MAX_ORDERS:
            raise UsageError(f"--orders must be an integer from 0 to {MAX_ORDERS:,}")
        unknown = [o for o in self.oracles if o not in ORACLES]
        if unknown:
            raise UsageError(f"--cross-check: unknown oracle {unknown[0]!r} (known: {', '.join(ORACLES)})")
        if len(set(self.oracles)) != len(self.oracles):
            raise UsageError("--cross-check: an oracle is named twice")
        if self.structure_only and (self.orders or self.oracles):
            flag = "--orders" if self.orders else "--cross-check"
            raise UsageError(f"{flag} executes the model, which reads its weights; --structure-only never reads them")
        if not self.oracles and self.tolerance != Tolerance():
            raise UsageError("--tolerance, --atol, --rtol, --ulp and --quant-steps apply to --cross-check")
        if self.evidence_timestamp and self.evidence is None:
            raise UsageError("--evidence-timestamp applies to --evidence")
        if self.sign is not None:
            if self.evidence is None:
                raise UsageError("--sign applies to --evidence")
            if not isinstance(self.sign, str) or not self.sign:
                raise UsageError(f"--sign {self.sign!r}: expected the path of an Ed25519 private key file")
        if self.docs_url is not None:
            if self.evidence is None:
                raise UsageError("--docs-url applies to SARIF output and to --evidence")
            check_docs_url(self.docs_url)
        if self.jobs is not None and (isinstance(self.jobs, bool) or not isinstance(self.jobs, int) or self.jobs < 1):
            raise UsageError(f"--jobs {self.jobs!r}: the number of solver processes must be at least 1")
        self._check_selection_waivers_declarations()

    def _check_selection_waivers_declarations(self) -> None:
        for flag, value in (("--select", self.select), ("--ignore", self.ignore)):
            if value is not None and (not isinstance(value, tuple) or not all(isinstance(x, str) for x in value)):
                raise UsageError(f"{flag}: expected a tuple of rule IDs or prefixes")
        if self.select is not None and not self.select:
            raise UsageError("--select: name at least one rule ID or prefix")
        check_selectors(self.profile, self.select, self.ignore)
        if self.waivers is not None and (not isinstance(self.waivers, str) or not self.waivers):
            raise UsageError(f"--waivers {self.waivers!r}: expected the path of a waivers file")
        if self.waivers_date is not None:
            if self.waivers is None:
                raise UsageError("--waivers-date applies to --waivers")
            try:
                dt.date.fromisoformat(self.waivers_date)
                ok = len(self.waivers_date) == 10
            except (TypeError, ValueError):
                ok = False
            if not ok:
                raise UsageError(f"--waivers-date {self.waivers_date!r}: expected a date YYYY-MM-DD")
        elif self.waivers is not None:
            object.__setattr__(self, "waivers_date", dt.datetime.now(dt.UTC).date().isoformat())
        if self.operator_declarations is None:
            if self.declarations is not None:
                raise UsageError("operator declarations are read from their file: give operator_declarations=PATH")
        elif self.declarations is None:
            if not isinstance(self.operator_declarations, str) or not self.operator_declarations:
                raise UsageError(f"--operator-declarations {self.operator_declarations!r}: expected a file path")
            object.__setattr__(self, "declarations", read_declarations(self.operator_declarations))

    @property
    def read_weights(self) -> bool:
        return not self.structure_only

    def rules_config(self) -> CheckConfig:
        """What the rules themselves read: the profile and its operator set."""
        return CheckConfig(
            profile=self.profile,
            allowed_operators=self.operators,
            required_metadata=self.required_metadata,
            read_weights=self.read_weights,
            declarations=self.declarations,
            dims=self.dims,
            input_ranges=self.input_ranges,
        )

    def recorded(self) -> dict[str, Any]:
        """The options as an evidence bundle records them (the inputs file by its name only)."""
        return {
            "profile": self.profile,
            "operators": None if self.operators is None else operator_names(self.operators),
            "engine": self.engine,
            "structure_only": self.structure_only,
            "seed": self.seed,
            "orders": self.orders,
            "inputs": None if self.inputs is None else Path(self.inputs).name,
            "cross_check": list(self.oracles),
            "tolerance": self.tolerance.to_json(),
            "required_metadata": None if self.required_metadata is None else list(self.required_metadata),
        } | self._recorded_later_keys()

    def _recorded_later_keys(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.select is not None or self.ignore:
            out |= {"select": None if self.select is None else list(self.select), "ignore": list(self.ignore)}
        if self.waivers is not None:
            out |= {"waivers": Path(self.waivers).name, "waivers_date": self.waivers_date}
        if self.operator_declarations is not None:
            out |= {"operator_declarations": Path(self.operator_declarations).name}
        if self.dims:
            out |= {"dims": [list(d) for d in self.dims]}
        if self.input_ranges is not None:
            out |= {"input_ranges": [list(r) for r in self.input_ranges]}
        return out

    @classmethod
    def from_recorded(
        cls, data: Any, inputs: str | None, *, waivers: str | None = None, declarations: str | None = None
    ) -> CheckOptions:
        """The options a bundle recorded, to replay the check (``inputs``: the bundled copy of the inputs file;
        ``declarations``: that of the operator declarations file, recorded only when one was given).

        The record must have exactly the keys :meth:`recorded` writes, each of
        its type; every value is then bounded as on the command line (the
        seed, ``orders`` up to :data:`MAX_ORDERS`, known oracles, finite
        tolerances). Anything else is a :class:`UsageError`: a bundle is read
        as hostile input. ``waivers``: the bundled copy of the waivers file; the
        keys of :data:`OPTIONAL_RECORDED_KEYS` may follow, each group whole.
        """
        if not isinstance(data, Mapping) or tuple(data)[: len(RECORDED_KEYS)] != RECORDED_KEYS:
            raise UsageError(f"the recorded options must have exactly the keys {', '.join(RECORDED_KEYS)}, in order")
        later = recorded_later(data, waivers, declarations)
        ops, meta, oracles, tol = data["operators"], data["required_metadata"], data["cross_check"], data["tolerance"]
        if not strings_or_none(ops) or not strings_or_none(meta) or not strings_or_none(oracles) or oracles is None:
            raise UsageError("the recorded operators, required metadata and cross-checks must be lists of strings")
        if not isinstance(tol, Mapping) or tuple(tol) not in (TOLERANCE_KEYS, (*TOLERANCE_KEYS, "policy")):
            raise UsageError(f"the recorded tolerance must have exactly the keys {', '.join(TOLERANCE_KEYS)}"
                             " (and policy)")
        policy = tol.get("policy", "default")
        if "policy" in tol and (not isinstance(policy, str) or policy == "default"):  # the default: no key
            raise UsageError("the recorded tolerance policy is not the name of a policy sonnx records")
        if any(v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)))
               for k, v in tol.items() if k != "policy"):
            raise UsageError("the recorded tolerance holds a value that is not a number")
        if any(tol[k] is not None and not isinstance(tol[k], int) for k in ("ulp", "quant_steps")):
            raise UsageError("the recorded tolerance ulp or quant_steps is not an integer")
        for key, kind in (("profile", str), ("engine", str), ("structure_only", bool), ("seed", int), ("orders", int)):
            if not isinstance(data[key], kind) or (kind is int and isinstance(data[key], bool)):
                raise UsageError(f"the recorded option {key!r} is not of type {kind.__name__}")
        if (data["inputs"] is None) != (inputs is None):
            raise UsageError("the recorded inputs file and the bundle's inputs folder do not match")
        return cls(
            required_metadata=None if meta is None else tuple(meta),
            profile=data["profile"],
            operators=None if ops is None else frozenset(operator_pair(x) for x in ops),
            engine=cast(Engine, data["engine"]),
            structure_only=data["structure_only"],
            seed=data["seed"],
            orders=data["orders"],
            inputs=inputs,
            oracles=tuple(oracles),
            tolerance=Tolerance(atol=tol["atol"], rtol=tol["rtol"], ulp=tol["ulp"], quant_steps=tol["quant_steps"],
                                policy=policy),
            **later,
        )

    def command_line(self, model: str) -> list[str]:
        """The ``sonnx-check`` command line these options stand for (the bundle's own path and ``--jobs`` left out)."""
        cmd = ["sonnx-check", "--profile", self.profile, "--engine", self.engine]
        if self.operators:
            cmd += ["--operators", ",".join(operator_names(self.operators))]
        if self.required_metadata is not None:
            cmd += ["--required-metadata", ",".join(self.required_metadata)]
        if self.dims:
            cmd += ["--dims", dims_text(self.dims)]
        for name, lo, hi in self.input_ranges or ():
            cmd += ["--input-range", f"{name}={lo}..{hi}"]
        if self.structure_only:
            cmd.append("--structure-only")
        cmd += ["--seed", str(self.seed)]
        if self.orders:
            cmd += ["--orders", str(self.orders)]
        if self.inputs:
            cmd += ["--inputs", self.inputs]
        if self.oracles:
            cmd += ["--cross-check", ",".join(self.oracles)]
        for key, value in self.tolerance.to_json().items():
            if value is not None:
                cmd += ["--tolerance" if key == "policy" else f"--{key.replace('_', '-')}", str(value)]
        if self.select is not None:
            cmd += ["--select", ",".join(self.select)]
        if self.ignore:
            cmd += ["--ignore", ",".join(self.ignore)]
        if self.waivers is not None:
            cmd += ["--waivers", self.waivers, "--waivers-date", str(self.waivers_date)]
        if self.operator_declarations is not None:
            cmd += ["--operator-declarations", self.operator_declarations]
        if self.evidence is not None:
            cmd += ["--evidence", "<bundle>"]
        if self.evidence_timestamp:
            cmd.append("--evidence-timestamp")
        return [*cmd, model]




__all__ = ["ENGINES", "MAX_SEED", "PROFILE_SONNX", "PROFILE_STRICT", "CheckOptions", "Engine", "operator_pair"]
