"""JMeter CSV/XML JTL and summariser-log ingest, on the real files in ../shared/real."""

from __future__ import annotations

import csv
import gzip
import io
import re
import xml.etree.ElementTree as ET
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from toolkit import IngestOptions, InputFormatError, Store, UsageError, ingest_file
from toolkit.ingest import detect_format
from toolkit.ingest.jmeter_log import parse_summary_line
from toolkit.ingest.registry import PROGRESS_MIN_BYTES
from toolkit.synthetic import write_jtl

pytestmark = pytest.mark.real

HEADERLESS_COLUMNS = {
    "bin__testfiles__Bug52968.csv": (
        "label,responseCode,responseMessage,threadName,dataType,success,"
        "grpThreads,allThreads,SampleCount,ErrorCount"
    ),
    "bin__testfiles__Bug62239.csv": "label,responseCode,responseMessage,threadName,dataType,success",
    "bin__testfiles__TEST_HTTP_HttpClient4.csv": "label,responseCode,threadName,dataType,success",
}


def _text(path: Path) -> str:
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8")


def _csv_records(path: Path, *, header: bool = True) -> int:
    """Independent count: complete records per Python's csv module."""
    text = _text(path)
    first = text.split("\n", 1)[0]
    delim = "\t" if "\t" in first else ","
    rows = list(csv.reader(io.StringIO(text), delimiter=delim))
    width = len(rows[0])
    body = rows[1:] if header else rows
    return sum(1 for r in body if len(r) == width)


def _xml_samples(path: Path) -> int:
    """Independent count: every complete sample/httpSample element (ElementTree)."""
    data = re.sub(rb"&#x(?:0|1[0-9a-f]|[1-8bcef]);", b"", path.read_bytes())
    parser = ET.XMLPullParser(events=("end",))
    count = 0
    try:
        parser.feed(data)
        parser.close()
    except ET.ParseError:
        pass  # an unterminated (killed) file: count what completed
    for _, elem in parser.read_events():
        if elem.tag in ("sample", "httpSample"):
            count += 1
    return count


def _real_csvs(real_dir: Path) -> list[Path]:
    jm = real_dir / "jmeter"
    files = [p for p in jm.iterdir() if p.suffix in (".csv", ".tsv") or p.suffix == ".jtl"]
    files = [p for p in files if not p.read_bytes().lstrip().startswith(b"<")]
    return sorted(files) + sorted((real_dir / "jmeter-runs").glob("*.gz"))


# every real CSV JTL with a csv-module count, 3M samples (~17 s); test_fuzz's unmutated
# seeds check the real files under its size limit against oracle counts
@pytest.mark.ci_only
def test_every_real_csv_jtl_ingests_with_independent_row_count(
    real_dir: Path, store: Store
) -> None:
    files = _real_csvs(real_dir)
    assert len(files) >= 25
    for path in files:
        columns = HEADERLESS_COLUMNS.get(path.name)
        options = IngestOptions(columns=tuple(columns.split(",")) if columns else None)
        header = columns is None and "noheader" not in path.name
        result = ingest_file(store, path, format="jtl-csv" if columns else None, options=options)
        assert result.format == "jtl-csv", path.name
        expected = _csv_records(path, header=header)
        assert result.rows == expected, path.name
        got = store.con.execute(
            "SELECT count(*) FROM samples s JOIN sources o USING (source_id) WHERE o.path = ?",
            [str(path.resolve())],
        ).fetchone()
        assert got is not None and got[0] == expected, path.name


def test_every_real_xml_jtl_ingests_with_independent_row_count(
    real_dir: Path, store: Store
) -> None:
    jm = real_dir / "jmeter"
    files = [p for p in sorted(jm.iterdir()) if p.suffix in (".xml", ".jtl")]
    files = [p for p in files if p.read_bytes().lstrip().startswith(b"<")]
    assert len(files) >= 14
    for path in files:
        result = ingest_file(store, path)
        assert result.format == "jtl-xml", path.name
        assert result.rows == _xml_samples(path), path.name


def test_killed_sigkill_csv_keeps_every_complete_record_and_names_the_line(
    real_dir: Path, store: Store
) -> None:
    path = real_dir / "jmeter" / "generated__jmeter-5.6.3__killed-SIGKILL.csv"
    result = ingest_file(store, path)
    assert result.rows == 493
    assert len(result.warnings) == 1
    # the physical line (the cut record is the file's last line: it has no line end), not
    # the record number 495 that DuckDB and JMeter give (392 records span two lines)
    last_line = path.read_bytes().count(b"\n") + 1
    assert last_line == 578
    assert f"{path}:{last_line}:" in result.warnings[0] and "incomplete" in result.warnings[0]
    term = ingest_file(store, real_dir / "jmeter" / "generated__jmeter-5.6.3__killed-SIGTERM.csv")
    assert term.rows == 519 and term.warnings == ()


