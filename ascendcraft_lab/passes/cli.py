"""Command entry points of the lowering stage (the CLI table in cli.py points here)."""
from .lower import check_main, lower_main

__all__ = ["lower_main", "check_main"]
