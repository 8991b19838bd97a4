"""The DuckDB store: ``open_store()``, schema migrations, provenance, all-or-nothing files.

Schema files ``schemas/NNN_*.sql`` are numbered migrations: a new store runs them all, an
older store runs the ones above its ``meta.schema_version``, a newer store is refused.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa

from toolkit.errors import DuplicateSourceError, StoreError, StoreVersionError, UsageError
from toolkit.resources import resource_dir
from toolkit.store.sigint import interrupt_on_sigint

__all__ = [
    "DATA_TABLES",
    "SCHEMA_VERSION",
    "SourceGroup",
    "SourceWriter",
    "Store",
    "file_sha256",
    "interrupt_on_sigint",
    "migrations",
    "open_store",
]

#: Tables whose rows belong to one source (deleted together on ``--replace``).
DATA_TABLES = ("iterations", "samples", "load_windows", "query_runs", "operator_runs")

_MIGRATION_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")
_LOCK_MARKERS = ("Could not set lock", "Conflicting lock")


def migrations() -> list[tuple[int, Path]]:
    """Return the numbered schema files as ``(version, path)``, in order."""
    found = []
    for path in resource_dir("schemas").iterdir():
        match = _MIGRATION_NAME.match(path.name)
        if match:
            found.append((int(match.group(1)), path))
    return sorted(found)


def _latest_version() -> int:
    return migrations()[-1][0]


SCHEMA_VERSION = _latest_version()

#: suite kind -> (what a suite of it is, the commands that analyse it)
_KIND_COMMANDS = {
    "iterations": ("iteration suite", "warmup gaps, detect, score"),
    "load": ("load-test suite", "warmup load, compare"),
    "profile": ("profile suite", "warmup cache"),
}


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _source_row(
    writer: SourceWriter, path: Path, recorded_path: str | None, sha256: str, format: str
) -> list[Any]:
    """The ``sources`` row of a file whose rows ``writer`` has written, in column order."""
    return [
        writer.source_id,
        recorded_path or str(path.resolve()),
        sha256,
        format,
        path.stat().st_size,
        writer.rows,
        datetime.now(UTC),
        _tool_version(),
        list(writer.warnings),
    ]


def _tool_version() -> str:
    from toolkit import __version__

    return __version__


class Store:
    """An open warmup-toolkit store (a DuckDB connection with the toolkit's schema).

    Use :func:`open_store` to get one. ``store.con`` is the DuckDB connection: analyzers
    read frames with :meth:`frame`; ingesters write through :meth:`new_source`.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, path: Path | None) -> None:
        self.con = con
        self.path = path
        # DuckDB draws its own progress bar on *stdout* for queries over 2 s, which would
        # corrupt `--json` output; progress is still tracked for con.query_progress()
        con.execute("SET enable_progress_bar_print = false")

    # -- life cycle -------------------------------------------------------------------
    def close(self) -> None:
        """Close the connection (a no-op when already closed)."""
        with contextlib.suppress(duckdb.Error):
            self.con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        """The schema version recorded in ``meta``."""
        row = self.con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return int(row[0]) if row else 0

    # -- reading ----------------------------------------------------------------------
    def frame(self, sql: str, params: Sequence[object] | None = None) -> pl.DataFrame:
        """Run ``sql`` and return the result as a Polars frame."""
        # DuckDB 2.0: a relation from con.sql() converts without the DB-API copy warning,
        # but refuses to run while an execute() result is unfinished (fetchone() leaves one)
        self.con.complete()
        frame = self.con.sql(sql, params=list(params) if params else None).pl()
        assert isinstance(frame, pl.DataFrame)
        return frame

    def sources(self) -> pl.DataFrame:
        """Every ingested file, oldest first."""
        return self.frame("SELECT * FROM sources ORDER BY source_id")

    def suites(self) -> pl.DataFrame:
        """Every suite with its row counts per data table, in ingest order."""
        return self.frame(
            """
            SELECT s.*,
                   (SELECT count(*) FROM iterations i WHERE i.suite_id = s.suite_id) AS iterations,
                   (SELECT count(*) FROM samples x WHERE x.suite_id = s.suite_id) AS samples,
                   (SELECT count(*) FROM load_windows w WHERE w.suite_id = s.suite_id)
                       AS load_windows,
                   (SELECT count(*) FROM query_runs q WHERE q.suite_id = s.suite_id)
                       AS query_runs,
                   (SELECT count(*) FROM operator_runs o WHERE o.suite_id = s.suite_id)
                       AS operator_runs
            FROM suites s ORDER BY s.suite_id
            """
        )

    def suite_ids(self, names: Sequence[str] | None, *, kind: str | None = None) -> list[int]:
        """Resolve suite names to ids (all suites of ``kind`` when ``names`` is empty).

        Raises :class:`UsageError` naming the known suites when a name is unknown.
        """
        where = "WHERE kind = ?" if kind else ""
        rows = self.con.execute(
            f"SELECT suite_id, name FROM suites {where} ORDER BY suite_id",
            [kind] if kind else [],
        ).fetchall()
        if not names:
            return [int(r[0]) for r in rows]
        by_name = {str(r[1]): int(r[0]) for r in rows}
        ids = []
        for name in names:
            if name not in by_name:
                known = ", ".join(sorted(by_name)) or "none"
                raise UsageError(
                    f"unknown suite {name!r}; known suites: {known} (list them with `warmup suites`)"
                )
            ids.append(by_name[name])
        return ids

    def suites_elsewhere(self, kind: str) -> str:
        """For a command that found no suite of ``kind``: which other kinds the store holds
        and the command for each, as ``"; the input holds 1 load-test suite (warmup load)"``,
        or ``""`` when it holds none."""
        rows = self.con.execute(
            "SELECT kind, count(*) FROM suites WHERE kind <> ? GROUP BY kind ORDER BY kind",
            [kind],
        ).fetchall()
        parts = []
        for other, count in rows:
            noun, command = _KIND_COMMANDS.get(str(other), (f"{other} suite", "warmup suites"))
            parts.append(f"{count} {noun}{'' if count == 1 else 's'} ({command})")
        return f"; the input holds {' and '.join(parts)}" if parts else ""

    # -- writing ----------------------------------------------------------------------
    def find_source(self, sha256: str) -> int | None:
        """The id of the source with this SHA-256, or None."""
        row = self.con.execute(
            "SELECT source_id FROM sources WHERE sha256 = ?", [sha256]
        ).fetchone()
        return int(row[0]) if row else None

    def _delete_source(self, source_id: int) -> None:
        for table in DATA_TABLES:
            self.con.execute(f"DELETE FROM {table} WHERE source_id = ?", [source_id])
        self.con.execute("DELETE FROM suite_sources WHERE source_id = ?", [source_id])
        self.con.execute(
            "DELETE FROM suites WHERE suite_id NOT IN (SELECT suite_id FROM suite_sources)"
        )
        self.con.execute("DELETE FROM sources WHERE source_id = ?", [source_id])

    def _stored_rows(self, source_id: int) -> int:
        """Rows of ``source_id`` in all :data:`DATA_TABLES` (what ``sources.rows`` means)."""
        # one UNION ALL query: several times faster in DuckDB than scalar subqueries
        counts = " UNION ALL ".join(
            f"SELECT count(*) FROM {table} WHERE source_id = $id" for table in DATA_TABLES
        )
        return sum(int(n) for (n,) in self.con.execute(counts, {"id": source_id}).fetchall())

    @contextlib.contextmanager
    def new_source(
        self,
        path: Path,
        *,
        format: str,
        sha256: str,
        replace: bool = False,
        recorded_path: str | None = None,
    ) -> Iterator[SourceWriter]:
        """Open one transaction that records ``path`` and the rows written for it.

        Everything written through the yielded :class:`SourceWriter` (and any SQL run on
        ``store.con`` inside the block) commits together when the block ends, or is rolled
        back when it raises: a failing or killed ingest leaves the store as it was. A file
        already stored raises :class:`DuplicateSourceError` unless ``replace``.
        ``sources.path`` records ``recorded_path`` or else the absolute ``path``.
        """
        # Few statements per file: a folder of 30,000 small files pays each one 30,000
        # times (benchmarks/clickbench_tree.py). The sources row is written last, when its
        # row count and warnings are known, instead of inserted here and updated there.
        self.con.execute("BEGIN TRANSACTION")
        try:
            old, source_id = self.con.execute(
                "SELECT (SELECT source_id FROM sources WHERE sha256 = ?), nextval('source_ids')",
                [sha256],
            ).fetchall()[0]
            if old is not None:
                if not replace:
                    raise DuplicateSourceError(path, int(old))
                self._delete_source(int(old))
            writer = SourceWriter(
                self, int(source_id), path, replaced=None if old is None else int(old)
            )
            yield writer
            writer.rows = self._stored_rows(writer.source_id)
            self.con.execute(
                "INSERT INTO sources VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                _source_row(writer, path, recorded_path, sha256, format),
            )
            if writer.fail_before_commit is not None:
                writer.fail_before_commit()
            self.con.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(duckdb.Error):
                self.con.execute("ROLLBACK")
            raise


