"""The one solver factory of the SMT engine, and the one place that reads z3's answer.

Every obligation is solved by :func:`solve`: a fresh z3 solver with fixed
seeds and a deterministic resource limit (``rlimit``, counted in z3's own
steps, so the same input gives the same answer on any machine; no wall-clock
timeout). The answer is one of ``sat``, ``unsat`` or ``unknown``; z3's
``unknown``, an exhausted rlimit and any exception raised by z3 all come back
as ``unknown`` with a reason, which the rule encodings turn into an UNKNOWN
verdict. Nothing here ever turns "could not decide" into a pass.

:func:`settings_report` gives the parameters for the JSON report.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported where a solver is made: a check that proves nothing with z3 never loads it
    import z3


SEED = 0
DEFAULT_RLIMIT = 2_000_000_000
"""Resource limit per obligation (z3 steps). Generous: the 1M-node benchmark stays far below it."""


@dataclass(frozen=True)
class SolverSettings:
    """Parameters shared by every obligation of a run."""

    seed: int = SEED
    rlimit: int = DEFAULT_RLIMIT
    search_limit: int = 1_000
    """Models with more operations (all scopes together) than this are proved in certificate mode."""


@dataclass
class Answer:
    """What the solver said about one obligation."""

    result: str
    """``sat``, ``unsat`` or ``unknown``."""
    reason: str = ""
    solver: Any = None
    core: list[str] | None = None
    parse_seconds: float = 0.0
    """CPU time z3 took to parse the script (for the benchmarks; never in a report)."""
    solve_seconds: float = 0.0
    """CPU time of z3's ``check`` (likewise)."""
    worker_cpu: float = 0.0
    """CPU seconds a worker process spent on it (0 when solved in this process, whose own time counts it)."""

    @property
    def ctx(self) -> Any:
        """The z3 context the answer's solver and model live in (build terms for ``eval`` in it)."""
        return None if self.solver is None else self.solver.ctx


def make_solver(settings: SolverSettings, difference_logic: bool = False, ctx: Any = None) -> z3.Solver:
    """A fresh solver with fixed seeds and rlimit, in its own z3 context unless ``ctx`` is given.

    A context per obligation means z3 frees every term of an obligation when
    its answer is dropped; in z3's main context terms live until the process
    ends, and a large run made later small checks in the same process slow
    (figures: benchmarks/README.md, "Figures behind choices in the code").

    ``difference_logic`` selects z3's Bellman-Ford arithmetic (``arith.solver=1``)
    on a simple solver (no auto-configuration, which would ignore it). GRAPH-ACYCLIC
    asks for it on the facts of each claimed cycle, a set of difference
    constraints, which the default arithmetic solves far slower and in far
    more memory (benchmarks/README.md). Every other obligation uses the
    default arithmetic.
    """
    import z3

    s = z3.SimpleSolver(ctx=ctx if ctx is not None else z3.Context())
    s.set("random_seed", settings.seed)
    s.set("rlimit", settings.rlimit)
    if difference_logic:
        s.set("arith.solver", 1)
    return s


def _global_params(settings: SolverSettings) -> None:
    import z3

    z3.set_param("smt.random_seed", settings.seed)
    z3.set_param("sat.random_seed", settings.seed)


COMMANDS = ("assert", "declare-const", "declare-fun", "declare-sort", "define-fun", "set-logic", "check-sat", "exit")
"""The SMT-LIB commands sonnx writes. Each starts a line; its continuation lines, if any, are indented."""
_OTHER_COMMAND = re.compile(rf"^\((?!(?:{'|'.join(map(re.escape, COMMANDS))})[\s()])([^\s()]*)", re.M)


class SkippedCommands(Exception):
    """A script holds a command z3 would pass over (see :func:`load_script`)."""


def load_script(s: z3.Solver, text: str) -> None:
    """Parse the SMT-LIB script ``text`` into ``s``, refusing a command that is not one of :data:`COMMANDS`.

    z3 does not refuse a command it does not know: it prints a note and goes
    on. A misspelt ``(assert ...)`` would then be dropped, and a certificate
    obligation (the property holds when ``sat``) checked without one of its
    checks. So every line that starts a command must start a known one,
    before z3 sees the script; :class:`SkippedCommands` is answered
    ``unknown`` by :func:`solve` and :class:`Session`. (Every command starts
    a line: ``tests/smt/test_smt_comments.py`` holds the encodings to it.)
    """
    other = _OTHER_COMMAND.search(text)
    if other is not None:
        line = text.count("\n", 0, other.start()) + 1
        raise SkippedCommands(f"the script has a command z3 would skip: ({other.group(1)} on line {line}")
    s.from_string(text)


