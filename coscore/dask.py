"""Scoring on a Dask cluster (the ``dask`` extra: ``pip install 'coscore[dask]'``).

:func:`score` adds the result columns to a Dask DataFrame lazily, partition by partition
with :meth:`coscore.Rule.score_many`; :func:`score_files` scores a Parquet dataset into
another one, on a ``LocalCluster`` or an existing Dask scheduler.

The rule travels to the workers as JSON text (never as a pickled compiled rule) and is
compiled once per worker process, then kept in a small module-level cache. Rows are never
dropped, added or reordered: an answer that cannot be scored keeps its row, with NaN
scores and its message in ``coscore_error``. A null blank cell is scored as ``""``.

>>> import dask.dataframe as dd, coscore.dask            # doctest: +SKIP
>>> ddf = dd.read_parquet("answers/*.parquet")          # doctest: +SKIP
>>> scored = coscore.dask.score(ddf, rule_dict, blanks=["b1", "b2"])   # doctest: +SKIP
>>> scored.to_parquet("scored/")                        # doctest: +SKIP
"""
from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

import coscore
from coscore.errors import ClusterError
from coscore.io.blanks import AnswerColumns
from coscore.io.errors import InputError
from coscore.io.parquet import ParquetReader, ParquetWriter
from coscore.io.pieces import Piece, natural_order, plan
from coscore.pipeline.files import Totals, score_into
from coscore.pipeline.results import COMBO_PREFIX, ERROR_COLUMN, SCORE_COLUMN
from coscore.pipeline.scoring import ItemPlan, Scoring
from coscore.pipeline.stream import CHUNK_SIZE
from coscore.spec import RuleSource

if TYPE_CHECKING:
    import dask.dataframe as dd
    import pandas as pd

    from coscore.exam import Exam

__all__ = ["ClusterError", "exam_payload", "rule_payload", "score", "score_exam_files", "score_files"]

#: How many compiled rules a worker process keeps.
CACHE_SIZE = 16


def __getattr__(name: str) -> Any:
    """``dd`` (dask.dataframe), ``pd`` (pandas) and ``ERROR_DTYPE``, imported when first
    used: :func:`score_files` needs neither, and importing them takes seconds in every
    worker process."""
    if name == "dd":
        import dask.dataframe

        return dask.dataframe
    if name == "pd":
        import pandas

        return pandas
    if name == "ERROR_DTYPE":  # the dtype of ``coscore_error``: text, null (pd.NA) where scored
        return _error_dtype()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_rules: dict[tuple[str, str, coscore.Limits | None], coscore.Rule] = {}
_rules_lock = threading.Lock()
#: How many times this process compiled a rule for a partition (for tests and diagnostics).
compile_count = 0


def _error_dtype() -> Any:
    import pandas as pd

    return pd.StringDtype("pyarrow")


# -- the rule on its way to the workers ---------------------------------------------------


def rule_payload(rule: coscore.Rule | RuleSource) -> tuple[str, str, coscore.Rule]:
    """``(json_text, dialect, compiled)`` for a rule given as anything
    :func:`coscore.compile` accepts, or a compiled :class:`coscore.Rule`.

    The JSON text keeps the rule's key order (combo order matters) and is what the
    workers receive and compile; it also keys their cache. Raises
    :class:`coscore.RuleError` for an invalid rule, here, before any work is sent.
    """
    compiled = rule if isinstance(rule, coscore.Rule) else coscore.compile(rule)
    text = json.dumps(compiled.spec.source, ensure_ascii=False, separators=(",", ":"))
    return text, compiled.dialect, compiled


def _worker_rule(text: str, dialect: str, limits: coscore.Limits | None = None) -> coscore.Rule:
    """The compiled rule for ``text`` in this process (held to ``limits``, the budgets of
    the rule the caller compiled): compiled on first use only."""
    global compile_count
    key = (text, dialect, limits)
    rule = _rules.get(key)
    if rule is None:
        with _rules_lock:
            rule = _rules.get(key)
            if rule is None:
                rule = coscore.compile(text, dialect=dialect, limits=limits)
                compile_count += 1
                while len(_rules) >= CACHE_SIZE:
                    _rules.pop(next(iter(_rules)))
                _rules[key] = rule
    return rule


