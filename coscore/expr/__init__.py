"""The combo language: :mod:`.tokens` → :mod:`.nodes` → :mod:`.parse` (text to a checked
tree) → :mod:`.evaluate` (one answer, the reference path) → :mod:`.columnar` (whole columns
of answers); :mod:`.types` infers what each combo can give, for ``coscore check``."""
