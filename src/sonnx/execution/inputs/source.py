"""Where the values of one run's graph inputs came from, worded once for every report that names it.

A verdict tested on a file's values names that file and its SHA-256, never a
seed that drew nothing; a verdict tested on drawn values names the seed that
replays them. The reports say it in two ways, both written here
(:meth:`InputSource.describe`):

* ``verdict``: the phrase of a verdict's text and of the cross-check and
  partition reports (``seed 7``; ``inputs from F, sha256 0123…; mask drawn
  with seed 7``);
* ``set`` and ``derived``: the validation reports of ``sonnx rewrite`` and
  ``sonnx equiv`` (:func:`.sets.set_source`), which name the
  files as the command line named them: the normal input set
  (``drawn with seed 7``; ``given: F (...)``), and the same as the ground of
  a set derived from it (``the normal set (seed 7)``; ``the values given in F (...)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

SHA_SHOWN = 16
"""How many hex digits of a file's SHA-256 a one-line description shows (the details keep all 64)."""

Wording = Literal["verdict", "set", "derived"]
"""The forms of :meth:`InputSource.describe` (see the module text)."""


@dataclass(frozen=True)
class InputSource:
    """Where the values of one run's graph inputs came from.

    ``files`` are the files read, as given, each with the SHA-256 of its
    bytes; ``given`` the inputs whose values they (or the caller) gave;
    ``drawn`` the inputs drawn at random with ``seed``; ``named`` the files as
    the caller named them (``FILE``, or ``NAME=FILE`` for one input's file),
    in the order they were read.
    """

    seed: int
    drawn: tuple[str, ...]
    files: tuple[tuple[str, str], ...] = ()
    given: tuple[str, ...] = ()
    named: tuple[str, ...] = ()

    @property
    def all_drawn(self) -> bool:
        """True when no value came from a file or the caller: the seed alone names the inputs."""
        return not self.given

    @property
    def from_caller(self) -> bool:
        """True when the caller named files or gave values (even a file that held none of the inputs)."""
        return bool(self.named or self.given)

    def describe(self, wording: Wording = "verdict") -> str:
        """One phrase saying where the values came from, in the ``wording`` of the report (see the module text)."""
        if wording == "verdict":
            return self._verdict_phrase()
        if not self.from_caller:
            return f"drawn with seed {self.seed}" if wording == "set" else f"the normal set (seed {self.seed})"
        where = ", ".join(self.named) if self.named else "the caller"
        files = f"{where} (a graph input they do not hold is drawn with seed {self.seed})"
        return f"given: {files}" if wording == "set" else f"the values given in {files}"

    def _verdict_phrase(self) -> str:
        if self.all_drawn:
            return f"seed {self.seed}"
        if self.files:
            text = "; ".join(f"inputs from {path}, sha256 {digest[:SHA_SHOWN]}" for path, digest in self.files)
        else:
            text = "values given by the caller"
        if self.drawn:
            text += f"; {', '.join(self.drawn)} drawn with seed {self.seed}"
        return text

    def to_json(self) -> dict[str, Any]:
        """JSON-ready: the files with their digests, the inputs drawn, and the seed when something was drawn."""
        return {
            "files": [{"file": path, "sha256": digest} for path, digest in self.files],
            "given": list(self.given),
            "drawn": list(self.drawn),
            "drawn_with_seed": self.seed if self.drawn else None,
        }

    def details(self) -> dict[str, Any]:
        """What a verdict's details record: ``input_seed`` when every input was drawn, else ``inputs``."""
        return {"input_seed": self.seed} if self.all_drawn else {"inputs": self.to_json()}


@dataclass(frozen=True)
class Inputs:
    """The values of the graph inputs by name, and where they came from."""

    values: dict[str, Any]
    source: InputSource
