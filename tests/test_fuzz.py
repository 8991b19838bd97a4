"""Fuzzing every input format (issue 7 §1).

Seeds are the project's fixtures and the third-party files in ``../shared/real`` (read in
place). Hypothesis mutates them (truncation at byte classes, flipped bytes, dropped and
repeated columns, swapped delimiters, NUL, invalid UTF-8, huge/negative/non-finite
numbers, empty files, deep JSON, XML entity bombs, very long lines) and ingests the result
into a store that already holds data. The outcome must be exactly one of:

* ingested: ``sources.rows`` = the rows really stored for the source = the returned count
  = an independent count of the input's records (where a format has an oracle below);
* a :class:`ToolkitError` whose message names the file, with the store's table counts
  exactly as before (no partial write).

Anything else (another exception, a hang) fails the test.

Budget and seeding: the default (CI) profile runs ``WARMUP_FUZZ_EXAMPLES`` (default 200)
cases per format and per forced-format pass, derandomized (the same cases on every run, so
CI cannot turn red by chance; the cases depend only on the test code, hypothesis version
and seeds). ``WARMUP_FUZZ_SEED=N`` runs the default budget from random seed N instead.
``WARMUP_FUZZ_PROFILE=long`` explores at random: many more cases (default 200,000 per
test, ``WARMUP_FUZZ_EXAMPLES`` overrides) with a longer per-case guard.
``WARMUP_FUZZ_STATS=out.json`` writes the number of cases per test and outcome;
``pytest --hypothesis-show-statistics`` prints hypothesis' own counts and timings.
A case stuck in C code ends the run after 4x its time limit; the case and the traceback
are then in ``$TMPDIR/warmup-fuzz-hang.txt``. Every finding gets an explicit minimal case
in ``tests/test_fuzz_regressions.py`` (or ``test_trust.py``'s table).
"""

from __future__ import annotations

import contextlib
import csv
import faulthandler
import io
import json
import os
import re
import resource
import signal
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from toolkit import ingest_iterations, open_store
from toolkit.errors import ToolkitError
from toolkit.ingest import FORMATS, ingest_file
from toolkit.ingest.detect import detect
from toolkit.store import DATA_TABLES, Store

ROOT = Path(__file__).resolve().parent.parent
SHARED_REAL = ROOT.parent / "shared" / "real"
LONG = os.environ.get("WARMUP_FUZZ_PROFILE", "") == "long"
EXAMPLES = int(os.environ.get("WARMUP_FUZZ_EXAMPLES", "200000" if LONG else "200"))
#: wall-clock limit of one case (ingesting a mutated seed of at most MAX_SEED_BYTES)
CASE_SECONDS = 60.0 if LONG else 20.0
#: seeds larger than this are left out: one case must stay well under a second
MAX_SEED_BYTES = 300_000
#: peak RSS growth a single case may cause (an entity bomb must not expand in memory)
MAX_RSS_GROWTH_BYTES = 512 * 1024 * 1024

SEED = os.environ.get("WARMUP_FUZZ_SEED")

FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=not LONG and SEED is None,
    deadline=None,  # the per-case wall-clock guard below replaces it
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
    print_blob=True,
)

#: ``WARMUP_FUZZ_SEED=N``: the default budget from random seed N (not derandomized)
SEEDED: Callable[[Any], Any] = seed(int(SEED)) if SEED is not None else (lambda test: test)
#: cases run, by (test, format, outcome); written to WARMUP_FUZZ_STATS at the end
CASES: Counter[tuple[str, str, str]] = Counter()

_SKIP_SEED_SUFFIXES = {".md", ".py", ".jmx", ".properties", ".duckdb", ".sql", ".wal"}


def _seed_files() -> list[Path]:
    roots = [ROOT / "fixtures"]
    if SHARED_REAL.is_dir():
        roots.append(SHARED_REAL)
    seeds = []
    for root in roots:
        for path in sorted(root.rglob("*")):
            if not path.is_file() or path.suffix.lower() in _SKIP_SEED_SUFFIXES:
                continue
            if path.name.startswith(".") or path.stat().st_size > MAX_SEED_BYTES:
                continue
            seeds.append(path)
    return seeds


def _seeds_by_format() -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    for path in _seed_files():
        try:
            found.setdefault(detect(path), []).append(path)
        except ToolkitError:
            continue
    return found


