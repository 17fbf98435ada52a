"""Issue 35, items 6, 7 and 8: every figure draws Chinese with a CJK font and no glyph
warning (one line on stderr when none is installed); the plain-language summary ("in
short") of report, report --exam and compare, worded from the figures the tables show;
table headings never cut; means printed with two decimals everywhere."""
from __future__ import annotations

import base64
import json
import math
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from coscore.cli import main
from coscore.report import agreement, consistency, group_stats, render_html, render_text
from coscore.report.format import pad, text_table, width
from coscore.report.summary import agreement_summary, consistency_summary, groups_summary
from support import coscore_env

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "coscore" / "data" / "demo"

# The hand-worked example of test_report.py: exact 3/5, adjacent 4/5, QWK 26/31,
# SMD 0.6 / sqrt(3.65) = 0.31405, means 2.6 and 2.0, RMSE sqrt(5/5) = 1.
HUMAN = [0, 1, 2, 3, 4]
PRED = [0, 2, 2, 3, 6]
NAN = math.nan


@pytest.fixture(autouse=True)
def _fixed_date(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")


def _scored(tmp_path: Path, rows: int = 30, label: str = "教师A", label2: str = "教师B", pred: str = "coscore_score",
            by: str = "班级") -> Path:
    """A scored file with Chinese column names: marks, second marks on some rows, a
    group and the scores."""
    lines = [f"学号,answer,{label},{label2},{by},{pred}"] + [
        f"S{i:03d},前进{i % 4},{i % 6},{(i % 6) + (i % 3 == 0) if i % 5 else ''},{'一二'[i % 2]}班,"
        f"{min(10, i % 6 + i % 2)}" for i in range(rows)]
    path = tmp_path / "scored.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _report(capsys, *argv: str) -> str:
    assert main(["report", *map(str, argv)]) == 0, capsys.readouterr().err
    return capsys.readouterr().out


# -- item 6: Chinese in every figure -------------------------------------------------------

matplotlib = pytest.importorskip("matplotlib")
from coscore.report import plots  # noqa: E402 - needs matplotlib, skipped above without it


def _cjk_files() -> list[str]:
    """The CJK font files installed on this machine (by their file names)."""
    from matplotlib import font_manager

    def plain(path: str) -> str:
        return os.path.basename(path).lower().replace(" ", "").replace("-", "").replace("_", "")

    return [path for path in font_manager.findSystemFonts() if any(part in plain(path) for part in plots.CJK_FILES)]


def _pngs(page: str) -> list[bytes]:
    return [base64.b64decode(b) for b in re.findall(r'base64,([^"]+)"', page)]


def test_chinese_labels_are_drawn_with_a_cjk_font_and_no_glyph_warning(capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        page = render_html(agreement(HUMAN, PRED), label="教师A", pred="规则得分")
    said = [str(w.message) for w in caught]
    assert not [m for m in said if "Glyph" in m or "findfont" in m], said
    err = capsys.readouterr().err
    assert "Glyph" not in err and "findfont" not in err
    assert len(_pngs(page)) == 2
    if _cjk_files():   # CI installs fonts-wqy-zenhei
        assert plots.cjk_font() in plots.CJK_FONTS
        assert plots.CJK_HINT not in err


def test_the_cjk_font_comes_after_the_default_so_latin_text_keeps_its_look():
    if plots.cjk_font() is None:
        pytest.skip("no CJK font installed")
    fig = plots.distribution_figure(agreement(HUMAN, PRED), "教师A", "score")
    plots.png(fig)
    legend = [t for t in fig.legends[0].get_texts()] if fig.legends else fig.axes[0].get_legend().get_texts()
    for text in legend:
        family = text.get_fontfamily()
        assert family[-1] == plots.cjk_font() and family[:-1] == list(matplotlib.rcParams["font.family"])


def test_chinese_is_drawn_as_text_not_as_boxes(monkeypatch):
    """The same figure drawn with the CJK font and without any differs: the ideographs are
    drawn from the font (without one, they are the same empty box each)."""
    if plots.cjk_font() is None:
        pytest.skip("no CJK font installed")
    stats = agreement(HUMAN, PRED)
    with_font = plots.png(plots.heatmap_figure(stats, "教师甲", "得分"))
    monkeypatch.setattr(plots, "cjk_font", lambda: None)
    monkeypatch.setattr(plots, "_said", {"hint": True})
    assert plots.png(plots.heatmap_figure(stats, "教师甲", "得分")) != with_font


def test_a_font_installed_after_matplotlibs_cache_is_found(monkeypatch):
    """matplotlib's font list is built once and kept: a CJK font installed later is not in
    it. cjk_font finds it among the system's font files and adds it."""
    from matplotlib import font_manager, ft2font

    files = _cjk_files()
    if not files:
        pytest.skip("no CJK font installed")

    class StaleCache:
        def __init__(self):
            self.ttflist = [entry for entry in font_manager.fontManager.ttflist if entry.fname not in files]

        def addfont(self, path):
            self.ttflist.append(font_manager.ttfFontProperty(ft2font.FT2Font(path)))

    monkeypatch.setattr(font_manager, "fontManager", StaleCache())
    monkeypatch.setattr(font_manager, "findSystemFonts", lambda: ["/nowhere/broken-wqy-zenhei.ttf", *files])
    assert plots.cjk_font.__wrapped__() in plots.CJK_FONTS


def test_without_a_cjk_font_one_line_says_which_package_to_install(monkeypatch, capsys):
    monkeypatch.setattr(plots, "cjk_font", lambda: None)
    monkeypatch.setattr(plots, "_said", {"hint": False})
    stats = agreement(HUMAN, PRED)
    render_html(stats, label="mark", pred="score")
    assert capsys.readouterr().err == ""   # nothing to say: no Chinese in the labels
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        render_html(stats, label="教师A", pred="得分")
        render_html(stats, label="教师B", pred="得分")
    assert not [w for w in caught if "Glyph" in str(w.message)]
    err = capsys.readouterr().err
    assert err.splitlines() == [plots.CJK_HINT]
    assert "fonts-noto-cjk" in err and "fonts-wqy-zenhei" in err and "macOS and Windows" in err


def test_the_hint_is_said_once_per_run_of_the_command(tmp_path):
    """``report --html`` draws two figures and ``compare --html`` one per scorer and a
    QWK plot, all with Chinese labels: one line on stderr in all, no warning, no path."""
    scored = _scored(tmp_path)
    script = ("import sys\nfrom coscore.report import plots\nfrom coscore.cli import main\n"
              "plots.cjk_font = lambda: None\n"
              f"code = main(['report', {str(scored)!r}, '--label', '教师A', '--html', {str(tmp_path / 'r.html')!r}])\n"
              f"code += main(['compare', {str(scored)!r}, '--label', '教师A', 'coscore_score', '教师B', '--resamples',"
              f" '20', '--html', {str(tmp_path / 'c.html')!r}])\nsys.exit(code)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, encoding="utf-8",
                          cwd=tmp_path, timeout=300, check=False,
                          env=coscore_env(PYTHONWARNINGS="always"))
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [plots.CJK_HINT]


def test_the_command_draws_chinese_with_nothing_on_stderr(tmp_path):
    """A user's run: ``coscore report --html`` with Chinese columns in a fresh process
    (matplotlib's font cache as it is on this machine) prints nothing on stderr."""
    from test_cli import run, text

    scored = _scored(tmp_path)
    proc = run("report", scored, "--label", "教师A", "--label2", "教师B", "--by", "班级", "--html", tmp_path / "r.html")
    err = text(proc)[1]
    assert proc.returncode == 0, err
    if _cjk_files():
        assert err == ""
    else:
        assert err.splitlines() == [plots.CJK_HINT]
    assert "Glyph" not in err and "findfont" not in err


# -- item 8: the summary -------------------------------------------------------------------

HAND = [
    ("The scores (得分) give the teacher's mark (教师A) exactly on 60.0 % of the 5 answers and come within one point "
     "of it on 80.0 % (both rounded to whole points)."),
    ("On average the scores are 0.314 standard deviations higher than the marks (mean score 2.60, mean mark 2.00): "
     "too high (|SMD| above 0.15)."),
    "Agreement beyond chance (QWK 0.839) meets the usual bar of 0.70 for scores that stand in for a teacher's marks.",
    "A score misses its mark by 1.000 points in a typical answer (RMSE, the root of the mean squared difference).",
]


def test_the_summary_of_the_hand_worked_example():
    assert agreement_summary(agreement(HUMAN, PRED), "教师A", "得分") == HAND


def test_every_number_of_the_summary_is_one_the_table_shows():
    for human, pred in ((HUMAN, PRED), ([0, 2, 4, 6, 8, 10, 3], [1, 2, 5, 5, 9, 9, 3]), ([5, 6, 7], [1, 9, 2])):
        stats = agreement(human, pred)
        table = render_text(stats)
        for sentence in agreement_summary(stats):
            for number in re.findall(r"\d+\.\d+(?: %)?", sentence):
                if number not in ("0.70", "0.15"):   # the thresholds
                    assert number in table or number.lstrip("-") in table, (number, sentence, table)


def test_the_verdicts_are_the_tables_flags():
    low = agreement([2, 4, 6, 8, 6, 4], [2, 4, 6, 8, 6, 3])   # a little lower: within the limit
    sentence = agreement_summary(low)[1]
    assert low.smd < 0 and low.smd_ok
    assert sentence.startswith(f"On average the scores are {abs(low.smd):.3f} standard deviations lower")
    assert sentence.endswith("within the usual limit (|SMD| at most 0.15).")
    poor = agreement([0, 10, 0, 10, 5, 5], [10, 0, 5, 5, 0, 10])
    assert poor.qwk_ok is False
    assert "is below the usual bar of 0.70" in agreement_summary(poor)[2]
    same = agreement([4, 4, 4], [4, 4, 4])
    assert agreement_summary(same)[1:3] == [
        ("How far the scores lie above or below the marks on average cannot be measured in standard deviations (SMD "
         "undefined: too few answers, or no spread in the marks and scores; mean score 4.00, mean mark 4.00)."),
        "Agreement beyond chance (QWK) is undefined: every mark and every score is the same whole point."]
    assert agreement_summary(agreement([], [])) == [
        "No answer has both a mark (human) and a score (coscore): there is nothing to compare."]
    level = agreement([1, 2, 3, 4], [2, 1, 4, 3])   # the same mean: SMD 0
    assert agreement_summary(level)[1] == ("On average the scores neither exceed nor fall short of the marks (SMD "
                                           "0.000; mean score 2.50, mean mark 2.50).")


def test_the_second_teacher_in_words():
    # test_report_stats.py's hand-worked example: H–H exact 1/3, adjacent 1, QWK 2/3, r sqrt(3)/2;
    # the scores' QWK 1 - 2/8 = 0.75; PRMSE 23/35; one teacher's PRMSE 1 - (1/3) / (10/9) = 0.7.
    c = consistency([1, 2, 3, 4], [2, 2, 4, NAN], [1, 3, 3, 3], "h2")
    assert consistency_summary(c) == [
        ("A second teacher (h2) gives the first teacher's mark exactly on 33.3 % of the 3 answers marked twice and "
         "comes within one point on 100.0 %, QWK 0.667: below what two teachers usually reach (exact agreement "
         "33.3 % below 50 %; QWK 0.667 below 0.70)."),
        ("The scores agree with the first teacher better than the second teacher (h2) does (QWK 0.750 against "
         "0.667)."),
        ("PRMSE 0.657 (1 is perfect, 0 no better than giving every answer the average mark) says how closely the "
         "scores follow the mark many teachers would agree on: less closely than one teacher's marks, whose PRMSE "
         "is 0.700 (1 − variance of rater errors / true-score variance)."),
    ]
    agree = [0, 2, 4, 6, 8, 10]
    worse = consistency_summary(consistency(agree, agree, [5, 5, 4, 6, 3, 5], "h2"))
    assert worse[0].endswith("as two teachers usually do (exact at least 50 %, within one point at least 95 %, QWK "
                             "and r at least 0.70).")
    assert "less well than the second teacher (h2) does, by more than the 0.10 that is accepted" in worse[1]
    close = consistency([0, 2, 4, 6, 8], [0, 2, 4, 6, 9], [0, 2, 4, 6, 7], "h2")
    assert -0.10 <= close.degradation["qwk"] < 0
    assert "a little less well than the second teacher (h2) does, within the 0.10" in consistency_summary(close)[1]
    none = consistency([1, 2], [NAN, NAN], [1, 2], "h2")
    assert consistency_summary(none) == [
        "No scored answer has a second mark (h2), so the scores cannot be compared with a second teacher."]


def test_the_groups_in_words():
    groups = group_stats(["a", "a", "b", "b"], [0, 2, 4, 6], [2, 4, 4, 6])
    assert groups_summary(groups, "school") == (
        "2 of 2 groups of school are flagged, so the scores serve them less well: a (QWK below 0.70, |SMD| above "
        "0.15, |DSM| above 0.10); b (|DSM| above 0.10).")
    fine = group_stats(["a", "a", "b", "b"], [0, 6, 2, 8], [0, 6, 2, 8])
    assert groups_summary(fine, "school").startswith("No group of school (2 groups) is flagged")


def test_report_text_json_and_page_start_with_the_summary(tmp_path, capsys):
    scored = _scored(tmp_path)
    args = [scored, "--label", "教师A", "--label2", "教师B", "--by", "班级", "--top", "2"]
    data = json.loads(_report(capsys, *args, "--json", "--html", tmp_path / "r.html"))
    summary = data["summary"]
    assert len(summary) == 8 and summary[0].startswith("The scores (coscore_score) give the teacher's mark (教师A)")
    assert summary[4].startswith("A second teacher (教师B)") and summary[-1].startswith("2 of 2 groups of 班级")
    plain = _report(capsys, *args)
    lines = plain.splitlines()
    start = lines.index("in short:")
    assert start == 4 and lines[start + 1:start + 1 + len(summary)] == [f"  - {s}" for s in summary]
    assert lines.index("agreement of coscore_score with 教师A") > start + len(summary)
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert page.index("<h2>In short</h2>") < page.index("<h2>Figures</h2>")
    import html

    assert all(f"<li>{html.escape(s)}</li>" in page for s in summary)


def test_each_item_and_the_total_of_an_exam_have_their_summary(tmp_path, capsys):
    (tmp_path / "rules").mkdir()
    for task in ("lane-change", "traffic-light"):
        (tmp_path / "rules" / f"{task}.rule.json").write_bytes((DEMO / f"{task}.rule.json").read_bytes())
    exam = {"name": "quiz", "id": "学号", "items": [
        {"name": "q1", "rule": "rules/lane-change.rule.json", "blanks": ["q1"], "label": "q1_mark"},
        {"name": "q2", "rule": "rules/traffic-light.rule.json", "blanks": ["q2"], "label": "q2_mark", "weight": 2}]}
    (tmp_path / "quiz.json").write_text(json.dumps(exam, ensure_ascii=False), encoding="utf-8")
    rows = ["学号,q1,q1_mark,q1_score,q2,q2_mark,q2_score"] + [
        f"S{i},答案{i},{i % 5},{i % 5 + (i % 4 == 0)},回答{i},{(i * 3) % 7},{(i * 3) % 7 + (i % 3 == 0)}"
        for i in range(1, 41)]
    (tmp_path / "scored.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    base = [tmp_path / "scored.csv", "--exam", tmp_path / "quiz.json", "--top", "1"]
    data = json.loads(_report(capsys, *base, "--json"))
    assert set(data["items"]) == {"q1", "q2"}
    for report in [*data["items"].values(), data["total"]]:
        assert report["summary"][0].startswith(f"The scores ({report['pred']}) give the teacher's mark "
                                               f"({report['label']})")
    plain = _report(capsys, *base)
    assert plain.count("in short:") == 3
    for report in [*data["items"].values(), data["total"]]:
        assert all(f"  - {s}" in plain.splitlines() for s in report["summary"])
    assert plain.index("══ item q1") < plain.index("in short:") < plain.index("══ item q2")


def test_compare_gives_a_line_per_scorer_and_per_pair(tmp_path, capsys):
    lines = _scored(tmp_path).read_text(encoding="utf-8").splitlines()
    assert lines[0].endswith(",coscore_score")
    lines = (tmp_path / "scored.csv").read_text(encoding="utf-8").splitlines()
    (tmp_path / "two.csv").write_text("\n".join([lines[0] + ",flat"] + [f"{line},3" for line in lines[1:]]) + "\n",
                                      encoding="utf-8")
    args = ["compare", tmp_path / "two.csv", "--label", "教师A", "--label2", "教师B", "coscore_score", "flat",
            "--resamples", "200"]
    assert main([*map(str, args), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    summary = data["summary"]
    assert len(summary) == 4
    best = data["scorers"][0]
    assert summary[0] == (
        f"coscore_score: gives the mark (教师A) exactly on {best['exact_agreement']['value'] * 100:.1f} % and within "
        f"one point on {best['adjacent_agreement']['value'] * 100:.1f} %; QWK {best['qwk']['value']:.3f} "
        f"[{best['qwk']['ci'][0]:.3f}, {best['qwk']['ci'][1]:.3f}] meets the bar of 0.70; "
        f"{abs(best['smd']['value']):.3f} standard deviations higher than the marks on average (too high: |SMD| above "
        f"0.15); PRMSE {best['prmse']['value']:.3f} [{best['prmse']['ci'][0]:.3f}, {best['prmse']['ci'][1]:.3f}].")
    assert summary[1].startswith("flat: gives the mark (教师A) exactly on ")
    assert "QWK undefined" in summary[1] or "is below the bar of 0.70" in summary[1]
    assert summary[2].startswith(f"教师B (a second teacher, on the {data['human_human']['n']} answers marked twice)")
    if data["pairs"][0]["qwk_difference"]["value"] is not None:
        assert summary[3].startswith("coscore_score agrees with the marks better than flat (difference in QWK ")
    assert main([*map(str, args), "--html", str(tmp_path / "c.html")]) == 0
    plain = capsys.readouterr().out
    lines = plain.splitlines()
    start = lines.index("in short:")
    assert start == 5 and lines[start + 1:start + 5] == [f"  - {s}" for s in summary]
    assert "<h2>In short</h2>" in (tmp_path / "c.html").read_text(encoding="utf-8")


def test_two_scorers_that_cannot_be_told_apart():
    from coscore.report.compare import Estimate
    from coscore.report.summary import _pair_line

    assert _pair_line("a", "b", Estimate(-0.002, (-0.01, 0.004))) == (
        "a and b cannot be told apart on these answers (difference in QWK -0.002 [-0.010, 0.004]: the interval "
        "contains 0).")
    assert _pair_line("a", "b", Estimate(-0.02, (-0.03, -0.01))).startswith("b agrees with the marks better than a")


# -- item 7: headings never cut; means as the report shows them -----------------------------

def test_the_mark_level_heading_names_the_whole_score_column(tmp_path, capsys):
    """Issue 35: "mean coscore_scor"."""
    plain = _report(capsys, _scored(tmp_path), "--label", "教师A")
    heading = next(line for line in plain.splitlines() if line.startswith("by mark level"))
    assert heading.split()[-2:] == ["coscore_score", "exact"] and "mean coscore_score" in heading
    rows = plain.splitlines()[plain.splitlines().index(heading) + 1:]
    assert width(heading) == width(rows[0])   # the values end under their headings


def test_long_column_names_widen_the_columns(tmp_path, capsys):
    label, pred = "第一位阅卷教师给出的分数", "the_score_column_of_a_long_rule_name"
    plain = _report(capsys, _scored(tmp_path, label=label, pred=pred), "--label", label, "--pred", pred)
    lines = plain.splitlines()
    names = next(line for line in lines if line.strip().startswith(label))
    mean = next(line for line in lines if line.startswith("  mean "))
    assert names.split() == [label, pred] and width(names) == width(mean)
    heading = next(line for line in lines if line.startswith("by mark level"))
    assert f"mean {pred}" in heading and width(heading) == width(lines[lines.index(heading) + 1])


def test_compare_headings_are_never_cut(tmp_path, capsys):
    long_rule = tmp_path / "a-rather-long-rule-file-name-for-lane-change.rule.json"
    long_rule.write_bytes((DEMO / "lane-change.rule.json").read_bytes())
    label = "the_teachers_mark_column"
    rows = (DEMO / "lane-change.csv").read_text(encoding="utf-8").replace("text,score", f"answer,{label}", 1)
    (tmp_path / "data.csv").write_text(rows, encoding="utf-8")
    assert main(["compare", str(tmp_path / "data.csv"), "--blanks", "answer", "--label", label, str(long_rule),
                 str(DEMO / "lane-change.rule.json"), "--resamples", "20"]) == 0
    lines = capsys.readouterr().out.splitlines()
    head = next(line for line in lines if long_rule.name in line and "SHA-256" not in line and "  - " not in line)
    qwk = next(line for line in lines if line.startswith("QWK "))
    assert head.split() == [long_rule.name, "lane-change.rule.json"] and len(head) == len(qwk)
    levels = lines[lines.index("by mark level: n, then each scorer's mean score / exact agreement") + 1]
    assert levels.split() == [label, "n", long_rule.name, "lane-change.rule.json"]
    assert len(levels) == len(lines[lines.index(levels) + 1])


def test_text_tables_measure_chinese_as_two_columns():
    assert width("教师A") == 5 and width("abc") == 3 and width("é") == 1
    assert pad("教师", 6) == "  教师" and pad("教师", 6, left=True) == "教师  " and pad("长长长长", 2) == "长长长长"
    lines = text_table(["班级", "n"], [["一班", "12"], ["all", "3"]])
    assert lines == ["  班级   n", "  一班  12", "  all    3"]


def test_means_are_printed_with_two_decimals(tmp_path, capsys):
    """suggest printed "mark 9.03448" for the mean mark of a repeated answer, and mean
    marks of phrases with one decimal; compare printed mean scores with three."""
    from coscore.suggest.misses import Missed
    from coscore.suggest.render import _missed

    repeated = Missed(["前进"], [3, 7, 9], 9 + 1 / 29, 5.0, 5.0 - (9 + 1 / 29))
    assert _missed(repeated)[0].startswith("  mean mark 9.03  score 5  rows 3, 7, 9  前进")
    once = Missed(["左转"], [4], 9.0, 5.0, -4.0)
    assert _missed(once)[0].startswith("  mark 9  score 5  row 4  左转")
    rule = tmp_path / "r.json"
    rule.write_bytes((DEMO / "lane-change.rule.json").read_bytes())
    assert main(["compare", str(DEMO / "lane-change.csv"), "--format", "coscore", "--label", "score", str(rule),
                 "--resamples", "20"]) == 0
    lines = capsys.readouterr().out.splitlines()
    mean = next(line for line in lines if line.startswith("mean score"))
    assert re.fullmatch(r"mean score\s+\d+\.\d\d \[\d+\.\d\d, \d+\.\d\d\]", mean), mean