def test_killed_sigkill_xml_keeps_complete_samples(real_dir: Path, store: Store) -> None:
    path = real_dir / "jmeter" / "generated__jmeter-5.6.3__killed-SIGKILL.xml"
    result = ingest_file(store, path)
    # 167 complete top-level samples (INDEX.md), with the child A/B samples of their
    # transaction-controller parents (samples too, not sub-results)
    assert any("without </testResults>" in w and "kept 167 complete" in w for w in result.warnings)
    tc = store.con.execute("SELECT count(*) FROM samples WHERE label = 'TC parent'").fetchone()
    children = store.con.execute(
        "SELECT count(*) FROM samples WHERE label IN ('child A', 'child B')"
    ).fetchone()
    assert tc is not None and children is not None and children[0] == 2 * tc[0]
    assert result.rows == 167 + children[0]


def test_headerless_tab_dateformat_file(real_dir: Path, store: Store) -> None:
    path = real_dir / "jmeter" / "generated__jmeter-5.6.3__tab_noheader_datefmt.tsv"
    result = ingest_file(store, path)
    assert result.rows == 126
    first = store.con.execute(
        "SELECT start_ms, elapsed_ms, label, response_message FROM samples ORDER BY rowid LIMIT 1"
    ).fetchone()
    assert first is not None
    # 2026/11/22 03:03:26.501 read as UTC (warned), newline kept inside the quoted field
    assert first[0] == 1795316606501 and first[1] == 52 and first[2] == "Q1, with comma"
    assert first[3] == 'msg with "quotes", a comma\nand a newline'
    assert any("--timezone" in w for w in result.warnings)


def test_headerless_without_columns_is_one_clear_error(real_dir: Path, store: Store) -> None:
    path = real_dir / "jmeter" / "bin__testfiles__Bug52968.csv"
    with pytest.raises(InputFormatError) as info:
        ingest_file(store, path, format="jtl-csv")
    message = str(info.value)
    assert message.startswith(f"{path}:1:") and "--columns" in message and "\n" not in message
    assert store.con.execute("SELECT count(*) FROM sources").fetchone() == (0,)


def test_transactions_and_subresults_are_flagged(real_dir: Path, store: Store) -> None:
    ingest_file(store, real_dir / "jmeter" / "generated__jmeter-5.6.3__default.csv")
    tc = store.con.execute(
        "SELECT count(*) FROM samples WHERE is_transaction AND label = 'TC plain'"
    ).fetchone()
    plain = store.con.execute("SELECT count(*) FROM samples WHERE label = 'TC plain'").fetchone()
    assert tc is not None and plain is not None and tc[0] == plain[0] > 0
    ingest_file(store, real_dir / "jmeter" / "bin__testfiles__HTMLParserTestFile_2.xml")
    sub = store.con.execute(
        "SELECT count(*) FILTER (is_subresult), count(*) FILTER (NOT is_subresult) FROM samples "
        "WHERE source_id = (SELECT max(source_id) FROM sources)"
    ).fetchone()
    assert sub == (11, 1)


def test_old_xml_ts_is_end_time(real_dir: Path, store: Store) -> None:
    path = real_dir / "jmeter" / "bin__testfiles__sample_log1.jtl"
    ingest_file(store, path)
    root = ET.parse(path).getroot()
    first = root[0]
    row = store.con.execute(
        "SELECT start_ms, elapsed_ms FROM samples ORDER BY line LIMIT 1"
    ).fetchone()
    assert row is not None
    assert row[0] == int(first.get("ts", "0")) - int(first.get("t", "0"))


def test_xml_refuses_doctype_and_entities(tmp_path: Path, store: Store) -> None:
    bomb = tmp_path / "bomb.jtl"
    bomb.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]>\n'
        '<testResults version="1.2">\n<sample t="1" ts="1" s="true" lb="&lol2;"/>\n</testResults>\n'
    )
    with pytest.raises(InputFormatError, match="DOCTYPE/ENTITY"):
        ingest_file(store, bomb)
    assert store.con.execute("SELECT count(*) FROM samples").fetchone() == (0,)


def test_xml_tolerates_illegal_character_references(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "refs.jtl"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<testResults version="1.2">\n'
        '<httpSample t="5" it="0" ts="1000" s="false" lb="a&#x0;b&#28;c" rc="500">\n'
        "<assertionResult><name>A</name><failure>true</failure><error>false</error>"
        "<failureMessage>bad &#x1c;thing</failureMessage></assertionResult>\n"
        "</httpSample>\n</testResults>\n"
    )
    assert ingest_file(store, path).rows == 1
    row = store.con.execute("SELECT label, failure_message, success FROM samples").fetchone()
    assert row == ("abc", "bad thing", False)


