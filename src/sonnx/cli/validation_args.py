"""The options ``sonnx rewrite`` and ``sonnx equiv`` share: which input sets, given input values, a budget.

* ``--sets normal,signed,extreme``: the input sets to compare; only those are
  drawn and run (:mod:`sonnx.execution.inputs.sets`);
* ``--inputs FILE`` and ``--input NAME=FILE.npy``: input values, read by
  :func:`sonnx.execution.inputs.read_inputs` as every other subcommand reads them; they
  are the normal set, and without ``--sets`` only that set is compared;
* ``--budget SECONDS``: the wall-clock time each model may run on each set
  (default :data:`sonnx.rewrite.validate.DEFAULT_BUDGET`); a run that exceeds
  it is stopped and its set is not compared.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any

from ..execution.inputs import InputSource, read_inputs
from ..execution.inputs.sets import SETS
from ..model.graph import Model
from ..rewrite.validate import DEFAULT_BUDGET


def budget(text: str) -> float:
    """A budget in seconds: a positive finite number."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid budget {text!r}: expected a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"invalid budget {text!r}: expected a positive number of seconds")
    return value


def add_validation_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--sets",
        default=None,
        help=f"comma-separated input sets to compare (default {','.join(SETS)}; with --inputs or --input: normal, "
        "the given values)",
    )
    p.add_argument("--inputs", metavar="FILE", help="input values keyed by graph-input name (the normal set)")
    p.add_argument(
        "--input", dest="input_items", action="append", default=[], metavar="NAME=FILE.npy", help="one input from .npy"
    )
    p.add_argument(
        "--budget",
        type=budget,
        default=DEFAULT_BUDGET,
        metavar="SECONDS",
        help=f"wall-clock seconds each model may run on each input set (default {DEFAULT_BUDGET:g}); a run "
        "stopped at its budget leaves its set not compared",
    )


def sets_from(args: argparse.Namespace) -> list[str] | None:
    """The sets named by ``--sets`` (None when the option is absent)."""
    if args.sets is None:
        return None
    return [s.strip() for s in args.sets.split(",") if s.strip()]


def given_from(args: argparse.Namespace) -> Callable[[Model], tuple[dict[str, Any], InputSource]] | None:
    """A reader of the given input values for a loaded model, with where they came from; None if none."""
    if args.inputs is None and not args.input_items:
        return None

    def read(model: Model) -> tuple[dict[str, Any], InputSource]:
        got = read_inputs(model, args.inputs, args.input_items, args.seed)
        return got.values, got.source

    return read
