"""The catalog's messages about data and the servers: a dataset's marks and length, the
request bodies and the worker pool's budgets, tune's and suggest's reasons (the English
is the text :mod:`coscore.http`, :mod:`coscore.webapp`, :mod:`coscore.workbench`,
:mod:`coscore.tune` and :mod:`coscore.suggest` write)."""
from __future__ import annotations

from .message import Message as M

__all__ = ["ENTRIES"]

ENTRIES: list[M] = [
    # -- datasets -------------------------------------------------------------------------
    M("data.row_problem",
      "row {row} of the dataset (line {line}): {problem}, or leave it empty to leave the row unmarked",
      "数据集第 {row} 行（文件第 {line} 行）：{problem}，或者留空，让这一行不计评分"),
    M("data.mark_not_finite", "the mark {mark} is not a finite number: correct it in the dataset (a mark from 0 to 10)",
      "评分 {mark} 不是有限的数字：请在数据集中改正（评分应在 0 到 10 之间）"),
    M("data.mark_outside", "the mark {mark} is outside the 0–10 scale of coscore's scores: correct it in the dataset "
      "(a mark on another scale must be rescaled to 0–10)",
      "评分 {mark} 超出 coscore 得分的 0–10 分范围：请在数据集中改正（其他分制的评分要换算到 0–10 分）"),
    M("data.length_nan", "the dataset's length {length} is not a number", "数据集的长度 {length} 不是数字"),
    M("data.length_lines", "the dataset says it has {count} answers but holds {lines} lines after its header",
      "数据集说它有 {count} 个答案，但表头之后只有 {lines} 行"),
    M("data.no_dataset", "no dataset named {name}", "没有名为 {name} 的数据集"),
    M("data.changed", "the dataset {name} changed while it was read; try again",
      "读取数据集 {name} 时它被改动了，请重试"),
    M("data.rule_gone", "the rule {name} does not exist (it was deleted or renamed)",
      "规则 {name} 不存在（已被删除或改名）"),
    M("data.dataset_gone", "the dataset {name} does not exist (it was deleted or renamed)",
      "数据集 {name} 不存在（已被删除或改名）"),
    # -- rules on the server --------------------------------------------------------------
    M("server.rule_not_compile", "the rule does not compile", "规则无法编译"),
    M("server.not_saved_one", "the rule has {n} error; it is not saved", "规则有 {n} 个错误，没有保存"),
    M("server.not_saved", "the rule has {n} errors; it is not saved", "规则有 {n} 个错误，没有保存"),
    # -- the worker pool and the request bodies -------------------------------------------
    M("budget.time", "the request ran past its {seconds} s budget and was stopped",
      "请求超过了 {seconds} 秒的时间预算，已停止"),
    M("budget.memory", "the request needed more than the {bytes} bytes of memory a worker may use and was stopped",
      "请求需要的内存超过了工作进程可用的 {bytes} 字节，已停止"),
    M("budget.workers", "every worker stayed busy for the {seconds} s budget; try again later",
      "所有工作进程在 {seconds} 秒的预算内都在忙，请稍后再试"),
    M("pool.stopping", "the server is stopping", "服务器正在停止"),
    M("pool.cancelled", "the job was cancelled", "任务已取消"),
    M("pool.worker_stopped", "the worker stopped while working (exit code {code})",
      "工作进程在工作时停止了（退出码 {code}）"),
    M("body.json_type", "the request body must be JSON, sent as 'Content-Type: application/json'",
      "请求体应是 JSON，并以 'Content-Type: application/json' 发送"),
    M("body.empty", "the request body is empty; expected a JSON object", "请求体是空的；应是一个 JSON 对象"),
    M("body.malformed", "malformed JSON at line {line}, column {column}: {reason}",
      "JSON 格式错误：第 {line} 行第 {column} 列：{reason}"),
    M("http.internal", "internal error: {error}", "内部错误：{error}"),
    M("http.no_answer", "no answer", "没有回应"),
    M("http.failed_fetch", "Failed to fetch", "无法连接服务器"),
    # -- an answer that cannot be scored (the tester) ----------------------------------------
    M("answer.in_combo", "combos.{combo}: {problem}", "组合 {combo}：{problem}"),
    M("answer.no_blank_one", "blank {n} does not exist (the answer has {count} blank)",
      "第 {n} 空不存在（答案只有 {count} 个空）"),
    M("answer.no_blank", "blank {n} does not exist (the answer has {count} blanks)",
      "第 {n} 空不存在（答案只有 {count} 个空）"),
    M("answer.cannot_add", "cannot add {a} and {b} ({between})", "不能把{a}和{b}相加（{between}）"),
    M("answer.cannot_subtract", "cannot subtract {a} from {b} ({between})", "不能从{b}中减去{a}（{between}）"),
    M("answer.cannot_multiply", "cannot multiply {a} by {b} ({between})", "不能把{a}乘以{b}（{between}）"),
    M("answer.cannot_divide", "cannot divide {a} by {b} ({between})", "不能把{a}除以{b}（{between}）"),
    M("answer.cannot_compare", "cannot compare {a} with {b} ({between})", "不能比较{a}和{b}（{between}）"),
    M("answer.cannot_negate", "cannot negate {a} ({between})", "不能对{a}取负（{between}）"),
    M("answer.cannot_plus", "cannot take '+' of {a} ({between})", "不能对{a}取 '+'（{between}）"),
    M("answer.repeat_decimal", "text repeats only by a whole number, not by a decimal number ({between})",
      "文本只能重复整数次，不能重复小数次（{between}）"),
    M("answer.truth_value", "a truth value", "真假值"),
    M("answer.cannot_score", "the answer cannot be scored", "这个答案无法评分"),
    # -- tune -----------------------------------------------------------------------------
    M("tune.no_combos", "nothing to tune: the rule has no combos", "没有可调的：规则没有组合"),
    M("tune.perfect", "the rule already agrees perfectly with the marks ({metric} {figure}): nothing to gain",
      "规则与教师评分已经完全一致（{metric} {figure}）：没有可提高的"),
    M("tune.no_change", "no change of {what} raises {metric} on the {rows} marked rows (it stays {figure})",
      "在 {rows} 个有评分的答案上，改变{what}都不能提高 {metric}（仍为 {figure}）"),
    M("tune.knob_t", "a threshold", "阈值"),
    M("tune.knob_s", "a score", "分值"),
    M("tune.knob_ts", "a threshold or a score", "阈值或分值"),
    M("tune.knob_sd", "a score or leaving out a combo", "分值或去掉一个组合"),
    M("tune.knob_td", "a threshold or leaving out a combo", "阈值或去掉一个组合"),
    M("tune.knob_tsd", "a threshold, a score or leaving out a combo", "阈值、分值或去掉一个组合"),
    M("tune.undefined", "undefined", "无定义"),
    M("tune.not_confident",
      "held-out {metric} does not improve with confidence: {value} {ci} (the interval must lie above 0), "
      "so the change found on all rows is not made",
      "留出数据上的 {metric} 没有可信的提高：{value} {ci}（区间须整体大于 0），所以不采用在全部答案上找到的改动"),
    M("tune.no_interval", "no interval", "没有区间"),
    M("tune.folds_fail_one", "the rules the folds' searches found fail {n} held-out answer the original scores, "
      "so the change found on all rows is not made",
      "各折搜索找到的规则在 {n} 个留出答案上出错（原规则能给这些答案评分），所以不采用在全部答案上找到的改动"),
    M("tune.folds_fail", "the rules the folds' searches found fail {n} held-out answers the original scores, "
      "so the change found on all rows is not made",
      "各折搜索找到的规则在 {n} 个留出答案上出错（原规则能给这些答案评分），所以不采用在全部答案上找到的改动"),
    M("tune.too_few", "{n} distinct marked answers: too few for {folds} folds",
      "只有 {n} 个不同的有评分答案：不够分成 {folds} 折"),
    M("tune.too_few_one", "{n} distinct marked answer: too few for {folds} folds",
      "只有 {n} 个不同的有评分答案：不够分成 {folds} 折"),
    M("tune.no_marks", "no marked answers: give marks for some of them", "没有有评分的答案：请给一些答案评分"),
]
