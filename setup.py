"""Build the Cython kernels in coscore/_fast.

The C sources of coscore/_fast/src are compiled once, into one static library
(``coscore_kernels``, built by ``build_clib``), and every extension links it: the linker
takes from it only the objects that extension calls. Each extension is then its .pyx
module alone. Compiler directives are set once here, for every kernel module; the C flags
suit the compiler (``-O3``, with ``-flto`` where the toolchain carries it through the
library, for unix compilers; ``/O2`` for MSVC) and are the same for the library and the
extensions.

Environment:

- ``COSCORE_NO_EXTENSIONS=1``: nothing is compiled; the wheel is pure Python and uses
  the kernels' pure-Python twins (coscore/_fast/*_py.py).
- ``COSCORE_CYTHON_DEBUG=1``: a debug build: bounds, wraparound and initialisation
  checks on, ``-O0 -g``, and AddressSanitizer + UndefinedBehaviorSanitizer when the
  compiler has them (see docs/building.md).

Without what the extensions need (a working C compiler, Python's C headers, Cython), a
build does not fail: it makes the pure-Python wheel, says once what was missing and how
to get the compiled kernels, and leaves that note in the package (``_fast/build-note.txt``)
for :mod:`coscore._fast` to repeat when it runs on the twins.
"""
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_clib import build_clib
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

_HERE = Path(__file__).parent
_FAST = Path("coscore") / "_fast"
_SRC = _FAST / "src"

#: the static library of the C sources, linked into every extension
_LIBRARY = "coscore_kernels"
#: where a build that fell back to the twins says why (read by coscore/_fast/__init__.py)
_NOTE = "build-note.txt"


def _on(name: str) -> bool:
    return os.environ.get(name, "0") not in ("", "0")


_DEBUG = _on("COSCORE_CYTHON_DEBUG")

_DIRECTIVES = {
    "language_level": 3,
    "boundscheck": _DEBUG,
    "wraparound": _DEBUG,
    "initializedcheck": _DEBUG,
    "cdivision": True,
    "embedsignature": True,
}

_SANITIZE = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-fno-sanitize-recover=undefined"]


