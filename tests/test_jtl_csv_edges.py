"""CSV JTL edge cases an audit found: long first records, cut last records that parse or
end in a line break, gzip'd killed files, physical line numbers, zone offsets, non-UTF-8
encodings, unusual delimiters, a byte-order mark."""

from __future__ import annotations

import gzip
from datetime import datetime
from pathlib import Path

import pytest

from toolkit import IngestOptions, InputFormatError, Store, UsageError, ingest_file

HEADER = "timeStamp,elapsed,label,responseCode,responseMessage,threadName,success,Connect\n"
ROWS = [
    "1700000000000,5,a,200,OK,t 1-1,true,1\n",
    '1700000000100,6,b,200,"two\nlines",t 1-1,true,2\n',
    "1700000000200,7,c,200,OK,t 1-1,true,3\n",
]


def _stored(store: Store) -> list[tuple[object, ...]]:
    return store.con.execute(
        "SELECT start_ms, elapsed_ms, label, response_message, connect_ms FROM samples "
        "ORDER BY start_ms"
    ).fetchall()


def test_a_first_record_longer_than_the_sniffed_head_is_read(tmp_path: Path, store: Store) -> None:
    """The layout and timeStamp type come from the file's head; a first record of 200 kB
    (timeStamp after it) made the head end mid-record: an IndexError traceback."""
    message = "y" * 200_000
    path = tmp_path / "long.jtl"
    path.write_text(
        f'label,responseMessage,elapsed,timeStamp\nL,"{message}",5,1700000000000\n'
        "M,ok,6,1700000000100\n"
    )
    assert ingest_file(store, path).rows == 2
    assert store.con.execute(
        "SELECT length(response_message), start_ms FROM samples ORDER BY start_ms"
    ).fetchall() == [(200_000, 1_700_000_000_000), (2, 1_700_000_000_100)]


def test_a_headerless_file_with_a_long_first_record_is_read(tmp_path: Path, store: Store) -> None:
    fields = ["1700000000000", "5", "a", "200", '"' + "z" * 200_000 + '"', "t 1-1", "text"]
    fields += ["true", "", "10", "5", "1", "1", "null", "5", "0", "1"]
    path = tmp_path / "long-noheader.jtl"
    path.write_text(",".join(fields) + "\n" + ",".join(fields).replace("z" * 200_000, "ok") + "\n")
    result = ingest_file(store, path)
    assert result.rows == 2 and "no header line" in result.warnings[-1]


def test_a_last_record_without_line_end_is_dropped_even_when_it_parses(
    tmp_path: Path, store: Store
) -> None:
    """JMeter ends every record with a line end: ``...,12`` at the end of the file may be
    a cut ``...,1234``, which parses but is wrong."""
    path = tmp_path / "cut-number.jtl"
    path.write_text(HEADER + "".join(ROWS) + "1700000000300,8,d,200,OK,t 1-1,true,12")
    result = ingest_file(store, path)
    assert result.rows == 3
    assert [r[2] for r in _stored(store)] == ["a", "b", "c"]
    # header 1, a 2, b 3-4, c 5: the cut record is line 6
    assert result.warnings == (
        f"{path}:6: last record has no line end (file cut at byte {path.stat().st_size}, e.g. "
        "JMeter killed); dropped it, every record before it kept",
    )


def test_a_file_cut_just_after_a_line_break_inside_a_quoted_field(
    tmp_path: Path, store: Store
) -> None:
    """The file ends in a newline, but inside a quoted field: JMeter killed while writing a
    multi-line response message. Every record before it is kept."""
    path = tmp_path / "cut-in-quote.jtl"
    path.write_text(HEADER + "".join(ROWS) + '1700000000300,8,d,200,"cut\n')
    result = ingest_file(store, path)
    assert result.rows == 3
    assert [r[2] for r in _stored(store)] == ["a", "b", "c"]
    assert len(result.warnings) == 1
    assert result.warnings[0].startswith(f"{path}:6: last record is incomplete")


def test_a_gzipped_killed_file_keeps_its_complete_records(tmp_path: Path, store: Store) -> None:
    plain = HEADER + "".join(ROWS) + "1700000000300,8,d,2"
    path = tmp_path / "killed.jtl.gz"
    path.write_bytes(gzip.compress(plain.encode()))
    result = ingest_file(store, path)
    assert result.rows == 3
    assert [r[2] for r in _stored(store)] == ["a", "b", "c"]
    assert result.warnings[0].startswith(f"{path}:6: last record is incomplete")


