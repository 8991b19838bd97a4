"""The DuckDB store: ``open_store()``, schema migrations, provenance, all-or-nothing files.

Schema files ``schemas/NNN_*.sql`` are numbered migrations: a new store runs them all, an
older store runs the ones above its ``meta.schema_version``, a newer store is refused.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa

from toolkit.errors import (
    DuplicateSourceError,
    StoreDamagedError,
    StoreError,
    StoreVersionError,
    UsageError,
)
from toolkit.native import duckdb
from toolkit.options import check_store_path
from toolkit.resources import resource_dir
from toolkit.store.sigint import interrupt_on_sigint

__all__ = [
    "DATA_TABLES",
    "SCHEMA_VERSION",
    "SourceGroup",
    "SourceWriter",
    "Store",
    "TableCheck",
    "check_tables",
    "damage_error",
    "damaged_store_error",
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


#: the start of a placeholder in ``sources.sha256`` (:meth:`Store.lazy_sha256`), before
#: the file's absolute path
_UNHASHED = "unhashed:"


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

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object
    ) -> None:
        self.close()
        # a block DuckDB could not read while the command ran (the store was checked when
        # opened, but a disk can fail later): one line naming the file, not a traceback
        damage = damage_error(exc, self.path) if exc is not None else None
        if damage is not None:
            raise damage from None

    @property
    def kept(self) -> bool:
        """Whether the store outlives this process: a store file, not an in-memory or
        scratch store (:mod:`toolkit.store.scratch`)."""
        from toolkit.store.scratch import is_scratch

        return self.path is not None and not is_scratch(self.path)

    @property
    def schema_version(self) -> int:
        """The schema version recorded in ``meta``."""
        row = self.con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return int(row[0]) if row else 0

    # -- the samples table of a scratch store ------------------------------------------
    def _samples_layout(self) -> list[tuple[str, str, bool, bool]]:
        """``samples``' columns in order: name, DuckDB type, nullable, virtual (computed,
        not stored: :meth:`narrow_samples`)."""
        return [
            (str(name), str(kind), bool(nullable), default is not None)
            for name, kind, nullable, default in self.con.execute(
                "SELECT column_name, data_type, is_nullable, column_default FROM duckdb_columns() "
                "WHERE database_name = current_database() AND schema_name = 'main' "
                "AND table_name = 'samples' ORDER BY column_index"
            ).fetchall()
        ]

    def sample_column_types(self) -> dict[str, str]:
        """Each column of ``samples`` with its DuckDB type."""
        return {name: kind for name, kind, _, _ in self._samples_layout()}

    def virtual_sample_columns(self) -> frozenset[str]:
        """The columns of ``samples`` that are computed (always NULL), not stored: those
        :meth:`narrow_samples` made virtual; empty in every store kept on disk."""
        return frozenset(name for name, _, _, virtual in self._samples_layout() if virtual)

    def narrow_samples(self, columns: Iterable[str]) -> frozenset[str]:
        """Make ``columns`` of the (still empty) ``samples`` table virtual: always NULL,
        computed when read, never stored; return the table's virtual columns. For the
        scratch store of one analysis (``warmup load FILE``), whose reader leaves these
        columns out: DuckDB still writes a NULL column's validity and compresses it, ~0.2 s
        of CPU per column per 10 million rows (benchmarks/RESULTS.md). Queries read the
        table as before. A no-op in a :attr:`kept` store or when the table holds rows;
        :meth:`widen_samples` undoes it."""
        layout = self._samples_layout()
        already = {name for name, _, _, virtual in layout if virtual}
        wanted = set(columns)
        unknown = wanted - {name for name, _, _, _ in layout}
        if unknown:
            raise ValueError(f"samples has no column(s) {sorted(unknown)}")
        if (
            wanted <= already
            or self.kept
            or self.con.execute("SELECT count(*) FROM samples").fetchone() != (0,)
        ):
            return frozenset(already)
        virtual = wanted | already
        definitions = [
            f'"{name}" {kind} GENERATED ALWAYS AS (CAST(NULL AS {kind})) VIRTUAL'
            if name in virtual
            else f'"{name}" {kind}{"" if nullable else " NOT NULL"}'
            for name, kind, nullable, _ in layout
        ]
        self.con.execute("DROP TABLE samples")
        self.con.execute(f"CREATE TABLE samples ({', '.join(definitions)})")
        return frozenset(virtual)

    def widen_samples(self) -> None:
        """Store every column of ``samples`` again (after :meth:`narrow_samples`), its
        rows kept in their order, the virtual columns' NULLs now stored: for a reader
        that fills them (an XML JTL after a CSV one in the same scratch store)."""
        layout = self._samples_layout()
        if not any(virtual for _, _, _, virtual in layout):
            return
        definitions = [
            f'"{name}" {kind}{"" if nullable or virtual else " NOT NULL"}'
            for name, kind, nullable, virtual in layout
        ]
        self.con.execute(f"CREATE TABLE _samples_wide ({', '.join(definitions)})")
        self.con.execute("INSERT INTO _samples_wide SELECT * FROM samples ORDER BY rowid")
        self.con.execute("DROP TABLE samples")
        self.con.execute("ALTER TABLE _samples_wide RENAME TO samples")

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

    def last_source_id(self) -> int:
        """The highest source id stored (0 for none): a mark before an ingest."""
        row = self.con.execute("SELECT coalesce(max(source_id), 0) FROM sources").fetchone()
        return int(row[0]) if row else 0

    def source_paths_after(self, mark: int) -> list[str]:
        """The paths of the sources committed since :meth:`last_source_id` returned
        ``mark``, in the order they were stored (what an interrupted ingest did keep)."""
        rows = self.con.execute(
            "SELECT path FROM sources WHERE source_id > ? ORDER BY source_id", [mark]
        ).fetchall()
        return [str(row[0]) for row in rows]

    # -- writing ----------------------------------------------------------------------
    def lazy_sha256(self, path: Path) -> str:
        """What ``sources.sha256`` records for ``path`` in a store whose sources no output
        shows (the scratch store of ``warmup load FILE``, ``compare``, ``findings``), where
        the hash only tells a file given twice: the file's SHA-256 when a stored file has
        the same size in bytes (that file's placeholder, if it has one, is then replaced
        by its own SHA-256, so two equal files meet), else the placeholder
        ``unhashed:<absolute path>``. Equal files have equal sizes, so a file given twice
        is found as with :func:`file_sha256` up front; a file of a size seen once is not
        read an extra time before its ingest (0.7 s of CPU for the 1.2 GB of 10M JTL
        rows). A :attr:`kept` store always records the SHA-256: later commands meet its
        files again."""
        if self.kept:
            return file_sha256(path)
        size = path.stat().st_size
        stored = self.con.execute(
            "SELECT sha256 FROM sources WHERE bytes = ? ORDER BY source_id", [size]
        ).fetchall()
        if not stored:
            return _UNHASHED + str(path.resolve())
        for (key,) in stored:
            if str(key).startswith(_UNHASHED):
                earlier = Path(str(key).removeprefix(_UNHASHED))
                self.con.execute(
                    "UPDATE sources SET sha256 = ? WHERE sha256 = ?", [file_sha256(earlier), key]
                )
        return file_sha256(path)

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
            writer.rows = self._stored_rows(writer.source_id) + writer.grouped_rows
            self.con.execute(
                "INSERT INTO sources VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                _source_row(writer, path, recorded_path, sha256, format),
            )
            if writer.fail_before_commit is not None:
                writer.fail_before_commit()
            self.con.execute("COMMIT")
        except duckdb.Error as exc:
            with contextlib.suppress(duckdb.Error):
                self.con.execute("ROLLBACK")
            failed = write_failure(exc, self.path, f"{path}: not stored")
            if failed is None:
                raise
            raise failed from None
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
    #: rows read into sample groups instead of stored (``warmup load FILE``, ``report
    #: FILE``: :attr:`toolkit.options.IngestOptions.group_window_ms`): counted in ``rows``
    grouped_rows: int = 0
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
            failed = write_failure(exc, self.store.path, f"{what}: none of them was stored")
            if failed is not None:
                raise failed from None
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


#: DuckDB's words for a store file it cannot trust: a block whose checksum does not match,
#: a file cut short, a WAL of another file; and the state DuckDB leaves a database in after
#: such an error
_DAMAGE_MARKERS = (
    "Corrupt database file",
    "checksum",
    "Could not read enough bytes",
    "Failure while replaying WAL",
    "database has been invalidated",
)
_NOT_DUCKDB_MARKERS = ("not a valid DuckDB database file",)
#: a store's files: the database and its write-ahead log
_WAL_SUFFIX = ".wal"
#: DuckDB's file starts with three 4 KiB headers (a main header, two database headers)
_HEADER_BYTES = 3 * 4096


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    line = text.splitlines()[0] if text else type(exc).__name__
    return line if len(line) <= 200 else line[:199] + "…"


#: What DuckDB says when the operating system refuses a write of the store file or its
#: WAL (a full disk, a quota, a file-size limit, a read-only or failing disk)
_WRITE_FAILURES = (
    "No space left on device",
    "Disk quota exceeded",
    "File too large",
    "Read-only file system",
    "Input/output error",
)


def write_failure(exc: BaseException, store: Path | None, what: str) -> StoreError | None:
    """The one line for a write of the store refused by the operating system (``what``:
    which files were not stored), or None when ``exc`` is something else. DuckDB rolls
    the transaction back and truncates its WAL to where it was: the store keeps every
    commit before this one."""
    text = str(exc)
    reason = next((r for r in _WRITE_FAILURES if r in text), None)
    if reason is None:
        return None
    where = f"the disk of {store}" if store is not None else "memory"
    return StoreError(
        f"{what}: writing to the store failed ({reason}); the store is as it was before "
        f"this file. Free space on {where} (or lift the limit) and ingest again"
    )


def damaged_store_error(
    path: Path | None, detail: str, *, doctor: bool = True
) -> StoreDamagedError:
    """The one line for a damaged store: which file, what is wrong, what to do (and, with
    ``doctor``, how to list the damaged tables)."""
    hint = f" (`warmup doctor --db {path}` lists the damaged tables)" if doctor else ""
    return StoreDamagedError(
        f"{path}: damaged store ({detail}); nothing was written to it. Restore it from a "
        f"backup, or re-ingest its files into a new store: `warmup ingest --db NEW FILE...`" + hint
    )


def _not_duckdb(path: Path) -> StoreDamagedError:
    return StoreDamagedError(
        f"{path}: not a warmup-toolkit store: not a DuckDB database file (or its header is "
        "damaged); pass a store to --db (result files go without --db), or restore the "
        "store from a backup"
    )


def damage_error(exc: BaseException, path: Path | None) -> StoreDamagedError | None:
    """``exc`` as the one-line :class:`StoreDamagedError` of ``path`` when it is DuckDB
    saying the file is damaged, else None (a bug, or another error)."""
    if path is None or not isinstance(exc, duckdb.Error):
        return None
    text = str(exc)
    if any(marker in text for marker in _NOT_DUCKDB_MARKERS):
        return _not_duckdb(path)
    if any(marker in text for marker in _DAMAGE_MARKERS):
        return damaged_store_error(path, _first_line(exc).removeprefix("IO Error: "))
    return None


def _connect(
    path: Path | None,
    *,
    read_only: bool,
    lock_timeout: float,
    on_wait: Callable[[str], None] | None = None,
) -> duckdb.DuckDBPyConnection:
    if path is None:
        return duckdb.connect(":memory:")
    check_store_path(path, read_only=read_only)
    deadline = time.monotonic() + lock_timeout
    while True:
        try:
            return duckdb.connect(str(path), read_only=read_only)
        except duckdb.Error as exc:
            text = str(exc)
            if isinstance(exc, duckdb.IOException) and any(m in text for m in _LOCK_MARKERS):
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
            damage = damage_error(exc, path)
            if damage is not None:
                raise damage from None
            if isinstance(exc, duckdb.IOException):
                raise StoreError(f"{path}: cannot open store: {_first_line(exc)}") from None
            raise StoreError(
                f"{path}: not a readable warmup-toolkit store ({_first_line(exc)}); "
                "pass another --db or move this file away"
            ) from None


def _table_names(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {
        str(r[0])
        for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
        ).fetchall()
    }


def _stored_version(con: duckdb.DuckDBPyConnection, path: Path | None) -> int:
    """The store's ``meta.schema_version`` (0 for an empty file); refuses a newer one."""
    tables = _table_names(con)
    current = 0
    if "meta" in tables:
        row = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None:
            # migrations write the version in the transaction that creates meta
            raise damaged_store_error(path, "its meta table has no schema_version")
        current = int(row[0])
    elif tables:
        raise StoreError(
            f"{path}: holds tables but is not a warmup-toolkit store (no meta table); "
            "pass another --db"
        )
    latest = _latest_version()
    if current > latest:
        raise StoreVersionError(
            f"{path}: written by a newer warmup-toolkit (schema {current}); upgrade "
            f"warmup-toolkit (this version reads schema {latest} and older)"
        )
    return current


