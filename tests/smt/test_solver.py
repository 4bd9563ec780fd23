"""The solver factory: fixed parameters, and every non-answer becomes UNKNOWN."""

from __future__ import annotations

from importlib import import_module

import pytest
import z3

import sonnx.smt as smt_package
from sonnx.base.verdict import Status
from sonnx.model.graph import Model, Operation
from sonnx.smt import SolverSettings, run_smt, settings_report, solve
from sonnx.smt.engine import RULE_IDS
from sonnx.smt.solver import Answer, Session, model_values, recheck
from tests.common.smtkit import g, model, smt


@pytest.mark.rule("GRAPH-ACYCLIC", "GRAPH-C3", "GRAPH-R1-TRANSITIVE")
def test_rlimit_exhaustion_is_unknown_not_a_pass() -> None:
    m = model(g(["x"], ["y"], [Operation("Relu", "", "", ("x",), ("y",))]))
    verdicts = smt(m, rlimit=1)
    # obligations that need any solving run out of resources; z3 may still refute a formula its
    # simplifier reduces to false at once (then the answer is a genuine unsat, not a guess)
    for rid in ("GRAPH-ACYCLIC", "GRAPH-C3", "GRAPH-R1-TRANSITIVE"):
        assert verdicts[rid].status is Status.UNKNOWN, verdicts[rid]
    assert "resource limit" in (verdicts["GRAPH-ACYCLIC"].reason or "")


@pytest.mark.parametrize("mode", ["search", "certificate"])
def test_every_unknown_verdict_names_its_rule(mode: str) -> None:
    ops = [Operation("Relu", "", "", ("x",), ("y",)), Operation("Neg", "", "", ("y",), ("z",))]
    run = smt(model(g(["x"], ["z"], ops)), mode, rlimit=1)
    assert sorted(run) == sorted(RULE_IDS)
    assert any(v.status is Status.UNKNOWN for v in run.values())
    for rid, v in run.items():
        assert v.rule_id == rid and v.engine.startswith("smt"), v


def test_solve_reports_sat_unsat_unknown_and_exceptions() -> None:
    st = SolverSettings()
    assert solve("(declare-fun a () Int)(assert (< a 1))", st).result == "sat"
    assert solve("(declare-fun a () Int)(assert (< a a))", st).result == "unsat"
    bad = solve("(assert (< undeclared 1))", st)
    assert bad.result == "unknown" and "exception" in bad.reason
    assert solve("(declare-fun a () Int)(assert (> (* a a) 2))", SolverSettings(rlimit=1)).result == "unknown"


@pytest.mark.rule("GRAPH-ACYCLIC")
def test_parameters_are_fixed_and_reported() -> None:
    p = settings_report(SolverSettings(seed=7, rlimit=123, search_limit=9))
    assert p == {
        "solver": "z3",
        "version": z3.get_version_string(),
        "random_seed": 7,
        "smt.random_seed": 7,
        "sat.random_seed": 7,
        "rlimit": 123,
        "timeout": None,  # never a wall-clock limit: answers must not depend on the machine's speed
        "rank_obligations": "GRAPH-ACYCLIC's cycle obligations: SimpleSolver with arith.solver=1 (difference logic); "
        "the other obligations: the default arithmetic",
        "search_limit_operations": 9,
    }


def test_the_package_names_resolve_on_first_use() -> None:
    # PEP 562 exports: called directly, since an earlier import may already have cached the names
    for name in smt_package.__all__:
        assert smt_package.__getattr__(name) is getattr(import_module(f"sonnx.smt.{smt_package._EXPORTS[name]}"), name)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        smt_package.__getattr__("nothing")


def test_assumption_core_is_returned() -> None:
    a = solve(
        "(declare-fun a () Int)(declare-fun g1 () Bool)(declare-fun g2 () Bool)"
        "(assert (=> g1 (< a 0)))(assert (=> g2 (> a 0)))",
        SolverSettings(),
        assumptions=["g1", "g2"],
    )
    assert a.result == "unsat" and sorted(a.core or []) == ["g1", "g2"]


def test_every_obligation_gets_its_own_z3_context() -> None:
    """Terms of one obligation are freed with its answer: nothing is left in z3's main context.

    (A run of a 100k-operation model used to leave millions of terms in the main
    context, and every later check in the same process paid for them.)
    """
    import z3

    from sonnx.smt.solver import model_values

    st = SolverSettings()
    a = solve("(declare-fun a () Int)(assert (= a 7))", st)
    b = solve("(declare-fun a () Int)(assert (= a 9))", st)
    assert a.ctx is not None and b.ctx is not None
    assert a.ctx is not b.ctx and a.ctx is not z3.main_ctx() and b.ctx is not z3.main_ctx()
    assert model_values(a, ["a"]) == {"a": 7} and model_values(b, ["a"]) == {"a": 9}


