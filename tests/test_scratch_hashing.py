"""A scratch store whose sources no output shows hashes a file only when another has its
size (``IngestOptions.lazy_sha256``, ``Store.lazy_sha256``): ``warmup load FILE``,
``compare``, ``findings`` and the iteration commands without ``--db`` read each file once,
not once more for its SHA-256 (0.7 s of CPU for 1.2 GB), and still find a file given
twice; ``report FILE`` shows every file's SHA-256 in its provenance, so it hashes up front.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from pathlib import Path

import pytest

import toolkit.store
from tests.in_process import invoke_warmup
from toolkit import open_store
from toolkit.ingest import IngestOptions, ingest_paths

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "fixtures" / "jmeter" / "baseline.jtl.gz"
CANDIDATE = ROOT / "fixtures" / "jmeter" / "candidate.jtl.gz"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The files ``toolkit.store.file_sha256`` reads, in order (it still hashes them)."""
    read: list[Path] = []
    real = toolkit.store.file_sha256

    def counting(path: Path) -> str:
        read.append(Path(path))
        return real(path)

    monkeypatch.setattr(toolkit.store, "file_sha256", counting)
    monkeypatch.setattr("toolkit.ingest.file_sha256", counting)
    return read


def _same_size_twin(source: Path, target: Path) -> Path:
    """``source``'s JTL with one digit of one elapsed value changed: other bytes, the
    same size (a CSV JTL, not gzipped, so the size is the text's)."""
    text = gzip.decompress(source.read_bytes()).decode()
    head, first, rest = text.split("\n", 2)
    fields = first.split(",")
    fields[1] = str((int(fields[1]) + 1) % 10) if len(fields[1]) == 1 else fields[1][::-1]
    changed = ",".join(fields)
    assert len(changed) == len(first) and changed != first
    target.write_text(f"{head}\n{changed}\n{rest}")
    return target


def test_files_of_distinct_sizes_are_not_hashed_and_keep_placeholders(
    tmp_path: Path, hashed: list[Path]
) -> None:
    a, b = tmp_path / "a.jtl.gz", tmp_path / "b.jtl.gz"
    shutil.copy(BASELINE, a)
    shutil.copy(CANDIDATE, b)
    assert a.stat().st_size != b.stat().st_size
    with open_store() as store:
        report = ingest_paths(store, [a, b], options=IngestOptions(lazy_sha256=True))
        keys = [k for (k,) in store.con.execute("SELECT sha256 FROM sources ORDER BY 1").fetchall()]
    assert [r.status for r in report.results] == ["stored", "stored"]
    assert hashed == []  # neither file was read for its hash
    assert len(set(keys)) == 2 and all(k.startswith("unhashed:") for k in keys)


def test_a_copy_is_found_as_when_hashing_up_front(tmp_path: Path, hashed: list[Path]) -> None:
    a, b, c = tmp_path / "a.jtl.gz", tmp_path / "b.jtl.gz", tmp_path / "c.jtl.gz"
    shutil.copy(BASELINE, a)
    shutil.copy(CANDIDATE, b)
    shutil.copy(BASELINE, c)  # a's bytes again, after a file of another size
    results = {}
    for lazy in (True, False):
        with open_store() as store:
            report = ingest_paths(store, [a, b, c], options=IngestOptions(lazy_sha256=lazy))
            results[lazy] = [r.status for r in report.results]
            if lazy:
                # a met a file of its size: its placeholder became its real SHA-256
                stored = dict(store.con.execute("SELECT path, sha256 FROM sources").fetchall())
                assert stored[str(a.resolve())] == _sha(a)
                assert stored[str(b.resolve())].startswith("unhashed:")
    assert results[True] == results[False] == ["stored", "stored", "duplicate"]


def test_files_of_one_size_and_other_bytes_are_both_kept(
    tmp_path: Path, hashed: list[Path]
) -> None:
    a = tmp_path / "a.jtl"
    a.write_bytes(gzip.decompress(BASELINE.read_bytes()))
    b = _same_size_twin(BASELINE, tmp_path / "b.jtl")
    assert a.stat().st_size == b.stat().st_size and _sha(a) != _sha(b)
    with open_store() as store:
        report = ingest_paths(store, [a, b], options=IngestOptions(lazy_sha256=True))
        keys = sorted(k for (k,) in store.con.execute("SELECT sha256 FROM sources").fetchall())
    assert [r.status for r in report.results] == ["stored", "stored"]
    assert keys == sorted([_sha(a), _sha(b)])
    assert hashed == [b, a] or hashed == [a, b]


@pytest.mark.slow
def test_load_of_files_reads_no_hash_but_the_report_shows_each(
    tmp_path: Path, hashed: list[Path]
) -> None:
    a, b = tmp_path / "a.jtl.gz", tmp_path / "b.jtl.gz"
    shutil.copy(BASELINE, a)
    shutil.copy(BASELINE, b)  # a copy: one suite, as with --db
    one = invoke_warmup("load", a, b, "--json")
    assert one.returncode == 0, one.stderr
    assert [s["suite"] for s in json.loads(one.stdout)["suites"]] == ["a"]
    assert hashed == [a, b]  # only because b has a's size
    hashed.clear()
    shown = invoke_warmup("load", a, "--json")
    assert shown.returncode == 0 and hashed == []
    html = tmp_path / "r.html"
    made = invoke_warmup("report", a, "-o", html)
    assert made.returncode == 0, made.stderr
    assert hashed == [a]
    assert _sha(a) in html.read_text()


def test_a_kept_store_records_every_sha256_even_when_asked_to_be_lazy(
    tmp_path: Path, hashed: list[Path]
) -> None:
    a = tmp_path / "a.jtl.gz"
    shutil.copy(BASELINE, a)
    with open_store(tmp_path / "kept.duckdb") as store:
        ingest_paths(store, [a], options=IngestOptions(lazy_sha256=True))
        keys = [k for (k,) in store.con.execute("SELECT sha256 FROM sources").fetchall()]
    # a later `warmup ingest` of the same file must find it by its hash
    assert keys == [_sha(a)] and hashed == [a]
