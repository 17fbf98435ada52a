"""The C sources compile as MSVC compiles them: clang in MSVC mode (``--target=x86_64-pc-windows-msvc``,
``-fms-compatibility``: ``_MSC_VER`` defined, ``__GNUC__`` not) checks every ``coscore/_fast/src/*.c``
with ``-Wpedantic -Werror``, and the preprocessed sources hold no GNU C (``__attribute__``,
``__builtin_*``, ...). Three configurations: the default (SSE2, no AVX2 as clang-cl builds it),
``-mavx2`` (the AVX2 paths and the ``__cpuid`` probe MSVC always compiles) and
``-DCOSCORE_NO_VEC`` (scalar only).

No Windows headers are needed: the C library and ``Python.h`` are stood in for by the few
declarations the sources use (written below), and clang brings its own ``stdint.h`` and
intrinsics headers. Skipped when clang is missing or cannot target MSVC."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "coscore" / "_fast" / "src"

#: stand-ins for the headers of the C library and of CPython (declarations only)
STUBS = {
    "stdlib.h": """#include <stddef.h>
void *malloc(size_t n);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t n);
void free(void *p);
void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
""",
    "string.h": """#include <stddef.h>
void *memset(void *p, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
""",
    "Python.h": """#include <stddef.h>
#include <stdint.h>
#define PY_VERSION_HEX 0x030B0000
typedef ptrdiff_t Py_ssize_t;
typedef Py_ssize_t Py_hash_t;
typedef struct _typeobject PyTypeObject;
typedef struct _object { Py_ssize_t ob_refcnt; PyTypeObject *ob_type; } PyObject;
typedef struct { PyObject ob_base; Py_ssize_t ob_size; } PyVarObject;
typedef struct { PyVarObject ob_base; PyObject **ob_item; Py_ssize_t allocated; } PyListObject;
typedef struct { PyVarObject ob_base; PyObject *ob_item[1]; } PyTupleObject;
typedef struct { PyObject ob_base; Py_ssize_t length; Py_hash_t hash; unsigned int state; } PyASCIIObject;
extern PyTypeObject PyUnicode_Type, PyList_Type, PyTuple_Type;
#define Py_TYPE(o) (((PyObject *)(o))->ob_type)
#define Py_SIZE(o) (((PyVarObject *)(o))->ob_size)
#define Py_INCREF(o) ((void)(((PyObject *)(o))->ob_refcnt++))
#define PyList_GET_ITEM(o, i) (((PyListObject *)(o))->ob_item[i])
#define PyList_SET_ITEM(o, i, v) ((void)(((PyListObject *)(o))->ob_item[i] = (v)))
#define PyList_GET_SIZE(o) Py_SIZE(o)
#define PyTuple_GET_ITEM(o, i) (((PyTupleObject *)(o))->ob_item[i])
#define PyTuple_GET_SIZE(o) Py_SIZE(o)
PyObject *PyList_New(Py_ssize_t n);
Py_hash_t PyObject_Hash(PyObject *o);
int PyUnicode_READY(PyObject *o);
int PyUnicode_IS_READY(PyObject *o);
unsigned int PyUnicode_KIND(PyObject *o);
void *PyUnicode_DATA(PyObject *o);
Py_ssize_t PyUnicode_GET_LENGTH(PyObject *o);
""",
}

CONFIGS = {"default": [], "avx2": ["-mavx2"], "scalar": ["-DCOSCORE_NO_VEC"]}

#: GNU C that MSVC does not compile
GNU_ONLY = re.compile(r"__attribute__|__builtin_|__typeof|typeof\s*\(|__extension__|__asm__|\(\{")


def _clang_for_msvc(tmp: Path) -> list[str] | None:
    """The clang command line for an MSVC-mode check, or None when it cannot run here."""
    clang = shutil.which("clang")
    if clang is None:
        return None
    for name, text in STUBS.items():
        (tmp / name).write_text(text)
    cmd = [clang, "--target=x86_64-pc-windows-msvc", "-fms-compatibility", "-fms-extensions",
           "-fms-compatibility-version=19.30", "-ffreestanding", "-nostdlibinc", "-isystem", str(tmp),
           "-std=c99", "-Wall", "-Wpedantic", "-Werror", "-Wno-language-extension-token"]
    probe = tmp / "probe.c"
    probe.write_text("#include <intrin.h>\n#include <stdint.h>\n"
                     "#if !defined(_MSC_VER) || defined(__GNUC__)\n#error not MSVC mode\n#endif\n"
                     "int probe(void) { unsigned long i; return _BitScanForward(&i, 8u) + (int)sizeof(uint64_t); }\n")
    run = subprocess.run([*cmd, "-fsyntax-only", str(probe)], capture_output=True, text=True, timeout=120)
    return cmd if run.returncode == 0 else None


@pytest.fixture(scope="module")
def clang_msvc(tmp_path_factory):
    cmd = _clang_for_msvc(tmp_path_factory.mktemp("msvc-stubs"))
    if cmd is None:
        pytest.skip("no clang that can check C for MSVC (x86_64-pc-windows-msvc)")
    return cmd


def _gnu_lines(preprocessed: str) -> list[str]:
    """The lines of coscore's own sources (not the compiler's headers) that use GNU C."""
    found, ours = [], False
    for line in preprocessed.splitlines():
        marker = re.match(r'# \d+ "(.*?)"', line)
        if marker:
            ours = Path(marker.group(1)).parent.resolve() == SRC
        elif ours and GNU_ONLY.search(line):
            found.append(line.strip())
    return found


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("source", sorted(p.name for p in SRC.glob("*.c")))
def test_source_compiles_as_msvc(clang_msvc, source, config):
    args = [*clang_msvc, *CONFIGS[config], str(SRC / source)]
    check = subprocess.run([*args, "-fsyntax-only"], capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stderr
    expanded = subprocess.run([*args, "-E"], capture_output=True, text=True, timeout=120)
    assert expanded.returncode == 0, expanded.stderr
    assert _gnu_lines(expanded.stdout) == []