# -- one partition ------------------------------------------------------------------------


def _errors_array(errors: list) -> pd.api.extensions.ExtensionArray:
    """``coscore_error`` as :data:`ERROR_DTYPE` (built through Arrow: much faster)."""
    import pandas as pd

    try:
        array = pd.arrays.ArrowStringArray(pa.array(errors, type=pa.large_string()))
        if array.dtype == _error_dtype():
            return array
    except (TypeError, ValueError, AttributeError):
        pass
    return pd.array(errors, dtype=_error_dtype())


def _score_partition(df: pd.DataFrame, text: str, dialect: str, blanks: list, combo_ids: list,
                     limits: coscore.Limits | None = None) -> pd.DataFrame:
    """``df`` with the result columns appended (same rows, same order, same index)."""
    rule = _worker_rule(text, dialect, limits)
    if list(rule.combo_ids) != list(combo_ids):  # cannot happen unless the versions differ
        raise RuntimeError(f"the worker compiled combos {rule.combo_ids}, expected {combo_ids}; "
                           "install the same coscore version on the client and every worker")
    batch = rule.score_many(df[list(blanks)])   # the blank columns, as Arrow text (or odd cells one by one)
    out = df.copy(deep=False)
    out[SCORE_COLUMN] = np.asarray(batch.scores, dtype="float64")
    for cid in combo_ids:
        out[COMBO_PREFIX + cid] = np.asarray(batch.combos[cid], dtype="float64")
    out[ERROR_COLUMN] = _errors_array(list(batch.errors))
    return out


def _meta(meta: pd.DataFrame, combo_ids: Sequence[str]) -> pd.DataFrame:
    import pandas as pd

    out = meta.iloc[:0].copy()
    out[SCORE_COLUMN] = np.array([], dtype="float64")
    for cid in combo_ids:
        out[COMBO_PREFIX + cid] = np.array([], dtype="float64")
    out[ERROR_COLUMN] = pd.array([], dtype=_error_dtype())
    return out


def _check_text_columns(source: str, meta: pd.DataFrame, blanks: Sequence[str]) -> None:
    import pandas as pd

    for name in blanks:
        dtype = meta[name].dtype
        if isinstance(dtype, pd.CategoricalDtype):
            dtype = dtype.categories.dtype
        if not (dtype == object or pd.api.types.is_string_dtype(dtype)):  # noqa: E721 - a numpy dtype, equal to object
            raise InputError(source, f"a blank column must hold text, this one holds {dtype}", column=str(name))


# -- the public API -----------------------------------------------------------------------


def score(
    ddf: dd.DataFrame,
    rule: coscore.Rule | RuleSource,
    blanks: Sequence[str] | None = None,
    label: str | None = None,
) -> dd.DataFrame:
    """Score every row of ``ddf`` with ``rule``, lazily.

    Args:
        ddf: a Dask DataFrame with one answer per row.
        rule: a compiled :class:`coscore.Rule`, or anything :func:`coscore.compile`
            accepts (dict, JSON text, ``os.PathLike``); compiled here once to check
            it, then sent to the workers as JSON text with its budgets
            (:class:`coscore.Limits`: compile it with ``limits=`` to raise them).
        blanks: the columns holding the blanks, in order (text; a null cell is the
            empty blank ``""``). Default: every column except ``id`` and ``label``.
        label: the teacher's mark column, never taken as a blank.

    Returns:
        A Dask DataFrame with the same partitions, index and row order: the input
        columns, then ``coscore_score``, ``coscore_combo_<ID>`` per combo (float64,
        NaN where the answer failed) and ``coscore_error`` (string, null unless the
        answer failed). Nothing is computed until you compute or write it.

    Raises:
        coscore.RuleError: the rule is invalid.
        coscore.io.InputError: (a ``ValueError``) a blank or label column is missing,
            a blank column is not text, or the input already has a ``coscore_*`` column.
    """
    return _score(ddf, rule, blanks, label, "dataframe")