def solve(
    text: str,
    settings: SolverSettings,
    difference_logic: bool = False,
    assumptions: Sequence[str] = (),
) -> Answer:
    """Parse the SMT-LIB script ``text`` and check it; never raises.

    ``assumptions`` names Boolean constants of the script to assume; on
    ``unsat`` the answer's ``core`` lists those the refutation needed.
    """
    import z3

    start = parsed = time.process_time()
    try:
        _global_params(settings)
        s = make_solver(settings, difference_logic)
        load_script(s, text)
        parsed = time.process_time()
        lits = [z3.Bool(a, s.ctx) for a in assumptions]
        r = s.check(*lits)
    except z3.Z3Exception as exc:
        return Answer("unknown", f"z3 raised an exception: {exc}")
    except SkippedCommands as exc:
        return Answer("unknown", str(exc))
    except MemoryError:
        return Answer("unknown", "z3 ran out of memory")
    except Exception as exc:  # any failure of the solver is "not established", never a pass
        return Answer("unknown", f"solver failure: {type(exc).__name__}: {exc}")
    if r == z3.sat:
        ans = Answer("sat", solver=s)
    elif r == z3.unsat:
        ans = Answer("unsat", solver=s, core=[str(c) for c in s.unsat_core()] if assumptions else None)
    else:
        why = s.reason_unknown()
        if "canceled" in why or "resource" in why or "rlimit" in why:
            why = f"z3 exhausted its resource limit (rlimit={settings.rlimit}): {why}"
        ans = Answer("unknown", f"z3 answered unknown: {why}")
    ans.parse_seconds, ans.solve_seconds = parsed - start, time.process_time() - parsed
    return ans


def recheck(answer: Answer, assumptions: Sequence[str]) -> Answer:
    """Check the solver of a ``sat`` answer again under the named Boolean assumptions; never raises."""
    import z3

    try:
        s = answer.solver
        r = s.check(*[z3.Bool(a, s.ctx) for a in assumptions])
    except Exception as exc:  # a failure is "not established", never a pass
        return Answer("unknown", f"z3 raised an exception: {exc}")
    if r == z3.sat:
        return Answer("sat", solver=s)
    if r == z3.unsat:
        return Answer("unsat", solver=s)
    return Answer("unknown", f"z3 answered unknown: {s.reason_unknown()}")


class Session:
    """One parsed script checked repeatedly under changing assumptions (witness enumeration)."""

    def __init__(self, text: str, settings: SolverSettings, difference_logic: bool = False) -> None:
        self.error = ""
        self.solver: Any = None
        self._lits: dict[str, Any] = {}
        try:
            _global_params(settings)
            self.solver = make_solver(settings, difference_logic)
            load_script(self.solver, text)
        except SkippedCommands as exc:
            self.error = str(exc)
        except Exception as exc:  # a script z3 cannot take is "not established"
            self.error = f"z3 raised an exception: {exc}"

    def check(self, assumptions: Sequence[str]) -> Answer:
        import z3

        if self.error:
            return Answer("unknown", self.error)
        try:
            for a in assumptions:
                if a not in self._lits:
                    self._lits[a] = z3.Bool(a, self.solver.ctx)
            lits = [self._lits[a] for a in assumptions]
            r = self.solver.check(*lits)
        except Exception as exc:
            return Answer("unknown", f"z3 raised an exception: {exc}")
        if r == z3.sat:
            return Answer("sat", solver=self.solver)
        if r == z3.unsat:
            return Answer("unsat", solver=self.solver, core=[str(c) for c in self.solver.unsat_core()])
        return Answer("unknown", f"z3 answered unknown: {self.solver.reason_unknown()}")


def model_values(answer: Answer, names: Sequence[str], sort: str = "Int") -> dict[str, Any]:
    """Values of the named ``Int`` (or ``Bool``) constants in the model of a ``sat`` answer.

    Each constant is evaluated in the model (``model_completion``: a constant the formula leaves free
    gets a default value, which is then as good as any). A value that is not a numeral or a truth
    value is returned as None, and the callers treat None as "not shown by the model".
    """
    import z3

    m = answer.solver.model()
    make = z3.Bool if sort == "Bool" else z3.Int
    ctx = answer.ctx
    out: dict[str, Any] = {}
    for n in names:
        v = m.eval(make(n, ctx), model_completion=True)
        if z3.is_int_value(v):
            out[n] = v.as_long()
        elif z3.is_true(v):
            out[n] = True
        elif z3.is_false(v):
            out[n] = False
        else:
            out[n] = None
    return out


def settings_report(settings: SolverSettings) -> dict[str, Any]:
    """The solver parameters as a JSON-ready dict (for the report)."""
    import z3

    return {
        "solver": "z3",
        "version": z3.get_version_string(),
        "random_seed": settings.seed,
        "smt.random_seed": settings.seed,
        "sat.random_seed": settings.seed,
        "rlimit": settings.rlimit,
        "timeout": None,
        "rank_obligations": "GRAPH-ACYCLIC's cycle obligations: SimpleSolver with arith.solver=1 (difference logic); "
        "the other obligations: the default arithmetic",
        "search_limit_operations": settings.search_limit,
    }
