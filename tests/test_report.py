"""The HTML report: sections, escaping, determinism, embedded data and the CLI."""

from __future__ import annotations

import base64
import gzip
import json
import re
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from typing import Any

import jsonschema
import plotly.offline
import pytest
from report_checks import embedded_data, report_data_schema

import toolkit
from toolkit.cli import app
from toolkit.report.sections.gaps import decode_gaps
from toolkit.report.sections.provenance import decode_sources
from toolkit.report.sections.series_columns import decode_series

WHEN = datetime(2026, 5, 19, 12, 0, tzinfo=UTC)
XSS = "<script>alert(1)</script></script><img src=x onerror=alert(1)>"
# the seed's two trajectories (seeds/002): cold + 9 hot runs, seconds
SEED_A = [9.83, 0.256, 1.500, 0.043, 0.042, 0.043, 0.054, 0.042, 0.042, 0.042]
SEED_B = [0.972, 0.461, 0.116, 0.066, 0.055, 0.030, 0.036, 0.039, 0.041, 0.041]


def clickbench_file(folder: Path, *, system: str = "jvm-engine", name: str = "c6a.json") -> Path:
    path = folder / name
    doc = {
        "system": system,
        "date": "2026-05-19",
        "machine": "c6a.metal",
        "result": [SEED_A, SEED_B],
    }
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def render(path: Path, **kwargs: Any) -> str:
    with toolkit.open_store() as store:
        toolkit.ingest_file(store, path)
        return toolkit.render_report(store, generated_at=WHEN, **kwargs)


def test_findings_quote_the_window_gap(tmp_path: Path) -> None:
    html = render(clickbench_file(tmp_path))
    data = embedded_data(html)
    # the window against the engine's steady values: min of hot runs 1-2 is 0.256 s and
    # 0.116 s; the error is the mean of window / steady - 1 over the two series
    (finding,) = (f for f in data["findings"] if f["rule"] == "window-error")
    assert data["findings"][0] == finding and finding["severity"] == "problem"
    steady = {
        s["query"]: s["steady_s"] for s in decode_series(data["sections"]["trajectories"]["series"])
    }

    def error(m: int) -> float:
        return (
            min(SEED_A[1 : m + 1]) / steady["Q0"] + min(SEED_B[1 : m + 1]) / steady["Q1"]
        ) / 2 - 1

    assert finding["numbers"]["error"] == pytest.approx(error(2), rel=1e-9)
    # Q1's fastest run (30 ms) is 27 % below its steady value: no window of 1-9 hot runs
    # has a mean error within 5 %, and the finding says so
    assert all(abs(error(m)) > 0.05 for m in range(1, 10))
    assert finding["numbers"]["k_for_target"] is None
    assert finding["advice"].startswith("no window of up to 9 hot runs gets within ±5%")
    assert html.index('id="findings"') < html.index('id="gaps"') < html.index('id="provenance"')
    # the min-all table keeps the seed's figure: 0.372 s vs 0.072 s = +417 %
    assert "+417%" in html


def test_gap_table_rows_follow_min_of_first_k(tmp_path: Path) -> None:
    data = embedded_data(render(clickbench_file(tmp_path)))
    (suite,) = decode_gaps(data["sections"]["gaps"])
    sums = [row["suite_sum_s"] for row in suite["rows"]]
    assert sums[:5] == pytest.approx(
        [0.256 + 0.461, 0.256 + 0.116, 0.043 + 0.066, 0.042 + 0.055, 0.042 + 0.030]
    )
    assert [row["within_tolerance"] for row in suite["rows"]][:5] == [0, 0, 1, 1, 2]


def test_two_renders_are_byte_identical(tmp_path: Path) -> None:
    path = clickbench_file(tmp_path)
    assert render(path) == render(path)