def _score(ddf: dd.DataFrame, rule: coscore.Rule | RuleSource, blanks: Sequence[str] | None, label: str | None,
           source: str) -> dd.DataFrame:
    """:func:`score`, with ``source`` naming the data in error messages."""
    text, dialect, compiled = rule_payload(rule)
    combo_ids = list(compiled.combo_ids)
    columns = list(ddf.columns)
    if isinstance(blanks, str):  # one column named on its own
        blanks = [blanks]
    how = AnswerColumns.resolve("parquet", source, columns, list(blanks) if blanks else None, label,
                                need=compiled.blank_need, name_them="blanks=[COL, ...]")
    chosen = how.blanks
    Scoring((ItemPlan(compiled.plan, how),)).check_no_clash(source, columns)
    meta = ddf._meta
    _check_text_columns(source, meta, chosen)
    return ddf.map_partitions(
        _score_partition, text, dialect, list(chosen), combo_ids, compiled.limits,
        meta=_meta(meta, combo_ids),
    )


def score_files(
    rule: coscore.Rule | RuleSource,
    data: str | list[str],
    out_dir: str,
    *,
    blanks: list[str] | None = None,
    label: str | None = None,
    scheduler: str | None = None,
    progress: bool = False,
    totals: Any = None,
) -> int:
    """Score the Parquet dataset ``data`` into a new Parquet dataset ``out_dir``.

    ``data`` is a file, a directory, a glob (``answers/*.parquet``) or a list of them, local or on
    any filesystem fsspec knows (``s3://...``) that the workers can reach too.
    ``out_dir`` must not exist or be empty; it receives one ``part.N.parquet`` per
    partition (a partition retried after a worker died overwrites its own file, so
    every row is written exactly once).

    ``scheduler`` is the address of a running Dask scheduler (``tcp://host:8786``) or
    the path to its scheduler file; without it a ``LocalCluster`` runs one
    single-threaded worker process per core for the duration of the call.
    ``progress`` draws Dask's progress bar (:func:`distributed.progress`) on stderr.

    Returns the number of rows written. If ``totals`` is given (a
    :class:`coscore.pipeline.files.Totals`), its ``rows`` and ``errors`` (failed answers) grow
    by what was written, as with the local engine. Raises :class:`coscore.io.InputError` for
    a missing input, a non-empty output directory or a bad column,
    :class:`coscore.RuleError` for an invalid rule, and :class:`ClusterError` when the
    scheduler or a worker cannot run this coscore.
    """
    text, dialect, compiled = rule_payload(rule)
    source = _named(data)
    fs, files = _input_files(data)
    _check_output(out_dir)
    schema, pieces = plan(fs, files, source)
    if _pandas_index(schema):  # an index to keep: the DataFrame path writes it as pandas does
        rows, errors = _score_dataframe(compiled, data, out_dir, blanks, label, scheduler, progress)
    else:
        names = list(schema.names)
        columns = AnswerColumns.resolve("parquet", source, names, blanks, label, need=compiled.blank_need)
        Scoring((ItemPlan(compiled.plan, columns),)).check_no_clash(source, names)
        _check_arrow_text(source, schema, columns.blanks)
        rows, errors = _score_pieces(pieces, (text, dialect, compiled), columns, fs, out_dir, scheduler, progress)
    if totals is not None:
        totals.rows += rows
        totals.errors += errors
    return rows


def score_exam_files(
    exam: Exam,
    data: str | list[str],
    out_dir: str,
    *,
    combos: bool = False,
    decimals: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
    totals: Any = None,
) -> int:
    """Score every item of ``exam`` (a :class:`coscore.Exam`) over the Parquet dataset
    ``data`` into a new Parquet dataset ``out_dir``, as :func:`score_files` scores one rule
    and ``coscore score EXAM`` writes a file (the same columns and values). The exam goes
    to the workers as JSON, its rules inline, and is compiled once per worker process.
    Returns the rows written; ``totals`` (a :class:`coscore.pipeline.files.Totals`) grows
    by what was scored. Raises :class:`coscore.io.InputError` for a missing input or
    column, a non-empty output directory, or files that hold a pandas index (score those
    with one rule at a time), and :class:`ClusterError` as :func:`score_files` does."""
    text = exam_payload(exam)
    source = _named(data)
    fs, files = _input_files(data)
    _check_output(out_dir)
    schema, pieces = plan(fs, files, source)
    if _pandas_index(schema):
        raise InputError(source, "these Parquet files hold a pandas index, which an exam cannot carry on Dask: "
                         "write them without it (index=False), or score them with the local engine")
    scoring = exam.scoring("parquet", source, list(schema.names), combos=combos, decimals=decimals)
    scoring.check_no_clash(source, list(schema.names))
    for item in scoring.items:
        _check_arrow_text(source, schema, item.columns.blanks)
    counts = _map_pieces(_score_exam_piece, pieces, out_dir, scheduler, progress, text=text,
                         limits=exam.items[0].rule.limits, names=list(schema.names), combos=combos,
                         decimals=decimals, fs=fs)
    if totals is not None:
        totals.rows += sum(c[0] for c in counts)
        totals.errors += sum(c[1] for c in counts)
        totals.answers += sum(c[2] for c in counts)
        totals.error_columns = scoring.error_columns()
    return sum(c[0] for c in counts)


