"""``coscore workbench [DATA… | --exam EXAM] [--rule RULE] [--store DIR]``: the rule
workbench served alone. Its arguments and its run live with the workbench
(:mod:`coscore.workbench.command`), given the options every command that reads a data
file shares (:mod:`.options`); importing it needs the ``serve`` extra, so a missing extra
makes the subcommand unavailable with an install hint."""
from __future__ import annotations

import argparse

from ..workbench import command
from ..workbench.command import DESCRIPTION, run
from .options import add_reading_options, column_list

__all__ = ["DESCRIPTION", "add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``coscore workbench``: the workbench's, with the command's ``--blanks``
    type and reading options."""
    command.add_arguments(parser, column_list=column_list, add_reading_options=add_reading_options)
