"""GRAPH-FUNCTION-SHADOWING as SMT: no function fact joins a standard-operator fact.

Raw facts, every string written as an integer code (the legend is a comment
of the script; one string, one code):

* ``(fn i d n)``: model-local function ``i`` (its position in the model's
  function list) has domain ``d`` and name ``n``;
* ``(sd d n v)``: ONNX defines operator ``n`` in domain ``d`` at the opset
  version the model imports for ``d`` (at any version when the model imports
  none), with schema since-version ``v``. The listing is
  :func:`sonnx.rules.graph_function_shadowing.standard_operators`, read from
  ``onnx.defs``'s schema history: a trusted base, as the determinism table is
  for GRAPH-R2; the direct rule asks ``onnx.defs.get_schema`` per function
  instead.

The rule's violation: a function ``w`` whose domain and name (``D``, ``Nm``)
are those of some standard-operator fact; the join is the solver's. unsat =
PROVED; sat = VIOLATED, the model gives the function and the since-version
``V``, and each function found is excluded by an assumption literal until the
check is unsat, so the witness lists every shadowing function. The obligation
holds one fact per function and per standard operator (a few hundred), so the
rule has no certificate: both modes decide it by this formula.
"""

from __future__ import annotations

from ...model.graph import Model
from ...rules.base import Listing
from ...rules.graph_function_shadowing import ID, entry, standard_operators
from ...rules.schemas import normal_domain
from ..common import Encoding, Proof, ProofContext, RuleResult, ask_one, facts_lines, listed, or_all, settled, unknown
from ..smtlib import Obligation
from ..solver import Session, model_values

LOGIC = "QF_LIA"
LISTING = Listing(
    "model-local function(s) shadow a standard operator",
    "functions",
    lambda x: f"function {x['function']} shadows {x['standard_operator']}-{x['since_version']}",
    3,
)
"""How this encoding lists the shadowing functions: as the direct check does, without the imported opset."""


class _Codes:
    """One integer per distinct string (domains and names share the numbering)."""

    def __init__(self) -> None:
        self.code: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        return self.code.setdefault(text, len(self.code))

    def legend(self) -> list[str]:
        return [f";   {c} = {t or 'ai.onnx'!a}" for t, c in self.code.items()]


def search_obligation(model: Model, mode: str) -> Obligation:
    codes = _Codes()
    fns = [f"(fn {i} {codes(normal_domain(f.domain))} {codes(f.name)})" for i, f in enumerate(model.functions)]
    std = [f"(sd {codes(d)} {codes(n)} {v})" for (d, n), v in sorted(standard_operators(model.opset_imports).items())]
    body = [
        "; raw facts: (fn i d n) model-local function i has domain d and name n; (sd d n v) ONNX defines operator n",
        ";   of domain d at the opset version the model imports for d (any version if none), since version v",
        "; string codes:",
        *codes.legend(),
        "; rule (violation): function w has the domain and name of some standard-operator fact",
        "(declare-fun w () Int)",
        "(declare-fun D () Int)",
        "(declare-fun Nm () Int)",
        "(declare-fun V () Int)",
        "(define-fun fn ((i Int) (d Int) (n Int)) Bool (=> (= w i) (and (= D d) (= Nm n))))",
        "(define-fun sd ((d Int) (n Int) (v Int)) Bool (and (= D d) (= Nm n) (= V v)))",
        f"(assert {or_all([f'(= w {i})' for i in range(len(fns))])})",
        *facts_lines(fns),
        f"(assert {or_all(std)})",
    ]
    return Obligation(
        ID, "shadowing.function", LOGIC, body, "unsat", mode, "some model-local function has a standard operator's name"
    )


def prove(ctx: ProofContext) -> Proof:
    model, settings, mode = ctx.model, ctx.settings, ctx.mode
    ob = search_obligation(model, mode)
    ans = yield from ask_one(ob, local=True)
    done = settled(ID, ob, ans, mode)
    if done is not None:
        return done
    n = len(model.functions)
    guards = [f"(declare-fun x{i} () Bool)\n(assert (=> x{i} (distinct w {i})))" for i in range(n)]
    session = Session(ob.script() + "\n".join(guards), settings)
    found: dict[int, int] = {}
    a = ans
    while a.result == "sat":
        vals = model_values(a, ["w", "V"])
        w, v = vals.get("w"), vals.get("V")
        if not isinstance(w, int) or not isinstance(v, int) or not 0 <= w < n or w in found:
            return RuleResult(unknown(ID, "the model of the violation names no new function (a tool defect)", mode),
                              [ob])
        found[w] = v
        a = session.check([f"x{i}" for i in found])
    if a.result == "unknown":
        return RuleResult(unknown(ID, a.reason, mode), [ob])
    shadows = [entry(model.functions[i], model.opset_imports, v) for i, v in sorted(found.items())]
    return listed(ID, shadows, LISTING, mode, [ob])


ENCODING = Encoding(ID, prove)
"""GRAPH-FUNCTION-SHADOWING in the table of :mod:`sonnx.smt.registry`."""
