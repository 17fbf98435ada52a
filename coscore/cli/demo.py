"""``coscore demo``: score the bundled CoScore datasets and show the agreement."""
from __future__ import annotations

import argparse

from .errors import EXIT_OK

DESCRIPTION = """Score the four CoScore tasks bundled with coscore and print how the scores agree with
the teachers' marks."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """``coscore demo`` takes no arguments."""


def run(args: argparse.Namespace) -> int:
    """Print the demo's agreement table; return the exit status."""
    from ..demo import run_demo

    print(run_demo())
    return EXIT_OK
