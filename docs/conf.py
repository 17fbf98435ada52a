"""Sphinx configuration of coscore's documentation (``pip install '.[docs]'``, then
``sphinx-build -W --keep-going -b html docs docs/_build/html``)."""
from __future__ import annotations

import sys
from pathlib import Path

import coscore

sys.path.insert(0, str(Path(__file__).parent))  # _commands.py: the parser of the command reference

project = "coscore"
author = "the coscore developers"
copyright = "2026, the coscore developers"  # noqa: A001 - Sphinx's name for it
release = coscore.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "myst_parser",  # the pages are Markdown
    "sphinx.ext.autodoc",  # the API reference, from the docstrings
    "sphinx.ext.napoleon",
    "sphinxarg.ext",  # the command reference, from the argument parsers
]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
myst_heading_anchors = 4  # links such as columns.md#dataframes
myst_enable_extensions = ["colon_fence", "deflist"]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
html_theme = "furo" if __import__("importlib.util").util.find_spec("furo") else "alabaster"
html_title = f"coscore {release}"
html_static_path: list[str] = []
