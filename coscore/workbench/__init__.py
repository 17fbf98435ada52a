"""The rule workbench: a page where a rule author edits a rule and sees what ``coscore
check`` says as they type (each diagnostic placed in the text, the score range, what each
combo can contribute), tests an answer and sees which characters each atom matched (as
``coscore explain`` finds them), and scores a dataset to see the agreement with the
teachers' marks and the answers the rule gets most wrong.

A front of its own, on the shared HTTP layer (:mod:`coscore.http`): ``coscore workbench``
serves it alone, on its own store (:mod:`.store`: rules with their versions, datasets
imported from files, exams), and ``coscore app`` mounts it at ``/workbench`` over the
original app's database (:mod:`coscore.webapp.bench`). See docs/workbench.md.

- :mod:`.routes`: the page and the ``/api/workbench/…`` endpoints on a :class:`~.routes.Catalog`;
- :mod:`.jobs`: what the endpoints ask of the worker processes; :mod:`.scorings`: datasets
  scored in the background and kept by rule version;
- :mod:`.where`, :mod:`.evidence`, :mod:`.analysis`: diagnostics placed in the rule's
  text, answers explained with marks, datasets scored and paged;
- :mod:`.store`, :mod:`.datasets`, :mod:`.exams`, :mod:`.library`: the store, data files
  imported, exams opened, and their endpoints; :mod:`.app`: the server;
  :mod:`.startup`: the files ``coscore workbench`` opens at start (its arguments and its
  run are the command's, :mod:`coscore.cli.workbench`);
- ``static/``: the page, its scripts and its styles (plain HTML, JavaScript and CSS).

This package's face is its public entry point, and the only one another front uses:
``coscore app`` (:mod:`coscore.webapp`) mounts the workbench with :func:`workbench_routes`
over a :class:`Catalog` of its own, gives its datasets as :class:`Answers` and runs
:func:`workbench_jobs` in its worker pool; it imports nothing else of the workbench
(``tests/test_layers.py``, docs/architecture.md).
"""
from typing import Any

from .analysis import Answers
from .jobs import workbench_jobs
from .routes import Catalog, Workbench, workbench_routes

__all__ = ["DEFAULT_SETTINGS", "Answers", "Catalog", "Workbench", "create_app", "workbench_jobs",
           "workbench_routes"]


def __getattr__(name: str) -> Any:  # the server's pieces (SQLite store, file readers) load when first used
    if name in ("create_app", "DEFAULT_SETTINGS"):
        from . import app

        return getattr(app, name)
    raise AttributeError(f"module 'coscore.workbench' has no attribute {name!r}")
