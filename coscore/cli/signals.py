"""How the ``coscore`` command stops on a signal: SIGINT (Ctrl-C), SIGTERM and SIGHUP
alike.

While :func:`stop_on_signals` is active, each of them raises :class:`Stopped` (a
:class:`KeyboardInterrupt`) in the main thread, so the run unwinds as it does for Ctrl-C:
the read-ahead and write-behind threads stop, the writer is abandoned, the temporary
output file is removed, and the command prints one line and exits ``128 + N``.

Two things would otherwise print ``Exception ignored in: …`` on stderr, and are
handled here for every writer alike:

- a signal that lands while Python runs a finalizer (a generator being closed, a
  ``__del__``), which cannot raise it: it is delivered again, so the run still stops;
- finalizers of the abandoned output (a writer's generator, a half-written file) that
  fail once the run is stopping: they are collected before the command returns, and
  their errors are not reported — the output they belonged to is being discarded.

A signal that comes while the run is already stopping is ignored, so that the clean-up
finishes — and, in the ``coscore`` process itself, until it exits. A signal the command
was started with ignored (``nohup`` ignores SIGHUP) stays ignored.
"""
from __future__ import annotations

import _thread
import contextlib
import gc
import signal
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

#: The signals that stop a run, where the platform has them.
SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class Stopped(KeyboardInterrupt):
    """The run was stopped by signal ``signum``; the command exits ``128 + signum``."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def exit_status(exc: KeyboardInterrupt) -> int:
    """``128 + N`` for a run stopped by signal N (a bare :class:`KeyboardInterrupt` is SIGINT)."""
    return 128 + getattr(exc, "signum", signal.SIGINT)


def describe(exc: KeyboardInterrupt) -> str:
    """The one line the command prints: ``interrupted``, or ``interrupted (SIGTERM)``."""
    signum = getattr(exc, "signum", signal.SIGINT)
    return "interrupted" if signum == signal.SIGINT else f"interrupted ({signal.Signals(signum).name})"


@contextlib.contextmanager
def stop_on_signals(process_ends: bool = False) -> Iterator[None]:
    """Within the block, SIGINT, SIGTERM and SIGHUP raise :class:`Stopped` (see the module);
    the previous handlers and unraisable-exception hook are put back after it — unless
    the run was stopped and ``process_ends`` (the block is the whole ``coscore`` process):
    then signals stay ignored while the process exits. Outside the main thread it does
    nothing (only the main thread may set signal handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    state = _State()
    for signum in SIGNALS:
        current = signal.getsignal(signum)
        if current is signal.SIG_IGN or (signum == signal.SIGINT and current is not signal.default_int_handler):
            continue  # ignored by whoever started us, or handled by a host program
        state.previous[signum] = current
        signal.signal(signum, state.handle)
    hook, sys.unraisablehook = sys.unraisablehook, state.unraisable
    state.fallback = hook
    try:
        yield
    finally:
        if state.stopping:
            gc.collect()  # the abandoned output's finalizers run now, under our hook
        if not (state.stopping and process_ends):
            # (else signals stay ignored, and finalizers unreported, until the process exits)
            for signum, handler in state.previous.items():
                signal.signal(signum, handler)
            sys.unraisablehook = hook


class _State:
    """What the handlers share: the handlers they replaced, whether the run is stopping,
    and the hook to fall back on."""

    def __init__(self) -> None:
        self.previous: dict[int, Any] = {}
        self.stopping = False
        self.in_hook = False
        self.fallback: Any = sys.unraisablehook

    def handle(self, signum: int, frame: Any) -> None:
        if self.in_hook:  # a hook cannot raise either: delivered again after it
            self._deliver_later(signum)
            return
        # Later signals are ignored by the system itself, so that the clean-up finishes
        # (and the exit status stays 128 + this one, even while Python shuts down).
        for other in self.previous:
            signal.signal(other, signal.SIG_IGN)
        self.stopping = True
        raise Stopped(signum)

    def unraisable(self, unraisable: Any) -> None:
        self.in_hook = True
        try:
            exc = unraisable.exc_value
            if isinstance(exc, Stopped):
                # raised inside a finalizer, which swallows it: the signal is delivered
                # again once the finalizer is over
                self.stopping = False
                for other in self.previous:
                    signal.signal(other, self.handle)
                self._deliver_later(exc.signum)
            elif not self.stopping:  # (else: a finalizer of the output being discarded)
                self.fallback(unraisable)
        finally:
            self.in_hook = False

    def _deliver_later(self, signum: int) -> None:
        """Send ``signum`` to the main thread again from a helper thread, once this hook
        has returned (a signal raised in the main thread is handled at once, here)."""
        def deliver() -> None:
            while self.in_hook:
                time.sleep(0.001)
            time.sleep(0.001)
            if hasattr(signal, "pthread_kill"):
                signal.pthread_kill(threading.main_thread().ident or 0, signum)
            else:  # pragma: no cover - Windows
                _thread.interrupt_main(signal.Signals(signum))

        threading.Thread(target=deliver, name="coscore-signal", daemon=True).start()
