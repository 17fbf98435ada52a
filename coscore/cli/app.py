"""``coscore app DIR``: the original CoScore web app (pages, API, database) served on
coscore. Its arguments and its run live with the app (:mod:`coscore.webapp.command`);
importing it needs the ``serve`` extra, so a missing extra makes the subcommand
unavailable with an install hint."""
from __future__ import annotations

from ..webapp.command import add_arguments, run

__all__ = ["add_arguments", "run"]
