"""Edge cases of the XML JTL reader (audit of toolkit/ingest/jmeter_xml.py): transaction
children, XML 1.0-illegal character references, version-1.0 URL decoding, killed files,
statSample, assertion messages, booleans and the root element."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit import Store
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