def exam_payload(exam: Exam) -> str:
    """``exam`` as the JSON text its workers compile: its structure, every rule inline (as
    its source, combo order kept)."""
    items = []
    for item in exam.items:
        entry: dict[str, Any] = {"name": item.name, "rule": item.rule.spec.source, "blanks": list(item.blanks),
                                 "weight": item.weight}
        entry.update((key, value) for key, value in (("label", item.label), ("label2", item.label2))
                     if value is not None)
        items.append(entry)
    top = {key: value for key, value in (("id", exam.id), ("item_column", exam.item_column)) if value is not None}
    return json.dumps({**top, "items": items}, ensure_ascii=False, separators=(",", ":"))


_exams: dict[tuple[str, Any], Exam] = {}


def _worker_exam(text: str, limits: coscore.Limits | None) -> Exam:
    """The exam of ``text`` in this process, compiled on first use only."""
    from coscore.exam import load_exam

    key = (text, limits)
    exam = _exams.get(key)
    if exam is None:
        with _rules_lock:
            exam = _exams.get(key)
            if exam is None:
                exam = load_exam(json.loads(text), limits=limits, allow_files=False)
                while len(_exams) >= CACHE_SIZE:
                    _exams.pop(next(iter(_exams)))
                _exams[key] = exam
    return exam


def _score_exam_piece(piece: Piece, out_path: str, *, text: str, limits: coscore.Limits | None, names: list,
                      combos: bool, decimals: int | None, fs: Any, out_fs: Any) -> tuple[int, int, int]:
    """One task of :func:`score_exam_files`, run by a worker: (rows, failed answers, answers)."""
    exam = _worker_exam(text, limits)
    scoring = exam.scoring("parquet", piece.path, names, combos=combos, decimals=decimals)
    totals = score_piece(scoring, fs, piece, out_fs, out_path)
    return totals.rows, totals.errors, totals.answers


def _score_pieces(pieces: list[Piece], rule: tuple[str, str, coscore.Rule], columns: AnswerColumns, fs: Any,
                  out_dir: str, scheduler: str | None, progress: bool) -> tuple[int, int]:
    """Score each piece into ``out_dir/part.N.parquet`` as one task; (rows, failed answers)."""
    text, dialect, compiled = rule
    counts = _map_pieces(_score_piece, pieces, out_dir, scheduler, progress, text=text, dialect=dialect,
                         limits=compiled.limits, combo_ids=list(compiled.combo_ids), columns=columns, fs=fs)
    return sum(c[0] for c in counts), sum(c[1] for c in counts)


def _map_pieces(task: Any, pieces: list[Piece], out_dir: str, scheduler: str | None, progress: bool,
                **arguments: Any) -> list[Any]:
    """``task(piece, out_path, out_fs=…, **arguments)`` for each piece on the cluster, each
    writing ``out_dir/part.N.parquet``: what each task returned, in order."""
    import fsspec

    out_fs, out_path = fsspec.core.url_to_fs(out_dir)
    with _connect(scheduler) as client:
        _check_cluster(client)
        out_fs.makedirs(out_path, exist_ok=True)
        futures = client.map(task, pieces, [f"{out_path.rstrip('/')}/{_part_name(i)}" for i in range(len(pieces))],
                             out_fs=out_fs, pure=False, **arguments)
        _show_progress(client, futures, progress)
        return client.gather(futures)


