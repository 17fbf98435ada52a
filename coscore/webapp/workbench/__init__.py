"""The rule workbench: coscore's own page at ``/workbench`` beside the original CoScore
pages, on the same database and worker pool.

A rule author edits a rule and sees what ``coscore check`` says as they type (each
diagnostic placed in the text, the score range, what each combo can contribute), saves
it (never while it has an error), tests an answer and sees which characters each atom
matched (as ``coscore explain`` finds them), and scores a stored dataset to see the
agreement with the teachers' marks and the answers the rule gets most wrong.

- :mod:`.routes`: the page and the ``/api/workbench/…`` endpoints (docs/workbench.md);
- :mod:`.jobs`: what the endpoints ask of the worker processes; :mod:`.scorings`: datasets
  scored in the background and kept by rule version;
- :mod:`.where`, :mod:`.evidence`, :mod:`.analysis`: diagnostics placed in the rule's
  text, answers explained with marks, datasets scored and paged;
- ``static/``: the page, its script and its styles (plain HTML, JavaScript and CSS).
"""
from .routes import Workbench, workbench_routes

__all__ = ["Workbench", "workbench_routes"]