def _run(cmd: list) -> "subprocess.CompletedProcess | None":
    """``cmd`` run quietly; None when it cannot be started."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None


def _links_with(compiler, flags: list, load: bool = False) -> bool:
    """Whether the unix compiler compiles small C files with ``flags``, its archiver makes a
    static library of one (as ``build_clib`` does), and its linker (the one the extensions
    are linked with, which may be another program: ``LDSHARED``) links the other with that
    library into a shared library. ``load``: and the result loads here with the library's
    function in it (``-flto`` objects need an archiver and a linker that read them: Clang's
    bitcode needs Clang's linker driver, GCC's an ``ar`` with GCC's plugin). The sanitizers
    are checked without ``load``: their runtimes load only into an instrumented process."""
    cc = list(getattr(compiler, "compiler_so", None) or [])[:1]
    ld = list(getattr(compiler, "linker_so", None) or [])
    ar = list(getattr(compiler, "archiver", None) or [])
    if not cc or not ld or not ar or not all(shutil.which(tool[0]) for tool in (cc, ld, ar)):
        return False
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "inner.c").write_text("int coscore_inner(void) { return 42; }\n")
        (tmp / "outer.c").write_text("int coscore_inner(void);\nint coscore_outer(void) { return coscore_inner(); }\n")
        steps = [[*cc, *flags, "-fPIC", "-c", str(tmp / f"{name}.c"), "-o", str(tmp / f"{name}.o")]
                 for name in ("inner", "outer")]
        steps.append([*ar, str(tmp / "libinner.a"), str(tmp / "inner.o")])
        if getattr(compiler, "ranlib", None):   # macOS: as create_static_lib does
            steps.append([*compiler.ranlib, str(tmp / "libinner.a")])
        steps.append([*ld, *flags, str(tmp / "outer.o"), "-L" + str(tmp), "-linner", "-o", str(tmp / "outer.so")])
        for cmd in steps:
            done = _run(cmd)
            if done is None or done.returncode != 0:
                return False
        if not load:
            return True
        import ctypes

        try:
            return ctypes.CDLL(str(tmp / "outer.so")).coscore_outer() == 42
        except (OSError, AttributeError):
            return False


_flags_made: dict = {}


def _flags(compiler) -> tuple:
    """(compile flags, link flags) for this compiler and build (the same for the library
    and the extensions); the probes run once per build."""
    key = compiler.compiler_type
    if key in _flags_made:
        return _flags_made[key]
    if compiler.compiler_type == "msvc":
        args = ["/Od", "/Zi"] if _DEBUG else ["/O2"]
        link = ["/DEBUG"] if _DEBUG else []
    else:
        args = ["-fvisibility=hidden"]
        link = []
        if _DEBUG:
            args += ["-O0", "-g", "-UNDEBUG"]
            if _links_with(compiler, _SANITIZE):
                args += _SANITIZE
                link += _SANITIZE
                print("coscore: debug build with AddressSanitizer and UBSan", file=sys.stderr)
            else:
                print("coscore: debug build without sanitizers (the compiler has none)", file=sys.stderr)
        else:
            args += ["-O3"]
            # the kernels' C sources are separate translation units in a library: link-time
            # optimisation inlines their small entry points into the Cython loops
            if _links_with(compiler, ["-O3", "-flto"], load=True):
                args += ["-flto"]
                link += ["-O3", "-flto"]
    _flags_made[key] = (args, link)
    return args, link


def _newer(sources: list, target: str) -> bool:
    """Whether ``target`` is missing or older than one of ``sources``."""
    try:
        made = os.stat(target).st_mtime
    except OSError:
        return True
    return any(os.stat(s).st_mtime > made for s in sources)


class _BuildClib(build_clib):
    """build_clib with the extensions' flags and include directories (the sources include
    ``Python.h``), a debug build's objects apart from the normal build's, and the sources
    compiled in parallel with ``build_ext -j``."""

    def finalize_options(self):
        super().finalize_options()
        if _DEBUG:   # a debug library never stands in for the normal one, nor the other way
            self.build_temp = os.path.join(self.build_temp, "debug")
            self.build_clib = os.path.join(self.build_clib, "debug")

    def library_path(self) -> str:
        """Where the library is written (``build_ext`` relinks the extensions when it changes)."""
        return os.path.join(self.build_clib, self.compiler.library_filename(_LIBRARY))

    def build_libraries(self, libraries):
        from concurrent.futures import ThreadPoolExecutor

        ext = self.get_finalized_command("build_ext")
        args, _ = _flags(self.compiler)
        jobs = (os.cpu_count() or 1) if ext.parallel is True else max(1, int(ext.parallel or 1))
        for name, info in libraries:
            sources = list(info["sources"])
            depends = list(info.get("depends", []))
            objects = self.compiler.object_filenames(sources, output_dir=self.build_temp)
            stale = [s for s, o in zip(sources, objects) if self.force or _newer([s, *depends], o)]
            include_dirs = [*ext.include_dirs, *info.get("include_dirs", [])]   # Python's headers among them
            with ThreadPoolExecutor(jobs) as pool:
                list(pool.map(lambda source, include_dirs=include_dirs: self.compiler.compile(
                    [source], output_dir=self.build_temp, include_dirs=include_dirs, extra_postargs=args,
                    debug=self.debug), stale))
            self.compiler.create_static_lib(objects, name, output_dir=self.build_clib, debug=self.debug)


class _BuildExt(build_ext):
    """build_ext that builds the C library first (``build_ext --inplace`` alone does not)
    and relinks when it changes, with the flags of the compiler (and the debug build's)."""

    def run(self):
        self.run_command("build_clib")
        super().run()

    def build_extensions(self):
        args, link = _flags(self.compiler)
        library = self.get_finalized_command("build_clib").library_path()
        for ext in self.extensions:
            ext.extra_compile_args = args + list(ext.extra_compile_args)
            ext.extra_link_args = link + list(ext.extra_link_args)
            ext.depends = [*ext.depends, library]
        super().build_extensions()


class _BuildPy(build_py):
    """build_py that leaves the note of a build without extensions in the package (and
    removes a stale one): ``missing`` says what was missing, or is None."""

    missing = None

    def run(self):
        super().run()
        if self.missing:
            _warn_once(self.missing)
        if getattr(self, "editable_mode", False):   # the package is the checkout itself
            return
        note = Path(self.build_lib) / _FAST / _NOTE
        if self.missing:
            note.write_text(_message(self.missing) + "\n", encoding="utf-8")
        elif note.exists():
            note.unlink()


class _NothingToBuild(build_ext):
    """build_ext of a build without extensions: says once what was missing."""

    missing = None

    def run(self):
        if self.missing:
            _warn_once(self.missing)
        super().run()


def _missing() -> list:
    """What building the extensions needs and this machine lacks, each in a few words: a
    working C compiler (with its linker) and Python's C headers, found as ``build_ext``
    would find them (``CC``, ``LDSHARED``, ... included), and Cython."""
    missing = []
    try:
        import Cython  # noqa: F401  (the build requirement; present in an isolated build)
    except ImportError:
        missing.append("Cython (pip install 'Cython>=3.0')")
    from distutils.ccompiler import new_compiler
    from distutils.errors import CCompilerError, DistutilsError
    from distutils.sysconfig import customize_compiler

    compiler = new_compiler()
    try:
        customize_compiler(compiler)
        if compiler.compiler_type == "msvc":
            compiler.initialize()
    except (CCompilerError, DistutilsError, OSError) as exc:
        return [f"a C compiler ({' '.join(str(exc).split())})", *missing]
    cc, ld = list(getattr(compiler, "compiler_so", []) or []), list(getattr(compiler, "linker_so", []) or [])
    if compiler.compiler_type == "msvc" or not cc or not ld:
        return missing
    include = [f"-I{sysconfig.get_paths()[key]}" for key in ("include", "platinclude")]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "plain.c").write_text("int coscore_probe(void) { return 0; }\n")
        (tmp / "python.c").write_text("#include <Python.h>\n"
                                      "int coscore_probe(void) { return (int)sizeof(PyObject); }\n")
        for source, cmd, what in (
            ("plain", [*cc, "-c"], f"a working C compiler (CC: `{cc[0]}` could not compile a one-line C file)"),
            ("python", [*cc, *include, "-c"],
             f"Python's C headers (Python.h of Python {sysconfig.get_python_version()}: "
             "the python3-dev or python3-devel package)"),
        ):
            done = _run([*cmd, str(tmp / f"{source}.c"), "-o", str(tmp / f"{source}.o")])
            if done is None or done.returncode != 0:
                return [what, *missing]
        done = _run([*ld, str(tmp / "plain.o"), "-o", str(tmp / "plain.so")])
        if done is None or done.returncode != 0:
            return [f"a working linker (LDSHARED: `{ld[0]}` could not link a shared library)", *missing]
    return missing


