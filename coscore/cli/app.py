"""``coscore app DIR``: the original CoScore web app (pages, API, database) served on
coscore. Its arguments and its run live with the app (:mod:`coscore.webapp.command`);
importing it needs the ``serve`` extra, so a missing extra makes the subcommand
unavailable with an install hint.

DIR is the folder that holds ``templates/`` and ``static/``; the folder above it (the
original repository, which holds ``app/``) is accepted too, and a DIR that is neither
gets an error naming the folder to give when one is found next to it.
"""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from ..webapp.command import add_arguments
from ..webapp.command import run as run_app
from .errors import EXIT_USAGE

__all__ = ["add_arguments", "app_folder", "run"]

#: What an app folder holds.
PARTS = ("templates", "static")


def run(args: argparse.Namespace) -> int:
    """Serve the app folder DIR (or the app folder inside it); return the exit status."""
    folder, problem = app_folder(args.app_dir)
    if problem is not None:
        from ..diagnostics import shorten

        print(shorten(f"coscore app: {problem}"), file=sys.stderr)
        return EXIT_USAGE
    args.app_dir = str(folder)
    return run_app(args)


def app_folder(given: str) -> tuple[Path, str | None]:
    """The app folder ``given`` names: itself when it holds ``templates/`` and
    ``static/``, else its ``app/`` subfolder when that does; with the reason when
    neither (naming a folder nearby that would do: its parent, a subfolder, or a
    subfolder's ``app/``)."""
    root = Path(given)
    if _is_app(root):
        return root, None
    if _is_app(root / "app"):
        return root / "app", None
    if not root.is_dir():
        return root, f"{given} is not a CoScore app folder: there is no such folder"
    try:
        children = sorted(p for p in root.iterdir() if p.is_dir())
    except OSError as exc:
        return root, f"{given} is not a CoScore app folder: cannot read it ({exc.strerror or exc})"
    near = [root.parent] + children + [p / "app" for p in children]
    found = next((p for p in near if _is_app(p)), None)
    hint = f"; try: coscore app {shlex.quote(str(found))}" if found is not None else ""
    return root, f"{given} is not a CoScore app folder: it needs templates/ and static/{hint}"


def _is_app(folder: Path) -> bool:
    try:
        return all((folder / part).is_dir() for part in PARTS)
    except OSError:
        return False
