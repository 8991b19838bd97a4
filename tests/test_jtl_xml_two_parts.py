"""A large plain XML JTL is read in two parts at once (issue 20 item 3: the XML parse is
single-threaded Python): this process reads up to a top-level sample past the middle, a
child process the rest. The store must hold exactly what the one-part read stores (every
column, the row order, ``line``, the source's rows and warnings), and any part that does
not read cleanly makes the file be read again in one part, which says what is wrong as
before. Here the size threshold is lowered so that small files take the two-part path.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from jmeter_checks import stored_jtl

import toolkit.ingest.jmeter_xml as jtl_xml
import toolkit.ingest.jmeter_xml_lines as jtl_xml_lines
from toolkit import open_store
from toolkit.ingest import IngestOptions, ingest_paths
from toolkit.synthetic import write_jtl_xml

ROOT = Path(__file__).resolve().parent.parent
RECORDED = ROOT / "fixtures" / "jmeter" / "recorded"
REAL = ROOT.parent / "shared" / "real" / "jmeter"


@pytest.fixture
def two_parts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every file takes the two-part path when it can; what each two-part read came to
    (``clean`` or ``read again``), in order."""
    monkeypatch.setattr(jtl_xml, "TWO_PART_MIN_BYTES", 0)
    # a file read in columns is read in one process: the two-part read is expat's
    monkeypatch.setattr(jtl_xml_lines, "COLUMNAR_MIN_BYTES", 1 << 62)
    outcomes: list[str] = []
    real = jtl_xml._two_part_batches

    def recording(*args: Any, **kwargs: Any) -> Iterator[Any]:
        try:
            yield from real(*args, **kwargs)
        except jtl_xml.ReadAgain:
            outcomes.append("read again")
            raise
        outcomes.append("clean")

    monkeypatch.setattr(jtl_xml, "_two_part_batches", recording)
    return outcomes


_stored = stored_jtl


def _split_line(path: Path, split: Any) -> int:
    """The file's line (1-based) where ``split``'s second part starts (LF-only files)."""
    return path.read_bytes()[: split.offset].count(b"\n") + 1


def _one_part(path: Path) -> Any:
    return _stored(path, **{jtl_xml._SERIAL: "1"})


def _plain(source: Path, folder: Path) -> Path:
    """``source`` as a plain file (the two-part read is for uncompressed files)."""
    target = folder / source.name.removesuffix(".gz")
    data = source.read_bytes()
    target.write_bytes(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)
    return target


@pytest.mark.slow
def test_generated_file_with_nested_samples_reads_the_same_in_two_parts(
    tmp_path: Path, two_parts: list[str]
) -> None:
    path = tmp_path / "run.xml"
    write_jtl_xml(path, 3_000, subsample_every=7, duration_s=30, warmup_s=5, error_rate=0.05)
    split = jtl_xml._second_part(path, IngestOptions())
    assert split is not None and 0 < split.offset < path.stat().st_size
    assert path.read_bytes()[split.offset - 1 : split.offset + 11] == b"\n<httpSample"
    both = _stored(path)
    assert two_parts == ["clean"]
    assert both == _one_part(path)
    rows = both[0]
    assert (
        len(rows) == 3_000 + 2 * 429 and both[3] == []
    )  # nested sub-samples kept with their parents
    lines = [row[22] for row in rows]  # samples.line: the sample's line in the file
    text = path.read_text().split("\n")
    # every row's line is where its element starts, on both sides of the split
    assert all(text[line - 1].lstrip().startswith("<httpSample") for line in lines)
    assert max(lines) > _split_line(path, split) > min(lines)