def test_recheck_under_assumptions() -> None:
    ans = solve("(declare-fun p () Bool)(declare-fun a () Int)(assert (=> p (< a a)))", SolverSettings())
    assert ans.result == "sat"
    assert recheck(ans, ["p"]).result == "unsat"
    assert recheck(ans, []).result == "sat"
    assert recheck(Answer("sat"), ["p"]).result == "unknown"  # no solver kept: not established


def test_a_session_returns_the_core_of_its_assumptions() -> None:
    text = "(declare-fun a () Int)(declare-fun g1 () Bool)(declare-fun g2 () Bool)(declare-fun g3 () Bool)"
    s = Session(text + "(assert (=> g1 (< a 0)))(assert (=> g2 (> a 0)))", SolverSettings())
    ans = s.check(["g1", "g2", "g3"])
    assert ans.result == "unsat" and sorted(ans.core or []) == ["g1", "g2"]
    assert s.check(["g1", "g3"]).result == "sat"
    broken = Session("(assert (< undeclared 1))", SolverSettings())
    assert broken.check([]).result == "unknown" and "exception" in broken.check([]).reason


def test_a_constant_the_formula_leaves_free_still_has_a_value() -> None:
    ans = solve("(declare-fun a () Int)(declare-fun b () Int)(declare-fun p () Bool)(assert (< a 1))", SolverSettings())
    values = model_values(ans, ["a", "b"])
    assert isinstance(values["a"], int) and values["a"] < 1 and isinstance(values["b"], int)
    assert model_values(ans, ["p"], sort="Bool")["p"] in (True, False)


def test_the_global_seeds_are_set() -> None:
    solve("(declare-fun a () Int)(assert (< a 1))", SolverSettings(seed=7))
    try:
        assert z3.get_param("smt.random_seed") == z3.get_param("sat.random_seed") == "7"
    finally:
        solve("(assert true)", SolverSettings())  # back to the default seeds for the other tests
    assert z3.get_param("sat.random_seed") == str(SolverSettings().seed)


