"""benchmarks/tune.py on small made-up data: every part runs and reports what the README
and docs/tune.md quote. The benchmark itself runs with ``python benchmarks/tune.py``."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import tune  # noqa: E402


def test_the_benchmark_runs(capsys):
    out = tune.main(["--rows", "400", "--repeats", "1"])
    assert [row["task"] for row in out["demo"]] == list(tune.TASKS)
    assert all(row["same_every_run"] and row["seconds"][0] < 30 for row in out["demo"])
    for row in out["larger"]:
        assert row["rows"] == 400 and row["answers_scored"] <= row["every_setting_scoring_every_answer"]