@dataclass
class SourceWriter:
    """Writes the rows of one source inside its transaction (see :meth:`Store.new_source`)."""

    store: Store
    source_id: int
    path: Path
    #: the source this one replaces (``replace=True`` and the same SHA-256 was stored)
    replaced: int | None = None
    #: rows stored for this source in all DATA_TABLES; set by the store when the block ends
    rows: int = 0
    warnings: list[str] = field(default_factory=list)
    suite_names: list[str] = field(default_factory=list)
    #: test hook: called after all rows are written, just before COMMIT
    fail_before_commit: Callable[[], None] | None = None
    #: the group this file is staged in (:class:`SourceGroup`), None: written directly
    group: SourceGroup | None = None
    #: rows staged for the group: suites rows, suite_sources links, data tables
    staged_suites: list[dict[str, Any]] = field(default_factory=list)
    staged_links: list[tuple[int, int]] = field(default_factory=list)
    staged_tables: dict[str, list[pa.Table]] = field(default_factory=dict)

    def append(self, table: str, data: pa.Table) -> None:
        """Add ``data`` (columns in the order of ``table``'s DDL) to the data table
        ``table`` for this source: inserted now, or staged when the file is in a group."""
        if self.group is None:
            self.store.con.from_arrow(data).insert_into(table)
        else:
            self.staged_tables.setdefault(table, []).append(data)

    def staged_rows(self) -> int:
        """Rows staged in data tables (a grouped file's ``sources.rows``)."""
        return sum(part.num_rows for parts in self.staged_tables.values() for part in parts)

    def warn(self, message: str) -> None:
        """Record a warning about this file (kept in ``sources.warnings``)."""
        self.warnings.append(message)

    def suite(
        self,
        name: str,
        *,
        kind: str,
        join: bool = False,
        system: str | None = None,
        machine: str | None = None,
        run_date: date | None = None,
        cluster_size: str | None = None,
        proprietary: str | None = None,
        hardware: str | None = None,
        tuned: str | None = None,
        tags: Sequence[str] = (),
        attributes: dict[str, str] | None = None,
        comment: str | None = None,
        load_time_s: float | None = None,
        data_size_bytes: int | None = None,
        concurrent_qps: float | None = None,
        concurrent_error_ratio: float | None = None,
    ) -> int:
        """Create the suite ``name`` for this source and return its id.

        With ``join=True`` an existing suite of the same name and kind is reused (several
        JMeter load generators into one suite). Otherwise a taken name gets a ``#2``,
        ``#3`` … suffix so two different files never mix their rows.
        """
        if self.group is not None:
            return self._staged_suite(
                name,
                kind=kind,
                join=join,
                row={
                    "system": system,
                    "machine": machine,
                    "run_date": run_date,
                    "cluster_size": cluster_size,
                    "proprietary": proprietary,
                    "hardware": hardware,
                    "tuned": tuned,
                    "tags": list(tags),
                    "attributes": json.dumps(attributes or {}, sort_keys=True),
                    "comment": comment,
                    "load_time_s": load_time_s,
                    "data_size_bytes": data_size_bytes,
                    "concurrent_qps": concurrent_qps,
                    "concurrent_error_ratio": concurrent_error_ratio,
                },
            )
        con = self.store.con
        values = [
            kind,
            system,
            machine,
            run_date,
            cluster_size,
            proprietary,
            hardware,
            tuned,
            list(tags),
            json.dumps(attributes or {}, sort_keys=True),
            comment,
            load_time_s,
            data_size_bytes,
            concurrent_qps,
            concurrent_error_ratio,
        ]
        existing = con.execute(
            "SELECT suite_id, kind FROM suites WHERE name = ?", [name]
        ).fetchall()
        if existing and join:
            if existing[0][1] != kind:
                raise UsageError(
                    f"suite {name!r} already holds {existing[0][1]} data; "
                    f"choose another --suite for this {kind} file"
                )
            suite_id = int(existing[0][0])
            con.execute(
                "INSERT INTO suite_sources VALUES (?, ?) ON CONFLICT DO NOTHING",
                [suite_id, self.source_id],
            )
        else:
            base, n = name, 1
            while existing:
                n += 1
                name = f"{base} #{n}"
                existing = con.execute(
                    "SELECT suite_id FROM suites WHERE name = ?", [name]
                ).fetchall()
            # the id from the sequence in the INSERT itself (ON CONFLICT would cost double)
            created = con.execute(
                """INSERT INTO suites (suite_id, name, kind, system, machine, run_date,
                       cluster_size, proprietary, hardware, tuned, tags, attributes, comment,
                       load_time_s, data_size_bytes, concurrent_qps, concurrent_error_ratio)
                   VALUES (nextval('suite_ids'), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                   RETURNING suite_id""",
                [name, *values],
            ).fetchall()
            suite_id = int(created[0][0])
            con.execute("INSERT INTO suite_sources VALUES (?, ?)", [suite_id, self.source_id])
        self.suite_names.append(name)
        return suite_id

    def _staged_suite(self, name: str, *, kind: str, join: bool, row: dict[str, Any]) -> int:
        """:meth:`suite` for a grouped file: the same naming rules against the store's and
        the group's names, the row staged until the group commits."""
        assert self.group is not None
        taken = self.group.suite_names()
        mine = {r["name"]: int(r["suite_id"]) for r in self.staged_suites}
        if join and (name in taken or name in mine):
            if name in mine:
                return mine[name]
            suite_id, existing_kind = taken[name]
            if existing_kind != kind:
                raise UsageError(
                    f"suite {name!r} already holds {existing_kind} data; "
                    f"choose another --suite for this {kind} file"
                )
            self.staged_links.append((suite_id, self.source_id))
            self.suite_names.append(name)
            return suite_id
        base, n = name, 1
        while name in taken or name in mine:
            n += 1
            name = f"{base} #{n}"
        suite_id = self.group.next_id("suite_ids")
        self.staged_suites.append({"suite_id": suite_id, "name": name, "kind": kind, **row})
        self.staged_links.append((suite_id, self.source_id))
        self.suite_names.append(name)
        return suite_id


