"""What many test files share: the environment a ``python -m coscore`` subprocess runs in
(this checkout first on its path), a server command running in one (:class:`LiveServer`),
waiting on a condition instead of sleeping a fixed time, and the hypothesis profile of the
run with the examples a slow property tries under it."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
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


def free_port() -> int:
    """A TCP port free on the loopback address now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LiveServer:
    """``python -m coscore COMMAND ARGS --port P --log-level warning`` in a subprocess, on a
    free loopback port, once it accepts connections (at most ``timeout`` seconds; its output
    in the error otherwise); :meth:`stop` ends it and returns its output."""

    def __init__(self, command: str, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None,
                 timeout: float = 60) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "coscore", command, *args, "--port", str(self.port), "--log-level", "warning"],
            cwd=cwd, env=env if env is not None else coscore_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                output = self.process.stdout.read().decode(errors="replace") if self.process.stdout else ""
                raise RuntimeError(f"coscore {command} exited: {output}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"coscore {command} did not start within {timeout:g} s")

    def stop(self) -> str:
        """Stop the server; its output."""
        return stop_process(self.process)


def stop_process(process: subprocess.Popen, timeout: float = 20) -> str:
    """End ``process`` (SIGTERM, then SIGKILL after ``timeout`` seconds); what it wrote to
    its piped stdout, the pipes closed."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:  # pragma: no cover
            process.kill()
            process.wait()
    output = process.stdout.read() if process.stdout else b""
    for stream in (process.stdout, process.stderr):
        if stream:
            stream.close()
    return output.decode(errors="replace") if isinstance(output, bytes) else output
