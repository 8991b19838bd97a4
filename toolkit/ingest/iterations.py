"""Generic iteration timings from any harness: CSV or Parquet with columns
``suite, query, iteration, seconds`` and optional ``process, system, machine``.

``iteration`` 0 is the cold run; ``seconds`` empty/NULL is a failed run. Also
:func:`ingest_iterations` for a frame built in Python.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from toolkit.errors import InputFormatError
from toolkit.ingest.guarded import MAX_RUN_SECONDS, quoted
from toolkit.ingest.registry import Ingester, IngestOptions, register
from toolkit.native import duckdb
from toolkit.store import SourceWriter, Store

REQUIRED = ("suite", "query", "iteration", "seconds")
OPTIONAL = ("process", "system", "machine")
_INT32_MAX = 2**31 - 1
#: more header columns than this is not an iterations file (and slow to parse)
MAX_COLUMNS = 1000


def _sniff(path: Path, head: bytes) -> bool:
    if path.suffix.lower() == ".parquet" or head[:4] == b"PAR1":
        return True
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace").strip().lower()
    names = [c.strip().strip('"') for c in first.split(",")]
    return all(col in names for col in REQUIRED)


def _check_header_width(path: Path) -> None:
    """Refuse a header of thousands of columns before the CSV reader spends minutes on it."""
    with path.open("rb") as handle:
        # the CSV reader skips empty lines before the header: so does this check
        # (found by the long fuzz profile: 2,006 blank lines, then 1.1 M commas)
        line = 1
        while (first := handle.readline(1 << 20)) and not first.strip(b"\r\n"):
            line += 1
    if len(first) >= 1 << 20 and not first.endswith(b"\n"):
        raise InputFormatError(
            path, "header line is longer than 1 MiB; this is not an iterations CSV", line=line
        )
    width = first.count(b",") + 1
    if width > MAX_COLUMNS:
        raise InputFormatError(
            path,
            f"header has {width} columns (at most {MAX_COLUMNS} expected); "
            "iterations input needs suite, query, iteration, seconds",
            line=line,
        )


def _read(path: Path, encoding: str | None) -> pl.DataFrame:
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
        if path.suffix.lower() == ".parquet" or magic == b"PAR1":
            return pl.read_parquet(path)
        _check_header_width(path)
        return pl.read_csv(
            path,
            infer_schema=False,
            encoding="utf8" if encoding in (None, "utf-8", "utf8") else "utf8-lossy",
        )
    except (pl.exceptions.PolarsError, OSError, duckdb.Error) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputFormatError(path, f"cannot read as iterations CSV/Parquet: {first}") from None


def validate_iterations(frame: pl.DataFrame, origin: Path | str) -> pl.DataFrame:
    """Check and normalize an iterations frame; return it with typed columns.

    Raises :class:`InputFormatError` naming the first bad column or row (1-based data
    row, header excluded).
    """
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise InputFormatError(
            origin,
            f"missing column(s) {', '.join(missing)} (found: {', '.join(frame.columns)}); "
            "iterations input needs suite, query, iteration, seconds",
        )
    out = frame.select([c for c in (*REQUIRED, *OPTIONAL) if c in frame.columns])
    for col, dtype in (("iteration", pl.Int64), ("seconds", pl.Float64), ("process", pl.Int64)):
        if col not in out.columns:
            continue
        raw = out.get_column(col)
        if raw.dtype == pl.String:
            raw = raw.str.strip_chars()
            raw = pl.Series(col, raw).replace("", None)
        converted = raw.cast(dtype, strict=False)
        bad = converted.is_null() & raw.is_not_null()
        if col == "seconds":
            in_range = converted.is_finite() & (converted >= 0) & (converted <= MAX_RUN_SECONDS)
            bad = bad | (converted.is_not_null() & ~in_range)
        elif col in ("iteration", "process"):
            bad = bad | raw.is_null()  # a run number is required in every row
            # stored as INTEGER: a larger number is a typo, not a run number
            bad = bad | (converted.is_not_null() & ((converted < 0) | (converted > _INT32_MAX)))
        if bad.any():
            row = int(bad.arg_true()[0])
            value = "" if raw[row] is None else raw[row]
            expected = (
                f"a number of seconds from 0 to {MAX_RUN_SECONDS:g}, or empty for a failed run"
                if col == "seconds"
                else f"an integer from 0 to {_INT32_MAX}"
            )
            raise InputFormatError(
                origin,
                f"column {col!r}: {quoted(value)} is not {expected}",
                line=row + 2,
            )
        out = out.with_columns(converted.alias(col))
    for col in ("suite", "query"):
        values = out.get_column(col).cast(pl.String)
        empty = values.is_null() | (values.str.strip_chars() == "")
        if empty.any():
            raise InputFormatError(
                origin, f"column {col!r} is empty", line=int(empty.arg_true()[0]) + 2
            )
        out = out.with_columns(values.alias(col))
    if "process" not in out.columns:
        out = out.with_columns(pl.lit(0, pl.Int64).alias("process"))
    dupes = out.select("suite", "query", "process", "iteration").is_duplicated()
    if dupes.any():
        row = int(dupes.arg_true()[0])
        r = out.row(row, named=True)
        raise InputFormatError(
            origin,
            f"run (suite {r['suite']!r}, query {r['query']!r}, process {r['process']}, "
            f"iteration {r['iteration']}) appears twice",
            line=row + 2,
        )
    return out


def write_iterations(writer: SourceWriter, frame: pl.DataFrame, options: IngestOptions) -> None:
    """Write a validated iterations frame: one suite per distinct ``suite`` value."""
    tags = [t for t in options.tags if "=" not in t]
    attrs = dict(t.split("=", 1) for t in options.tags if "=" in t)
    con = writer.store.con
    for (suite_name,), part in frame.group_by("suite", maintain_order=True):
        first = part.row(0, named=True)
        suite_id = writer.suite(
            options.suite or str(suite_name),
            kind="iterations",
            join=options.suite is not None,
            system=first.get("system"),
            machine=first.get("machine"),
            tags=tags,
            attributes=attrs,
        )
        order = part.select("query").unique(maintain_order=True).with_row_index("query_index")
        rows = part.join(order, on="query").select(
            pl.lit(suite_id, pl.Int64).alias("suite_id"),
            pl.lit(writer.source_id, pl.Int64).alias("source_id"),
            "query",
            pl.col("query_index").cast(pl.Int32),
            pl.col("process").cast(pl.Int32),
            pl.col("iteration").cast(pl.Int32),
            "seconds",
        )
        con.register("_iterations_in", rows.to_arrow())
        try:
            con.execute("INSERT INTO iterations SELECT * FROM _iterations_in")
        finally:
            con.unregister("_iterations_in")


def _load(writer: SourceWriter, path: Path, options: IngestOptions) -> None:
    frame = validate_iterations(_read(path, options.encoding), path)
    if frame.height == 0:
        raise InputFormatError(path, "no data rows after the header")
    write_iterations(writer, frame, options)


register(
    Ingester(
        name="iterations",
        description="generic CSV/Parquet: suite, query, iteration, seconds [process, system, machine]",
        sniff=_sniff,
        load=_load,
        priority=50,
    )
)


def ingest_iterations(
    store: Store,
    frame: pl.DataFrame,
    *,
    name: str = "<frame>",
    options: IngestOptions | None = None,
) -> int:
    """Store an iterations frame built by a harness; return the rows written.

    The frame has columns ``suite, query, iteration, seconds`` (``process``, ``system``,
    ``machine`` optional). It is one transaction, recorded in ``sources`` under ``name``
    with the SHA-256 of its Arrow IPC bytes (so the same frame twice is a no-op).

    >>> import polars as pl
    >>> from toolkit import open_store, ingest_iterations
    >>> with open_store() as store:
    ...     ingest_iterations(store, pl.DataFrame({"suite": ["s"] * 3, "query": ["q"] * 3,
    ...         "iteration": [0, 1, 2], "seconds": [1.0, 0.5, 0.4]}))
    3
    """
    import hashlib
    import io
    import tempfile

    options = options or IngestOptions()
    checked = validate_iterations(frame, name)
    buffer = io.BytesIO()
    checked.write_ipc(buffer)
    data = buffer.getvalue()
    sha = hashlib.sha256(data).hexdigest()
    if store.find_source(sha) is not None and not options.replace:
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        # sources records a path and size: keep the frame's bytes in a real file for that
        holder = Path(tmp) / "frame.arrow"
        holder.write_bytes(data)
        with store.new_source(
            holder,
            format="iterations-frame",
            sha256=sha,
            replace=options.replace,
            recorded_path=name,
        ) as writer:
            write_iterations(writer, checked, options)
    return writer.rows
