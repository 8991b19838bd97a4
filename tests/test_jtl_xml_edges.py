"""Edge cases of the XML JTL reader (audit of toolkit/ingest/jmeter_xml.py): transaction
children, XML 1.0-illegal character references, version-1.0 URL decoding, killed files,
statSample, assertion messages, booleans and the root element."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolkit import Store
from toolkit.errors import InputFormatError
from toolkit.ingest import ingest_file, jmeter_xml

HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'


def _jtl(
    tmp_path: Path, name: str, body: str, *, root: str = '<testResults version="1.2">'
) -> Path:
    path = tmp_path / name
    path.write_text(HEAD + root + "\n" + body + "</testResults>\n", encoding="utf-8")
    return path


def _rows(store: Store, columns: str) -> list[tuple[object, ...]]:
    return store.con.execute(f"SELECT {columns} FROM samples ORDER BY line, label").fetchall()


# --- character references XML 1.0 forbids (JMeter writes them, bug 59973) ---------------


@pytest.mark.parametrize(
    ("refs", "kept"),
    [
        ("&#xfffe;&#xFFFF;", ""),
        ("&#xd800;&#xDFFF;&#55296;", ""),
        ("&#x0;&#x1c;&#31;&#0000000000000000000000001;", ""),
        ("&#x110000;&#1114112;&#x0000000000000000000000000000ffff;", ""),
        ("&#xa;&#9;&#x20ac;&#xd;&#x10FFFF;&#xFFFD;&#xe000;", "\n\t\u20ac\r\U0010ffff\ufffd\ue000"),
    ],
)
def test_forbidden_character_references_are_dropped_valid_ones_kept(
    tmp_path: Path, store: Store, refs: str, kept: str
) -> None:
    path = _jtl(tmp_path, "refs.xml", f'<sample t="1" ts="1000" s="true" lb="x{refs}y"/>\n')
    assert ingest_file(store, path).rows == 1
    assert _rows(store, "label") == [(f"x{kept}y",)]


def test_references_split_across_read_chunks(
    tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every chunk boundary falls somewhere inside one of the references."""
    refs = "&#xfffe;&#xd800;&#x0;&#00000000000000000000000001;&#x20ac;&#xa;"
    body = "".join(
        f'<sample t="1" ts="{1000 + i}" s="true" lb="{"p" * i}{refs}"/>\n' for i in range(40)
    )
    for chunk in (5, 7, 13, 64):
        monkeypatch.setattr(jmeter_xml, "_CHUNK", chunk)
        path = _jtl(tmp_path, f"split{chunk}.xml", body + f"<!-- {chunk} -->\n")
        assert ingest_file(store, path).rows == 40, chunk
    labels = store.con.execute("SELECT DISTINCT replace(label, 'p', '') FROM samples").fetchall()
    assert labels == [("\u20ac\n",)]


# --- version 1.0 URL encoding (TestResultWrapperConverter + ConversionHelp.decode) --------

_ENCODED = (
    '<sample t="10" ts="1000" s="true" lb="a+b%20c" rc="2%300" rm="O%4B" tn="T+1-1" '
    'dt="te%78t" by="10" hn="h%41" myVar="v+%31"/>\n'
)


@pytest.mark.parametrize(
    ("root", "decoded"),
    [
        ("<testResults>", True),
        ('<testResults version="">', True),
        ('<testResults version="1.0">', True),
        ('<testResults version="1.1">', False),
        ('<testResults version="1.2">', False),
        ('<testResults version="1.0 ">', False),
    ],
)
def test_version_1_0_missing_or_empty_url_decodes_text_attributes(
    tmp_path: Path, store: Store, root: str, decoded: bool
) -> None:
    ingest_file(store, _jtl(tmp_path, "v.xml", _ENCODED, root=root))
    row = _rows(
        store,
        "label, response_code, response_message, thread_name, data_type, "
        "bytes, hostname, variables['myVar']",
    )
    if decoded:
        # numbers and hn are written plain by JMeter, never decoded
        assert row == [("a b c", "200", "OK", "T 1-1", "text", 10, "h%41", "v 1")]
    else:
        assert row == [("a+b%20c", "2%300", "O%4B", "T+1-1", "te%78t", 10, "h%41", "v+%31")]


# --- Transaction Controller children are samples, not sub-results (research §1.6) ---------

_TC = "Number of samples in transaction"


def _flags(store: Store, source: str) -> set[tuple[object, ...]]:
    return set(
        store.con.execute(
            "SELECT DISTINCT s.label, s.is_transaction, s.is_subresult FROM samples s "
            "JOIN sources USING (source_id) WHERE sources.path LIKE ?",
            [f"%{source}"],
        ).fetchall()
    )


