"""The JSON edits of the tamper campaign: at every path of a bundle's JSON tree, each way a value can change.

A path is a tuple of keys and list positions from the root (``()`` is the
root). The edits of a parsed tree are written back in the bundle's own JSON
style (two-space indent, keys in order, UTF-8, final newline), which is what
:func:`sonnx.checking.evidence.bundle.dump_json` writes; :func:`emit` writes the same
text and can add a duplicate of one key at the text level, since a parsed
tree cannot hold one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

Path_ = tuple[str | int, ...]

VOCABULARY = {
    "sat": "unsat",
    "unsat": "sat",
    "unknown": "sat",
    "PROVED": "VIOLATED",
    "VIOLATED": "PROVED",
    "UNKNOWN": "PROVED",
    "TESTED": "PROVED",
    "ERROR": "PROVED",
    "AGREE": "DIFFER",
    "DIFFER": "AGREE",
    "KNOWN-DEVIATION": "AGREE",
    "error": "warning",
    "warning": "error",
}
"""Words whose swap changes a claim in a way a forger wants (a verdict, a solver answer, an outcome)."""

KINDS_OF_NODE = ("json-value", "json-huge", "json-vocab", "json-type")
KINDS_OF_KEY = ("json-delkey", "json-dupkey-first", "json-dupkey-last")
KINDS_OF_DICT = ("json-addkey",)
KINDS_OF_ENTRY = ("json-dupentry", "json-fakeentry", "json-delentry", "json-swap")
UNKNOWN_KEY = "x-forged"
HUGE = 1_000_000_000
"""The integer of a ``json-huge`` edit: a count or limit a verifier must bound rather than obey."""


def pointer(path: Path_) -> str:
    """``path`` as a JSON Pointer (RFC 6901)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def walk(tree: Any, path: Path_ = ()) -> Iterator[tuple[Path_, Any]]:
    """Every (path, value) of ``tree``, the root first, depth first in document order."""
    yield path, tree
    if isinstance(tree, dict):
        for k, v in tree.items():
            yield from walk(v, (*path, k))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            yield from walk(v, (*path, i))


def get(tree: Any, path: Path_) -> Any:
    for p in path:
        tree = tree[p]
    return tree


def changed_string(s: str) -> str:
    """``s`` with its last character replaced by another of the same class (a hex digit stays a hex digit)."""
    if not s:
        return "x"
    last = s[-1]
    if last in "0123456789abcdef":
        other = "0123456789abcdef"["0123456789abcdef".index(last) ^ 1]
    elif last.isalpha():
        other = "b" if last.lower() == "a" else "a"
        other = other.upper() if last.isupper() else other
    else:
        other = "x"
    return s[:-1] + other


def same_type_change(v: Any, variant: int) -> Any:
    """Another value of the same JSON type: a number ±1, a string changed, a bool flipped; null becomes 0."""
    if isinstance(v, bool):
        return not v
    if isinstance(v, int | float):
        return v + (1 if variant == 0 else -1)
    if isinstance(v, str):
        return changed_string(v)
    if v is None:
        return 0
    if isinstance(v, dict):
        return {**v, UNKNOWN_KEY: True} if not v else {k: x for k, x in list(v.items())[:-1]}
    return [*v[:-1]] if v else [0]


