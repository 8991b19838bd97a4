"""A JMeter XML JTL of the shape JMeter writes is read a block of lines at a time in
columns (:mod:`toolkit.ingest.jmeter_xml_lines`, issue 20 item 3: expat's callbacks cost
~2.5x an expat parse). The store must hold exactly what expat's callbacks store (every
column, the row order, ``line``, the source's rows and warnings, the errors), whatever the
file: one the columns cannot follow is read by expat's callbacks instead, one whose lines
they follow but do not all hold to the XML rules is read again in columns with expat
parsing the same bytes. Here the size threshold is lowered so that small files take the
columnar path; a mutation test compares both readings on hundreds of damaged documents.
"""

from __future__ import annotations

import gzip
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jmeter_checks import stored_jtl

import toolkit.ingest.jmeter_xml as jtl_xml
import toolkit.ingest.jmeter_xml_lines as lines
from toolkit.synthetic import write_jtl_xml

ROOT = Path(__file__).resolve().parent.parent
RECORDED = ROOT / "fixtures" / "jmeter" / "recorded"


@pytest.fixture
def columns(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every XML file takes the columnar path when it can; how each columnar read ended
    (``columns``, ``checked columns``: expat parsed the bytes too, or the exception that
    sent the file elsewhere), in order."""
    monkeypatch.setattr(lines, "COLUMNAR_MIN_BYTES", 0)
    outcomes: list[str] = []
    real = lines.columnar_batches

    def recording(*args: Any, **kwargs: Any) -> Iterator[Any]:
        try:
            yield from real(*args, **kwargs)
        except lines.Irregular as exc:
            outcomes.append(type(exc).__name__)
            raise
        outcomes.append("checked columns" if kwargs.get("checked") else "columns")

    monkeypatch.setattr(lines, "columnar_batches", recording)
    return outcomes


def _by_expat(path: Path) -> Any:
    """What expat's callbacks store (the reading before this one, still the fallback)."""
    return stored_jtl(path, **{jtl_xml._EXPAT_ONLY: "1"})


def test_a_generated_run_reads_the_same_in_columns(tmp_path: Path, columns: list[str]) -> None:
    path = tmp_path / "run.xml"
    write_jtl_xml(path, 3_000, subsample_every=7, duration_s=30, warmup_s=5, error_rate=0.05)
    stored = stored_jtl(path)
    assert columns == ["columns"]  # read in columns alone: no expat pass
    assert stored == _by_expat(path)
    rows = stored[0]
    assert len(rows) == 3_000 + 2 * 429 and stored[3] == []
    text = path.read_text().split("\n")
    # every row's line is where its element starts; nested rows stand before their parent
    assert all(text[row[22] - 1].lstrip().startswith("<httpSample") for row in rows)
    assert any(row[21] for row in rows) and any(row[9] for row in rows)  # sub-results, failures


def test_blocks_end_between_top_level_samples_and_number_lines_on(
    tmp_path: Path, columns: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read 4 KiB at a time (a dozen samples a block, nested ones never cut from their
    parent), the store is the same, line numbers included."""
    monkeypatch.setattr(lines, "_BLOCK", 4096)
    path = tmp_path / "run.xml"
    write_jtl_xml(path, 2_000, subsample_every=3, duration_s=20, warmup_s=5, error_rate=0.1)
    assert stored_jtl(path) == _by_expat(path)
    assert columns == ["columns"]


def test_a_sample_longer_than_a_block_allows_is_read_by_expat(
    tmp_path: Path, columns: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A top-level sample of more than ``_MAX_CARRY`` bytes (thousands of sub-results)
    is not held whole for the columns: expat's callbacks read the file."""
    monkeypatch.setattr(jtl_xml, "_CHUNK", 1024)
    monkeypatch.setattr(lines, "_BLOCK", 1024)
    monkeypatch.setattr(lines, "_MAX_CARRY", 4096)
    nested = "".join("  " + line for line in _samples(60, "child").splitlines(keepends=True))
    parent = _SAMPLE.format(t=99, ts=1795300000000, lb="parent").replace("/>", ">")
    path = tmp_path / "run.xml"
    path.write_text(_document(parent + nested + "</httpSample>\n" + _samples(5)))
    stored = stored_jtl(path)
    assert stored == _by_expat(path) and len(stored[0]) == 66
    assert columns == ["Irregular"]


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(
            name,
            id=name.split(".")[0],
            marks=() if name.startswith(("xml-allfields", "xml-default")) else pytest.mark.ci_only,
        )
        for name in sorted(p.name for p in RECORDED.glob("*.xml.gz"))
    ],
)
def test_recorded_jmeter_files_read_the_same_in_columns(name: str, columns: list[str]) -> None:
    path = RECORDED / name
    assert stored_jtl(path) == _by_expat(path)
    # JMeter's own files are read in columns; with response data and headers saved
    # (xml-allfields: text over several lines) expat checks the bytes too
    assert columns[-1:] == ["checked columns" if name == "xml-allfields.xml.gz" else "columns"]


