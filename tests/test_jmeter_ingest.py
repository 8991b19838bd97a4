"""JMeter CSV/XML JTL and summariser-log ingest, on the real files in ../shared/real."""

from __future__ import annotations

import csv
import gzip
import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from toolkit import IngestOptions, InputFormatError, Store, ingest_file
from toolkit.ingest import detect_format
from toolkit.ingest.jmeter_log import parse_summary_line

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
    assert f"{path}:495:" in result.warnings[0] and "incomplete" in result.warnings[0]
    term = ingest_file(store, real_dir / "jmeter" / "generated__jmeter-5.6.3__killed-SIGTERM.csv")
    assert term.rows == 519 and term.warnings == ()


def test_killed_sigkill_xml_keeps_complete_samples(real_dir: Path, store: Store) -> None:
    path = real_dir / "jmeter" / "generated__jmeter-5.6.3__killed-SIGKILL.xml"
    result = ingest_file(store, path)
    top = store.con.execute("SELECT count(*) FROM samples WHERE NOT is_subresult").fetchone()
    assert top is not None and top[0] == 167
    assert any("without </testResults>" in w for w in result.warnings)


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


def test_headerless_timezone_option_shifts_times(real_dir: Path, store: Store) -> None:
    path = real_dir / "jmeter" / "generated__jmeter-5.6.3__tab_noheader_datefmt.tsv"
    ingest_file(store, path, options=IngestOptions(timezone="Europe/Paris"))
    row = store.con.execute("SELECT min(start_ms) FROM samples").fetchone()
    utc = store.con.execute("SELECT 1795316606501 - 3600 * 1000").fetchone()
    assert row is not None and utc is not None and row[0] <= utc[0]


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


def test_seed_summariser_line_parses_exactly() -> None:
    line = (
        "summary + 147615 in 00:00:30 = 4920.5/s Avg: 30 Min: 7 Max: 1535 Err: 0 (0.00%) "
        "Active: 150 Started: 150 Finished: 150"
    )
    parsed = parse_summary_line(line)
    assert parsed is not None
    assert (parsed.name, parsed.kind, parsed.count, parsed.seconds, parsed.rate) == (
        "summary",
        "+",
        147615,
        30.0,
        4920.5,
    )
    assert (parsed.avg_ms, parsed.min_ms, parsed.max_ms, parsed.errors, parsed.error_pct) == (
        30,
        7,
        1535,
        0,
        0.0,
    )
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
