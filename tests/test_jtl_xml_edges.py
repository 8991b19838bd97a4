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
