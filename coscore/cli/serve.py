"""``coscore serve``: the drop-in HTTP scoring service. Its arguments and its run live
with the service (:mod:`coscore.server`); importing it needs the ``serve`` extra, so a
missing extra makes the subcommand unavailable with an install hint."""
from __future__ import annotations

from ..server import add_arguments, run

__all__ = ["add_arguments", "run"]