class SourceGroup:
    """Many small files committed together, each file stored whole or not at all.

    A ClickBench tree is tens of thousands of files of ~130 rows each. Written one
    transaction per file, DuckDB's fixed cost of every statement and commit (~0.5 ms
    each) makes 30,000 files take minutes (benchmarks/clickbench_tree.py). Loaders that
    write only through :meth:`SourceWriter.suite` and :meth:`SourceWriter.append` stage
    their rows here instead; the group writes the staged files with one insert per table
    in one transaction when it holds ``max_files`` files or ``max_rows`` rows, or its
    oldest staged file is ``max_seconds`` old, and when the caller calls :meth:`commit`.
    A file that fails while loading stages nothing. A kill loses the files staged since
    the last commit (never a part of a file, never a committed file); ingesting again
    stores them (committed files are skipped by SHA-256).
    """

    def __init__(
        self,
        store: Store,
        *,
        max_files: int = 500,
        max_rows: int = 250_000,
        max_seconds: float = 1.0,
    ) -> None:
        self.store = store
        self.max_files, self.max_rows, self.max_seconds = max_files, max_rows, max_seconds
        self._staged: list[tuple[SourceWriter, list[Any]]] = []
        self._rows = 0
        self._since = 0.0
        self._shas: dict[str, int] | None = None
        self._names: dict[str, tuple[int, str]] | None = None
        self._ids: dict[str, list[int]] = {}

    # -- what the store holds, cached while this process is the only writer ---------------
    def forget(self) -> None:
        """Drop the cached SHA-256s and suite names (after a write outside the group)."""
        self._shas = self._names = None

    def _sha_ids(self) -> dict[str, int]:
        if self._shas is None:
            rows = self.store.con.execute("SELECT sha256, source_id FROM sources").fetchall()
            self._shas = {str(sha): int(sid) for sha, sid in rows}
        return self._shas

    def suite_names(self) -> dict[str, tuple[int, str]]:
        """Suite names of the store and of the staged files: ``name -> (id, kind)``."""
        if self._names is None:
            rows = self.store.con.execute("SELECT name, suite_id, kind FROM suites").fetchall()
            self._names = {str(n): (int(i), str(k)) for n, i, k in rows}
        return self._names

    def next_id(self, sequence: str) -> int:
        """The next value of ``sequence`` (``source_ids``/``suite_ids``), reserved 256 at
        a time: one statement instead of one per file."""
        free = self._ids.setdefault(sequence, [])
        if not free:
            rows = self.store.con.execute(
                f"SELECT nextval('{sequence}') FROM range(256)"
            ).fetchall()
            free.extend(sorted((int(r[0]) for r in rows), reverse=True))
        return free.pop()

    # -- staging --------------------------------------------------------------------------
    @contextlib.contextmanager
    def new_source(
        self,
        path: Path,
        *,
        format: str,
        sha256: str,
        recorded_path: str | None = None,
    ) -> Iterator[SourceWriter]:
        """Stage one file: like :meth:`Store.new_source` (duplicates raise
        :class:`DuplicateSourceError`), but the rows wait for :meth:`commit`."""
        known = self._sha_ids().get(sha256)
        if known is not None:
            raise DuplicateSourceError(path, known)
        writer = SourceWriter(self.store, self.next_id("source_ids"), path, group=self)
        yield writer
        writer.rows = writer.staged_rows()
        source = _source_row(writer, path, recorded_path, sha256, format)
        if not self._staged:
            self._since = time.monotonic()
        self._staged.append((writer, source))
        self._rows += writer.rows
        self._sha_ids()[sha256] = writer.source_id
        names = self.suite_names()
        for row in writer.staged_suites:
            names[row["name"]] = (int(row["suite_id"]), str(row["kind"]))

    def due(self) -> bool:
        """Whether the staged files reached a limit and should be committed now."""
        return bool(self._staged) and (
            len(self._staged) >= self.max_files
            or self._rows >= self.max_rows
            or time.monotonic() - self._since >= self.max_seconds
        )

    @property
    def staged_paths(self) -> list[Path]:
        """The files staged since the last commit, in order."""
        return [writer.path for writer, _ in self._staged]

    def commit(self) -> None:
        """Write every staged file in one transaction (one insert per table).

        Raises :class:`StoreError` naming the files when the write fails; the store is
        then as before the commit and none of the staged files is stored.
        """
        if not self._staged:
            return
        staged, self._staged, self._rows = self._staged, [], 0
        con = self.store.con
        sources = pa.Table.from_pylist(
            [dict(zip(_SOURCES_ARROW.names, s, strict=True)) for _, s in staged],
            schema=_SOURCES_ARROW,
        )
        suite_rows = [row for w, _ in staged for row in w.staged_suites]
        links = pa.table(
            {
                "suite_id": pa.array([s for w, _ in staged for s, _ in w.staged_links], pa.int64()),
                "source_id": pa.array(
                    [x for w, _ in staged for _, x in w.staged_links], pa.int64()
                ),
            }
        )
        tables: dict[str, list[pa.Table]] = {}
        for writer, _ in staged:
            for table, parts in writer.staged_tables.items():
                tables.setdefault(table, []).extend(parts)
        con.execute("BEGIN TRANSACTION")
        try:
            con.from_arrow(sources).insert_into("sources")
            if suite_rows:
                suites = pa.Table.from_pylist(suite_rows, schema=_SUITES_ARROW)
                con.from_arrow(suites).insert_into("suites")
            con.from_arrow(links).insert_into("suite_sources")
            for table, parts in tables.items():
                con.from_arrow(pa.concat_tables(parts)).insert_into(table)
            con.execute("COMMIT")
        except duckdb.Error as exc:
            with contextlib.suppress(duckdb.Error):
                con.execute("ROLLBACK")
            self.forget()
            first, last = staged[0][0].path, staged[-1][0].path
            what = f"{first}" if len(staged) == 1 else f"{len(staged)} files ({first} … {last})"
            message = " ".join(str(exc).split())[:200]
            raise StoreError(
                f"{what}: writing to the store failed ({message}); none of them was stored"
            ) from None
        except BaseException:
            with contextlib.suppress(duckdb.Error):
                con.execute("ROLLBACK")
            self.forget()
            raise


