"""Columns that name students or groups rather than hold answers: never taken as blanks by
default, and where a row is named (``--id``), the column that names it.

A column *looks like an identifier or a group* by its name (学号, 考号, 姓名, 班级, 学校,
``id``, ``student_id``, ``name``, ``class``, ``school``…: :func:`kind_of_name`) or, given
some of its rows, by what it holds: text that is different on every row and reads like a
code (``S00242``, ``2024001``, ``A-17``: :func:`looks_like_codes`).
"""
from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["CODE_ROWS", "ID_NAMES", "MARK_NAMES", "id_column", "kind_of_name", "looks_like_codes",
           "looks_like_marks"]

#: Chinese words in a column's name that make it an identifier…
_CJK_IDS = ("学号", "考号", "准考证", "学籍", "座号", "编号", "序号", "姓名", "名字", "身份证", "学生")
#: … or a group.
_CJK_GROUPS = ("班级", "学校", "年级", "性别", "考场", "座位", "校区", "院系", "专业")
#: English words (whole words of the name, any case) of identifiers and of groups.
_EN_IDS = frozenset({"id", "ids", "sid", "uid", "name", "names", "student", "students", "pupil", "firstname",
                     "lastname", "surname", "username", "email", "candidate", "examinee"})
_EN_GROUPS = frozenset({"class", "classroom", "school", "gender", "sex", "seat", "room", "section", "cohort",
                        "group", "team", "campus", "department", "major", "grade_level", "year_group"})
#: Names the ``--id`` default takes, in order of preference (compared case-insensitively).
ID_NAMES = ("id", "student_id", "studentid", "student", "学号", "考号", "准考证号")
#: Column names that usually hold the teachers' marks (compared case-insensitively): taken
#: as a blank because ``--label`` was forgotten, they would change what rules read.
MARK_NAMES = ("mark", "marks", "score", "label", "grade", "human", "分数", "得分", "成绩", "评分", "打分")
#: The fewest rows whose values are looked at to call a column a column of codes.
CODE_ROWS = 10

_WORD = re.compile(r"[a-z]+|[0-9]+")
_CODE = re.compile(r"[A-Za-z]{0,6}[-_]?[0-9][0-9A-Za-z_-]{1,23}")


def kind_of_name(name: str) -> str | None:
    """``"an identifier"`` or ``"a group"`` when the column's name says so, else ``None``."""
    text = name.strip()
    if any(word in text for word in _CJK_IDS):
        return "an identifier"
    if text in ("班", "校") or any(word in text for word in _CJK_GROUPS):
        return "a group"
    lowered = text.casefold()
    words = set(_WORD.findall(lowered))
    joined = re.sub(r"[\s_\-.]+", "", lowered)
    if words & _EN_IDS or joined in {"studentid", "studentno", "studentnumber", "candidateno", "examno"}:
        return "an identifier"
    if words & _EN_GROUPS or joined in {"gradelevel", "yeargroup", "classname", "schoolname"}:
        return "a group"
    return None


def looks_like_marks(name: str) -> bool:
    """Whether a column's name is one of :data:`MARK_NAMES` (a teacher's marks, most likely)."""
    return name.strip().casefold() in MARK_NAMES


def looks_like_codes(values: Sequence[object]) -> bool:
    """Whether ``values`` (some rows of one column) read like identifiers: at least
    :data:`CODE_ROWS` non-empty values, every one different and every one a code (letters
    then digits, such as ``S00242`` or ``A-17``, or five digits and more, such as
    ``2024001``; no spaces, no Chinese)."""
    texts = [str(v) for v in values if v is not None and str(v) != ""]
    if len(texts) < CODE_ROWS or len(set(texts)) != len(texts):
        return False
    return all(_CODE.fullmatch(t) and (len(t) >= 5 or any(c.isalpha() for c in t)) for t in texts)


def id_column(columns: Sequence[str], given: str | None = None) -> str | None:
    """The column that names a row: ``given`` (``--id``) when there is one, else the first
    of :data:`ID_NAMES` the table has (compared case-insensitively), else ``None``."""
    if given is not None:
        return given
    by_name = {c.strip().casefold(): c for c in reversed(list(columns))}
    return next((by_name[n] for n in ID_NAMES if n in by_name), None)
