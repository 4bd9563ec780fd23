"""Scope paths: how a nested graph is named in witnesses and reports (``main/If:a.then_branch/...``).

A path names the root and at most :data:`PATH_LEVELS` innermost levels, so
its length stays bounded however deep the nesting goes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

PATH_LEVELS = 12
"""How many innermost levels a scope path names; deeper levels are summarised by their number."""


def child_segments(segments: tuple[str, ...], level: str) -> tuple[str, ...]:
    """The segments a scope path keeps for a child scope: the root, then at most the innermost levels."""
    kept = segments[1:][-(PATH_LEVELS - 1) :] if len(segments) >= PATH_LEVELS else segments[1:]
    return (segments[0], *kept, level)


def scope_path(segments: tuple[str, ...], depth: int) -> str:
    """``main/If:a.then_branch/...``: the root and the levels kept; skipped levels are counted.

    Naming every level would make the paths of a graph nested N deep cost N
    squared characters (9 GB at 20,000 levels); past :data:`PATH_LEVELS` levels
    the middle is written ``.../(K levels)/...``, so each path has a bounded
    length and still names its innermost levels and its depth.
    """
    skipped = depth - (len(segments) - 1)
    if skipped <= 0:
        return "/".join(segments)
    return "/".join((segments[0], f"({skipped} levels)", *segments[1:]))


def walk_visible(parents: Sequence[int], visible: dict[str, list[int]], enter: Callable[[int], Iterable[str]]) -> None:
    """Visit every nested scope in pre-order, each seeing the names its enclosing scopes define.

    ``parents[i]`` is the index of scope ``i``'s enclosing scope (-1 for scope
    0, the main graph, which is not visited). ``visible`` maps a name to the
    indices of the enclosing scopes that define it, innermost last; ``enter(i)``
    reads it and returns the names scope ``i`` defines, which its own nested
    scopes then see until its subtree is done. This is how a nested graph's
    capture resolves to the nearest definition (spec 1.4, lexical scoping). An
    explicit stack: no recursion, however deep the nesting.
    """
    children: list[list[int]] = [[] for _ in parents]
    for i, p in enumerate(parents):
        if p >= 0:
            children[p].append(i)
    own: dict[int, list[str]] = {}
    stack: list[tuple[int, bool]] = [(c, True) for c in reversed(children[0])]
    while stack:
        i, entering = stack.pop()
        if not entering:
            for nm in own.pop(i):
                lst = visible[nm]
                lst.pop()
                if not lst:
                    del visible[nm]
            continue
        names = list(enter(i))
        for nm in names:
            visible.setdefault(nm, []).append(i)
        own[i] = names
        stack.append((i, False))
        stack.extend((c, True) for c in reversed(children[i]))
