"""Child processes of the benchmarks: one run and measured alone (:func:`run`: its exit
code, wall time, its own peak memory and its output), and a server command started on a
free port (:func:`serve`).

Neither ``getrusage(RUSAGE_CHILDREN)`` nor the child's own ``ru_maxrss`` will do in a long
run: the first is the largest peak of every child waited for so far, and the second
includes the parent's memory at the moment of the fork (the kernel records the
high-water mark of the address space the child leaves at ``exec``) — so a 500 MB
benchmark process would report 500 MB for every child. :func:`run` reads the child's
``VmHWM`` (the high-water mark of its address space since ``exec``) from ``/proc`` every
10 ms while it runs.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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


def serve(command: str, *args: str, timeout: float = 60) -> tuple[subprocess.Popen, str]:
    """``coscore COMMAND ARGS`` (a server: ``app``, ``workbench``) of this checkout on a free
    loopback port; its process and URL once it accepts connections (``SystemExit`` if it
    exits or does not start within ``timeout`` seconds)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    process = subprocess.Popen([sys.executable, "-m", "coscore", command, *args, "--port", str(port),
                                "--log-level", "warning"], env=env)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"coscore {command} exited")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return process, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit(f"coscore {command} did not start within {timeout:g} s")