SEEDS = _seeds_by_format()
ALL_SEEDS = sorted(p for paths in SEEDS.values() for p in paths)


# -- independent record counts (oracles) ------------------------------------------------
def _count_clickbench(data: bytes) -> int:
    doc = json.loads(data.decode("utf-8"))
    return sum(len(row) if isinstance(row, list) else 1 for row in doc["result"])


def _count_iterations(data: bytes) -> int | None:
    if data[:4] == b"PAR1":
        return None
    # only LF (or CRLF) ends a record for the ingester (Polars); a lone CR is data
    text = re.sub("\r(?!\n)", " ", data.decode("utf-8", "replace"))
    csv.field_size_limit(1 << 30)
    records = list(csv.reader(io.StringIO(text, newline="")))
    return sum(1 for r in records[1:] if r)


#: format -> independent count of the records a successful ingest must have stored
ORACLES: dict[str, Callable[[bytes], int | None]] = {
    "clickbench": _count_clickbench,
    "iterations": _count_iterations,
}


# -- mutations ----------------------------------------------------------------------------
_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_BAD_NUMBERS = [
    b"99999999999999999999",
    b"9223372036854775808",
    b"2147483648",
    b"-1",
    b"-0",
    b"-2147483649",
    b"1e400",
    b"-1e400",
    b"1e-400",
    b"1e308",
    b"9" * 5000,
    b"NaN",
    b"nan",
    b"Infinity",
    b"-Infinity",
    b"inf",
    b"0x1F",
    b"1_000",
    b"",
]
_BOMB = (
    b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
    + b"".join(
        b' <!ENTITY lol%d "%s">\n' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10)
        for i in range(1, 10)
    )
    + b"]>\n"
)
_EXTERNAL = b'<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'


def _pos(draw: st.DrawFn, data: bytes) -> int:
    return draw(st.integers(0, len(data)))


#: truncation classes: a cut between the two characters matched by the lookarounds
_CUTS = {
    "mid-number": re.compile(rb"(?<=\d)(?=\d)"),
    "mid-string": re.compile(rb"(?<=[A-Za-z])(?=[A-Za-z])"),
    "mid-line": re.compile(rb"(?<=[^\r\n])"),
    "line-end": re.compile(rb"(?<=\n)"),
}


def _class_positions(data: bytes, kind: str) -> list[int]:
    if kind == "after-header":
        first = data.find(b"\n")
        return [first + 1] if first >= 0 else [len(data)]
    return [m.start() for m in _CUTS[kind].finditer(data) if m.start() < len(data)]


