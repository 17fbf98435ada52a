"""Delimited text (CSV, TSV): the row-by-row reader and the writer (:mod:`.delimited`), and the
reader that parses a plain file in Arrow's C++ CSV reader (:mod:`.columnar_csv`). Nothing is
imported here: :mod:`coscore.io` imports what a file needs.
"""
