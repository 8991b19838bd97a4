"""Damaged copies of a store, the ways a disk error, a copy cut short or a mix-up leaves one
(issue 21): zeroed, random and truncated blocks at the header, the catalog and the data, a
WAL of another file, files that are not stores. Not a test module (see store_checks.py)."""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import duckdb

#: DuckDB's file layout (storage version of DuckDB 1.x/2.0): a 4 KiB main header, two 4 KiB
#: database headers, then 256 KiB blocks, block 0 at 12 KiB
HEADER_BYTES = 3 * 4096
BLOCK_BYTES = 256 * 1024


def block_offset(block: int) -> int:
    """Byte offset of block ``block`` in a DuckDB file."""
    return HEADER_BYTES + block * BLOCK_BYTES


def table_blocks(db: Path, table: str) -> list[int]:
    """The data blocks of ``table`` (read with plain DuckDB)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            f"SELECT DISTINCT block_id FROM pragma_storage_info('{table}') WHERE block_id >= 0"
        ).fetchall()
    finally:
        con.close()
    return sorted(int(r[0]) for r in rows)


def catalog_blocks(db: Path) -> list[int]:
    """The metadata (catalog) blocks of ``db``."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT block_id FROM pragma_metadata_info()").fetchall()
    finally:
        con.close()
    return sorted(int(r[0]) for r in rows)


def _overwrite(path: Path, offset: int, length: int, fill: bytes | None) -> None:
    """Zero (``fill`` None) or overwrite ``length`` bytes at ``offset`` with ``fill``."""
    data = fill if fill is not None else bytes(length)
    with path.open("r+b") as handle:
        handle.seek(offset)
        handle.write(data[:length])


def _noise(length: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(length)


def _truncate(path: Path, size: int) -> None:
    with path.open("r+b") as handle:
        handle.truncate(size)


def with_wal(db: Path, rows: int = 1000) -> Path:
    """``db`` with a WAL: a committed insert that was not checkpointed (the process ended
    before its checkpoint, as after a kill). Returns the WAL's path."""
    con = duckdb.connect(str(db))
    con.execute("SET checkpoint_threshold = '1TB'")
    con.execute("PRAGMA disable_checkpoint_on_shutdown")
    con.execute("CREATE TABLE IF NOT EXISTS wal_filler (n BIGINT)")
    con.execute(f"INSERT INTO wal_filler SELECT * FROM range({rows})")
    con.close()
    wal = db.with_name(db.name + ".wal")
    assert wal.exists(), "DuckDB checkpointed the WAL away"
    return wal


def damage_kinds(store: Path, other_store: Path, jtl: Path) -> dict[str, Callable[[Path], None]]:
    """Ways to damage a copy of ``store``: name -> function damaging the copy at the path
    it is given (its WAL beside it). ``other_store``: a different store (its WAL is mixed
    in); ``jtl``: a file that is not a store."""
    catalog = catalog_blocks(store)[0]
    blocks = {t: table_blocks(store, t) for t in ("samples", "iterations", "sources", "meta")}
    size = store.stat().st_size

    def wal_of(source: Path) -> Callable[[Path], None]:
        def put(db: Path) -> None:
            scratch = db.with_name("wal-source.duckdb")
            shutil.copy(source, scratch)
            wal = with_wal(scratch)
            shutil.move(wal, db.with_name(db.name + ".wal"))
            scratch.unlink()

        return put

    def own_wal(change: Callable[[Path], None]) -> Callable[[Path], None]:
        def put(db: Path) -> None:
            change(with_wal(db))

        return put

    kinds: dict[str, Callable[[Path], None]] = {
        "header-zeroed": lambda db: _overwrite(db, 0, 4096, None),
        "header-random": lambda db: _overwrite(db, 0, 4096, _noise(4096, 1)),
        "db-header-1-zeroed": lambda db: _overwrite(db, 4096, 4096, None),
        "db-headers-both-zeroed": lambda db: _overwrite(db, 4096, 8192, None),
        "db-header-2-random": lambda db: _overwrite(db, 8192, 4096, _noise(4096, 2)),
        "truncated-in-header": lambda db: _truncate(db, 100),
        "truncated-after-headers": lambda db: _truncate(db, HEADER_BYTES),
        "empty-file": lambda db: _truncate(db, 0),
        "catalog-zeroed": lambda db: _overwrite(db, block_offset(catalog), BLOCK_BYTES, None),
        "catalog-random": lambda db: _overwrite(
            db, block_offset(catalog), BLOCK_BYTES, _noise(BLOCK_BYTES, 3)
        ),
        "catalog-random-4k": lambda db: _overwrite(
            db, block_offset(catalog) + 4096, 4096, _noise(4096, 4)
        ),
        "catalog-truncated": lambda db: _truncate(db, block_offset(catalog) + 1000),
        "samples-zeroed": lambda db: _overwrite(
            db, block_offset(blocks["samples"][0]), BLOCK_BYTES, None
        ),
        "samples-random": lambda db: _overwrite(
            db, block_offset(blocks["samples"][0]), BLOCK_BYTES, _noise(BLOCK_BYTES, 5)
        ),
        "samples-one-byte": lambda db: _overwrite(
            db, block_offset(blocks["samples"][0]) + 5000, 1, b"\xff"
        ),
        "iterations-zeroed": lambda db: _overwrite(
            db, block_offset(blocks["iterations"][0]), BLOCK_BYTES, None
        ),
        "sources-random": lambda db: _overwrite(
            db, block_offset(blocks["sources"][0]), BLOCK_BYTES, _noise(BLOCK_BYTES, 6)
        ),
        "meta-zeroed": lambda db: _overwrite(
            db, block_offset(blocks["meta"][0]), BLOCK_BYTES, None
        ),
        "truncated-half": lambda db: _truncate(db, size // 2),
        "truncated-last-block": lambda db: _truncate(db, size - BLOCK_BYTES // 2),
        "wal-of-another-store": wal_of(other_store),
        "wal-truncated": own_wal(lambda wal: _truncate(wal, wal.stat().st_size // 2)),
        "wal-random": own_wal(lambda wal: _overwrite(wal, 0, 4096, _noise(4096, 7))),
        "wal-zeroed": own_wal(lambda wal: _overwrite(wal, 0, wal.stat().st_size, None)),
        "jtl-renamed": lambda db: shutil.copy(jtl, db),
        "text-file": lambda db: db.write_text("not a database\n"),
        "foreign-duckdb": _foreign,
        "no-meta-table": lambda db: _sql(db, "DROP TABLE meta"),
        "newer-schema": lambda db: _sql(db, "UPDATE meta SET value = '999'"),
    }
    return kinds


def _sql(db: Path, sql: str) -> None:
    con = duckdb.connect(str(db))
    try:
        con.execute(sql)
    finally:
        con.close()


def _foreign(db: Path) -> None:
    db.unlink()
    _sql(db, "CREATE TABLE orders AS SELECT range AS id FROM range(10)")


def damaged_copy(store: Path, kind: Callable[[Path], None], into: Path) -> Path:
    """A copy of ``store`` at ``into`` damaged by ``kind``."""
    shutil.copy(store, into)
    os.chmod(into, 0o644)
    kind(into)
    return into
