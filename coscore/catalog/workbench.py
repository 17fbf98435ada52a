"""The catalog's messages of the workbench's own: its refusals and the statuses of tune
and suggest run in the page (the English is the text :mod:`coscore.workbench` writes)."""
from __future__ import annotations

from .message import Message as M

__all__ = ["ENTRIES"]

ENTRIES: list[M] = [
    M("bench.misfit_fewer", "the dataset's answers have {have} blanks but the rule {reads}: these are not the rule's "
      "columns (choose the item's columns, or the rule for this dataset)",
      "数据集的答案有 {have} 个空，而规则{reads}：这不是这条规则的列（请选择这道题的列，或这个数据集对应的规则）"),
    M("bench.misfit_range",
      "the dataset's answers have {fewest} to {most} blanks but the rule {reads}: these are not the "
      "rule's columns (choose the item's columns, or the rule for this dataset)",
      "数据集的答案有 {fewest} 到 {most} 个空，而规则{reads}：这不是这条规则的列"
      "（请选择这道题的列，或这个数据集对应的规则）"),
    M("need.none", "reads no blank", "不读取任何空"),
    M("need.any", "reads any number of blanks ('*')", "读取任意个空（'*'）"),
    M("need.exactly_one", "reads 1 blank (T(0))", "读取 1 个空（T(0)）"),
    M("need.exactly", "reads {count} blanks ({calls})", "读取 {count} 个空（{calls}）"),
    M("need.at_least_one", "reads at least 1 blank (T(0), and any number with '*')",
      "至少读取 1 个空（T(0)，用 '*' 时可读任意个）"),
    M("need.at_least", "reads at least {count} blanks ({calls}, and any number with '*')",
      "至少读取 {count} 个空（{calls}，用 '*' 时可读任意个）"),
    M("bench.tune_needs_marks", "tune needs a dataset with marks: this one has none",
      "调参需要有教师评分的数据集：这个数据集没有"),
    M("bench.suggest_needs_marks", "suggest needs a dataset with marks: this one has none",
      "建议需要有教师评分的数据集：这个数据集没有"),
    M("bench.no_job", "no job {job}: it ended, was cancelled or the server restarted",
      "没有任务 {job}：它已结束、被取消，或服务器已重启"),
    M("bench.job_time", "{what} ran past its {seconds} s budget and was stopped: try a smaller dataset or fewer folds",
      "{what}超过了 {seconds} 秒的时间预算，已停止：请换用较小的数据集或较少的折数"),
    M("bench.tune", "tune", "调参"),
    M("bench.suggest", "suggest", "建议"),
    M("bench.no_atom", "no atom {atom} in the rule", "规则中没有原子 {atom}"),
    M("bench.not_sm", "atom {atom} is {kind}: a phrase is added to an SM atom as a new group",
      "原子 {atom} 是 {kind} 类型：短语只能作为新的一组加到 SM 原子里"),
]
