"""Argument types the commands share (`ascendcraft` and `ascendcraft bench`): a number out of range
is refused by argparse, in one line that names the option (`argument --seed: must be a whole number
from 0, not -1`), before any work starts."""
from __future__ import annotations

import argparse
import math


def whole_number(minimum: int):
    """An int of at least `minimum` (a seed from 0, a count of jobs from 1)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be a whole number from {minimum}, not {value}")
        return value
    return parse


def tolerance(text: str) -> float:
    """A finite number >= 0 (a negative tolerance would call every result wrong, even an exact one)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of at least 0, not {text}")
    return value


def seconds(text: str) -> float:
    """A finite number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text}")
    return value