def other_type(v: Any) -> Any:
    """A value of another JSON type standing for ``v``."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int | float):
        return str(v)
    if isinstance(v, str):
        return 1 if not v.isdigit() else int(v)
    if v is None:
        return False
    if isinstance(v, dict):
        return list(v.values())
    return {str(i): x for i, x in enumerate(v)}


def vocabulary_swapped(v: Any) -> tuple[Any, bool]:
    """A copy of ``v`` with its first vocabulary string (document order) swapped; whether one was found."""
    for path, x in walk(v):
        if isinstance(x, str) and x in VOCABULARY:
            copy = json.loads(json.dumps(v))
            if not path:
                return VOCABULARY[x], True
            get(copy, path[:-1])[path[-1]] = VOCABULARY[x]
            return copy, True
    return v, False


def node_variants(kind: str, v: Any) -> int:
    """How many mutants of ``kind`` the value ``v`` gives (0: the kind does not apply)."""
    if kind == "json-value":
        return 0 if isinstance(v, dict | list) else 2 if isinstance(v, int | float) and not isinstance(v, bool) else 1
    if kind == "json-huge":
        return 1 if isinstance(v, int) and not isinstance(v, bool) and v != HUGE else 0
    if kind == "json-vocab":
        return 1 if isinstance(v, str) and v in VOCABULARY else 0
    return 1


def edits(tree: Any) -> Iterator[tuple[str, Path_, int]]:
    """Every (kind, path, variant) that applies to ``tree``."""
    for path, v in walk(tree):
        for kind in KINDS_OF_NODE:
            for variant in range(node_variants(kind, v)):
                yield kind, path, variant
        if isinstance(v, dict):
            yield "json-addkey", path, 0
            for k in v:
                for kind in KINDS_OF_KEY:
                    yield kind, (*path, k), 0
        elif isinstance(v, list):
            for i, x in enumerate(v):
                for kind in KINDS_OF_ENTRY:
                    if kind == "json-fakeentry" and not vocabulary_swapped(x)[1]:
                        continue
                    if kind == "json-swap" and i + 1 >= len(v):
                        continue
                    yield kind, (*path, i), 0


def emit(v: Any, level: int = 0, path: Path_ = (), dup: tuple[Path_, Any, bool] | None = None) -> str:
    """``v`` as :func:`json.dumps` with two-space indent writes it, and with ``dup = (path, value, first)`` the
    key at ``path`` written twice: once with ``value``, before the real one when ``first``, else after it."""
    pad, end = "  " * (level + 1), "  " * level
    if isinstance(v, dict) and v:
        items = []
        for k, x in v.items():
            key = json.dumps(k, ensure_ascii=False)
            line = f"{pad}{key}: {emit(x, level + 1, (*path, k), dup)}"
            if dup is not None and dup[0] == (*path, k):
                forged = f"{pad}{key}: {emit(dup[1], level + 1)}"
                items += [forged, line] if dup[2] else [line, forged]
            else:
                items.append(line)
        return "{\n" + ",\n".join(items) + "\n" + end + "}"
    if isinstance(v, list) and v:
        inner = [pad + emit(x, level + 1, (*path, i), dup) for i, x in enumerate(v)]
        return "[\n" + ",\n".join(inner) + "\n" + end + "]"
    return json.dumps(v, ensure_ascii=False)


def dump(tree: Any) -> bytes:
    return (json.dumps(tree, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def apply_edit(text: bytes, kind: str, path: Path_, variant: int) -> tuple[bytes, str]:
    """The JSON file ``text`` after one edit; with a description of the edit."""
    tree = json.loads(text)
    where = pointer(path) or "the root"
    if kind in ("json-dupkey-first", "json-dupkey-last"):
        forged = same_type_change(get(tree, path), 0)
        first = kind == "json-dupkey-first"
        order = "before" if first else "after"
        out = (emit(tree, dup=(path, forged, first)) + "\n").encode("utf-8")
        return out, f"key {where} written twice, {json.dumps(forged)[:60]} {order} the real value"
    if not path:
        parent: Any = None
        old: Any = tree
    else:
        parent = get(tree, path[:-1])
        old = parent[path[-1]]
    if kind == "json-addkey":
        get(tree, path)[UNKNOWN_KEY] = True
        return dump(tree), f"unknown key {UNKNOWN_KEY!r} added to {where}"
    if kind in ("json-delkey", "json-delentry"):
        del parent[path[-1]]
        return dump(tree), f"{where} deleted"
    if kind == "json-dupentry":
        parent.insert(path[-1], json.loads(json.dumps(old)))
        return dump(tree), f"a copy of entry {where} inserted before it"
    if kind == "json-fakeentry":
        parent.insert(path[-1], vocabulary_swapped(old)[0])
        return dump(tree), f"a copy of entry {where} with a verdict word swapped inserted before it"
    if kind == "json-swap":
        i = int(path[-1])
        parent[i], parent[i + 1] = parent[i + 1], parent[i]
        return dump(tree), f"entries {where} and the next swapped"
    if kind == "json-value":
        new = same_type_change(old, variant)
    elif kind == "json-huge":
        new = HUGE
    elif kind == "json-vocab":
        new = VOCABULARY[old]
    elif kind == "json-type":
        new = other_type(old)
    else:
        raise ValueError(f"unknown JSON edit {kind}")
    if parent is None:
        tree = new
    else:
        parent[path[-1]] = new
    shown_old, shown_new = json.dumps(old, ensure_ascii=False)[:40], json.dumps(new, ensure_ascii=False)[:40]
    return dump(tree), f"{where}: {shown_old} -> {shown_new}"