@pytest.mark.parametrize("parts", ["one", "two", "columns"])
@pytest.mark.slow
def test_a_scratch_store_skips_the_url_texts_in_both_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parts: str
) -> None:
    """``warmup load FILE.xml`` keeps only the load columns: expat then skips the text of
    ``java.net.URL`` and ``responseFile`` (8 % of the CPU of a 1M-sample file), in this
    process and in the child that reads the second part, and a file read in columns
    leaves their lines out; every other column is what a whole read stores, and
    ``warmup ingest`` still stores the URLs."""
    from toolkit.ingest.jmeter import LOAD_COLUMNS, REPORT_COLUMNS

    if parts == "two":
        monkeypatch.setattr(jtl_xml, "TWO_PART_MIN_BYTES", 0)
    # a file read in columns is read in one process: the two-part read is expat's
    columnar = 0 if parts == "columns" else 1 << 62
    monkeypatch.setattr(jtl_xml_lines, "COLUMNAR_MIN_BYTES", columnar)
    path = tmp_path / "run.xml"
    write_jtl_xml(path, 3_000, subsample_every=7, duration_s=30, warmup_s=5, error_rate=0.05)
    stored = {}
    for columns in (None, LOAD_COLUMNS, REPORT_COLUMNS):
        with open_store() as store:
            ingest_paths(store, [path], options=IngestOptions(sample_columns=columns))
            stored[columns] = (
                store.con.sql("SELECT * EXCLUDE (suite_id, source_id) FROM samples ORDER BY rowid")
                .arrow()
                .read_all()
            )
    whole = stored[None]
    assert whole.column("url").null_count == 0  # every sample has its URL
    for columns in (LOAD_COLUMNS, REPORT_COLUMNS):
        assert stored[columns].column("url").null_count == whole.num_rows
        assert stored[columns].drop_columns(["url"]) == whole.drop_columns(["url"])


#: the recorded file a developer's run reads in two parts (JMeter 5.5's own XML with
#: every field); the other recordings where slow tests run
QUICK_RECORDED = ("xml-allfields",)


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(
            name,
            id=name.split(".")[0],
            marks=() if name.split(".")[0] in QUICK_RECORDED else pytest.mark.ci_only,
        )
        for name in sorted(p.name for p in RECORDED.glob("*.xml.gz"))
    ],
)
@pytest.mark.slow
def test_recorded_jmeter_files_read_the_same_in_two_parts(
    name: str, tmp_path: Path, two_parts: list[str]
) -> None:
    path = _plain(RECORDED / name, tmp_path)
    assert _stored(path) == _one_part(path)
    split = jtl_xml._second_part(path, IngestOptions())
    assert two_parts == ([] if split is None else ["clean"])


@pytest.mark.ci_only  # beside the recorded files' quick cases
def test_real_jmeter_xml_files_read_the_same_in_two_parts(
    real_dir: Path, tmp_path: Path, two_parts: list[str]
) -> None:
    files = sorted((real_dir / "jmeter").glob("*.xml"))
    assert len(files) >= 10
    for file in files:
        assert _stored(file) == _one_part(file), file.name
    # killed runs (no </testResults>) included: each second part says where the file ends
    splits = [f for f in files if jtl_xml._second_part(f, IngestOptions()) is not None]
    assert len(splits) >= 8 and two_parts == ["clean"] * len(splits)


def _samples(first_ts: int, count: int, attrs: str = 'it="0" ct="1"') -> str:
    return "".join(
        f'<httpSample t="{5 + i % 3}" {attrs} ts="{first_ts + 10 * i}" s="true" lb="a" '
        f'rc="200" rm="OK" tn="g 1-1" dt="text" by="10" ng="1" na="1"/>\n'
        for i in range(count)
    )


def _document(body: str) -> str:
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<testResults version="1.2">\n{body}</testResults>\n'


@pytest.mark.slow
def test_a_split_inside_a_comment_is_read_again_in_one_part(
    tmp_path: Path, two_parts: list[str]
) -> None:
    # the line past the middle that looks like a top-level sample is inside a comment
    hidden = _samples(2_000, 40)
    path = tmp_path / "comment.xml"
    path.write_text(_document(_samples(1_000, 10) + f"<!-- \n{hidden} -->\n" + _samples(3_000, 10)))
    split = jtl_xml._second_part(path, IngestOptions())
    assert split is not None
    assert path.read_text()[: split.offset].count("<!--") == 1  # it splits the comment
    assert _stored(path) == _one_part(path)
    assert two_parts == ["read again"]


