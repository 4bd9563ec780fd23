"""SMT-LIB scripts from a bundle, rebuilt from an allow-list before any solver sees them.

A bundle's ``.smt2`` files come from someone else. SMT-LIB has commands with
effects outside the formula: ``set-option :regular-output-channel`` makes a
solver write to any path, ``get-info`` and ``echo`` print, options change
limits. :func:`rebuild` parses a script into s-expressions and writes it
again from the commands a sonnx obligation uses (:data:`ALLOWED`) and nothing
else: comments are dropped, every token is written back as it was read, and a
command outside the list, an unbalanced parenthesis or an unterminated
literal refuses the whole script (:class:`ScriptError`). The solver limits
are the project's (:func:`sonnx.smt.solver.SolverSettings`), never the
bundle's.
"""

from __future__ import annotations

from ...base.errors import InputError
from ...smt.solver import COMMANDS

ALLOWED = frozenset({*COMMANDS, "define-sort", "check-sat-assuming"})
"""The commands of an obligation file: those sonnx writes (declarations, definitions, assertions, the
check), and two more declaration and check forms of standard SMT-LIB. No option, no output."""

SExpr = str | list["SExpr"]


class ScriptError(InputError):
    """The script uses something outside the allow-list, or is not well-formed SMT-LIB."""


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif c == ";":
            j = text.find("\n", i)
            i = n if j < 0 else j + 1
        elif c in "()":
            out.append(c)
            i += 1
        elif c == "|":
            j = text.find("|", i + 1)
            if j < 0:
                raise ScriptError("an unterminated |quoted symbol|")
            out.append(text[i : j + 1])
            i = j + 1
        elif c == '"':
            j = i + 1
            while True:
                k = text.find('"', j)
                if k < 0:
                    raise ScriptError("an unterminated string literal")
                if k + 1 < n and text[k + 1] == '"':  # "" escapes a quote
                    j = k + 2
                    continue
                break
            out.append(text[i : k + 1])
            i = k + 1
        else:
            j = i
            while j < n and text[j] not in ' \t\r\n();|"':
                j += 1
            out.append(text[i:j])
            i = j
    return out


def parse(text: str) -> list[SExpr]:
    """The script's top-level s-expressions (iterative: nesting depth costs no Python stack)."""
    top: list[SExpr] = []
    stack: list[list[SExpr]] = []
    for tok in _tokens(text):
        if tok == "(":
            stack.append([])
        elif tok == ")":
            if not stack:
                raise ScriptError("a closing parenthesis without an opening one")
            done = stack.pop()
            (stack[-1] if stack else top).append(done)
        elif stack:
            stack[-1].append(tok)
        else:
            raise ScriptError(f"{tok[:40]!r} outside any command")
    if stack:
        raise ScriptError("an unclosed parenthesis")
    return top


def _write(e: SExpr, out: list[str]) -> None:
    stack: list[object] = [e]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            out.append("(")
            stack.append(")")
            stack.extend(reversed(item))
        elif item == ")":
            out.append(")")
        else:
            out.append(str(item))


def rebuild(text: str) -> str:
    """The script written again from allowed commands only; :class:`ScriptError` names the first other one."""
    lines: list[str] = []
    for cmd in parse(text):
        if not isinstance(cmd, list) or not cmd or not isinstance(cmd[0], str):
            raise ScriptError("a top-level item that is not a command")
        if cmd[0] not in ALLOWED:
            raise ScriptError(f"command {cmd[0][:40]!r} is not allowed in an obligation file")
        parts: list[str] = []
        _write(cmd, parts)
        lines.append(_join(parts))
    return "\n".join(lines) + "\n"


def _join(tokens: list[str]) -> str:
    """Tokens with single spaces, none after an opening or before a closing parenthesis."""
    out: list[str] = []
    prev = "("
    for tok in tokens:
        if prev != "(" and tok != ")":
            out.append(" ")
        out.append(tok)
        prev = tok
    return "".join(out)
