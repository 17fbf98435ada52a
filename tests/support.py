"""What many test files share: the environment a ``python -m coscore`` subprocess runs in
(this checkout first on its path), waiting on a condition instead of sleeping a fixed time,
and the hypothesis profile of the run with the examples a slow property tries under it."""
from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parents[1]

#: The hypothesis profile of this run (tests/conftest.py loads it): ``HYPOTHESIS_PROFILE``,
#: else ``ci`` where ``CI`` is set (as CI services set it), else ``default``.
HYPOTHESIS_PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "default")
#: The share of a slow property's examples this run tries: a third under the ``ci`` profile
#: (derandomized: the same examples on every CI run), all of them elsewhere (new ones each run).
EXAMPLES_SCALE = 1 / 3 if HYPOTHESIS_PROFILE == "ci" else 1.0

T = TypeVar("T")


def examples(n: int) -> int:
    """``max_examples`` for a slow property that tries ``n`` examples on a developer's run
    (:data:`EXAMPLES_SCALE` of them in CI, at least 10)."""
    return max(10, round(n * EXAMPLES_SCALE))


def coscore_env(**extra: str) -> dict[str, str]:
    """This process's environment with this checkout first on ``PYTHONPATH`` (so that a
    subprocess imports the coscore under test), updated with ``extra``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    env.update(extra)
    return env


def wait_until(condition: Callable[[], T], timeout: float = 60, what: str = "the condition",
               interval: float = 0.02) -> T:
    """Call ``condition`` until it gives a true value (returned), at most ``timeout`` seconds;
    then fail the test naming ``what`` it waited for."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}")
        time.sleep(interval)
