"""A child process run and measured alone: its exit code, wall time, its own peak memory
and its output.

Neither ``getrusage(RUSAGE_CHILDREN)`` nor the child's own ``ru_maxrss`` will do in a long
run: the first is the largest peak of every child waited for so far, and the second
includes the parent's memory at the moment of the fork (the kernel records the
high-water mark of the address space the child leaves at ``exec``) — so a 500 MB
benchmark process would report 500 MB for every child. :func:`run` reads the child's
``VmHWM`` (the high-water mark of its address space since ``exec``) from ``/proc`` every
10 ms while it runs.
"""
from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

#: How often the child's high-water mark is read, in seconds.
EVERY = 0.01


def _high_water(pid: int) -> int | None:
    """``VmHWM`` of process ``pid`` in KiB (``None`` once it has none: gone, or a zombie)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def run(args: list[str], cwd: Path | None = None, timeout: float = 900) -> tuple[int, float, float, str, str]:
    """Run ``args``: its exit code (a negative signal number when killed), seconds, peak
    resident MB (from ``exec`` on), stdout and stderr; killed after ``timeout`` seconds."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = [0]

    def watch() -> None:
        while proc.poll() is None:
            found = _high_water(proc.pid)
            if found is not None:
                peak[0] = max(peak[0], found)
            time.sleep(EVERY)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    watcher.join()
    return proc.returncode, time.perf_counter() - start, peak[0] / 1024, out, err