#: ``sources`` and ``suites`` as Arrow, columns in DDL order (schemas/001_core.sql; a test
#: checks them against a new store's tables).
_SOURCES_ARROW = pa.schema(
    [
        ("source_id", pa.int64()),
        ("path", pa.string()),
        ("sha256", pa.string()),
        ("format", pa.string()),
        ("bytes", pa.int64()),
        ("rows", pa.int64()),
        ("ingested_at", pa.timestamp("us", tz="UTC")),
        ("tool_version", pa.string()),
        ("warnings", pa.list_(pa.string())),
    ]
)
_SUITES_ARROW = pa.schema(
    [
        ("suite_id", pa.int64()),
        ("name", pa.string()),
        ("kind", pa.string()),
        ("system", pa.string()),
        ("machine", pa.string()),
        ("run_date", pa.date32()),
        ("cluster_size", pa.string()),
        ("proprietary", pa.string()),
        ("hardware", pa.string()),
        ("tuned", pa.string()),
        ("tags", pa.list_(pa.string())),
        ("attributes", pa.string()),
        ("comment", pa.string()),
        ("load_time_s", pa.float64()),
        ("data_size_bytes", pa.int64()),
        ("concurrent_qps", pa.float64()),
        ("concurrent_error_ratio", pa.float64()),
    ]
)