#: The schema a new store is created with, in one step: what every migration gives
#: (tests/test_store.py checks that both make the same catalog)
CURRENT_SCHEMA = "current.sql"


def _migrate(con: duckdb.DuckDBPyConnection, current: int, *, replay: bool = False) -> None:
    """Run the migrations above ``current`` in one transaction; a new store (``current``
    0) gets :data:`CURRENT_SCHEMA` instead (8 -> 3 ms: a store is opened per command, and
    ~1,200 times in a test run), unless ``replay``."""
    latest = _latest_version()
    if current == latest:
        return
    con.execute("BEGIN TRANSACTION")
    try:
        if current == 0 and not replay:
            con.execute((resource_dir("schemas") / CURRENT_SCHEMA).read_text(encoding="utf-8"))
        else:
            for version, sql_path in migrations():
                if version > current:
                    con.execute(sql_path.read_text(encoding="utf-8"))
        con.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", [str(latest)])
        con.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(duckdb.Error):
            con.execute("ROLLBACK")
        raise


@dataclass(frozen=True)
class TableCheck:
    """One table of a store, read in full (:func:`check_tables`): its rows, or what DuckDB
    said when a block of it could not be read (``problem``)."""

    table: str
    rows: int | None
    problem: str | None = None


def _scan(con: duckdb.DuckDBPyConnection, table: str) -> int:
    """Read every value of ``table`` (a hash of each row: DuckDB checks each block's
    checksum as it reads it; a count alone can come from the metadata) and return its rows."""
    row = con.execute(f'SELECT count(*), bit_xor(hash(t)) FROM "{table}" t').fetchone()
    assert row is not None
    return int(row[0])