@pytest.mark.slow
def test_two_renders_with_every_section_are_byte_identical(
    hostile_inputs: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    renders = []
    for _ in range(2):
        with toolkit.open_store() as store:
            for path in hostile_inputs:
                toolkit.ingest_file(store, path)
            renders.append(toolkit.render_report(store, plotlyjs="cdn"))
    assert renders[0] == renders[1]
    sections = set(embedded_data(renders[0])["sections"])
    assert sections == {"gaps", "trajectories", "score", "load", "compare", "cache", "provenance"}


def test_generation_time_comes_from_source_date_epoch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    with toolkit.open_store() as store:
        toolkit.ingest_file(store, clickbench_file(tmp_path))
        first = toolkit.render_report(store, plotlyjs="cdn")
        second = toolkit.render_report(store, plotlyjs="cdn")
    assert first == second
    assert embedded_data(first)["generated_at"] == "2023-11-14T22:13:20Z"


def test_embedded_data_validates_against_schema(tmp_path: Path) -> None:
    data = embedded_data(render(clickbench_file(tmp_path)))
    jsonschema.validate(data, report_data_schema())
    assert set(data["sections"]) == {"gaps", "trajectories", "provenance"}  # one system: no score
    (source,) = decode_sources(data["sections"]["provenance"]["sources"])
    assert source["name"] == "c6a.json" and len(source["sha256"]) == 64
    assert source["path"].endswith("/c6a.json") and source["format"] == "clickbench"


def test_empty_store_has_provenance_only() -> None:
    with toolkit.open_store() as store:
        html = toolkit.render_report(store, generated_at=WHEN)
    data = embedded_data(html)
    jsonschema.validate(data, report_data_schema())
    assert set(data["sections"]) == {"provenance"}
    assert "No findings" in html


def test_plotlyjs_inlined_once_and_figures_have_fixed_ids(tmp_path: Path) -> None:
    html = render(clickbench_file(tmp_path))
    bundle = plotly.offline.get_plotlyjs()
    # inlined once, gzip + base64 (issue 19 §7): it inflates to the bundle, byte for byte
    (packed,) = re.findall(
        r'<script type="application/octet-stream" id="plotly-js-gzip">([^<]*)</script>', html
    )
    assert gzip.decompress(base64.b64decode(packed)).decode("utf-8") == bundle
    assert len(packed) < 0.5 * len(bundle) and bundle[:500] not in html
    assert "<script src=" not in html
    ids = re.findall(r'<div id="(fig-[a-z0-9-]+)" class="plotly-graph-div"', html)
    # the small multiples are drawn in the page from report-data, not shipped as figures
    assert ids == ["fig-gaps"]
    assert '<div class="panel-grid" id="grid-trajectories" data-section="trajectories"' in html
    assert len(html) - len(packed) < 200_000


def test_plotlyjs_directory_and_cdn(tmp_path: Path) -> None:
    with toolkit.open_store() as store:
        toolkit.ingest_file(store, clickbench_file(tmp_path))
        out = toolkit.write_report(
            store, tmp_path / "r.html", plotlyjs="directory", generated_at=WHEN
        )
        cdn = toolkit.render_report(store, plotlyjs="cdn", generated_at=WHEN)
    html = out.read_text(encoding="utf-8")
    assert '<script src="plotly.min.js"' in html
    assert (tmp_path / "plotly.min.js").stat().st_size > 1_000_000
    assert len(html) < 200_000
    version = plotly.offline.get_plotlyjs_version()
    assert f'<script src="https://cdn.plot.ly/plotly-{version}.min.js"' in cdn


@pytest.mark.slow
def test_untrusted_strings_are_escaped(hostile_inputs: list[Path]) -> None:
    with toolkit.open_store() as store:
        for path in hostile_inputs:
            toolkit.ingest_file(store, path)
        html = toolkit.render_report(store, generated_at=WHEN, plotlyjs="cdn")
    data = embedded_data(html)
    # every section that shows a hostile string is there
    assert {"gaps", "trajectories", "score", "load", "compare", "cache"} <= set(data["sections"])
    for raw in ("<script>alert(1)", "</script></script>", "<img src=x"):
        assert raw not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert html.count("<script") == html.count("</script>")
    for section in ("load", "compare", "score", "cache", "trajectories"):
        part = html[html.index(f'<section id="{section}">') :]
        part = part[: part.index("</section>")]
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in part, section
    assert XSS in {f["subject"] for f in data["findings"]}
    labels = {lab["label"] for s in data["sections"]["load"]["suites"] for lab in s["labels"]}
    assert XSS in labels
    assert XSS in {e["system"] for e in data["sections"]["score"]["entries"]}
    assert any(
        s["name"].startswith("<img src=x")
        for s in decode_sources(data["sections"]["provenance"]["sources"])
    )


def test_cli_report_writes_file(tmp_path: Path, runner: Any) -> None:
    path = clickbench_file(tmp_path)
    out = tmp_path / "out.html"
    result = runner.invoke(app, ["report", str(path), "-o", str(out), "--title", "Trino <warm>"])
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    assert "<title>Trino &lt;warm&gt;</title>" in html
    assert "wrote" in result.stderr


def test_cli_report_usage_errors(tmp_path: Path, runner: Any) -> None:
    path = clickbench_file(tmp_path)
    result = runner.invoke(
        app, ["report", str(path), "--plotlyjs", "web", "-o", str(tmp_path / "x.html")]
    )
    assert result.exit_code == 1  # a wrong value: one line, exit 1 (issue 7 §6)
    assert "unknown --plotlyjs 'web'; use one of: inline, directory, cdn" in result.stderr
    result = runner.invoke(app, ["report", "-o", str(tmp_path / "x.html")])
    assert result.exit_code == 2
    result = runner.invoke(app, ["report", str(path), "-o", str(tmp_path / "missing" / "x.html")])
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ") and "does not exist" in result.stderr
    assert not (tmp_path / "missing").exists()


@pytest.mark.slow
def test_demo_report_has_every_section_its_fixtures_feed(demo_report: Path) -> None:
    from toolkit.pipeline.demo import demo_inputs

    # two ClickBench systems (gaps, trajectories, score), two JTLs (load, A/B), profiles
    feeds = {
        "clickbench": {"gaps", "trajectories", "score"},
        "jmeter": {"load", "compare"},
        "profiles": {"cache"},
    }
    expected = {"provenance"}
    root = toolkit.resource_dir("fixtures")
    for path in demo_inputs():
        expected |= feeds[path.relative_to(root).parts[0]]
    assert expected == {"gaps", "trajectories", "score", "load", "compare", "cache", "provenance"}
    html = demo_report.read_text(encoding="utf-8")
    data = embedded_data(html)
    jsonschema.validate(data, report_data_schema())
    assert set(data["sections"]) == expected
    for section in expected:
        assert f'<section id="{section}">' in html
    rules = {f["rule"] for f in data["findings"]}
    assert {
        "window-error",
        "warmup-length",
        "still-warming",
        "score-ranks-move",
        "load-warmup",
        "closed-loop-saturated",
        "compare-throughput",
        "cache-warmup",
    } <= rules
    # seed 001's warehouses once each (the profiles folder holds their runs in two forms)
    warm = [f["subject"] for f in data["findings"] if f["rule"] == "cache-warmup"]
    assert sum("X-Large" in s for s in warm) == sum("Medium" in s for s in warm) == 1, warm
    # the JMeter fixtures: candidate = 1.14x baseline's steady rate by construction
    (pair,) = data["sections"]["compare"]["pairs"]
    assert (pair["a"], pair["b"]) == ("baseline", "candidate")
    (row,) = (r for r in pair["labels"] if r["label"] == "ALL")
    assert row["throughput"]["ratio"] == pytest.approx(2400 / 85.5 / (2000 / 81), rel=0.05)
    for suite in data["sections"]["load"]["suites"]:
        assert suite["littles_law"]["threads"] == 8
    # the seed-shaped fixture: its first finding is the window's error against steady
    # state, JIT warm-up (tag Java) with a small order-statistic part
    jvm = next(f for f in data["findings"] if f["subject"].startswith("JVMEngine"))
    assert (jvm["rule"], jvm["severity"]) == ("window-error", "problem")
    nums = jvm["numbers"]
    assert nums["error"] == pytest.approx(nums["transient"] + nums["order_statistic"])
    assert nums["transient"] > 0.4 and "JIT warm-up" in jvm["message"]


def test_error_types_are_escaped_in_the_error_tables(tmp_path: Path) -> None:
    """JMeter's error types are response messages and assertion messages, untrusted text:
    the report's Errors and Top 5 tables show them escaped, verbatim."""
    path = tmp_path / "errors.csv"
    header = "timeStamp,elapsed,label,responseCode,responseMessage,success,failureMessage\n"
    rows = "".join(
        f'{1_700_000_000_000 + 100 * i},10,page,{code},"{message}",false,"{failure}"\n'
        for i in range(30)
        for code, message, failure in (("500", XSS, ""), ("200", "OK", XSS))
    )
    path.write_text(header + rows)
    with toolkit.open_store() as store:
        toolkit.ingest_file(store, path)
        html = toolkit.render_report(store, generated_at=WHEN, plotlyjs="cdn")
    for raw in ("<script>alert(1)", "</script></script>", "<img src=x"):
        assert raw not in html
    for table in ("table-jmeter-errors-", "table-jmeter-top-errors-"):
        part = html[html.index(table) :]
        part = part[: part.index("</table>")]
        assert "500/&lt;script&gt;alert(1)&lt;/script&gt;" in part, table
        assert f">{escape(XSS)}<" in part, table  # the assertion's message alone
