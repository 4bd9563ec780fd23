"""Scope paths: how a nested graph is named in witnesses and reports (``main/If:a.then_branch/...``).

A path names the root and at most :data:`PATH_LEVELS` innermost levels, so
its length stays bounded however deep the nesting goes.
"""

from __future__ import annotations

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