@pytest.mark.ci_only
def test_real_jmeter_xml_files_read_the_same_in_columns(real_dir: Path, columns: list[str]) -> None:
    files = sorted((real_dir / "jmeter").glob("*.xml")) + sorted(
        f for f in (real_dir / "jmeter").glob("*.jtl") if f.read_bytes()[:200].count(b"<") > 1
    )
    assert len(files) >= 14
    for file in files:
        assert stored_jtl(file) == _by_expat(file), file.name
    # all but the killed one (no </testResults>: not tried) and the test plans
    assert columns.count("columns") + columns.count("checked columns") >= 12


def _document(body: str, root: str = '<testResults version="1.2">') -> str:
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{root}\n{body}</testResults>\n'


_SAMPLE = (
    '<httpSample t="{t}" it="0" lt="1" ct="1" ts="{ts}" s="true" lb="{lb}" rc="200" '
    'rm="OK" tn="TG 1-1" dt="text" by="10" sby="5" ng="1" na="1"/>\n'
)


def _samples(count: int, label: str = "home") -> str:
    return "".join(
        _SAMPLE.format(t=10 + i % 7, ts=1795300000000 + 100 * i, lb=label) for i in range(count)
    )


@pytest.mark.parametrize(
    ("case", "outcome"),
    [
        ("crlf", "columns"),
        ("bom", "columns"),
        ("references", "columns"),
        ("comment", "Irregular"),
        ("version 1.0", "Irregular"),
        ("root attributes", "checked columns"),
        ("response data", "checked columns"),
        ("bare ampersand", "Irregular"),
        ("control character", "Irregular"),
        ("two tags on a line", "Irregular"),
        ("tag over two lines", "Irregular"),
        ("mismatched end tag", "Irregular"),
        ("bad integer", "Irregular"),
        ("a tag over 4 MiB", "Irregular"),
    ],
)
def test_each_shape_reads_as_expat_reads_it(
    tmp_path: Path, columns: list[str], case: str, outcome: str
) -> None:
    body = _samples(20)
    root = '<testResults version="1.2">'
    text = ""
    if case == "crlf":
        text = _document(body).replace("\n", "\r\n")
    elif case == "bom":
        text = "\ufeff" + _document(body)
    elif case == "references":
        label = "a &amp; b &lt;c&gt; &quot;q&quot; &apos;s&apos; &#xa;&#233;&#x1F600;\ttab &#1;"
        text = _document(_samples(20, label))
    elif case == "comment":
        text = _document("<!-- a comment -->\n" + body)
    elif case == "version 1.0":
        text = _document(_samples(20, "a+b%20c"), '<testResults version="1.0">')
    elif case == "root attributes":
        text = _document(body, '<testResults version="1.2" generator="other">')
    elif case == "response data":
        text = _document(
            body.replace(
                "/>\n",
                '>\n  <responseData class="java.lang.String">line 1\nline 2</responseData>\n'
                "</httpSample>\n",
                3,
            )
        )
    elif case == "bare ampersand":
        text = _document(_samples(20, "a & b"))
    elif case == "control character":
        text = _document(_samples(20, "a\x01b"))
    elif case == "two tags on a line":
        text = _document(body.replace("/>\n<httpSample", "/><httpSample", 1))
    elif case == "tag over two lines":
        text = _document(body.replace(' rc="200"', '\n rc="200"', 1))
    elif case == "mismatched end tag":
        text = _document(body.replace("/>\n", ">\n</sample>\n", 1), root)
    elif case == "bad integer":
        text = _document(body.replace('t="10"', 't="+10"', 1))
    elif case == "a tag over 4 MiB":  # expat's read refuses it, naming its line
        text = _document(_samples(1, "z" * (jtl_xml.MAX_TAG_BYTES + 1)) + body)
    path = tmp_path / "case.xml"
    path.write_bytes(text.encode("utf-8"))
    assert stored_jtl(path) == _by_expat(path)
    assert columns[-1] == outcome


def test_a_killed_runs_gzip_file_is_read_by_expat(tmp_path: Path, columns: list[str]) -> None:
    """A plain file without ``</testResults>`` is not tried in columns; a gzip file's end
    is seen only at its end, and then read by expat, which says what the end drops."""
    text = _document(_samples(30)).removesuffix("</testResults>\n")
    text = text + '<httpSample t="1" it="0"'
    for name, data in (("cut.xml", text.encode()), ("cut.xml.gz", gzip.compress(text.encode()))):
        path = tmp_path / name
        path.write_bytes(data)
        stored = stored_jtl(path)
        assert stored == _by_expat(path)
        assert "file ends without </testResults>" in stored[2][0][2][0]
    assert columns == ["Irregular"]