@pytest.mark.slow
def test_a_bad_integer_past_the_split_is_said_as_in_one_part(
    tmp_path: Path, two_parts: list[str]
) -> None:
    body = _samples(1_000, 30) + _samples(2_000, 30).replace('t="6"', 't="6x"', 1)
    path = tmp_path / "bad.xml"
    path.write_text(_document(body))
    stored = _stored(path)
    assert stored == _one_part(path)
    line = next(n for n, text in enumerate(path.read_text().split("\n"), 1) if 't="6x"' in text)
    assert stored[:3] == ([], [], []) and len(stored[3]) == 1
    assert f"bad.xml:{line}: attribute t='6x' is not an integer" in stored[3][0]
    assert two_parts == ["read again"]


@pytest.mark.slow
def test_a_killed_run_keeps_its_warning_read_in_two_parts(
    tmp_path: Path, two_parts: list[str]
) -> None:
    text = _document(_samples(1_000, 60)).removesuffix("</testResults>\n")
    path = tmp_path / "killed.xml"
    path.write_text(text + '<httpSample t="1" it="0" ts="5"')  # cut mid-tag
    stored = _stored(path)
    assert stored == _one_part(path)
    assert "without </testResults>" in stored[2][0][2][0]
    assert two_parts == ["clean"]  # the second part says where the file ends


@pytest.mark.slow
def test_end_times_are_judged_over_both_parts(tmp_path: Path, two_parts: list[str]) -> None:
    # no JMeter 3 attributes and sorted by ts: read as end times, a count over the whole
    # file (the parts' inversions and the one where they meet)
    body = _samples(1_000, 50, attrs='lt="0"')
    path = tmp_path / "end-times.xml"
    path.write_text(_document(body))
    stored = _stored(path)
    assert stored == _one_part(path) and two_parts == ["clean"]
    assert "END time" in stored[2][0][2][0]
    # an inversion right where the parts meet is counted as in one part
    split = jtl_xml._second_part(path, IngestOptions())
    assert split is not None
    swapped = tmp_path / "swapped.xml"
    lines = path.read_text().split("\n")
    at = _split_line(path, split) - 1  # the second part's first sample, 0-based
    lines[at - 1], lines[at] = lines[at], lines[at - 1]
    swapped.write_text("\n".join(lines))
    assert _stored(swapped) == _one_part(swapped)