#: how a DuckDB 2.x WAL begins: its version entry (field 100 = entry type 98, field 101 =
#: WAL version), then field 102, the 16 bytes of the database identifier its store's main
#: header holds (each a varint)
_WAL_START = b"\x64\x00\x62\x65\x00"
_WAL_IDENTIFIER_FIELD = b"\x66\x00\x10"


def _varints(data: bytes, start: int, count: int) -> tuple[list[int], bool]:
    """``count`` unsigned LEB128 varints of ``data`` from ``start``; False when it ends first."""
    values: list[int] = []
    pos = start
    while len(values) < count:
        value = shift = 0
        while True:
            if pos >= len(data):
                return values, False
            byte = data[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        values.append(value)
    return values, True


def _wal_of_this_store(wal: Path, path: Path) -> bool:
    """Whether ``wal`` begins as DuckDB begins the WAL of the store at ``path`` (its version
    entry and this store's identifier), or is a prefix of that (torn while it was written)."""
    data = wal.read_bytes()[:128]
    head = _WAL_START + b"\x02" + _WAL_IDENTIFIER_FIELD
    if len(data) < len(head):
        return head.startswith(data)
    if not data.startswith(_WAL_START) or data[6:9] != _WAL_IDENTIFIER_FIELD:
        return False
    identifier, whole = _varints(data, 9, 16)
    if not whole:
        return True  # torn inside its own header: no commit can be in it
    if any(v > 0xFF for v in identifier):
        return False
    with path.open("rb") as handle:
        header = handle.read(4096)
    return bytes(identifier) in header


def _unreplayed_wal(con: duckdb.DuckDBPyConnection, path: Path) -> Path | None:
    """The WAL beside ``path`` when DuckDB replayed none of it and it is not this store's
    own WAL torn before its first commit ended (a kill during a commit: nothing in it was
    committed, the store is sound) — garbage or zeros at its start, or another store's WAL,
    whose commits DuckDB drops without a word — else None."""
    wal = path.with_name(path.name + _WAL_SUFFIX)
    if not wal.is_file() or wal.stat().st_size == 0:
        return None
    row = con.execute("SELECT wal_size FROM pragma_database_size()").fetchone()
    replayed = str(row[0]) if row else ""
    # DuckDB shows the replayed size formatted ("8.1 KiB"): zero is all that is told apart
    if not replayed.startswith("0 "):
        return None
    return None if _wal_of_this_store(wal, path) else wal


def _last_used_block(con: duckdb.DuckDBPyConnection) -> int:
    """The highest block id the store's metadata or a table segment points at (-1: none);
    index blocks are not listed, which the used-block count in :func:`_cut_short` covers."""
    last = -1
    for (block,) in con.execute("SELECT block_id FROM pragma_metadata_info()").fetchall():
        last = max(last, int(block))
    for table in _table_names(con):
        row = con.execute(
            "SELECT max(block_id), max(list_max(additional_block_ids)) "
            f"FROM pragma_storage_info('{table}') WHERE block_id >= 0"
        ).fetchone()
        for block in row or ():
            if block is not None:
                last = max(last, int(block))
    return last


def _cut_short(con: duckdb.DuckDBPyConnection, path: Path) -> str | None:
    """What is missing when ``path`` holds fewer blocks than the store uses (a copy cut
    short), else None. A sound file holds at least its used blocks (``total_blocks`` less
    ``free_blocks``: distinct ids) and every block a table or the metadata points at. The
    header's ``total_blocks`` alone is not the measure: it counts free blocks a checkpoint
    trimmed off the end (a sound store was refused as "cut short" after its fifth ingest)."""
    row = con.execute(
        "SELECT block_size, total_blocks, free_blocks FROM pragma_database_size()"
    ).fetchone()
    if row is None:
        return None
    block_size, total, free = (int(v) for v in row)
    blocks = max(total - free, _last_used_block(con) + 1)
    expected = _HEADER_BYTES + block_size * blocks
    size = path.stat().st_size
    if size >= expected:
        return None
    return f"the file is cut short: {size} bytes of the {expected} its {blocks} used blocks take"


def _check(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Refuse a store ``con`` cannot read in full: its WAL not replayed, or a table with a
    block that fails its checksum or lies past the end of a file cut short. Reading every
    table costs about 0.1 s per million JTL samples; it keeps every command's verdict on a
    store the same (``warmup suites`` used to list a store ``warmup load`` could not read),
    and finds the damage before a writer touches the file."""
    short = _cut_short(con, path)
    if short is not None:
        raise damaged_store_error(path, short)
    wal = _unreplayed_wal(con, path)
    if wal is not None:
        raise damaged_store_error(
            path,
            f"its WAL {wal.name} cannot be replayed; move it away to open the store without its last commits",
        )
    for table in sorted(_table_names(con)):
        try:
            _scan(con, table)
        except duckdb.Error as exc:
            raise damaged_store_error(path, f"table {table}: {_first_line(exc)}") from None


def check_tables(path: Path | str, *, lock_timeout: float | None = None) -> list[TableCheck]:
    """Read every table of the store at ``path`` in full, read-only, and say of each
    whether it can be read (``warmup doctor``). A store whose catalog cannot be read raises
    :class:`StoreDamagedError`; a table that fails is reported and the others still read
    (on a fresh connection: DuckDB may stop trusting a database after such an error)."""
    resolved = Path(path)
    timeout = _lock_timeout(lock_timeout)
    if resolved.is_file() and resolved.stat().st_size == 0:
        raise _not_yet_a_store(resolved, "an empty file, not a store yet")
    con = _connect(resolved, read_only=True, lock_timeout=timeout)
    try:
        # a file that is not a store, a newer one, an empty one
        if _stored_version(con, resolved) == 0:
            raise _not_yet_a_store(resolved, _NO_TABLES)
        tables = sorted(_table_names(con))
        wal = _unreplayed_wal(con, resolved)
        checks = []
        short = _cut_short(con, resolved)
        if short is not None:
            checks.append(TableCheck("(file)", None, short))
        if wal is not None:
            checks.append(TableCheck("(WAL)", None, f"{wal.name} cannot be replayed"))
        for table in tables:
            try:
                checks.append(TableCheck(table, _scan(con, table)))
            except duckdb.Error as exc:
                checks.append(TableCheck(table, None, _first_line(exc)))
                con.close()
                con = _connect(resolved, read_only=True, lock_timeout=timeout)
        return checks
    except duckdb.Error as exc:
        raise damage_error(exc, resolved) or damaged_store_error(
            resolved, _first_line(exc)
        ) from None
    finally:
        con.close()


_NO_TABLES = "an empty store (no warmup-toolkit tables: its creation was cut short?)"


def _not_yet_a_store(path: Path, what: str) -> StoreError:
    """A file at ``path`` that an ingest would make a store: say what it is, and how."""
    return StoreError(f"{path}: {what}; fill it with `warmup ingest --db {path} FILE`")


def _lock_timeout(value: float | None) -> float:
    return float(os.environ.get("WARMUP_LOCK_TIMEOUT", "10")) if value is None else value


def _create(path: Path) -> None:
    """Create the store ``path`` with the current schema under a temporary name and move
    it into place once committed: a creation killed at any moment leaves no file at
    ``path`` (a reader would call it no store; an ingest creates it anew); a SIGKILL
    leaves the hidden temporary file beside it. Of two processes creating the same store,
    the first to move its file into place wins and the other opens that store."""
    # one name per process: two commands creating the same store must not share it
    temporary = path.with_name(f".{path.name}.{os.getpid()}.creating")
    wal = temporary.with_name(temporary.name + _WAL_SUFFIX)
    _remove_dead_creations(path)
    try:
        for leftover in (temporary, wal):
            leftover.unlink(missing_ok=True)
        con = duckdb.connect(str(temporary))
        try:
            _migrate(con, 0)
        finally:
            con.close()  # checkpoints: the schema is in the file, the WAL gone
        if path.exists() and path.stat().st_size == 0:
            temporary.replace(path)  # an empty file named as the store: fill it
        else:
            try:
                path.hardlink_to(temporary)  # never over a store another process created
            except FileExistsError:
                pass
            except OSError:
                # a file system without hard links: a rename, unless a store appeared
                if not path.exists():
                    temporary.replace(path)
            finally:
                temporary.unlink(missing_ok=True)
    except BaseException as exc:
        for leftover in (temporary, wal):
            with contextlib.suppress(OSError):
                leftover.unlink(missing_ok=True)
        failed = write_failure(exc, path, f"{path}: the store was not created")
        if failed is not None:
            raise failed from None
        raise


def _remove_dead_creations(path: Path) -> None:
    """Remove the temporary files beside ``path`` of creations whose process is gone (a
    SIGKILL during :func:`_create`); a live process's are its own."""
    from toolkit.store.scratch import pid_alive

    prefix = f".{path.name}."
    with contextlib.suppress(OSError):
        for leftover in path.parent.glob(f"{glob.escape(prefix)}*.creating*"):
            pid = leftover.name[len(prefix) :].split(".", 1)[0]
            if pid.isdigit() and not pid_alive(int(pid)):
                leftover.unlink(missing_ok=True)


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

    An existing store is read in full, read-only, before anything else (:func:`_check`): a
    damaged one, or a file that is not a store, raises :class:`StoreDamagedError` and is
    never written to. A new store is created under a temporary name and moved into place
    once its schema is committed. A store of an older schema is migrated on open, also by
    a reader (which opens it for writing once, for the migration); a newer one raises
    :class:`StoreVersionError`.

    >>> with open_store() as store:
    ...     store.schema_version >= 1
    True
    """
    timeout = _lock_timeout(lock_timeout)
    resolved = Path(path) if path is not None else None
    if resolved is None:
        return _open(None, read_only=False, lock_timeout=timeout, on_wait=on_wait)
    empty = resolved.is_file() and resolved.stat().st_size == 0
    if read_only and empty:
        raise _not_yet_a_store(resolved, "an empty file, not a store yet")
    if not read_only and (empty or not resolved.exists()):
        if not resolved.parent.exists():
            raise StoreError(
                f"{resolved}: folder {resolved.parent} does not exist; create it first"
            )
        _create(resolved)
    elif not read_only:
        # read it in full before the writer opens it: DuckDB writes on open (a WAL replay)
        _open(
            resolved, read_only=True, lock_timeout=timeout, on_wait=on_wait, empty_ok=True
        ).close()
    return _open(resolved, read_only=read_only, lock_timeout=timeout, on_wait=on_wait)


def _open(
    path: Path | None,
    *,
    read_only: bool,
    lock_timeout: float,
    on_wait: Callable[[str], None] | None,
    empty_ok: bool = False,
) -> Store:
    """Connect, check (an existing file read-only), migrate; see :func:`open_store`."""
    con = _connect(path, read_only=read_only, lock_timeout=lock_timeout, on_wait=on_wait)
    try:
        if path is not None and read_only:
            _check(con, path)
        # a new in-memory database holds nothing yet
        current = _stored_version(con, path) if path is not None else 0
        if path is not None and read_only and current == 0 and not empty_ok:
            raise _not_yet_a_store(path, _NO_TABLES)
        if current < _latest_version():
            if read_only:
                con.close()
                writer = _connect(path, read_only=False, lock_timeout=lock_timeout, on_wait=on_wait)
                try:
                    _migrate(writer, _stored_version(writer, path))
                finally:
                    writer.close()
                con = _connect(path, read_only=True, lock_timeout=lock_timeout, on_wait=on_wait)
            else:
                _migrate(con, current)
    except duckdb.Error as exc:
        con.close()
        damage = damage_error(exc, path)
        if damage is None:
            raise
        raise damage from None
    except BaseException:
        con.close()
        raise
    return Store(con, path)


def json_attributes(value: Any) -> dict[str, str]:
    """Parse a ``suites.attributes`` JSON text."""
    parsed = json.loads(value) if isinstance(value, str) else {}
    return {str(k): str(v) for k, v in parsed.items()}
