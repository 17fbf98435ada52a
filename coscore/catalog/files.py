"""The catalog's messages about reading a data file: where its header is, which columns
its blanks are (and why a column was not taken), its marks, and the place in the file a
refusal names (the English is the text :mod:`coscore.io` and :mod:`coscore.labelled`
write; the workbench shows them when a file is uploaded or imported).

A refusal of the blank columns is built of parts, each a message of its own: what the
rule reads (``reads``), what the data offers (``offered``), the columns not taken
(``skipped``, a list: each ``NAME (looks like …)``) and how to name the blanks
(``name_them``)."""
from __future__ import annotations

from .message import Message as M

__all__ = ["ENTRIES"]


def W(id: str, en: str, zh: str) -> M:
    """A message around another one (see :attr:`Message.wraps`)."""
    return M(id, en, zh, True)


#: The end of a refusal of the blank columns, in each language.
_NAME_EN = ": name the blank columns, in order, with {name_them}"
_NAME_ZH = "：请用{name_them}按顺序指定空所在的列"
_LABEL_EN = "; if {marks} holds the teachers' marks, give --label {label}"
_LABEL_ZH = "；如果 {marks} 是教师评分，请给出 --label {label}"
_HEADER_ZH = ("表头在第 {header} 行（{names}）；第 {title_at} 行是标题（{title}），已跳过——要另选表头所在的行，"
              "请给出 --header-row")
_MARK_EN = (", or empty the cell to leave the row out; --missing-marks skip leaves out only {what}s that are not "
            "recorded, not wrong ones")
_MARK_ZH = "，或者清空这个单元格，让这一行不计入；--missing-marks skip 只略去没有记录的{what}，不略去错的"

ENTRIES: list[M] = [
    # -- the place in the file (coscore.io.InputError) ------------------------------------------
    W("file.at_line_column", "{file}: line {line}, column {column}: {problem}",
      "{file}：第 {line} 行，{column} 列：{problem}"),
    W("file.at_row_column", "{file}: row {row}, column {column}: {problem}",
      "{file}：第 {row} 行，{column} 列：{problem}"),
    W("file.at_line", "{file}: line {line}: {problem}", "{file}：第 {line} 行：{problem}"),
    W("file.at_row", "{file}: row {row}: {problem}", "{file}：第 {row} 行：{problem}"),
    W("file.at_column", "{file}: column {column}: {problem}", "{file}：{column} 列：{problem}"),
    # -- the header and the encoding ----------------------------------------------------------------
    M("file.header_row", "header: row {header} ({names}); the title row {title_at} ({title}) was skipped — give "
      "--header-row to choose another",
      _HEADER_ZH),
    M("file.header_line", "header: line {header} ({names}); the title line {title_at} ({title}) was skipped — give "
      "--header-row to choose another",
      _HEADER_ZH),
    M("file.read_as", "read as {encoding}", "按 {encoding} 编码读取"),
    # -- the blank columns (coscore.io.AnswerColumns.resolve) ----------------------------------------
    M("file.misfit", "{reader} reads {reads}, but the data has {offered}" + _NAME_EN,
      "{reader}读取 {reads}，但数据中有 {offered}" + _NAME_ZH),
    M("file.misfit_skipped", "{reader} reads {reads}, but the data has {offered}; not taken: {skipped}" + _NAME_EN,
      "{reader}读取 {reads}，但数据中有 {offered}；未采用：{skipped}" + _NAME_ZH),
    M("file.misfit_label", "{reader} reads {reads}, but the data has {offered}" + _NAME_EN + _LABEL_EN,
      "{reader}读取 {reads}，但数据中有 {offered}" + _NAME_ZH + _LABEL_ZH),
    M("file.misfit_skipped_label",
      "{reader} reads {reads}, but the data has {offered}; not taken: {skipped}" + _NAME_EN + _LABEL_EN,
      "{reader}读取 {reads}，但数据中有 {offered}；未采用：{skipped}" + _NAME_ZH + _LABEL_ZH),
    M("file.no_blank_column", "no column left to take as a blank; name them with {name_them}",
      "没有可以作为空的列了：请用{name_them}指定"),
    M("file.no_blank_column_skipped", "no column left to take as a blank; not taken: {skipped}; name them with "
      "{name_them}", "没有可以作为空的列了（未采用：{skipped}）：请用{name_them}指定"),
    M("file.the_rule", "the rule", "规则"),
    M("file.page_blanks", "the Blanks list of the column mapping", "列对应中的“空”列表"),
    M("file.reads", "{count} blanks (T(0)…T({last}))", "{count} 个空（T(0)…T({last})）"),
    M("file.reads_one", "1 blank", "1 个空"),
    M("file.reads_at_least", "at least {count} blanks (T(0)…T({last}))", "至少 {count} 个空（T(0)…T({last})）"),
    M("file.reads_at_least_one", "at least 1 blank", "至少 1 个空"),
    M("file.offered", "{count} columns that could be blanks ({columns})", "{count} 个可以作为空的列（{columns}）"),
    M("file.offered_one", "1 column that could be blanks ({columns})", "1 个可以作为空的列（{columns}）"),
    M("file.offered_none", "0 columns that could be blanks", "0 个可以作为空的列"),
    M("file.looks_identifier", "{name} (looks like an identifier)", "{name}（看起来是学号等编号）"),
    M("file.looks_group", "{name} (looks like a group)", "{name}（看起来是班级等分组）"),
    # -- the marks (coscore.marks.mark_column) ------------------------------------------------------
    M("file.mark_not_number", "expected a number, got {cell}; give --missing-marks skip to leave such rows out",
      "应是数字，却是 {cell}；要略去这样的行，请给出 --missing-marks skip"),
    M("file.mark_not_finite", "the {what} {mark} is not a finite number: correct it (a {what} from 0 to 10)" + _MARK_EN,
      "{what} {mark} 不是有限的数字：请改正（{what}应在 0 到 10 之间）" + _MARK_ZH),
    M("file.mark_outside", "the {what} {mark} is outside the 0–10 scale of coscore's scores: correct it (a {what} on "
      "another scale must be rescaled to 0–10)" + _MARK_EN,
      "{what} {mark} 超出 coscore 得分的 0–10 分范围：请改正（其他分制的{what}要换算到 0–10 分）" + _MARK_ZH),
    M("file.mark", "mark", "评分"),
    M("file.second_mark", "second mark", "第二位评分人的评分"),
]