def test_a_bad_record_after_a_multiline_one_names_its_physical_line(
    tmp_path: Path, store: Store
) -> None:
    path = tmp_path / "bad.jtl"
    path.write_text(HEADER + "".join(ROWS) + "1700000000300,abc,d,200,OK,t 1-1,true,4\n" + ROWS[0])
    with pytest.raises(InputFormatError) as raised:
        ingest_file(store, path)
    # header 1, a 2, b 3-4, c 5, the bad record 6 (DuckDB's record number would be 5)
    assert str(raised.value).startswith(f"{path}:6: column 'elapsed': 'abc' is not a valid")
    assert store.con.execute("SELECT count(*) FROM sources").fetchone() == (0,)


def test_a_zone_offset_in_the_timestamp_wins_over_timezone(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "offset.jtl"
    path.write_text("timeStamp,elapsed,label,success\n2026-11-22T03:03:26.501+0100,1,a,true\n")
    truth = int(datetime.fromisoformat("2026-11-22T03:03:26.501+01:00").timestamp() * 1000)
    fmt = "%Y-%m-%dT%H:%M:%S.%g%z"
    result = ingest_file(
        store, path, options=IngestOptions(time_format=fmt, timezone="America/New_York")
    )
    assert store.con.execute("SELECT start_ms FROM samples").fetchone() == (truth,)
    assert result.warnings == (
        "--timezone America/New_York ignored: --time-format has %z/%Z, so every timeStamp "
        "carries its own offset",
    )
    with_zone_only = tmp_path / "offset2.jtl"
    with_zone_only.write_text(path.read_text().replace("a,true", "b,true"))
    quiet = ingest_file(store, with_zone_only, options=IngestOptions(time_format=fmt))
    assert quiet.warnings == ()  # no "read as UTC": the offset is in the data


@pytest.mark.parametrize(
    ("encoding", "label"),
    [("cp1252", "price € “quoted”"), ("latin-1", "caf\u00e9 \x80"), ("utf-16", "日本 €")],
)
def test_non_utf8_files_are_read_with_their_encoding(
    tmp_path: Path, store: Store, encoding: str, label: str
) -> None:
    path = tmp_path / f"{encoding}.jtl"
    text = HEADER + f'1700000000000,5,"{label}",200,OK,t 1-1,true,1\n' + ROWS[2]
    path.write_bytes(text.encode(encoding))
    result = ingest_file(store, path, format="jtl-csv", options=IngestOptions(encoding=encoding))
    assert result.rows == 2
    assert [r[2] for r in _stored(store)] == [label, "c"]


def test_a_byte_invalid_in_the_given_encoding_names_its_line(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "bad-cp1252.jtl"
    path.write_bytes((HEADER + ROWS[0] + ROWS[2]).encode() + b"1700000000300,8,d\x81,200\n")
    with pytest.raises(InputFormatError, match=r":4: byte 0x81 is not valid cp1252"):
        ingest_file(store, path, options=IngestOptions(encoding="cp1252"))


@pytest.mark.parametrize("delimiter", ["!", ":", "~"])
def test_any_delimiter_jmeter_allows_is_detected_from_the_header(
    tmp_path: Path, store: Store, delimiter: str
) -> None:
    path = tmp_path / "odd.jtl"
    path.write_text(
        delimiter.join(["timeStamp", "elapsed", "label", "success"])
        + "\n"
        + delimiter.join(["1700000000000", "5", "a, b", "true"])
        + "\n"
    )
    assert ingest_file(store, path).rows == 1
    assert store.con.execute("SELECT label, elapsed_ms FROM samples").fetchall() == [("a, b", 5)]


def test_a_utf8_byte_order_mark_is_skipped(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "bom.jtl"
    path.write_bytes(b"\xef\xbb\xbf" + (HEADER + ROWS[0]).encode())
    assert ingest_file(store, path).rows == 1
    assert [r[2] for r in _stored(store)] == ["a"]


def test_a_column_named_twice_in_columns_says_columns(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "noheader.jtl"
    path.write_text("1700000000000,5,a\n")
    with pytest.raises(UsageError, match="--columns: 'label' appears twice"):
        ingest_file(store, path, options=IngestOptions(columns=("timeStamp", "label", "label")))


def test_sub_results_need_a_parent_that_contains_them(tmp_path: Path, store: Store) -> None:
    """``home-0``/``home-1`` inside a ``home`` sample of their thread are sub-results;
    ``Step-2``, a sampler of its own that runs after ``Step``, is not (it was flagged by
    name alone, and left out of ALL)."""
    path = tmp_path / "sub.jtl"
    path.write_text(
        "timeStamp,elapsed,label,responseCode,threadName,success\n"
        "1700000000000,100,home,200,t 1-1,true\n"
        "1700000000000,40,home-0,200,t 1-1,true\n"
        "1700000000050,50,home-1,200,t 1-1,true\n"
        "1700000000010,30,home-0,200,t 1-2,true\n"  # no home on thread t 1-2: a sample
        "1700000000200,10,Step,200,t 1-1,true\n"
        "1700000000300,10,Step-2,200,t 1-1,true\n"
    )
    ingest_file(store, path)
    flags = store.con.execute(
        "SELECT label, thread_name, is_subresult FROM samples ORDER BY start_ms, label"
    ).fetchall()
    assert flags == [
        ("home", "t 1-1", False),
        ("home-0", "t 1-1", True),
        ("home-0", "t 1-2", False),
        ("home-1", "t 1-1", True),
        ("Step", "t 1-1", False),
        ("Step-2", "t 1-1", False),
    ]


@pytest.mark.parametrize("timed", [True, False])
def test_a_sub_result_index_needs_its_lower_siblings(
    tmp_path: Path, store: Store, timed: bool
) -> None:
    """JMeter numbers a parent's sub-results from 0 with no gaps: ``Step-2`` beside ``Step``
    with identical times (or in a file without times, where the name was all there was) is
    a sampler of its own unless ``Step-0`` and ``Step-1`` are labels too; ``page-1`` beside
    ``page-0`` inside ``page`` still is one, and ``v-01`` (JMeter writes no leading zero)
    never is."""
    header = "timeStamp,elapsed,label,responseCode,threadName,success\n"
    rows = [
        ("1700000000000", "100", "page"),
        ("1700000000000", "40", "page-0"),
        ("1700000000050", "50", "page-1"),
        ("1700000000200", "10", "Step"),
        ("1700000000200", "10", "Step-2"),
        ("1700000000300", "10", "v"),
        ("1700000000300", "10", "v-01"),
    ]
    if timed:
        body = "".join(f"{t},{e},{lab},200,t 1-1,true\n" for t, e, lab in rows)
    else:
        header = "label,responseCode,threadName,success\n"
        body = "".join(f"{lab},200,t 1-1,true\n" for _, _, lab in rows)
    path = tmp_path / "steps.jtl"
    path.write_text(header + body)
    ingest_file(store, path)
    flagged = store.con.execute(
        "SELECT label FROM samples WHERE is_subresult ORDER BY label"
    ).fetchall()
    assert flagged == [("page-0",), ("page-1",)]


@pytest.mark.parametrize(
    "last",
    [
        "1700000000300,8,d,200,OK,t 1-1,true,4,extra\n",  # one field too many
        "1700000000300,abc,d,200,OK,t 1-1,true,4\n",  # not a number
    ],
)
def test_a_bad_but_whole_last_line_is_an_error_not_a_cut(
    tmp_path: Path, store: Store, last: str
) -> None:
    """A last record that ends in a line end was written whole: a bad value there is an
    error (exit 1), not a killed JMeter's cut record dropped with a warning."""
    path = tmp_path / "bad-last.jtl"
    path.write_text(HEADER + "".join(ROWS) + last)
    with pytest.raises(InputFormatError, match=rf"^{path}:6: "):
        ingest_file(store, path)
    assert store.con.execute("SELECT count(*) FROM samples").fetchone() == (0,)


def test_a_forced_delimiter_that_does_not_split_the_header_says_so(
    tmp_path: Path, store: Store
) -> None:
    path = tmp_path / "comma.jtl"
    path.write_text(HEADER + ROWS[0])
    with pytest.raises(UsageError, match="--delimiter ';' does not split its header, which is ','"):
        ingest_file(store, path, options=IngestOptions(delimiter=";"))


def test_negative_elapsed_is_kept_with_a_warning(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "negative.jtl"
    path.write_text(HEADER + ROWS[0] + "1700000000300,-5,d,200,OK,t 1-1,true,4\n")
    result = ingest_file(store, path)
    assert result.rows == 2
    assert result.warnings == (
        "1 samples have a negative elapsed time (the load generator's clock went back?); "
        "kept as written, they count as fast in every statistic",
    )


def test_a_date_in_another_format_later_in_the_file_names_its_line(
    tmp_path: Path, store: Store
) -> None:
    path = tmp_path / "dates.jtl"
    path.write_text(
        "timeStamp,elapsed,label,success\n2026/11/22 03:03:26.501,5,a,true\n"
        "2026/11/22 03:03:27.000,6,b,true\n22.11.2026 03:03:27,5,c,true\n"
    )
    with pytest.raises(InputFormatError, match=rf"^{path}:4: timeStamp '22.11.2026 03:03:27'"):
        ingest_file(store, path)


def test_a_utf16_file_with_a_byte_order_mark_needs_no_options(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "utf16.jtl"
    path.write_bytes((HEADER + '1700000000000,5,"日本 €",200,OK,t 1-1,true,1\n').encode("utf-16"))
    result = ingest_file(store, path)
    assert (result.format, result.rows) == ("jtl-csv", 1)
    assert [r[2] for r in _stored(store)] == ["日本 €"]
