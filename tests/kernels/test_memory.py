"""Out of memory is a MemoryError, never a crash: the compiled kernels' tables are built
under an address-space limit (``RLIMIT_AS``) too small for them, in a subprocess."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import coscore._fast
from support import coscore_env

resource = pytest.importorskip("resource")
ROOT = Path(__file__).resolve().parents[2]

_SCRIPT = textwrap.dedent('''
    import gc, resource
    import coscore._fast as F
    from coscore._fast import batch
    assert F.IMPLEMENTATION == "cython", F.IMPLEMENTATION
    def vm():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * resource.getpagesize()
    cjk = "".join(chr(0x4e00 + i) for i in range(20000))
    texts = ["abc" * 100 + chr(0x4e01)] * 50 + [cjk[:300]] * 50
    answers = [["a", "b"], "c", ("d",)] * 20000
    builders = {
        # Aho-Corasick: a dense table of 8000 states x 8000 ids
        "automaton": lambda: F.SubstringScanner([[cjk[i:i + 40] for i in range(0, 8000, 40)],
                                                 ["!q", "z"]]).count_many(texts),
        "shift-and": lambda: F.SubstringScanner([["ab", "c" + chr(0x4e01), "~x"]] * 5000).count_many(texts),
        # LCS: 2000 keys of 64 code points in 500 vectors of 20001 rows
        "lcs": lambda: F.LcsScorer([cjk[i % 19000:i % 19000 + 64] for i in range(0, 20000, 10)]).best_many(texts),
        "jaccard": lambda: F.JaccardScorer([cjk[i:i + 50] for i in range(0, 15000, 50)]).best_many(texts),
        "batch": lambda: (batch.distinct_texts(answers, 0), batch.dedup_answers(answers)),
    }
    F.JaccardScorer(["x"]).best("x")   # the token tables, once
    try:   # freed memory back to the system first, or a table may fit in what an earlier one left mapped
        import ctypes
        trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        trim = lambda pad: 0
    for name, build in builders.items():
        gc.collect()
        trim(0)
        base, raised = vm(), 0
        for margin in (0, 1, 2, 4, 8, 16, 32, 64):
            resource.setrlimit(resource.RLIMIT_AS, (base + (margin << 20), resource.RLIM_INFINITY))
            try:
                build()
            except MemoryError:
                raised += 1
            finally:
                resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        build()   # and with no limit it works
        print(name, raised)
''')


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
@pytest.mark.skipif("asan" in os.environ.get("LD_PRELOAD", ""),
                    reason="AddressSanitizer reserves its shadow memory: no address-space limit")
def test_out_of_memory_raises_memory_error_not_a_crash():
    try:
        coscore._fast.modules("cython")
    except ImportError as exc:
        pytest.skip(f"the compiled kernels are not available: {exc}")
    env = coscore_env(COSCORE_IMPLEMENTATION="cython")
    run = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    raised = dict(line.split() for line in run.stdout.splitlines())
    assert set(raised) == {"automaton", "shift-and", "lcs", "jaccard", "batch"}, run.stdout
    for name in ("automaton", "lcs", "jaccard"):   # tables too big for the smaller limits
        assert int(raised[name]) > 0, run.stdout