@pytest.mark.parametrize("difference_logic", [False, True])
def test_each_solver_gets_the_run_s_seed_and_rlimit(difference_logic: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-solver parameters, not only the global seeds: z3 reads no per-solver value back, so the
    parameters the solver is given are recorded (an unknown parameter name would be accepted silently)."""
    from sonnx.smt.solver import make_solver

    given: list[tuple[object, ...]] = []
    real = z3.Solver.set

    def recording(self: z3.Solver, *args: object, **kw: object) -> None:
        given.append(args)
        real(self, *args, **kw)

    monkeypatch.setattr(z3.Solver, "set", recording)
    make_solver(SolverSettings(seed=11, rlimit=12345), difference_logic)
    want = [("random_seed", 11), ("rlimit", 12345)] + ([("arith.solver", 1)] if difference_logic else [])
    assert given == want


def test_a_failing_check_is_unknown() -> None:
    s = Session("(declare-fun a () Int)", SolverSettings())
    s.solver = None  # the check itself raises
    ans = s.check([])
    assert ans.result == "unknown" and ans.reason.startswith("z3 raised an exception")


@pytest.mark.rule("GRAPH-ACYCLIC")
@pytest.mark.parametrize("flag", [True, False])
def test_a_worker_solves_with_the_arithmetic_the_job_asks_for(flag: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A job marked for the difference-logic solver (GRAPH-ACYCLIC's cycles) is solved with it, the others not.

    [The answer is the same either way; the time is not: ``benchmarks/README.md``
    measured a 10,000-operation cycle at 192 s with the default arithmetic.]
    """
    import sonnx.smt.solver as solver_module
    from sonnx.smt.pool import Job, solve_job

    asked: list[bool] = []
    real = solver_module.make_solver

    def recording(settings: SolverSettings, difference_logic: bool = False) -> z3.Solver:
        asked.append(difference_logic)
        return real(settings, difference_logic)

    monkeypatch.setattr(solver_module, "make_solver", recording)
    reply = solve_job(Job("(declare-fun x () Int)(assert (< x 0))", SolverSettings(), flag))
    assert reply.result == "sat" and asked == [flag]


def test_recheck_reports_an_unknown_answer_with_z3s_reason() -> None:
    """``recheck`` of a solver that answers unknown is ``unknown`` with the reason z3 gives, never sat or unsat."""

    class Undecided:
        ctx = z3.main_ctx()

        def check(self, *assumptions: object) -> z3.CheckSatResult:
            return z3.unknown

        def reason_unknown(self) -> str:
            return "canceled"

    again = recheck(Answer("sat", solver=Undecided()), ["d1"])
    assert (again.result, again.reason) == ("unknown", "z3 answered unknown: canceled")


def _relu_neg() -> Model:
    """x -> Relu -> a -> Neg -> y: every rule has something to ask the solver."""
    ops = [Operation("Relu", "", "r", ("x",), ("a",)), Operation("Neg", "", "n", ("a",), ("y",))]
    return model(g(["x"], ["y"], ops))


def test_rule_timings_add_up_the_times_of_their_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each rule's parse and solve seconds are the sums over the answers it received (benchmarks read them):
    with every answer made to report 0.25 s of parsing and 0.5 s of solving, a rule that received n answers
    shows 0.25 n and 0.5 n, whether the obligation was solved for the worker pool or in the rule's process."""
    import dataclasses

    import sonnx.smt.engine as engine_module
    import sonnx.smt.pool as pool_module
    for module in (engine_module, pool_module):
        real = module.solve

        def timed(*args: object, _real: object = real, **kw: object) -> Answer:
            return dataclasses.replace(_real(*args, **kw), parse_seconds=0.25, solve_seconds=0.5)  # type: ignore[operator]

        monkeypatch.setattr(module, "solve", timed)
    m = _relu_neg()
    run = run_smt(m, SolverSettings(), jobs=1)
    solved = {rid: t for rid, t in run.timings.items() if t.obligations}
    assert len(solved) >= 8
    for t in solved.values():
        assert (t.parse, t.solve) == (0.25 * t.obligations, 0.5 * t.obligations)


def test_a_session_out_of_resources_is_unknown_with_z3s_reason() -> None:
    """A session check that exhausts the rlimit is ``unknown``, and the reason is the one z3 gives."""
    hard = (
        "(declare-fun x () Int)(declare-fun y () Int)(declare-fun z () Int)(declare-fun b () Bool)"
        "(assert (= (* x x x) (+ (* y y y) (* z z z) 42)))(assert (> x 1000))"
    )
    session = Session(hard, SolverSettings(rlimit=1000))
    a = session.check(["b"])
    assert a.result == "unknown" and a.reason == f"z3 answered unknown: {session.solver.reason_unknown()}"
    assert session.solver.reason_unknown()


@pytest.mark.parametrize(
    ("raised", "reason"),
    [
        (MemoryError(), "z3 ran out of memory"),
        (RuntimeError("planted"), "solver failure: RuntimeError: planted"),
        (z3.Z3Exception("planted"), "z3 raised an exception: planted"),
    ],
)
def test_a_solver_that_fails_is_unknown_with_the_failure(
    raised: BaseException, reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``solve`` never raises: memory exhaustion, any other failure and z3's own exceptions are ``unknown``."""
    import sonnx.smt.solver as solver_module

    def failing(settings: SolverSettings, difference_logic: bool = False) -> z3.Solver:
        raise raised

    monkeypatch.setattr(solver_module, "make_solver", failing)
    a = solve("(assert true)", SolverSettings())
    assert (a.result, a.reason) == ("unknown", reason)


def test_a_model_above_the_search_limit_is_proved_in_certificate_mode() -> None:
    m = _relu_neg()
    assert run_smt(m, SolverSettings(search_limit=2)).mode == "search"
    assert run_smt(m, SolverSettings(search_limit=1)).mode == "certificate"


@pytest.mark.parametrize("garbled", ["(ASSERT (< a 0))", "(asert (< a 0))", "(push 1)"])
def test_a_command_z3_would_skip_makes_the_answer_unknown(garbled: str) -> None:
    """z3 passes over a command it does not know (it prints a note and goes on): an assertion written
    wrongly would be dropped, and a certificate checked without it. Both ways a script is parsed (one-shot
    solve, a session) answer unknown instead, naming the command and its line."""
    text = f"(declare-fun a () Int)\n; (asert false) in a comment is no command\n{garbled}\n(assert (> a 1))\n"
    head = garbled[1:].split()[0]
    why = f"the script has a command z3 would skip: ({head} on line 3"
    ans = solve(text, SolverSettings())
    assert ans.result == "unknown" and ans.reason == why
    assert Session(text, SolverSettings()).check([]).reason == why
    for whole in (text.replace(garbled, "(assert (< a 0))"), text.replace(garbled, "(assert(< a 0))")):
        assert solve(whole, SolverSettings()).result == "unsat"
        assert Session(whole, SolverSettings()).check([]).result == "unsat"