def _connect(
    path: Path | None,
    *,
    read_only: bool,
    lock_timeout: float,
    on_wait: Callable[[str], None] | None = None,
) -> duckdb.DuckDBPyConnection:
    if path is None:
        return duckdb.connect(":memory:")
    if read_only and not path.exists():
        raise StoreError(f"{path}: no such store; create it with `warmup ingest --db {path} FILE`")
    if not path.parent.exists():
        raise StoreError(f"{path}: folder {path.parent} does not exist; create it first")
    deadline = time.monotonic() + lock_timeout
    while True:
        try:
            return duckdb.connect(str(path), read_only=read_only)
        except duckdb.IOException as exc:
            text = str(exc)
            if any(marker in text for marker in _LOCK_MARKERS):
                pid = re.search(r"PID (\d+)", text)
                holder = f" (PID {pid.group(1)})" if pid else ""
                if time.monotonic() < deadline:
                    if on_wait is not None:
                        on_wait(
                            f"{path}: store is in use by another warmup process{holder}; "
                            f"waiting up to {lock_timeout:g} s (WARMUP_LOCK_TIMEOUT)"
                        )
                        on_wait = None  # say it once
                    time.sleep(0.1)
                    continue
                raise StoreError(
                    f"{path}: store is locked by another warmup process{holder}; waited "
                    f"{lock_timeout:g} s. Retry when it finishes, or set WARMUP_LOCK_TIMEOUT "
                    "to wait longer"
                ) from None
            raise StoreError(f"{path}: cannot open store: {text.splitlines()[0]}") from None
        except duckdb.Error as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise StoreError(
                f"{path}: not a readable warmup-toolkit store ({first}); "
                "pass another --db or move this file away"
            ) from None


