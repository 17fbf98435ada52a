"""The one pipeline: tables of answers to scores, chunk by chunk, for one rule or an exam's
items side by side (a rule is an exam of one item).

- :mod:`.tables` — the one gate: what a caller holds (Python answers, Arrow, a DataFrame)
  as a :class:`~.tables.BlankTable`, the one type the engine is given;
- :mod:`.text_lists` — blank columns held as Python strings (a pandas ``object`` column's own);
- :mod:`.stream` — the one loop (:func:`~.stream.score_work`): each chunk's plans scored,
  with the read-ahead; :data:`~.stream.CHUNK_SIZE`, the one chunk size;
- :mod:`.scoring` — what a run scores and where its results go (:class:`~.scoring.Scoring`:
  the long and wide layouts);
- :mod:`.stages` — the read-ahead and write-behind threads;
- :mod:`.results` — the result columns a scored table gains;
- :mod:`.files` — a file reader's chunks scored into a writer (``coscore score``);
- :mod:`.students` — each student's totals of a long-layout exam.

:meth:`coscore.Rule.score_many`, :meth:`~coscore.Rule.score_chunks`, the command, Dask,
the web app's tasks and exams all reach the engine through :mod:`.stream`.
"""
