"""The streaming pipeline: tables of answers to scores, chunk by chunk.

- :mod:`.tables` — the one adapter from a table (Arrow, a DataFrame) to blank columns;
- :mod:`.text_lists` — blank columns held as Python strings (a pandas ``object`` column's own);
- :mod:`.stream` — blank columns scored chunk by chunk, with the one read-ahead;
- :mod:`.stages` — the read-ahead and write-behind threads;
- :mod:`.results` — the result columns a scored table gains;
- :mod:`.files` — a file reader's chunks scored into a writer (``coscore score``).

:class:`coscore.Rule` reaches the engine through :mod:`.stream` for blank columns;
front ends use :meth:`coscore.Rule.score_many`, :meth:`~coscore.Rule.score_chunks`
and :mod:`.files`.
"""