def test_script_label_stored_verbatim(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "xss.jtl"
    path.write_text(
        "timeStamp,elapsed,label,responseCode,success\n"
        "1000,5,<script>alert(1)</script>,200,true\n"
        '1001,6,"a,""b""",200,true\n'
    )
    assert ingest_file(store, path).rows == 2
    labels = {r[0] for r in store.con.execute("SELECT label FROM samples").fetchall()}
    assert labels == {"<script>alert(1)</script>", 'a,"b"'}


def test_non_utf8_without_encoding_names_file_and_line(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "latin.jtl"
    path.write_bytes(
        b"timeStamp,elapsed,label,responseCode,success\n1000,5,ok,200,true\n"
        b"1001,6,Requ\xeate,200,true\n"
    )
    with pytest.raises(InputFormatError) as info:
        ingest_file(store, path)
    assert str(info.value).startswith(f"{path}:3:") and "--encoding" in str(info.value)
    assert store.con.execute("SELECT count(*) FROM sources").fetchone() == (0,)
    ingest_file(store, path, options=IngestOptions(encoding="latin-1"))
    assert ("Requête",) in store.con.execute("SELECT label FROM samples").fetchall()


def test_bad_value_mid_file_is_an_error_not_a_dropped_row(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "bad.jtl"
    path.write_text(
        "timeStamp,elapsed,label,responseCode,success\n1000,5,a,200,true\n"
        "1001,fast,b,200,true\n1002,7,c,200,true\n"
    )
    with pytest.raises(InputFormatError) as info:
        ingest_file(store, path)
    assert str(info.value).startswith(f"{path}:3:") and "elapsed" in str(info.value)
    assert store.con.execute("SELECT count(*) FROM samples").fetchone() == (0,)


@pytest.mark.parametrize("kind", ["csv", "xml", "load-file"])
def test_epoch_seconds_timestamps_are_one_line(tmp_path: Path, store: Store, kind: str) -> None:
    """A JTL whose timeStamp is epoch seconds (another tool's output, or a hand
    conversion) read as ms spans 60 ms for a 60 s run: "0 full windows ... run longer"
    and rates 1,000 times off. Now refused in one line naming both readings; epoch ms,
    and the small relative stamps of JMeter's own test files, read as before."""
    stamps = [1_700_000_000 + i // 50 for i in range(3000)]
    if kind == "xml":
        path = tmp_path / "seconds.xml"
        path.write_text(
            '<?xml version="1.0" encoding="UTF-8"?>\n<testResults version="1.2">\n'
            + "".join(f'<sample t="20" ts="{ts}" s="true" lb="a" rc="200"/>\n' for ts in stamps)
            + "</testResults>\n"
        )
        line, name = 3, "ts"
    else:
        path = tmp_path / "seconds.jtl"
        path.write_text(
            "timeStamp,elapsed,label,responseCode,success\n"
            + "".join(f"{ts},20,a,200,true\n" for ts in stamps)
        )
        line, name = 2, "timeStamp"
    expected = (
        f"{path}:{line}: {name} 1700000000 is epoch seconds (2023-11-14 22:13:20 UTC), not the "
        "epoch milliseconds JMeter writes (as ms it is 1970-01-20, and every rate 1,000 times "
        "off); write the column in milliseconds (x 1000)"
    )
    if kind == "load-file":
        from typer.testing import CliRunner

        from toolkit.cli import app

        result = CliRunner().invoke(app, ["load", str(path)])
        assert (result.exit_code, result.output.strip()) == (1, f"Error: {expected}")
        return
    with pytest.raises(InputFormatError) as info:
        ingest_file(store, path)
    assert str(info.value) == expected
    assert store.con.execute("SELECT count(*) FROM samples").fetchone() == (0,)
    # the same samples in milliseconds are a run of 60 s
    ms = tmp_path / "ms.jtl"
    ms.write_text(
        "timeStamp,elapsed,label,responseCode,success\n"
        + "".join(f"{ts * 1000 + i % 50 * 20},20,a,200,true\n" for i, ts in enumerate(stamps))
    )
    ingest_file(store, ms)
    assert store.con.execute("SELECT max(start_ms) - min(start_ms) FROM samples").fetchone() == (
        59_980,
    )


def test_sniffers_do_not_steal_other_formats(tmp_path: Path) -> None:
    iters = tmp_path / "iters.csv"
    iters.write_text("suite,query,iteration,seconds\ns,q,0,1.5\n")
    assert detect_format(iters) == "iterations"
    bench = tmp_path / "c.json"
    bench.write_text('{"system": "x", "result": [[1.0, 0.5, 0.4]]}')
    assert detect_format(bench) == "clickbench"
    jtl = tmp_path / "r.jtl"
    jtl.write_text("timeStamp,elapsed,label,success\n1,2,a,true\n")
    assert detect_format(jtl) == "jtl-csv"


def test_seed_summariser_line_parses_exactly(real_dir: Path) -> None:
    # the line as the issue quotes it, and as seed 000 prints it (aligned with extra spaces)
    seed = real_dir.parent / "seeds" / "000_e127c0e70ef1d9f1.txt"
    printed = [ln for ln in seed.read_text().splitlines() if ln.startswith("summary + 147615")]
    assert len(printed) == 1
    quoted = (
        "summary + 147615 in 00:00:30 = 4920.5/s Avg: 30 Min: 7 Max: 1535 Err: 0 (0.00%) "
        "Active: 150 Started: 150 Finished: 150"
    )
    for line in (quoted, printed[0]):
        parsed = parse_summary_line(line)
        assert parsed is not None
        assert (parsed.name, parsed.kind, parsed.count, parsed.seconds, parsed.rate) == (
            "summary",
            "+",
            147615,
            30.0,
            4920.5,
        )
        assert (parsed.avg_ms, parsed.min_ms, parsed.max_ms) == (30, 7, 1535)
        assert (parsed.errors, parsed.error_pct) == (0, 0.0)
        assert (parsed.active, parsed.started, parsed.finished) == (150, 150, 150)


def test_summariser_old_format_comma_decimals_and_log_prefix() -> None:
    parsed = parse_summary_line(
        "2026-11-22 03:01:46,123 INFO o.a.j.r.Summariser: summary =    354 in   106.1s = "
        "  3,3/s Avg:    36 Min:     5 Max:    91 Err:    15 (4,24%)"
    )
    assert parsed is not None
    assert (parsed.kind, parsed.seconds, parsed.rate, parsed.error_pct) == ("=", 106.1, 3.3, 4.24)
    assert parsed.active is None


def test_real_summariser_logs_ingest_every_line(real_dir: Path, store: Store) -> None:
    files = [
        real_dir / "jmeter" / "generated__jmeter-5.6.3__default.stdout.txt",
        *sorted((real_dir / "jmeter-runs").glob("*.log")),
    ]
    for path in files:
        lines = [ln for ln in path.read_text().splitlines() if re.match(r"summary [+=] ", ln)]
        result = ingest_file(store, path)
        assert result.format == "jmeter-log"
        assert result.rows == len(lines) > 0
    total = store.con.execute(
        "SELECT sum(count) FROM load_windows WHERE kind = '+' AND source_id = 1"
    ).fetchone()
    assert total == (786,)  # the last `summary =` of that console


# -- Build items a user hits: delimiters, dates and zones, gzip, distributed runs, order ------

_ROWS = [
    ("1795316606501", "52", "Q1, with comma", "200", "true"),
    ("1795316606601", "40", "Q2", "500", "false"),
    ("1795316606701", "61", "Q1, with comma", "200", "true"),
]


def _write_delimited(path: Path, delim: str, *, header: bool = True) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle, delimiter=delim, lineterminator="\n")
        if header:
            writer.writerow(["timeStamp", "elapsed", "label", "responseCode", "success"])
        writer.writerows(_ROWS)


@pytest.mark.parametrize("delim", [",", ";", "|", "\t"])
def test_delimiter_detected_from_header(tmp_path: Path, store: Store, delim: str) -> None:
    path = tmp_path / "d.jtl"
    _write_delimited(path, delim)
    assert ingest_file(store, path).rows == 3
    rows = store.con.execute(
        "SELECT start_ms, elapsed_ms, label, response_code, success FROM samples ORDER BY start_ms"
    ).fetchall()
    assert rows == [(int(a), int(b), c, d, e == "true") for a, b, c, d, e in _ROWS]


def test_delimiter_option_forces_a_headerless_file(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "semi.csv"
    _write_delimited(path, ";", header=False)
    columns = ("timeStamp", "elapsed", "label", "responseCode", "success")
    # ';' is one of JMeter's delimiters: found without the option
    assert ingest_file(store, path, options=IngestOptions(columns=columns)).rows == 3
    # forcing ',' reads one field per record: one clear error, the stored file untouched
    forced = IngestOptions(columns=columns, delimiter=",", replace=True)
    with pytest.raises(InputFormatError, match="--delimiter"):
        ingest_file(store, path, format="jtl-csv", options=forced)
    assert store.con.execute("SELECT count(*) FROM samples").fetchone() == (3,)
    options = IngestOptions(columns=columns, delimiter=";", replace=True)
    assert ingest_file(store, path, format="jtl-csv", options=options).rows == 3
    labels = store.con.execute("SELECT label FROM samples ORDER BY start_ms").fetchall()
    assert [r[0] for r in labels] == [r[2] for r in _ROWS]
    with pytest.raises(UsageError, match="one character"):
        ingest_file(store, path, options=IngestOptions(delimiter=";;", replace=True))


def test_time_format_and_timezone_give_exact_epoch_ms(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "dates.jtl"
    path.write_text(
        "timeStamp,elapsed,label,success\n"
        "22.11.2026 03:03:26,52,a,true\n"
        "01.07.2026 12:00:00,40,a,true\n"  # summer time: another UTC offset
    )
    options = IngestOptions(time_format="%d.%m.%Y %H:%M:%S", timezone="America/New_York")
    result = ingest_file(store, path, options=options)
    assert result.rows == 2 and not any("--timezone" in w for w in result.warnings)
    zone = ZoneInfo("America/New_York")
    want = [
        int(datetime(2026, 11, 22, 3, 3, 26, tzinfo=zone).timestamp() * 1000),
        int(datetime(2026, 7, 1, 12, 0, 0, tzinfo=zone).timestamp() * 1000),
    ]
    got = [r[0] for r in store.con.execute("SELECT start_ms FROM samples").fetchall()]
    assert sorted(got) == sorted(want)
    # the same file without --time-format: one clear error at the first record
    with pytest.raises(InputFormatError) as info:
        ingest_file(store, path, options=IngestOptions(replace=True))
    assert str(info.value).startswith(f"{path}:2:") and "--time-format" in str(info.value)
    # a later record in another format: still one clear error naming the option
    mixed = tmp_path / "mixed.jtl"
    mixed.write_text(
        "timeStamp,elapsed,label,success\n2026/11/22 03:03:26.501,5,a,true\n"
        "22.11.2026 03:03:26,5,a,true\n"
    )
    with pytest.raises(InputFormatError, match="--time-format"):
        ingest_file(store, mixed)
    with pytest.raises(UsageError, match="unknown time zone"):
        ingest_file(store, mixed, options=IngestOptions(timezone="Mars/Base"))
    assert store.con.execute("SELECT count(*) FROM sources").fetchone() == (1,)


def test_timezone_option_shifts_jmeter_dates_exactly(real_dir: Path, store: Store) -> None:
    from toolkit import open_store

    path = real_dir / "jmeter" / "generated__jmeter-5.6.3__tab_noheader_datefmt.tsv"
    ingest_file(store, path, options=IngestOptions(timezone="Europe/Paris"))
    paris = [r[0] for r in store.con.execute("SELECT start_ms FROM samples ORDER BY 1").fetchall()]
    with open_store() as utc_store:
        ingest_file(utc_store, path)  # read as UTC, with a warning
        utc = [
            r[0]
            for r in utc_store.con.execute("SELECT start_ms FROM samples ORDER BY 1").fetchall()
        ]
    offset = ZoneInfo("Europe/Paris").utcoffset(datetime(2026, 11, 22, 3, 3))
    assert offset is not None and len(paris) == len(utc) == 126
    assert [u - p for u, p in zip(utc, paris, strict=True)] == [offset.seconds * 1000] * 126


def test_gzip_xml_and_csv_equal_their_plain_files(
    real_dir: Path, store: Store, tmp_path: Path
) -> None:
    for name in ("generated__jmeter-5.6.3__default.xml", "generated__jmeter-5.6.3__default.csv"):
        plain = real_dir / "jmeter" / name
        packed = tmp_path / (name + ".gz")
        packed.write_bytes(gzip.compress(plain.read_bytes()))
        a = ingest_file(store, plain)
        b = ingest_file(store, packed)
        assert a.format == b.format and a.rows == b.rows > 0
        query = """SELECT label, start_ms, elapsed_ms, success, is_transaction, is_subresult
                   FROM samples WHERE source_id = ? ORDER BY ALL"""
        ids = store.con.execute("SELECT max(source_id) - 1, max(source_id) FROM sources").fetchone()
        assert ids is not None
        assert (
            store.con.execute(query, [ids[0]]).fetchall()
            == store.con.execute(query, [ids[1]]).fetchall()
        )


def test_load_generators_into_one_suite_keep_hostname_and_file(
    tmp_path: Path, store: Store
) -> None:
    files = {}
    for i, host in enumerate(("lg-1", "lg-2")):
        path = tmp_path / f"{host}.jtl"
        files[host] = path
        write_jtl(path, 5_000 * (i + 1), seed=i, duration_s=60, warmup_s=0, hostname=host)
    for path in files.values():
        ingest_file(store, path, options=IngestOptions(suite="distributed"))
    suites = store.con.execute("SELECT name FROM suites").fetchall()
    assert suites == [("distributed",)]
    per = store.con.execute(
        """SELECT s.hostname, o.path, count(*) FROM samples s JOIN sources o USING (source_id)
           GROUP BY ALL ORDER BY ALL"""
    ).fetchall()
    assert per == [
        ("lg-1", str(files["lg-1"].resolve()), 5_000),
        ("lg-2", str(files["lg-2"].resolve()), 10_000),
    ]


@pytest.mark.slow
def test_rows_out_of_time_order_give_the_same_analysis(tmp_path: Path) -> None:
    from toolkit import open_store
    from toolkit.pipeline.load import load_report

    ordered = tmp_path / "ordered.jtl"
    write_jtl(ordered, 60_000, seed=4, duration_s=120, warmup_s=20)
    header, *lines = ordered.read_text().splitlines(keepends=True)
    order = np.random.default_rng(0).permutation(len(lines))
    shuffled = tmp_path / "shuffled.jtl"
    shuffled.write_text(header + "".join(lines[i] for i in order))
    payloads = []
    for path in (ordered, shuffled):
        with open_store() as store:
            ingest_file(store, path, options=IngestOptions(suite="run"))
            payloads.append(load_report(store))
    assert payloads[0] == payloads[1]
    assert payloads[0]["suites"][0]["labels"][0]["warmup_status"] == "warmup"


def test_old_and_comma_decimal_summariser_console_ingests(tmp_path: Path, store: Store) -> None:
    # a JMeter <= 2.13 console ("in 30.0s") in a decimal-comma locale
    path = tmp_path / "console.txt"
    path.write_text(
        "Starting the test @ Sun Nov 22 03:00:46 UTC 2026 (1795316446000)\n"
        "summary +    120 in    30.0s =    4,0/s Avg:    36 Min:     5 Max:    91 Err:     3 (2,50%)\n"
        "summary +    234 in    30.1s =    7,8/s Avg:    31 Min:     4 Max:    77 Err:    12 (5,13%)\n"
        "summary =    354 in    60.1s =    5,9/s Avg:    33 Min:     4 Max:    91 Err:    15 (4,24%)\n"
        "Tidying up ...    @ Sun Nov 22 03:01:46 UTC 2026 (1795316506100)\n"
    )
    result = ingest_file(store, path)
    assert (result.format, result.rows) == ("jmeter-log", 3)
    rows = store.con.execute(
        """SELECT kind, count, seconds, rate, avg_ms, errors, epoch_ms(window_end)
           FROM load_windows ORDER BY line"""
    ).fetchall()
    assert rows == [
        ("+", 120, 30.0, 4.0, 36.0, 3, 1795316446000 + 30_000),
        ("+", 234, 30.1, 7.8, 31.0, 12, 1795316446000 + 60_100),
        ("=", 354, 60.1, 5.9, 33.0, 15, 1795316446000 + 60_100),
    ]


# -- progress of large files ---------------------------------------------------------------


@pytest.mark.slow
def test_progress_reported_for_large_csv_and_xml(tmp_path: Path, store: Store) -> None:
    big_csv = tmp_path / "big.jtl"
    write_jtl(big_csv, 60_000, seed=2, duration_s=60, warmup_s=0)
    big_xml = tmp_path / "big.xml"
    sample = '<httpSample t="5" it="0" lt="4" ct="1" ts="{ts}" s="true" lb="home" rc="200"/>\n'
    with big_xml.open("w") as handle:
        handle.write('<?xml version="1.0" encoding="UTF-8"?>\n<testResults version="1.2">\n')
        handle.writelines(sample.format(ts=1_700_000_000_000 + i) for i in range(60_000))
        handle.write("</testResults>\n")
    small = tmp_path / "small.jtl"
    write_jtl(small, 100, seed=2, duration_s=60, warmup_s=0)
    for path in (big_csv, big_xml, small):
        seen: list[tuple[Path, float]] = []
        options = IngestOptions(progress=lambda p, f, seen=seen: seen.append((p, f)))
        ingest_file(store, path, options=options)
        if path is small:
            assert seen == []  # below PROGRESS_MIN_BYTES: no bar
            continue
        assert path.stat().st_size >= PROGRESS_MIN_BYTES
        fractions = [f for p, f in seen if p == path]
        assert fractions and fractions[-1] == 1.0
        assert all(0.0 <= f <= 1.0 for f in fractions)
        assert fractions == sorted(fractions)


def test_duckdb_never_draws_its_progress_bar_on_stdout(tmp_path: Path) -> None:
    from toolkit import open_store

    db = tmp_path / "s.duckdb"
    for read_only in (False, True):
        with open_store(db, read_only=read_only) as store:
            setting = "SELECT current_setting('enable_progress_bar_print')"
            assert store.con.execute(setting).fetchone() == (False,)


@pytest.mark.slow
def test_xml_and_csv_of_the_same_samples_give_the_same_analysis(tmp_path: Path) -> None:
    """The generator writes one sample stream as a CSV and as an XML JTL (the XML with an
    assertionResult per failure and two nested sub-samples on every 10th sample). Both
    ingest with independently counted rows, and `warmup load` gives equal results for ALL
    and every real label: the XML's sub-samples are flagged, counted apart (also in ALL's
    APDEX, which once took the dashboard Total's scope, sub-results included) and its
    failure messages come from the assertions."""
    from toolkit import open_store
    from toolkit.pipeline.load import load_report
    from toolkit.synthetic import write_jtl_xml

    shape = {"seed": 7, "duration_s": 240.0, "warmup_s": 60.0, "error_rate": 0.05}
    csv_path, xml_path = tmp_path / "run.jtl", tmp_path / "run.xml"
    # 40,000 samples in three chunks (was 80,000: the same checks at half the time)
    truth = write_jtl(csv_path, 40_000, chunk_rows=15_000, **shape)
    assert write_jtl_xml(xml_path, 40_000, subsample_every=10, chunk_rows=15_000, **shape) == truth
    assert _xml_samples(xml_path) == 40_000 + 2 * 4_000
    payloads, failures = [], []
    for path, rows in ((csv_path, 40_000), (xml_path, 48_000)):
        with open_store() as store:
            result = ingest_file(store, path, options=IngestOptions(suite="run"))
            assert result.rows == rows
            counts = store.con.execute(
                "SELECT count(*) FILTER (is_subresult), count(*) FILTER (NOT success), "
                "count(failure_message) FROM samples"
            ).fetchone()
            failures.append(counts)
            payloads.append(load_report(store))
    assert failures[0][0] == 0 and failures[1][0] == 8_000
    # the same failed samples, and the same messages (socket timeouts carry none)
    assert failures[0][1:] == failures[1][1:] and failures[0][2] > 0
    by_label = [{lab["label"]: lab for lab in p["suites"][0]["labels"]} for p in payloads]
    assert set(by_label[1]) - set(by_label[0]) == {
        f"{lab}-{i}" for lab in by_label[0] if lab != "ALL" for i in (0, 1)
    }
    for label, entry in by_label[0].items():
        assert by_label[1][label] == entry, label
    everything = by_label[0]["ALL"]
    assert abs(everything["warmup_end_s"] - truth.warmup_s) <= 0.1 * truth.warmup_s
    low, high = everything["throughput"]["steady_ci"]
    assert low <= truth.steady_rate <= high


def test_xml_error_after_streamed_batches_leaves_the_store_unchanged(
    tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The XML parser feeds DuckDB batch by batch inside one INSERT: an error found after
    several batches were taken is still our one-line error (not DuckDB's wrapping of a
    failed Arrow stream), with its line, and nothing of the file is stored."""
    from toolkit.ingest import jmeter_xml
    from toolkit.synthetic import write_jtl_xml

    monkeypatch.setattr(jmeter_xml, "_FLUSH_ROWS", 500)
    monkeypatch.setattr(jmeter_xml, "_CHUNK", 4096)
    path = tmp_path / "bad.xml"
    write_jtl_xml(path, 5_000, seed=3, duration_s=60.0, warmup_s=0.0)
    text = path.read_text().splitlines(keepends=True)
    bad_line = 4_000 * 3 + 3  # each sample takes three lines after the two-line header
    assert text[bad_line - 1].startswith("<httpSample ")
    text[bad_line - 1] = text[bad_line - 1].replace('by="', 'by="x', 1)
    path.write_text("".join(text))
    good = tmp_path / "good.xml"
    write_jtl_xml(good, 3_000, seed=4, duration_s=60.0, warmup_s=0.0)
    ingest_file(store, good)
    before = store.con.execute("SELECT count(*), sum(start_ms) FROM samples").fetchone()
    with pytest.raises(InputFormatError) as info:
        ingest_file(store, path)
    message = str(info.value)
    assert f"bad.xml:{bad_line}" in message and "is not an integer" in message, message
    assert store.con.execute("SELECT count(*), sum(start_ms) FROM samples").fetchone() == before
    assert store.con.execute("SELECT count(*) FROM sources").fetchone() == (1,)


def _sample_fields(store: Store) -> list[tuple[object, ...]]:
    return store.con.execute(
        "SELECT filename, encoding, map_entries(variables) FROM samples ORDER BY start_ms, line"
    ).fetchall()


def test_filename_encoding_and_sample_variables_are_kept(real_dir: Path) -> None:
    """JMeter's Filename and Encoding fields and the saved sample_variables are stored:
    CSV (quoted header names, `null` = unset) and XML (`de=`, extra attributes with
    XStream's doubled underscores, `""` = unset) give the same names and values."""
    from toolkit import open_store

    jm = real_dir / "jmeter"
    seen = {}
    for name in ("Bug54685.csv", "Bug54685.xml"):
        with open_store() as store:
            ingest_file(store, jm / f"bin__testfiles__{name}")
            seen[name] = _sample_fields(store)
    expected = [{"key": "REFERENCE", "value": "reference"}]
    expected.append({"key": "JSESSIONID", "value": "jsessionId"})
    assert seen["Bug54685.csv"] == seen["Bug54685.xml"] == [(None, None, expected)]
    for suffix, rows in (("csv", 126), ("xml", 121)):
        with open_store() as store:
            result = ingest_file(store, jm / f"generated__jmeter-5.6.3__allcols.{suffix}")
            assert result.rows == rows and result.warnings == ()
            keys = store.con.execute(
                "SELECT DISTINCT map_keys(variables), map_values(variables) FROM samples"
            ).fetchall()
            # the run set neither variable: JMeter wrote `null` (CSV) and "" (XML)
            assert keys == [(["__jm__TG__idx", "threads"], [None, None])], suffix
            encodings = store.con.execute(
                "SELECT DISTINCT encoding FROM samples ORDER BY 1 NULLS LAST"
            ).fetchall()
            assert encodings == ([("UTF-8",)] if suffix == "csv" else [("UTF-8",), (None,)])


def test_sample_variable_names_with_quotes_and_xstream_escapes(
    tmp_path: Path, store: Store
) -> None:
    csv_path = tmp_path / "vars.csv"
    csv_path.write_text(
        'timeStamp,elapsed,label,success,Filename,Encoding,"my""var","$x",""\n'
        "1795316590389,62,a,true,resp/1.html,ISO-8859-1,v1,null,\n"
    )
    xml_path = tmp_path / "vars.xml"
    xml_path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<testResults version="1.2">\n'
        '<sample t="62" ts="1795316590389" s="true" lb="a" de="ISO-8859-1" '
        'my__var="v1" _-x="" a___b="2">\n'
        '  <responseFile class="java.lang.String">resp/1.html</responseFile>\n'
        "</sample>\n</testResults>\n"
    )
    ingest_file(store, csv_path)
    ingest_file(store, xml_path)
    rows = store.con.execute(
        "SELECT filename, encoding, variables FROM samples ORDER BY source_id"
    ).fetchall()
    assert rows[0] == ("resp/1.html", "ISO-8859-1", {'my"var': "v1", "$x": None, "": None})
    # ____ -> __ and _- -> $ (XStream); "a___b" is not a valid escape: kept from the left
    assert rows[1] == ("resp/1.html", "ISO-8859-1", {"my_var": "v1", "$x": None, "a__b": "2"})


def test_unrecorded_text_fields_are_null_in_csv_and_xml_alike(real_dir: Path) -> None:
    """JMeter writes an unrecorded text field as an empty CSV field but as `rm=""` in XML,
    and a sample without URL as `null` in CSV but no element in XML. Both read as NULL, so
    the two formats of one run give the same rows (JMeter 5.6.3's own output)."""
    from toolkit import open_store

    text = ["response_code", "response_message", "failure_message", "thread_name"]
    text += ["data_type", "url", "hostname", "filename", "encoding"]
    for name in ("default.csv", "default.xml", "allcols.csv", "allcols.xml"):
        with open_store() as store:
            ingest_file(store, real_dir / "jmeter" / f"generated__jmeter-5.6.3__{name}")
            empty = store.con.execute(
                "SELECT "
                + ", ".join(f"count(*) FILTER ({c} = '')" for c in text)
                + ", count(*) FILTER (url = 'null'), count(*) FILTER (response_message IS NULL)"
                " FROM samples"
            ).fetchone()
            assert empty is not None
            assert empty[:-1] == (0,) * (len(text) + 1), (name, empty)
            assert empty[-1] > 0, name  # JMeter left some messages empty in each run


# -- summariser logs: prefixes, names, line numbers, detection ----------------------------

_PLUS = "+   1234 in 00:00:30 =   41.1/s Avg:   120 Min:    10 Max:  3000 Err:     2 (0.16%)"


def test_summariser_name_and_time_behind_every_prefix(tmp_path: Path, store: Store) -> None:
    # a CI runner's ISO stamp (7 fraction digits, Z or an offset), jmeter.log's log4j2 and
    # JMeter <= 3.1's logkit prefix: the stamp is the window's end, never part of the name;
    # a name may itself hold ': '
    path = tmp_path / "prefixed.log"
    path.write_text(
        f"2026-11-22T03:00:30.1234567Z summary {_PLUS}\n"
        f"2026-11-22T04:01:00+01:00 summary {_PLUS}\n"
        f"2026-11-22T03:01:30.5Z 2026-11-22 03:01:29,250 INFO o.a.j.r.Summariser: summary {_PLUS}\n"
        f"2014/06/11 10:22:11 INFO  - jmeter.reporters.Summariser: summary {_PLUS}\n"
        f"2026-11-22 03:02:00,007 INFO o.a.j.r.Summariser: My Summary: x {_PLUS}\n"
        f"[runner] INFO o.a.j.r.Summariser: summary {_PLUS}\n"
    )
    ingest_file(store, path)
    rows = store.con.execute(
        "SELECT name, strftime(window_end, '%Y-%m-%d %H:%M:%S.%f') FROM load_windows ORDER BY line"
    ).fetchall()
    assert rows == [
        ("summary", "2026-11-22 03:00:30.123456"),
        ("summary", "2026-11-22 03:01:00.000000"),
        ("summary", "2026-11-22 03:01:29.250000"),  # JMeter's own stamp before the CI's
        ("summary", "2014-06-11 10:22:11.000000"),
        ("My Summary: x", "2026-11-22 03:02:00.007000"),
        ("summary", None),
    ]


def test_summariser_line_numbers_count_newlines_only(tmp_path: Path, store: Store) -> None:
    # \x0c, \x1c, \x85 and \u2028 inside messages are not line ends (str.splitlines'd be)
    good = f"summary {_PLUS}"
    odd = "2026-11-22 03:00:01,000 ERROR o.a.j.t.JMeterThread: body \x0c \x1c \x85 \u2028 end"
    path = tmp_path / "odd.log"
    path.write_text(f"{odd}\r\n{good}\r\n{odd}\n{good}\n")
    ingest_file(store, path)
    lines = [
        r[0] for r in store.con.execute("SELECT line FROM load_windows ORDER BY line").fetchall()
    ]
    assert lines == [2, 4]
    bad = tmp_path / "bad.log"
    bad.write_text(f"{odd}\n{odd}\n{good.replace('41.1/s', '4.1.1/s')}\n")
    with pytest.raises(InputFormatError, match=r"bad\.log:3: summariser line"):
        ingest_file(store, bad)


@pytest.mark.parametrize("preamble_lines", [450, 2000])
def test_summariser_found_after_a_long_jmeter_log_preamble(
    tmp_path: Path, preamble_lines: int
) -> None:
    # a jmeter.log logs its plan's set-up before the first report: 450 lines (past the old
    # 400-line look) and 2000 lines of ~120 bytes (past the 64 KiB head)
    head = "2026-11-22 03:00:00,200 INFO o.a.j.e.StandardJMeterEngine: Running the test!\n"
    filler = "2026-11-22 03:00:01,000 INFO o.a.j.s.FileServer: Default base='/opt/" + "x" * 50
    body = head + "".join(f"{filler}{i}'\n" for i in range(preamble_lines))
    path = tmp_path / "jmeter.log"
    path.write_text(body + f"2026-11-22 03:00:30,650 INFO o.a.j.r.Summariser: summary {_PLUS}\n")
    assert detect_format(path) == "jmeter-log"
    gz = tmp_path / "jmeter.log.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert detect_format(gz) == "jmeter-log"
    # a text without a JMeter line in its first 64 KiB is not searched further
    plain = tmp_path / "notes.txt"
    plain.write_text("notes\n" * 12_000 + f"summary {_PLUS}\n")
    with pytest.raises(InputFormatError, match="format not recognised"):
        detect_format(plain)