def _score_piece(piece: Piece, out_path: str, *, text: str, dialect: str, limits: coscore.Limits | None,
                 combo_ids: list, columns: AnswerColumns, fs: Any, out_fs: Any) -> tuple[int, int]:
    """One task of :func:`score_files`, run by a worker: (rows written, failed answers)."""
    rule = _worker_rule(text, dialect, limits)
    if list(rule.combo_ids) != list(combo_ids):  # cannot happen unless the versions differ
        raise RuntimeError(f"the worker compiled combos {rule.combo_ids}, expected {combo_ids}; "
                           "install the same coscore version on the client and every worker")
    totals = score_piece(Scoring((ItemPlan(rule.plan, columns),)), fs, piece, out_fs, out_path)
    return totals.rows, totals.errors


def score_piece(scoring: Scoring, fs: Any, piece: Piece, out_fs: Any, out_path: str,
                chunk_size: int = CHUNK_SIZE) -> Totals:
    """Score ``piece`` as ``scoring`` says (a rule, or an exam's items) into the Parquet file
    ``out_path`` of ``out_fs`` (replaced if it exists), as ``coscore score`` scores a file;
    what was written."""
    with _open(fs, piece.path, "rb") as handle, _open(out_fs, out_path, "wb") as out:
        reader = ParquetReader(piece.path, chunk_size, handle=handle, row_groups=list(piece.row_groups),
                               first_row=piece.first_row)
        writer = ParquetWriter(out, out_path)
        totals = score_into(scoring, reader.chunks(), writer)
        writer.close()
    return totals


def _open(fs: Any, path: str, mode: str) -> Any:
    """``path`` of ``fs`` open in ``mode`` (``"rb"`` or ``"wb"``): a local file as an Arrow
    file (read and written without the GIL), any other through fsspec."""
    protocol = getattr(fs, "protocol", ())
    if "file" in ((protocol,) if isinstance(protocol, str) else protocol):
        return pa.OSFile(path, mode[0])
    return fs.open(path, mode)


def _score_dataframe(compiled: coscore.Rule, data: str | list[str], out_dir: str, blanks: list[str] | None,
                     label: str | None, scheduler: str | None, progress: bool) -> tuple[int, int]:
    """Score a dataset with a pandas index as a Dask DataFrame (the index is written back)."""
    ddf = _read(data)
    scored = _score(ddf, compiled, blanks, label, _named(data))  # checks the columns before any cluster starts
    with _connect(scheduler) as client:
        _check_cluster(client)
        write = scored.to_parquet(
            out_dir, compute=False, write_index=ddf.index.name is not None, name_function=_part_name,
        )
        future = client.compute(write)
        _show_progress(client, future, progress)
        future.result()
    return _count_written(out_dir)


def _show_progress(client: Any, futures: Any, progress: bool) -> None:
    if progress:
        from distributed import progress as dask_progress

        with contextlib.redirect_stdout(sys.stderr):  # the bar is drawn on stdout
            dask_progress(futures, scheduler=client.scheduler.address)  # this client's, not the default


# -- score_files helpers ------------------------------------------------------------------


@contextlib.contextmanager
def _connect(scheduler: str | None) -> Iterator[Any]:
    """A client of ``scheduler`` (address or scheduler file), or of a new ``LocalCluster``
    with one single-threaded worker process per core; closed (with the cluster) on exit."""
    from distributed import Client, LocalCluster

    if scheduler is None:
        with LocalCluster(n_workers=_cores(), threads_per_worker=1, processes=True,
                          dashboard_address=":0") as cluster, \
                Client(cluster, set_as_default=False) as client:
            yield client
    elif os.path.isfile(scheduler):
        with Client(scheduler_file=scheduler, set_as_default=False) as client:
            yield client
    else:
        with Client(scheduler, set_as_default=False) as client:
            yield client


def _part_name(i: int) -> str:
    return f"part.{i}.parquet"


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _named(data: str | list[str]) -> str:
    return data if isinstance(data, str) else ", ".join(data)


def _read(data: str | list[str]) -> dd.DataFrame:
    import dask.dataframe as dd

    try:
        return dd.read_parquet(data)
    except (OSError, ValueError) as exc:
        raise InputError(_named(data), f"cannot read as a Parquet dataset: {exc}") from None