#: what a damaged document may gain, inside its values and texts or anywhere
_TOKENS = (
    "<", ">", "&", '"', "'", "\x01", "\t", "\r", "]]>", "&#0;", "&#xD800;", "&foo;",
    "<!-- c -->", "\n", " ", "/", "=", "é", "\ufffe", "<![CDATA[x]]>", "<?pi x?>",
    "1.0", "x", "0x1", " 5", "-", "99999999999999999999",
)  # fmt: skip
_MUTANT_BASE = """<?xml version="1.0" encoding="UTF-8"?>
<testResults version="1.2">
<httpSample t="12" it="0" lt="10" ct="2" ts="1795300000000" s="true" lb="home &amp; away" \
rc="200" rm="OK&#xa;line" tn="TG 1-1" dt="text" by="100" sby="10" ng="1" na="1" \
v1="a&lt;b" v__2="">
  <httpSample t="5" it="0" lt="4" ct="1" ts="1795300000001" s="true" lb="home-0" rc="200" \
rm="OK" tn="TG 1-1" dt="bin" by="50" sby="5" ng="1" na="1" v1="x" v__2="y"/>
  <assertionResult>
    <name>Resp</name>
    <failure>true</failure>
    <error>false</error>
    <failureMessage>expected &quot;x&quot; got &apos;y&apos;</failureMessage>
  </assertionResult>
  <java.net.URL>http://h/a?b=1&amp;c=2</java.net.URL>
</httpSample>
<sample t="30" it="1" lt="0" ct="0" ts="1795300000100" s="false" lb="TC" rc="500" \
rm="Number of samples in transaction : 1, number of failing samples : 1" tn="TG 1-2" dt="" \
by="0" sby="0" ng="1" na="1" v1="" v__2="">
  <sample t="29" it="0" lt="0" ct="0" ts="1795300000100" s="false" lb="inner" rc="500" \
rm="Err" tn="TG 1-2" dt="text" by="3" sby="1" ng="1" na="1" v1="q" v__2="r">
    <responseFile class="java.lang.String">out.bin</responseFile>
  </sample>
</sample>
<httpSample t="7" it="0" lt="6" ct="1" ts="1795300000200" s="true" lb="tab\there" rc="200" \
rm="OK" tn="TG 1-1" dt="text" by="9" sby="9" ng="2" na="2" v1="&#9;" v__2="&#x1F600;"/>
</testResults>
"""


def _mutant(rng: random.Random) -> str:
    """:data:`_MUTANT_BASE` with one to three damages: a token put anywhere or inside a
    value or text, bytes cut, two lines swapped, a line repeated elsewhere."""
    text = _MUTANT_BASE
    for _ in range(rng.randint(1, 3)):
        chance, at = rng.random(), rng.randrange(len(text))
        if chance < 0.2:
            text = text[:at] + rng.choice(_TOKENS) + text[at:]
        elif chance < 0.45:
            at = rng.choice([m.end() for m in re.finditer(r'="|>(?=[^<\n]*</)', text)])
            text = text[:at] + rng.choice(_TOKENS) + text[at:]
        elif chance < 0.6:
            text = text[:at] + text[at + rng.randint(1, 8) :]
        else:
            rows = text.split("\n")
            one, other = rng.randrange(len(rows)), rng.randrange(len(rows))
            if chance < 0.8:
                rows[one], rows[other] = rows[other], rows[one]
            else:
                rows.insert(one, rows[other])
            text = "\n".join(rows)
    return text


@pytest.mark.parametrize(
    "count", [40, pytest.param(400, marks=pytest.mark.ci_only)], ids=["quick", "long"]
)
@pytest.mark.slow
def test_damaged_documents_read_as_expat_reads_them(
    tmp_path: Path, columns: list[str], count: int
) -> None:
    """Each damaged document stores the same rows, or gives the same one-line error,
    read in columns as by expat's callbacks (found so: a line before the root that the
    columns took for an assertion's text; a tag holding a reference expat's read
    removes)."""
    rng = random.Random(20261127)
    path = tmp_path / "mutant.xml"
    for at in range(count):
        path.write_bytes(_mutant(rng).encode("utf-8", "surrogatepass"))
        assert stored_jtl(path) == _by_expat(path), f"mutant {at}: {path.read_text()[:2000]}"
    # the test reaches every path: read in columns, checked, and sent to expat
    assert {"columns", "Irregular", "Unchecked"} <= set(columns)
    assert columns.count("columns") >= count // 20
