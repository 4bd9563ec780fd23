"""What a rule is, and what a rule's check may look at.

A rule is one small unit (spec/graph.rst, "Verification rules"): a stable ID,
its statement, the severity of a violation, the profile it belongs to, and a
direct check that returns a :class:`~sonnx.base.verdict.Verdict` with a witness on
failure. Rules are listed in one table, :data:`sonnx.rules.registry.RULES`,
which holds each rule's :class:`Rule` record; the module that checks a rule is
named after its ID and imported only when the rule runs (:meth:`Rule.code`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from ..base.errors import ToolError
from ..base.verdict import Severity, Verdict, Witness
from ..base.witness import Offenders, brief, first
from ..model.graph import Graph, Model
from .texts import RuleText, rule_text

if TYPE_CHECKING:  # the record the check gives; a rule never calls the loader for it
    from ..loader.load import Derived
    from .declarations import Declarations

PROFILE_SONNX = "sonnx"
PROFILE_STRICT = "sonnx-strict"
PROFILES = (PROFILE_SONNX, PROFILE_STRICT)


@dataclass(frozen=True)
class TrialRun:
    """What one run of the model on given inputs showed, for a rule that confirms a candidate witness.

    A rule of the operator layer (spec/operators.rst) that finds an input it
    believes breaks an operation's precondition claims VIOLATED only after the
    model was run on that input and the run showed it; this record is what the
    run showed.
    """

    values: Mapping[str, Any]
    """Every tensor of the main graph that received a value before the run ended, by name."""
    error: str | None
    """The one-line error the run stopped with; None when it ran to the end."""
    operation: int | None
    """The index in the main graph of the operation whose firing raised ``error`` (None when unknown or none)."""


TrialRunner = Callable[[Model, Mapping[str, Any]], TrialRun]
UniformDraw = Callable[[Any, Any, tuple[int, ...], Any, int], Any]
"""Draws values uniformly in ``[lo, hi]`` of a shape and dtype with a seed (``execution.inputs``, where every
input value sonnx uses is made; given by the layer that runs the rules)."""
"""Runs a model on input values by graph-input name (sonnx's executor, given by the layer that runs the rules)."""


class Started(Protocol):
    """A rule's check of the model's file, started before the model was read (:attr:`Rule.start`)."""

    def cancel(self) -> None:
        """Stop it when it still runs (its result is no longer wanted); nothing when it was joined."""


StartFn = Callable[[str | bytes, bool], Started]
"""Starts a rule's check of the model file at a path, with ``read_weights``, and returns at once."""


@dataclass(frozen=True)
class CheckConfig:
    """Options of a check run.

    ``profile`` selects the rule set: ``sonnx`` is the SONNX graph profile,
    ``sonnx-strict`` adds the strict rules. ``allowed_operators`` is the
    operator set of the strict profile, as ``(domain, operator)`` pairs with
    the default domain written ``""``; None means the built-in SONNX list.
    """

    profile: str = PROFILE_SONNX
    allowed_operators: frozenset[tuple[str, str]] | None = None
    required_metadata: tuple[str, ...] | None = None
    """The ``metadata_props`` keys STRICT-METADATA requires; None means its default list."""
    read_weights: bool = True
    """False under ``--structure-only``: a rule reads no weight byte (FORMAT-ONNX then leaves external data
    unread)."""
    derived_types: Callable[[Model, bool], Derived] | None = None
    """The types onnx's inference derives for the model from enforced facts (spec 9.4; GRAPH-IF-BRANCHES and
    STRICT-BROADCAST read them, through :func:`sonnx.rules.derived.derived_model`), given by the layer that runs the
    rules and asked for at most once per check, with the model and ``read_weights``: for the check of a file,
    those the loader derived from the bytes it read; for a model held in memory, those of its file when the file
    still holds it, else of the bytes it is written as (:mod:`sonnx.loader.derived`). None: there are none
    (UNKNOWN). A rule never reads a file for them."""
    trial_run: TrialRunner | None = None
    """How a rule runs the model on a candidate witness input to confirm it (spec/operators.rst), given by the
    layer that runs the rules: sonnx's executor in a check that read the weights. None: no run is possible, and a
    candidate that cannot be confirmed leaves the verdict UNKNOWN."""
    draw_uniform: UniformDraw | None = None
    """How a rule draws seeded random candidate inputs (the error-condition rules' search), given by the layer
    that runs the rules. None: the search tries only its fixed candidates (bounds, corners, targeted values)."""
    declarations: Declarations | None = None
    """The user's facts about custom operators (:mod:`.declarations`), read by GRAPH-R2, GRAPH-DETERMINISM and
    GRAPH-ARITY where no ONNX schema exists; None: none declared."""
    dims: tuple[tuple[str, int, int], ...] = ()
    """The domains of symbolic input dimensions OP-SHAPES proves over (``--dims``): ``(name, least, greatest)``;
    a name not listed ranges over the integers of at least 1."""
    input_ranges: tuple[tuple[str, int | float, int | float], ...] | None = None
    """The element ranges the user declares for graph inputs (``--input-range x=-1..1``), as ``(input, lo, hi)``:
    assumptions the error-condition rules of spec/operators.rst section 5 rest on and state. None: none declared."""
    model_bytes: bytes | None = None
    """The ONNX bytes the model was read from when it was read from no file (an ``onnx.ModelProto`` given in memory,
    a model read from stdin: :mod:`sonnx.loader.memory`), given by the layer that loaded it; FORMAT-ONNX gives them
    to onnx's checker. None: the model's file (``Model.source``) is what FORMAT-ONNX checks."""
    started: Mapping[str, Started] = field(default_factory=dict)
    """The checks of the model's file already started, by rule ID (:attr:`Rule.start`), given by the layer that runs
    the rules when it started them before reading the model; a rule joins the one started for the model's own file
    and reading of weights, and otherwise starts its own."""


@dataclass
class CheckContext:
    """The model under check, the options, and analyses shared between rules.

    ``cache`` lets one rule reuse what another computed on the same graph
    (producer maps, a topological order), keyed by ``(name, id(graph))``.
    """

    model: Model
    config: CheckConfig = field(default_factory=CheckConfig)
    cache: dict[object, object] = field(default_factory=dict)

    def graphs(self) -> Iterator[tuple[str, Graph]]:
        """Every graph of the model, main graph first, with its scope path (rules apply in each)."""
        return self.model.graph.nested()


CheckFn = Callable[[CheckContext], Verdict]



def offenders_verdict(
    found: Offenders | Sequence[dict[str, Any]],
    rule_id: str,
    severity: Severity,
    what: str,
    key: str,
    show: Callable[[dict[str, Any]], str],
    keep: int | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Verdict:
    """PROVED when ``found`` is empty, else VIOLATED with the usual witness layout.

    ``found`` is an :class:`Offenders` tally or the whole list of offenders.
    The summary reads ``<count> <what>: <first few shown>`` (``keep`` of
    them, 5 by default); the data holds ``count`` (every offender), ``key``
    (the first :data:`LIMIT` listed), then ``extra``.
    """
    count, listed = (found.count, found.listed) if isinstance(found, Offenders) else (len(found), first(found))
    if not count:
        return Verdict.proved(rule_id, severity)
    shown = [show(f) for f in listed]
    head = brief(shown, total=count) if keep is None else brief(shown, keep, count)
    data = {"count": count, key: listed, **(extra or {})}
    return Verdict.violated(rule_id, Witness(f"{count} {what}: {head}", data), severity)


@dataclass(frozen=True)
class Listing:
    """How a rule's witness lists its offenders: what they are, the data key, how one is shown, how many.

    A rule declares its listing once; its direct check words its verdict
    with :meth:`verdict`, and the SMT encoding of the same rule (where there
    is one) with the same listing, so a violation reads the same whichever
    engine found it.
    """

    what: str
    """The offenders' noun phrase after their count (``graph input(s) read by no operation``)."""
    key: str
    """The witness data key of the listed offenders."""
    show: Callable[[dict[str, Any]], str]
    """One offender as the summary shows it."""
    keep: int | None = None
    """How many offenders the summary shows (5 when None)."""

    def verdict(
        self,
        found: Offenders | Sequence[dict[str, Any]],
        rule_id: str,
        severity: Severity,
        extra: Mapping[str, Any] | None = None,
    ) -> Verdict:
        """PROVED when ``found`` is empty, else VIOLATED listing them (see :func:`offenders_verdict`)."""
        return offenders_verdict(found, rule_id, severity, self.what, self.key, self.show, self.keep, extra)


def open_or_proved(rule_id: str, severity: Severity, what: str, reasons: Sequence[str]) -> Verdict:
    """The verdict of a rule that found no violation: UNKNOWN when ``reasons`` says why some cases stay open.

    An operation a rule cannot decide (no schema, a shape left open...) never
    counts as a pass: the verdict is UNKNOWN, its reason ``<what>: <the first
    three reasons>``. With no reason left, PROVED.
    """
    if reasons:
        return Verdict.unknown(rule_id, f"{what}: {brief(reasons, 3)}", severity)
    return Verdict.proved(rule_id, severity)


def counted_reasons(unknown: Mapping[str, int]) -> list[str]:
    """``<reason> (<n> operation(s))`` for each reason a verdict could not be established, sorted by reason."""
    return [f"{why} ({n} operation(s))" for why, n in sorted(unknown.items())]


@dataclass(frozen=True)
class Rule:
    """One verification rule of the SONNX graph profile.

    The rule's words are the spec's (section 4): :attr:`title`,
    :attr:`statement` and :attr:`rationale` are read from the entry of ``spec``
    whose anchor is the rule ID, through the package data of
    :mod:`sonnx.rules.texts`; a rule module never words its rule itself.

    The record is what the table, the reports and the traceability read
    without running the rule: its ID, severities and profile. Its check is
    the ``check`` function of the module named after the ID, imported the
    first time the rule runs (:meth:`check`), so that a profile that does not
    run a rule never pays for importing its code.
    """

    id: str
    severity: Severity
    profile: str
    reads_file: bool = False
    """True for a rule about the model's file rather than its graph (FORMAT-ONNX): it has no meaning for a
    graph that was never serialized, such as a partition's subgraph."""
    starts_early: bool = False
    """True for a rule whose check runs in a child process (FORMAT-ONNX: onnx's native checker on the file): its
    module's ``start`` begins that check on a file (:meth:`start`), so that it runs while the model is read and the
    other rules run. :func:`.registry.run_rules` runs such a rule after the others (its verdict keeps its place in the
    table), so that its check joins a child that has been working all along."""
    strict_severity: Severity | None = None
    """The severity under ``sonnx-strict`` when it differs from ``severity`` (a rule of the base profile that
    the strict profile makes an error, such as GRAPH-ARITY while the working group marks it TBC)."""

    @property
    def module(self) -> str:
        """The module that decides the rule, named after its ID (GRAPH-R1-OUTPUTS: ``sonnx.rules.graph_r1_outputs``)."""
        return f"{__package__}.{self.id.lower().replace('-', '_')}"

    def code(self) -> ModuleType:
        """The rule's module, imported now if no earlier use imported it.

        The table of rules holds what every report and listing needs without
        it; a check imports the modules of the rules it runs and no other.
        Whatever the module raises while it is imported is raised here (the
        loop of :mod:`.registry` turns it into the rule's UNKNOWN)."""
        return importlib.import_module(self.module)

    def check(self, ctx: CheckContext) -> Verdict:
        """The rule's direct check on ``ctx``: its module's ``check``."""
        check: CheckFn = self.code().check
        return check(ctx)

    def start(self, path: str | bytes, read_weights: bool) -> Started:
        """Begin the rule's check of the file at ``path`` (or of model bytes) in a child, for a rule that
        :attr:`starts_early`; its module's ``start``."""
        if not self.starts_early:
            raise ToolError(f"{self.id} has no check that starts before the model is read (a tool defect)")
        start: StartFn = self.code().start
        return start(path, read_weights)

    @property
    def text(self) -> RuleText:
        """The spec's entry for this rule, in plain text."""
        return rule_text(self.id)

    @property
    def spec(self) -> str:
        """The spec page that states the rule (``spec/graph.rst`` or ``spec/operators.rst``)."""
        return self.text.page

    @property
    def title(self) -> str:
        """The short form: the title of the rule's heading in the spec."""
        return self.text.title

    @property
    def statement(self) -> str:
        """The normative statement of the rule, as the spec words it."""
        return self.text.statement

    @property
    def rationale(self) -> str | None:
        """The spec's non-normative rationale of the rule (None while the spec gives none)."""
        return self.text.rationale

    def severity_in(self, profile: str) -> Severity:
        """The severity of a violation of this rule when ``profile`` is checked."""
        if profile == PROFILE_STRICT and self.strict_severity is not None:
            return self.strict_severity
        return self.severity
