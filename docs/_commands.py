"""The parser the command reference (commands-reference.md) is generated from."""
from __future__ import annotations

import argparse

from coscore.cli import build_parser


def parser() -> argparse.ArgumentParser:
    """``coscore``'s parser with every subcommand's arguments."""
    return build_parser(every=True)