@st.composite
def _truncate(draw: st.DrawFn, data: bytes) -> bytes:
    kind = draw(
        st.sampled_from(["mid-number", "mid-string", "mid-line", "after-header", "line-end", "any"])
    )
    if kind == "any":
        return data[: draw(st.integers(0, len(data)))]
    positions = _class_positions(data, kind) or [len(data)]
    return data[: draw(st.sampled_from(positions[:: max(1, len(positions) // 4096)]))]


@st.composite
def _flip(draw: st.DrawFn, data: bytes) -> bytes:
    if not data:
        return data
    i = draw(st.integers(0, len(data) - 1))
    return data[:i] + bytes([data[i] ^ draw(st.integers(1, 255))]) + data[i + 1 :]


def _delimiter(data: bytes) -> bytes:
    first = data.split(b"\n", 1)[0]
    return max((b",", b"\t", b"|", b";"), key=first.count)


@st.composite
def _columns(draw: st.DrawFn, data: bytes) -> bytes:
    """Drop or repeat one column in every line (or only in the header or only in data)."""
    sep = _delimiter(data)
    lines = data.split(b"\n")
    width = max((line.count(sep) + 1 for line in lines[:50]), default=1)
    k = draw(st.integers(0, width - 1))
    action = draw(st.sampled_from(["drop", "repeat"]))
    scope = draw(st.sampled_from(["all", "header", "data"]))
    out = []
    for n, line in enumerate(lines):
        if (scope == "header" and n > 0) or (scope == "data" and n == 0):
            out.append(line)
            continue
        cells = line.split(sep)
        if k < len(cells):
            if action == "drop":
                del cells[k]
            else:
                cells.insert(k, cells[k])
        out.append(sep.join(cells))
    return b"\n".join(out)


@st.composite
def _swap_delimiter(draw: st.DrawFn, data: bytes) -> bytes:
    old = _delimiter(data)
    new = draw(st.sampled_from([b",", b"\t", b"|", b";", b" "]))
    return data.replace(old, new)


@st.composite
def _insert(draw: st.DrawFn, data: bytes) -> bytes:
    piece = draw(
        st.sampled_from(
            [
                b"\x00",
                b"\xff\xfe",
                b"\xc3",
                b"\xed\xa0\x80",
                b"\xef\xbb\xbf",
                b'"',
                b"\r",
                b"\n\n",
                b"<",
                b"&",
            ]
        )
    )
    i = _pos(draw, data)
    return data[:i] + piece + data[i:]


@st.composite
def _bad_number(draw: st.DrawFn, data: bytes) -> bytes:
    matches = list(_NUMBER.finditer(data))
    if not matches:
        return data
    m = draw(st.sampled_from(matches[:2000]))
    return data[: m.start()] + draw(st.sampled_from(_BAD_NUMBERS)) + data[m.end() :]


@st.composite
def _deep(draw: st.DrawFn, data: bytes) -> bytes:
    depth = draw(st.sampled_from([10, 1000, 100_000]))
    nested = b"[" * depth + b"1" + b"]" * depth
    matches = list(_NUMBER.finditer(data))
    if matches and draw(st.booleans()):
        m = draw(st.sampled_from(matches[:2000]))
        return data[: m.start()] + nested + data[m.end() :]
    return b'{"result": ' + nested + b"}"


@st.composite
def _xml_bomb(draw: st.DrawFn, data: bytes) -> bytes:
    body = data.partition(b"?>")[2] if data.lstrip().startswith(b"<?xml") else data
    prolog = draw(st.sampled_from([_BOMB, _EXTERNAL]))
    ref = b"&lol9;" if prolog is _BOMB else b"&xxe;"
    # put the reference into an attribute value or text: the first '="' or '>' found
    i = body.find(b'="')
    if i >= 0 and draw(st.booleans()):
        body = body[: i + 2] + ref + body[i + 2 :]
    else:
        j = body.find(b">", body.find(b"<testResults"))
        body = body[: j + 1] + ref + body[j + 1 :] if j >= 0 else body + ref
    return prolog + body


@st.composite
def _long_line(draw: st.DrawFn, data: bytes) -> bytes:
    size = draw(st.sampled_from([70_000, 1_100_000]))
    filler = draw(st.sampled_from([b"a", b"7", b",", b" "]))
    i = _pos(draw, data)
    return data[:i] + filler * size + data[i:]


@st.composite
def _lines(draw: st.DrawFn, data: bytes) -> bytes:
    lines = data.split(b"\n")
    if len(lines) < 2:
        return data
    k = draw(st.integers(0, len(lines) - 1))
    action = draw(st.sampled_from(["drop", "repeat", "crlf", "blank"]))
    if action == "drop":
        del lines[k]
    elif action == "repeat":
        lines.insert(k, lines[k])
    elif action == "blank":
        lines.insert(k, b"")
    else:
        return data.replace(b"\n", b"\r\n")
    return b"\n".join(lines)


@st.composite
def _empty(draw: st.DrawFn, data: bytes) -> bytes:
    return draw(st.sampled_from([b"", b" ", b"\n", b"\xef\xbb\xbf", b"\x00" * 8]))


MUTATIONS: list[Callable[[bytes], st.SearchStrategy[bytes]]] = [
    _truncate,
    _flip,
    _columns,
    _swap_delimiter,
    _insert,
    _bad_number,
    _deep,
    _xml_bomb,
    _long_line,
    _lines,
    _empty,
]


@st.composite
def mutated(draw: st.DrawFn, seeds: list[Path]) -> tuple[Path, bytes]:
    seed = draw(st.sampled_from(seeds))
    data = seed.read_bytes()
    for _ in range(draw(st.integers(0, 3))):
        data = draw(draw(st.sampled_from(MUTATIONS))(data))
    return seed, data


# -- the property -------------------------------------------------------------------------
class CaseTimeout(AssertionError):
    """One case ran longer than CASE_SECONDS (a hang)."""


#: a case stuck in C code ends the process (pytest's capture loses stderr): the case and the
#: traceback are in this file, the case's input in the warmup-fuzz-* work folder beside it
HANG_REPORT = Path(tempfile.gettempdir()) / "warmup-fuzz-hang.txt"


@contextlib.contextmanager
def wall_clock(seconds: float, case: str) -> Iterator[None]:
    """Fail a case that runs longer than ``seconds``; kill the process (with a traceback in
    :data:`HANG_REPORT`) if it is stuck in C code for 4x that long, so CI can never hang."""

    def expire(signum: int, frame: Any) -> None:
        raise CaseTimeout(f"case ran longer than {seconds} s")

    with HANG_REPORT.open("w") as report:
        report.write(f"running (if the process ended, it hung {seconds * 4} s in C code): {case}\n")
        report.flush()
        previous = signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        faulthandler.dump_traceback_later(seconds * 4, exit=True, file=report)
        try:
            yield
        finally:
            faulthandler.cancel_dump_traceback_later()
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


_COUNTED = ("sources", "suites", "suite_sources", *DATA_TABLES)
_COUNT_ALL = " UNION ALL ".join(f"SELECT '{t}', count(*) FROM {t}" for t in _COUNTED)


def table_counts(store: Store) -> dict[str, int]:
    return {str(t): int(n) for t, n in store.con.execute(_COUNT_ALL).fetchall()}


def stored_rows(store: Store, source_id: int) -> int:
    """Rows of ``source_id`` in the data tables, counted table by table."""
    total = 0
    for table in DATA_TABLES:
        row = store.con.execute(
            f"SELECT count(*) FROM {table} WHERE source_id = ?", [source_id]
        ).fetchone()
        assert row is not None
        total += int(row[0])
    return total


def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def check_case(store: Store, workdir: Path, seed: Path, data: bytes, *, format: str | None) -> str:
    """Ingest ``data`` (named like ``seed``) and check the outcome; return its kind."""
    path = workdir / seed.name
    path.write_bytes(data)
    before = table_counts(store)
    rss_before = _peak_rss()
    try:
        with wall_clock(CASE_SECONDS, f"--format {format} {path}"):
            result = ingest_file(store, path, format=format)
    except ToolkitError as exc:
        message = str(exc)
        assert str(path) in message, f"error does not name the file: {message!r}"
        assert table_counts(store) == before, f"partial write after: {message!r}"
        outcome = "refused"
    else:
        assert result.status in ("stored", "skipped"), result
        if result.status == "stored":
            row = store.con.execute(
                "SELECT source_id, rows FROM sources ORDER BY source_id DESC LIMIT 1"
            ).fetchone()
            assert row is not None
            source_id, recorded = int(row[0]), int(row[1])
            try:
                assert recorded == result.rows == stored_rows(store, source_id)
                oracle = ORACLES.get(result.format)
                expected = oracle(data) if oracle is not None else None
                if expected is not None:
                    assert result.rows == expected, (result.rows, expected)
            finally:
                # back to the baseline so the next case sees the same store
                store.con.execute("BEGIN TRANSACTION")
                store._delete_source(source_id)
                store.con.execute("COMMIT")
            assert table_counts(store) == before
        else:
            assert table_counts(store) == before
        outcome = result.status
    growth = _peak_rss() - rss_before
    assert growth < MAX_RSS_GROWTH_BYTES, f"one case grew the peak RSS by {growth} bytes"
    return outcome


@pytest.fixture(scope="module")
def baseline_store() -> Iterator[Store]:
    """A store already holding data (not from any seed): a failed ingest must leave it as is."""
    with open_store() as store:
        baseline = pl.DataFrame(
            {
                "suite": ["baseline"] * 3,
                "query": ["q"] * 3,
                "iteration": [0, 1, 2],
                "seconds": [3.0, 1.0, 1.0],
            }
        )
        assert ingest_iterations(store, baseline, name="baseline") == 3
        yield store


@pytest.fixture(scope="module")
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="warmup-fuzz-") as tmp:
        yield Path(tmp)


def test_seeds_cover_every_format(need: Callable[[bool, str], None]) -> None:
    """Every registered format has at least one seed (add a fixture when a format lands).
    Some formats' only seeds are third-party files: without ``../shared/real`` the test
    skips (fails under WARMUP_REQUIRE_ALL=1) rather than fail a fresh checkout."""
    missing = sorted(set(FORMATS) - set(SEEDS))
    if missing:
        need(SHARED_REAL.is_dir(), f"{SHARED_REAL} not present (the only seeds of {missing})")
    assert not missing, f"no fuzz seed for format(s): {missing}"


@pytest.fixture(autouse=True)
def case_statistics() -> Iterator[None]:
    """Write :data:`CASES` so far to ``WARMUP_FUZZ_STATS`` (JSON) after each test, so a
    long run stopped part-way still leaves the counts of the tests it finished."""
    yield
    target = os.environ.get("WARMUP_FUZZ_STATS")
    if target:
        rows = [
            {"test": t, "format": f, "outcome": o, "cases": n}
            for (t, f, o), n in sorted(CASES.items())
        ]
        Path(target).write_text(json.dumps(rows, indent=1) + "\n")


@pytest.mark.ci_only  # 200 mutants per format: ~3.5 min of CPU for the two tests
@FUZZ
@SEEDED
@given(data=st.data())
@pytest.mark.parametrize("format_name", sorted(SEEDS))
def test_fuzz_detected_format(
    format_name: str, baseline_store: Store, workdir: Path, data: st.DataObject
) -> None:
    seed_file, mutant = data.draw(mutated(SEEDS[format_name]), label="case")
    outcome = check_case(baseline_store, workdir, seed_file, mutant, format=None)
    CASES["detected", format_name, outcome] += 1


@pytest.mark.ci_only
@FUZZ
@SEEDED
@given(data=st.data())
@pytest.mark.parametrize("format_name", sorted(FORMATS))
def test_fuzz_forced_format(
    format_name: str, baseline_store: Store, workdir: Path, data: st.DataObject
) -> None:
    """``--format X`` on any (mutated) file of any format: correct rows or one clear error."""
    seed_file, mutant = data.draw(mutated(ALL_SEEDS), label="case")
    outcome = check_case(baseline_store, workdir, seed_file, mutant, format=format_name)
    CASES["forced", format_name, outcome] += 1


#: the first seed of each format: a developer's run; the other seeds where slow tests run
#: (all ~140 of them take ~5 s)
FIRST_SEEDS = sorted(paths[0] for paths in SEEDS.values())


@pytest.mark.parametrize(
    "seeds",
    [
        pytest.param(FIRST_SEEDS, id="first-of-each-format"),
        pytest.param(
            [p for p in ALL_SEEDS if p not in FIRST_SEEDS],
            id="the-others",
            marks=pytest.mark.ci_only,
        ),
    ],
)
def test_unmutated_seeds_ingest_with_oracle_counts(
    seeds: list[Path], baseline_store: Store, workdir: Path
) -> None:
    """The seeds themselves go through the same property (no mutation)."""
    outcomes = {
        check_case(baseline_store, workdir, seed, seed.read_bytes(), format=None) for seed in seeds
    }
    assert "stored" in outcomes


@pytest.mark.parametrize("format_name", sorted(FORMATS))
@pytest.mark.parametrize("prolog", [_BOMB, _EXTERNAL], ids=["billion-laughs", "external-entity"])
def test_entity_tricks_are_refused_fast(
    format_name: str, prolog: bytes, baseline_store: Store, workdir: Path
) -> None:
    """An XML entity bomb or external entity under any --format: refused, within the
    per-case wall clock and RSS bound of :func:`check_case` (never expanded, never read)."""
    ref = b"&lol9;" if prolog is _BOMB else b"&xxe;"
    data = (
        prolog + b'<testResults version="1.2">\n<sample t="' + ref + b'" lb="x"/>\n</testResults>\n'
    )
    seed = workdir / "bomb.jtl"
    assert check_case(baseline_store, workdir, seed, data, format=format_name) == "refused"


@pytest.mark.parametrize("text", ["", "   \n", "\n\n\n"])
def test_empty_files_are_refused(text: str, baseline_store: Store, workdir: Path) -> None:
    for name in ("empty.json", "empty.csv", "empty.jtl", "empty.xml", "empty.log"):
        seed = workdir / name
        assert check_case(baseline_store, workdir, seed, text.encode(), format=None) == "refused"
