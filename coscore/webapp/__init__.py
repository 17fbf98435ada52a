"""The original CoScore web app on coscore: ``coscore app DIR [--db FILE]``.

Serves the original app folder's pages and every ``/api/*`` route of its Flask server,
on a SQLite database with the same schema (either server opens the other's file), and
scores tasks in the background with the batch engine, storing exactly the ``result``
JSON the original stores. See docs/app.md.

>>> from coscore.webapp import create_app          # doctest: +SKIP
>>> app = create_app("path/to/CoScore/app", "database.db")   # any ASGI server runs it
"""
from .routes import DEFAULT_SETTINGS, create_app
from .store import Store
from .tasks import TaskRunner

__all__ = ["DEFAULT_SETTINGS", "create_app", "Store", "TaskRunner"]