def _stored_version(con: duckdb.DuckDBPyConnection, path: Path | None) -> int:
    """The store's ``meta.schema_version`` (0 for an empty file); refuses a newer one."""
    tables = {
        str(r[0])
        for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
        ).fetchall()
    }
    current = 0
    if "meta" in tables:
        row = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        current = int(row[0]) if row else 0
    elif tables:
        raise StoreError(
            f"{path}: holds tables but is not a warmup-toolkit store; pass another --db"
        )
    latest = _latest_version()
    if current > latest:
        raise StoreVersionError(
            f"{path}: written by a newer warmup-toolkit (schema {current}); upgrade "
            f"warmup-toolkit (this version reads schema {latest} and older)"
        )
    return current


def _migrate(con: duckdb.DuckDBPyConnection, current: int) -> None:
    """Run the migrations above ``current`` in one transaction."""
    latest = _latest_version()
    if current == latest:
        return
    con.execute("BEGIN TRANSACTION")
    try:
        for version, sql_path in migrations():
            if version <= current:
                continue
            con.execute(sql_path.read_text(encoding="utf-8"))
        con.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", [str(latest)])
        con.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(duckdb.Error):
            con.execute("ROLLBACK")
        raise


def open_store(
    path: Path | str | None = None,
    *,
    read_only: bool = False,
    lock_timeout: float | None = None,
    on_wait: Callable[[str], None] | None = None,
) -> Store:
    """Open (creating or migrating as needed) the store at ``path``; None = in memory.

    A store held by another process is retried for ``lock_timeout`` seconds (default
    ``WARMUP_LOCK_TIMEOUT`` or 10 s) before a :class:`StoreError` says so; ``on_wait``
    (e.g. the CLI's stderr printer) is called once with a one-line message when waiting
    starts. DuckDB allows one writing process, so readers wait for a writer too; they
    then see only whole, committed files.

    A store of an older schema is migrated on open, also by a reader (which opens it
    for writing once, for the migration); a newer one raises :class:`StoreVersionError`.

    >>> with open_store() as store:
    ...     store.schema_version >= 1
    True
    """
    if lock_timeout is None:
        lock_timeout = float(os.environ.get("WARMUP_LOCK_TIMEOUT", "10"))
    resolved = Path(path) if path is not None else None
    con = _connect(resolved, read_only=read_only, lock_timeout=lock_timeout, on_wait=on_wait)
    try:
        current = _stored_version(con, resolved)
        if current < _latest_version():
            if read_only:
                con.close()
                writer = _connect(
                    resolved, read_only=False, lock_timeout=lock_timeout, on_wait=on_wait
                )
                try:
                    _migrate(writer, _stored_version(writer, resolved))
                finally:
                    writer.close()
                con = _connect(resolved, read_only=True, lock_timeout=lock_timeout, on_wait=on_wait)
            else:
                _migrate(con, current)
    except BaseException:
        con.close()
        raise
    return Store(con, resolved)


def json_attributes(value: Any) -> dict[str, str]:
    """Parse a ``suites.attributes`` JSON text."""
    parsed = json.loads(value) if isinstance(value, str) else {}
    return {str(k): str(v) for k, v in parsed.items()}