@pytest.mark.parametrize("run", ["default", "allcols", "killed-SIGTERM"])
def test_xml_flags_each_label_as_the_csv_of_a_5_6_3_run_does(
    real_dir: Path, store: Store, run: str
) -> None:
    """The XML and CSV files are different runs of one plan: compare the flags per label."""
    base = real_dir / "jmeter" / f"generated__jmeter-5.6.3__{run}"
    for suffix in (".xml", ".csv"):
        ingest_file(store, base.with_name(base.name + suffix))
    xml, csv = _flags(store, f"{run}.xml"), _flags(store, f"{run}.csv")
    # (label, is_subresult), and which labels are transactions; a run cut by its end may
    # hold a "TC parent" with no message (not a transaction) in one file and not the other
    assert {(lb, sub) for lb, _, sub in xml} == {(lb, sub) for lb, _, sub in csv}
    assert {lb for lb, tc, _ in xml if tc} == {lb for lb, tc, _ in csv if tc}
    assert ("child A", False, False) in xml and ("child B", False, False) in xml
    assert ("TC parent", True, False) in xml


def _independent_all(path: Path) -> tuple[int, int]:
    """(samples that are neither a transaction nor nested in an ordinary sample, child A/B
    samples), counted with ElementTree."""
    import xml.etree.ElementTree as ET

    def walk(element: ET.Element, in_ordinary: bool) -> tuple[int, int]:
        total = children = 0
        for child in element:
            if child.tag not in ("sample", "httpSample"):
                continue
            is_tc = (child.get("rm") or "").startswith(_TC)
            if not in_ordinary and not is_tc:
                total += 1
                children += child.get("lb") in ("child A", "child B")
            sub_total, sub_children = walk(child, in_ordinary or not is_tc)
            total, children = total + sub_total, children + sub_children
        return total, children

    return walk(ET.parse(path).getroot(), False)


def test_load_all_of_default_xml_counts_transaction_children(
    real_dir: Path, runner: CliRunner
) -> None:
    import json

    from toolkit.cli import app

    path = real_dir / "jmeter" / "generated__jmeter-5.6.3__default.xml"
    expected, children = _independent_all(path)
    assert children == 104  # 52 TC parent samples with child A and child B each
    result = runner.invoke(app, ["load", "--json", str(path)])
    assert result.exit_code == 0, result.stderr
    labels = json.loads(result.stdout)["suites"][0]["labels"]
    total = next(row["samples"] for row in labels if row["label"] == "ALL")
    assert total == expected == 210


def test_embedded_resources_stay_subresults_inside_a_transaction(
    tmp_path: Path, store: Store
) -> None:
    body = (
        f'<sample t="90" ts="1000" s="true" lb="TC" rc="200" rm="{_TC} : 2, number of '
        'failing samples : 0" dt="">\n'
        '  <httpSample t="40" ts="1000" s="true" lb="page" rc="200" dt="text">\n'
        '    <httpSample t="10" ts="1001" s="true" lb="page-0" rc="200" dt="bin">\n'
        '      <httpSample t="5" ts="1001" s="true" lb="page-0-0" rc="200" dt="bin"/>\n'
        "    </httpSample>\n"
        "  </httpSample>\n"
        f'  <sample t="40" ts="1050" s="true" lb="inner TC" rm="{_TC} : 1, x" dt="">\n'
        '    <sample t="40" ts="1050" s="true" lb="step" rc="200" dt="text"/>\n'
        "  </sample>\n"
        "</sample>\n"
        '<sample t="50" ts="2000" s="true" lb="TC" rc="" rm="" dt="">\n'
        '  <sample t="50" ts="2000" s="true" lb="step" rc="200" dt="text"/>\n'
        "</sample>\n"
    )
    ingest_file(store, _jtl(tmp_path, "nest.xml", body))
    assert _rows(store, "label, is_transaction, is_subresult") == [
        ("TC", True, False),
        ("page", False, False),
        ("page-0", False, True),
        ("page-0-0", False, True),
        ("inner TC", True, False),
        ("step", False, False),
        # cut at the end of a timed run: rc, rm and dt empty under a transaction label:
        # still a transaction (it counted as a sample); its children are samples
        ("TC", True, False),
        ("step", False, False),
    ]


# --- a killed file: an unfinished sample is dropped with its children ---------------------

_ORPHAN = (
    HEAD + '<testResults version="1.2">\n'
    '<sample t="5" ts="1000" s="true" lb="top1"/>\n'
    f'<sample t="90" ts="1100" s="true" lb="TC parent" rc="200" rm="{_TC} : 2, x">\n'
    '  <sample t="40" ts="1100" s="true" lb="child A"/>\n'
    '  <sample t="45" ts="1140" s="true" lb="chi'
)


