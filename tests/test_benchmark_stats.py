"""benchmarks/stats.py on a few thousand rows, in this process: each way of computing the
comparison's figures runs, and resampling rows draws exactly the resamples of the earlier
row bootstrap (one block here), so their intervals are equal. The benchmark itself runs
with ``python benchmarks/stats.py``, never under pytest."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import stats  # noqa: E402


def test_every_method_runs_and_rows_repeat_the_earlier_bootstrap(tmp_path):
    data, rule, fixed = stats.make_data(3000, tmp_path)
    arrays = tmp_path / "scores.npz"
    stats.score(data, [rule, fixed], arrays)
    results = {m: stats.child(m, arrays, 40) for m in stats.METHODS}
    assert results["counts"]["resampling"] == "counts" and results["rows"]["resampling"] == "rows"
    for r in results.values():
        assert r["rows"] == 3000 and r["seconds"] >= 0 and r["peak_rss_mb"] >= 0
        lo, hi = r["qwk_ci_rule"]
        assert 0.9 < lo <= hi < 1
    assert list(results["rows"]["qwk_ci_rule"]) == list(results["before"]["qwk_ci_rule"])
    assert list(results["rows"]["qwk_difference_ci"]) == list(results["before"]["qwk_difference_ci"])