def _input_files(data: str | list[str]) -> tuple[Any, list[str]]:
    """The filesystem of ``data`` and its Parquet files, in order: a file, the
    ``*.parquet`` files under a directory, or a glob's matches (numbers in names compared
    as numbers, as Dask does)."""
    import fsspec

    found: list[str] = []
    fs = None
    for one in [data] if isinstance(data, str) else data:
        fs, _, paths = fsspec.core.get_fs_token_paths(one)
        if not paths:
            raise InputError(one, "no file matches this pattern")
        if len(paths) == 1 and not fs.exists(paths[0]):
            raise InputError(one, "no such file or directory")
        for path in paths:
            if fs.isdir(path):
                inside = [p for p in fs.find(path) if p.endswith(".parquet") and not _hidden(p[len(path):])]
                found.extend(natural_order(inside))
            else:
                found.append(path)
    if not found:
        raise InputError(_named(data), "no Parquet file in this directory")
    return fs, found


def _hidden(relative: str) -> bool:
    """A file Dask skips in a dataset directory (``_metadata``, ``.crc`` files, ...)."""
    return any(part.startswith(("_", ".")) for part in relative.split("/") if part)


def _pandas_index(schema: Any) -> bool:
    """Whether the Parquet files hold a pandas index as a column (not a mere range)."""
    meta = schema.pandas_metadata or {}
    return any(isinstance(column, str) for column in meta.get("index_columns", ()))


def _check_arrow_text(source: str, schema: Any, blanks: Sequence[str]) -> None:
    for name in blanks:
        kind = schema.field(name).type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        if not (pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_null(kind)
                or getattr(pa.types, "is_string_view", lambda _: False)(kind)):
            raise InputError(source, f"a blank column must hold text, this one holds {kind}", column=str(name))


def _check_output(out_dir: str) -> None:
    import fsspec

    fs, path = fsspec.core.url_to_fs(out_dir)
    if fs.exists(path):
        if not fs.isdir(path):
            raise InputError(out_dir, "the output must be a directory, and this is a file")
        if fs.ls(path):
            raise InputError(out_dir, "the output directory is not empty; choose a new one or empty it")


def _check_cluster(client: Any) -> None:
    """The scheduler and every worker connected now must import the coscore version of
    this client (the scheduler unpickles the task graph, which names coscore.dask)."""
    hint = "install the same coscore on the scheduler and every worker: pip install 'coscore[dask]'"
    try:
        versions = {"the scheduler": client.run_on_scheduler(_coscore_version)}
        versions.update(client.run(_coscore_version))
    except Exception as exc:  # e.g. ModuleNotFoundError over there
        raise ClusterError(f"the Dask cluster cannot run coscore ({type(exc).__name__}: {exc}); {hint}") from None
    wrong = {where: v for where, v in versions.items() if v != coscore.__version__}
    if wrong:
        where, version = next(iter(wrong.items()))
        raise ClusterError(
            f"{where} has coscore {version}, this client {coscore.__version__} ({len(wrong)} differ); {hint}"
        )


def _coscore_version() -> str:
    return coscore.__version__


def _count_written(out_dir: str) -> tuple[int, int]:
    """``(rows, failed answers)`` in the Parquet files of ``out_dir``, from their footers
    (the row counts and the null count of ``coscore_error``)."""
    import fsspec
    import pyarrow.parquet as pq

    fs, path = fsspec.core.url_to_fs(out_dir)
    rows = errors = 0
    for name in sorted(fs.glob(path.rstrip("/") + "/*.parquet")):
        with fs.open(name, "rb") as handle:
            pf = pq.ParquetFile(handle)
            meta = pf.metadata
            rows += meta.num_rows
            index = pf.schema_arrow.get_field_index(ERROR_COLUMN)
            ok: int | None = 0
            for g in range(meta.num_row_groups):
                stats = meta.row_group(g).column(index).statistics
                if stats is None or not stats.has_null_count:
                    ok = None
                    break
                ok += stats.null_count
            if ok is None:
                ok = pf.read(columns=[ERROR_COLUMN]).column(0).null_count
            errors += meta.num_rows - ok
    return rows, errors