def _message(missing: str) -> str:
    """The one-line warning of a build without extensions."""
    return (f"coscore was built without its compiled kernels, for want of {missing}; its pure-Python "
            "kernels give the same scores, slower. To get the compiled ones, install what is missing, "
            "then reinstall coscore: pip install --force-reinstall --no-deps --no-cache-dir coscore (or . from "
            "a checkout); see docs/building.md")


_warned = []


def _warn_once(missing: str) -> None:
    if not _warned:
        _warned.append(missing)
        print("WARNING: " + _message(missing), file=sys.stderr)


def _extensions() -> list:
    return [
        Extension(
            f"coscore._fast.{p.stem}",
            [str(_FAST / p.name)],
            include_dirs=[str(_FAST)],
            depends=[str(_SRC / h.name) for h in sorted((_HERE / _SRC).glob("*.h"))],
        )
        for p in sorted((_HERE / _FAST).glob("*.pyx"))
    ]


def _library() -> tuple:
    """The C sources as one static library, with the headers they depend on."""
    return (_LIBRARY, {
        "sources": [str(_SRC / c.name) for c in sorted((_HERE / _SRC).glob("*.c"))],
        "depends": [str(_SRC / h.name) for h in sorted((_HERE / _SRC).glob("*.h"))],
    })


if _on("COSCORE_NO_EXTENSIONS"):
    setup(cmdclass={"build_py": _BuildPy})
else:
    _lacking = " and ".join(_missing())
    if _lacking and _DEBUG:
        sys.exit(f"coscore: COSCORE_CYTHON_DEBUG=1 compiles the kernels, but this machine lacks {_lacking}")
    if _lacking:
        _BuildPy.missing = _NothingToBuild.missing = _lacking
        setup(cmdclass={"build_py": _BuildPy, "build_ext": _NothingToBuild})
    else:
        from Cython.Build import cythonize

        setup(
            # the debug build writes its generated C apart (build/cython-debug), so that it
            # never stands in for the normal build's coscore/_fast/*.c
            ext_modules=cythonize(_extensions(), compiler_directives=_DIRECTIVES,
                                  build_dir="build/cython-debug" if _DEBUG else None, force=_DEBUG),
            libraries=[_library()],
            cmdclass={"build_py": _BuildPy, "build_clib": _BuildClib, "build_ext": _BuildExt},
        )
