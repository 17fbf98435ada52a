"""Workbooks: reading ``.xlsx`` (:mod:`.xlsx`, after :mod:`.workbook_guard` has checked the
file and :mod:`.sheet_grid` placed its cells), ``.xls`` and ``.ods`` (in a child process under
a memory and a time budget: :mod:`.workbook_child`), and writing ``.xlsx`` (:mod:`.xlsx_write`).
Nothing is imported here: :mod:`coscore.io` imports the reader or the writer a file needs.
"""
