"""Proof obligations as standalone SMT-LIB2 scripts, and their export.

An :class:`Obligation` is the exact text the SMT engine gives to z3; the
export writes the same text, with a comment header stating which rule it
proves, how to read the answer and the answer z3 gave (the expected answer
for a second solver). Only standard SMT-LIB2 is used (``QF_IDL``,
``QF_LIA``, ``QF_UF``), so cvc5 or any other solver can re-check the files.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Obligation:
    """One proof obligation: an SMT-LIB2 script and how its answer reads."""

    rule_id: str
    name: str
    logic: str
    body: list[str]
    """The script's lines; joined into :attr:`text` when the obligation is made (then emptied)."""
    holds_when: str
    """``sat`` or ``unsat``: the answer under which the rule's property holds."""
    mode: str
    """``search`` (the solver finds the proof) or ``certificate`` (it validates one)."""
    meaning: str
    answer: str = ""
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        # One string instead of a list of a million short ones: a fifth of the memory, kept for export.
        self.text = "\n".join(self.body) + "\n" if self.body else ""
        self.body = []

    def script(self) -> str:
        """The script z3 parses (no header, no check-sat: the engine calls check itself)."""
        return self.text

    def render(self) -> str:
        """The standalone file: comment header, logic, body, ``(check-sat)``."""
        expected = self.answer or "not solved"
        head = [
            f"; sonnx proof obligation {self.name}",
            f"; rule: {self.rule_id}",
            f"; mode: {self.mode}",
            f"; meaning: {self.meaning}",
            f"; the property holds when the answer is: {self.holds_when}",
            f"; expected answer: {expected}",
        ]
        head.extend(f"; {n}" for n in self.notes)
        return "\n".join([*head, f"(set-logic {self.logic})"]) + "\n" + self.text + "(check-sat)\n(exit)\n"


_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def write_obligations(
    obligations: Sequence[Obligation], directory: str | Path, model_path: str, stem: str | None = None
) -> list[Path]:
    """Write every obligation of one model as ``<stem>.<name>.smt2`` (stem: the model file's, unless given)."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    stem = _SAFE.sub("_", stem if stem is not None else Path(model_path).stem) or "model"
    out: list[Path] = []
    for ob in obligations:
        p = d / f"{stem}.{_SAFE.sub('_', ob.name)}.smt2"
        p.write_text(ob.render(), encoding="utf-8")
        out.append(p)
    return out


def expected_answer(text: str) -> str:
    """The expected answer recorded in an exported file's header."""
    m = re.search(r"^; expected answer: (\S+)", text, re.M)
    if m is None:
        raise ValueError("no expected answer in the header")
    return m.group(1)


def cvc5_answers(text: str, time_limit_ms: int | None = None) -> list[str]:
    """What cvc5 prints for each command of an SMT-LIB2 script (the second solver of the exported files).

    ``time_limit_ms`` bounds each check (cvc5's ``tlimit-per``). Raises
    ImportError when cvc5 is not installed and cvc5's own exceptions when it
    cannot take the script; callers decide what that means.
    """
    import cvc5

    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    if time_limit_ms is not None:
        solver.setOption("tlimit-per", str(time_limit_ms))
    sm = cvc5.SymbolManager(tm)
    parser = cvc5.InputParser(solver, sm)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "obligation")
    answers: list[str] = []
    while True:
        cmd = parser.nextCommand()
        if cmd.isNull():
            return answers
        out = cmd.invoke(solver, sm).strip()
        if out:
            answers.append(out)