def test_children_of_an_unfinished_parent_are_not_stored(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "killed.xml"
    path.write_text(_ORPHAN)
    result = ingest_file(store, path)
    assert _rows(store, "label") == [("top1",)]
    assert result.rows == 1
    (warning,) = result.warnings
    assert "kept 1 complete top-level samples" in warning, warning
    assert "dropped 1 unfinished (from line 4) and 1 complete samples nested in them" in warning


def test_unfinished_parent_with_more_children_than_a_batch_is_counted_honestly(
    tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past _FLUSH_ROWS nested samples are handed on (memory stays bounded): the warning
    then says how many of them were kept."""
    monkeypatch.setattr(jmeter_xml, "_FLUSH_ROWS", 3)
    path = tmp_path / "killed_big.xml"
    kids = "".join(f'  <sample t="1" ts="{1100 + i}" s="true" lb="c{i}"/>\n' for i in range(4))
    path.write_text(_ORPHAN.replace('  <sample t="40"', kids + '  <sample t="40"'))
    result = ingest_file(store, path)
    stored = store.con.execute("SELECT count(*) FROM samples").fetchone()
    assert stored == (4,)  # top1 and the first batch of 3 nested samples
    (warning,) = result.warnings
    assert "and 2 complete samples nested in them; 3 samples nested in them were kept" in warning


# --- statSample, assertion messages, booleans, the root element ---------------------------


def test_stat_sample_is_read_with_its_counts(tmp_path: Path, store: Store) -> None:
    body = (
        '<statSample t="100" ts="1000" s="true" lb="agg" rc="200" sc="50" ec="2"/>\n'
        '<sample t="10" ts="1001" s="true" lb="x"/>\n'
    )
    assert ingest_file(store, _jtl(tmp_path, "stat.xml", body)).rows == 2
    assert _rows(store, "label, elapsed_ms, sample_count, error_count") == [
        ("agg", 100, 50, 2),
        ("x", 10, None, None),
    ]


def _assertion(name: str, failure: str, message: str | None) -> str:
    text = f"<failureMessage>{message}</failureMessage>" if message is not None else ""
    return (
        f"<assertionResult><name>{name}</name><failure>{failure}</failure>"
        f"<error>false</error>{text}</assertionResult>"
    )


@pytest.mark.parametrize(
    ("assertions", "expected"),
    [
        # the first failing assertion has no message: the later one's is taken
        ([("A", "true", None), ("B", "true", "real message")], "real message"),
        ([("A", "true", "first"), ("B", "true", "second")], "first"),
        # CSVSaveService takes the first non-null message, failing or not
        ([("A", "false", "note"), ("B", "true", "bad")], "note"),
        # present but empty is not null: it wins, and is NULL as an empty CSV field
        ([("A", "true", ""), ("B", "true", "later")], None),
        ([("A", "true", None)], None),
    ],
)
def test_failure_message_is_the_first_non_null_assertion_message(
    tmp_path: Path,
    store: Store,
    assertions: list[tuple[str, str, str | None]],
    expected: str | None,
) -> None:
    inner = "".join(_assertion(*a) for a in assertions)
    body = f'<sample t="10" ts="1000" s="false" lb="x">{inner}</sample>\n'
    ingest_file(store, _jtl(tmp_path, "assert.xml", body))
    assert _rows(store, "failure_message") == [(expected,)]


def test_success_is_case_insensitive_like_java(tmp_path: Path, store: Store) -> None:
    body = "".join(
        f'<sample t="1" ts="{1000 + i}" s="{s}" lb="{s}"/>\n'
        for i, s in enumerate(("TRUE", "True", "true", "FALSE", "false", "yes"))
    )
    ingest_file(store, _jtl(tmp_path, "bool.xml", body))
    assert dict(_rows(store, "label, success")) == {
        "TRUE": True,
        "True": True,
        "true": True,
        "FALSE": False,
        "false": False,
        "yes": False,
    }


def test_a_sample_root_with_test_results_inside_is_refused(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "noroot.xml"
    path.write_text(HEAD + '<sample t="1" ts="1000" s="true" lb="x"><testResults/></sample>\n')
    with pytest.raises(InputFormatError) as caught:
        ingest_file(store, path)
    assert str(caught.value) == (
        f"{path}:2: root element is <sample>, not <testResults>: not a JMeter XML JTL"
    )
    assert store.con.execute("SELECT count(*) FROM samples").fetchone() == (0,)
