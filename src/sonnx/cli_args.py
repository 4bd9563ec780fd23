"""Argument types shared by the subcommands (errors become one-line usage errors, exit 2)."""

from __future__ import annotations

import argparse


def seed(text: str) -> int:
    """A random seed: an integer from 0 to 2**63 - 1 (NumPy's generators take no negative seed)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid seed {text!r}: expected an integer") from None
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"invalid seed {text!r}: expected an integer from 0 to 2**63 - 1")
    return value