def test_one_part_for_gzip_other_encodings_and_one_core(
    tmp_path: Path, two_parts: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "run.xml"
    plain.write_text(_document(_samples(1_000, 40)))
    assert jtl_xml._second_part(plain, IngestOptions()) is not None
    packed = tmp_path / "run.xml.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    latin = tmp_path / "latin.xml"
    latin.write_bytes(plain.read_bytes().replace(b'encoding="UTF-8"', b'encoding="ISO-8859-1"'))
    assert jtl_xml._second_part(packed, IngestOptions()) is None
    assert jtl_xml._second_part(latin, IngestOptions()) is None
    assert jtl_xml._second_part(plain, IngestOptions(encoding="cp1252")) is None
    monkeypatch.setattr(jtl_xml.os, "sched_getaffinity", lambda _: {0})
    assert jtl_xml._second_part(plain, IngestOptions()) is None
    assert _stored(plain) == _one_part(plain) and two_parts == []


def test_a_child_that_cannot_start_reads_in_one_part(
    tmp_path: Path, two_parts: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "run.xml"
    path.write_text(_document(_samples(1_000, 40)))
    monkeypatch.setattr(jtl_xml.sys, "executable", str(tmp_path / "no-python"))
    assert _stored(path) == _one_part(path) and two_parts == ["read again"]


@pytest.mark.parametrize(
    "ending", [pytest.param("\n", marks=pytest.mark.ci_only), "\r\n"], ids=["lf", "crlf"]
)
@pytest.mark.slow
def test_line_numbers_hold_with_carriage_returns(
    ending: str, tmp_path: Path, two_parts: list[str]
) -> None:
    # expat counts CR LF and a lone CR (here inside attribute values, on both sides of
    # the split) as one line break each, as the split's line number must
    body = _samples(1_000, 40, attrs='it="0" ct="1" de="a\rb"')
    path = tmp_path / "endings.xml"
    path.write_bytes(_document(body).replace("\n", ending).encode())
    stored = _stored(path)
    assert stored == _one_part(path) and two_parts == ["clean"]
    # each sample takes two lines (the CR in its de), the first starts on line 3
    assert [row[22] for row in stored[0]] == list(range(3, 83, 2))


def test_line_breaks_split_between_blocks_count_once() -> None:
    assert jtl_xml._line_breaks(iter([b"a\r", b"\nb\r", b"c\n", b""])) == 3
    assert jtl_xml._line_breaks(iter([b"\r\r\n\n"])) == 3


@pytest.mark.ci_only
def test_a_killed_reader_stops_its_child_and_leaves_nothing_behind(tmp_path: Path) -> None:
    """SIGKILL of a two-part ``warmup ingest`` while its child reads: the child stops (it
    watches its parent), the store holds nothing of the file, and the next two-part read
    removes the dead reader's scratch folder with the child's part in it."""
    import contextlib
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.store_checks import subprocess_env
    from toolkit.store.scratch import SCRATCH_PREFIX

    path = tmp_path / "run.xml"
    write_jtl_xml(path, 120_000, duration_s=60, warmup_s=10)
    scratch_root = tmp_path / "tmp"
    scratch_root.mkdir()
    store = tmp_path / "store.duckdb"
    script = (
        "import sys; import toolkit.ingest.jmeter_xml as x; x.TWO_PART_MIN_BYTES = 0; "
        "import toolkit.ingest.jmeter_xml_lines as c; c.COLUMNAR_MIN_BYTES = 1 << 62; "
        "sys.argv = ['warmup', *sys.argv[1:]]; from toolkit.cli import main; main()"
    )
    argv = [sys.executable, "-c", script, "ingest", "--db", str(store), str(path)]
    env = subprocess_env(TMPDIR=str(scratch_root))
    reader = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def children() -> list[int]:
        found = subprocess.run(
            ["pgrep", "-P", str(reader.pid)], capture_output=True, text=True, check=False
        )
        return [int(pid) for pid in found.stdout.split()]

    deadline = time.monotonic() + 60
    while not children() or not any(scratch_root.glob(f"{SCRATCH_PREFIX}{reader.pid}-*/second*")):
        assert reader.poll() is None and time.monotonic() < deadline, "no second part seen"
        time.sleep(0.01)
    (child,) = children()
    # held while its reader dies, so that it has most of its part still to read
    os.kill(child, signal.SIGSTOP)
    reader.send_signal(signal.SIGKILL)
    reader.wait()
    os.kill(child, signal.SIGCONT)

    def running(pid: int) -> bool:
        try:  # gone, or a zombie not yet reaped by its new parent
            return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
        except FileNotFoundError:
            return False

    deadline = time.monotonic() + 30
    while running(child):
        assert time.monotonic() < deadline, "the child went on reading"
        time.sleep(0.05)
    left = list(scratch_root.glob(f"{SCRATCH_PREFIX}{reader.pid}-*"))
    assert len(left) == 1
    # the child stopped at its next block: its stream holds a few batches, not its part
    kept = 0
    with (
        contextlib.suppress(pa.ArrowInvalid),
        pa.ipc.open_stream((left[0] / "second.arrows").read_bytes()) as stream,
    ):
        for batch in stream:
            kept += batch.num_rows
    assert kept < 50_000  # of the ~60,000 samples past the split
    with open_store(store) as opened:
        assert opened.con.execute("SELECT count(*) FROM samples").fetchone() == (0,)
    again = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert not left[0].exists()
    assert "120000 rows" in again.stdout + again.stderr
