"""How the report and the load/compare tables show numbers: plain digits, intervals that
are not symmetric, error percentages, the cool-down, chart titles with quotes, the load
window and the parameters in provenance, the A/B pairing, the written file's size."""

from __future__ import annotations

import html as htmllib
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from report_checks import embedded_data, report_of
from summariser_logs import console, windows

import toolkit
from toolkit.cli import app
from toolkit.cli.report import file_size
from toolkit.numbers import (
    error_pct_above,
    fmt_error_pct,
    fmt_interval,
    fmt_num,
    fmt_ratio,
)
from toolkit.report.figures import plot_text

START_MS = 1_700_000_000_000


def shaped_jtl(path: Path) -> Path:
    """A CSV JTL whose display cases are known.

    ``home``: 100 s at 100/s, then 20 s falling to 10/s (threads finishing: a cool-down
    near 100 s); 1 error in 11,055 samples; one sample of 21,782 ms. ``api``: 2,000
    samples, 18 errors (0.90 %). ``pay``: 255 samples, 3 errors (1.18 %). ``rare``: 3
    samples in 100 s (its steady-rate interval reaches 0 and is clamped there).
    ``slow``: 300 samples of 12-25 s.
    """
    rnd = random.Random(7)
    events: list[tuple[int, int, str, bool]] = []
    n = 0
    for sec in range(120):
        rate = 100 if sec < 100 else round(100 - 4.5 * (sec - 99))
        for i in range(rate):
            n += 1
            elapsed = 21_782 if n == 5_000 else rnd.randint(40, 60)
            events.append((START_MS + sec * 1000 + i * 1000 // rate, elapsed, "home", n != 7_777))
    for label, count, errors, low, high in (
        ("api", 2000, 18, 100, 200),
        ("pay", 255, 3, 100, 200),
        ("slow", 300, 0, 12_000, 25_000),
    ):
        for k in range(count):
            at = START_MS + k * 100_000 // count
            events.append((at, rnd.randint(low, high), label, k >= errors))
    for at in (10_000, 50_000, 90_000):
        events.append((START_MS + at, 170, "rare", True))
    events.sort()
    lines = ["timeStamp,elapsed,label,responseCode,success,allThreads"]
    for ts, elapsed, label, ok in events:
        lines.append(f"{ts},{elapsed},{label},{200 if ok else 500},{str(ok).lower()},20")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def table_rows(text: str, table_id: str) -> list[list[tuple[str, str]]]:
    """The rows of table ``table_id`` as (shown text, class attribute) per cell; the header
    row first."""
    start = text.index(f'id="{table_id}"')
    body = text[start : text.index("</table>", start)]
    rows = []
    for row in re.findall(r"<tr>(.*?)</tr>", body, re.S):
        cells = re.findall(r"<t[hd]([^>]*)>(.*?)</t[hd]>", row, re.S)
        rows.append(
            [
                (
                    htmllib.unescape(re.sub(r"<[^>]+>", "", inner)).strip(),
                    (re.search(r'class="([^"]*)"', attrs) or re.search("()", "")).group(1),  # type: ignore[union-attr]
                )
                for attrs, inner in cells
            ]
        )
    return rows


def by_label(text: str, table_id: str) -> tuple[list[str], dict[str, list[tuple[str, str]]]]:
    header, *rows = table_rows(text, table_id)
    return [h for h, _ in header], {row[0][0]: row for row in rows}


def labels_json(data: Any) -> dict[str, Any]:
    (suite,) = data["sections"]["load"]["suites"]
    return {lab["label"]: lab for lab in suite["labels"]}


@pytest.fixture
def narrow() -> Any:
    """A CLI runner on an 80-column terminal."""
    from typer.testing import CliRunner

    return CliRunner(env={"COLUMNS": "80", "NO_COLOR": "1"})


@pytest.fixture(scope="module")
def shaped(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Any]:
    path = shaped_jtl(tmp_path_factory.mktemp("shape") / "shape.jtl")
    text, data = report_of(path)
    return path, text, data


# -- 1. plain digits -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (21_782.0, "21,782"),
        (26_600.4, "26,600"),
        (13_610.2, "13,610"),
        (1_234_567.8, "1,234,568"),
        (100.4, "100"),
        (99.96, "100"),
        (12.345, "12.3"),
        (1.2345, "1.23"),
        (0.02703, "0.027"),
        (28.0, "28"),
        (5.0, "5"),
        (0.0012, "0.0012"),
        (0.0, "0"),
        (None, "–"),
        (float("nan"), "–"),
    ],
)
def test_numbers_are_plain_digits(value: float | None, shown: str) -> None:
    assert fmt_num(value) == shown


@pytest.mark.slow
def test_large_latencies_and_rates_keep_their_digits(shaped: tuple[Path, str, Any]) -> None:
    _, text, data = shaped
    dashboard = {
        row["transaction"]: row for row in data["sections"]["load"]["suites"][0]["dashboard"]
    }
    assert dashboard["home"]["maxResTime"] == 21_782
    header, rows = by_label(text, "table-jmeter-0")
    assert rows["home"][header.index("Max ms")][0] == "21,782"
    # the slow label's percentiles are all above 10 s: shown whole, with separators
    slow = labels_json(data)["slow"]["latency_ms"]["overall"]
    header, rows = by_label(text, "table-load-0")
    shown = rows["slow"][header.index("whole-run p50 / p95 / p99 ms")][0]
    assert shown == " / ".join(f"{round(slow[p]):,}" for p in ("p50", "p95", "p99"))
    load = text[text.index('<section id="load">') :]
    load = load[: load.index("</section>")]
    tables = "".join(re.findall(r"<table.*?</table>", load, re.S))
    assert not re.search(r"\d[eE][+-]\d", tables)


@pytest.mark.real
@pytest.mark.slow
def test_real_jmeter_maximum_is_shown_in_full(real_dir: Path) -> None:
    text, _data = report_of(real_dir / "jmeter" / "bin__testfiles__sample_log1.jtl")
    header, rows = by_label(text, "table-jmeter-0")
    assert rows["Total"][header.index("Max ms")][0] == "21,782"  # JSON: 21782 (was 2.178e+04)


def test_cli_load_table_keeps_digits_and_fits_80_columns(
    shaped: tuple[Path, str, Any], narrow: Any
) -> None:
    path, _, data = shaped
    res = narrow.invoke(app, ["load", str(path)])
    assert res.exit_code == 0, res.output
    slow = labels_json(data)["slow"]["latency_ms"]["overall"]
    assert f"{round(slow['p99']):,}" in res.stdout
    assert not re.search(r"\d[eE][+-]\d", res.stdout)
    assert max(len(line) for line in res.stdout.splitlines()) <= 80


def test_cli_compare_ratios_and_intervals_fit_80_columns(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from toolkit.cli.load import _print_compare

    monkeypatch.setenv("COLUMNS", "80")
    part = {"a": 15_670.4, "b": 15_733.1, "ratio": 1.004, "ci": [0.9962, 1.0121]}
    lat = {"a": 587.7, "b": 176.6, "ratio": 0.3005, "ci": [0.2831, 0.4119]}
    payload = {
        "a": "a rather long baseline suite name",
        "b": "candidate",
        "level": 0.95,
        "labels": [
            {"label": label, "throughput": part, "latency_mean_ms": lat, "error_rate": errors}
            for label, errors in (
                ("ALL", {"a": 0.0123, "b": 0.0345, "difference": 0.0222}),
                ("http://jakarta.apache.org/jmeter/index.html", {"a": 0, "b": 0, "difference": 0}),
            )
        ],
    }
    _print_compare(payload)
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    # ratios near 1 keep three decimals (.3g printed "1 (0.996-1)"), the interval is whole
    assert "1.004 (0.996–1.012)" in out and "0.300 (0.283–0.412)" in out
    assert "15,670" in out and "15,733" in out
    assert out.count("1.004 (0.996–1.012)") == 2
    # error rates in %, their difference in points (no ratio: 0 errors is common)
    assert re.search(r"errors\s+1\.2%\s+3\.5%\s+B−A \+2\.2 pt", out), out
    assert re.search(r"errors\s+0%\s+0%\s+same", out), out


# -- 2. quotes in chart titles ---------------------------------------------------------


def test_plot_text_escapes_markup_but_not_quotes() -> None:
    assert plot_text('a"b') == 'a"b'
    assert plot_text("it's") == "it's"
    assert plot_text('"><img src=x onerror=alert(1)>') == '"&gt;&lt;img src=x onerror=alert(1)&gt;'
    assert plot_text("<b>x</b> & y") == "&lt;b&gt;x&lt;/b&gt; &amp; y"


def test_chart_title_keeps_a_quote(tmp_path: Path) -> None:
    path = tmp_path / "q.jtl"
    lines = ["timeStamp,elapsed,label,responseCode,success,allThreads"]
    lines += [f'{START_MS + i * 100},{20 + i % 7},"a""b",200,true,4' for i in range(600)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    text, _ = report_of(path)
    titles = re.findall(r'"title":\{"font":\{[^}]*\},"text":"((?:[^"\\]|\\.)*)"', text)
    titles += re.findall(r'"title":\{"text":"((?:[^"\\]|\\.)*)"', text)
    decoded = [json.loads(f'"{t}"') for t in titles]
    assert 'a"b' in decoded, decoded
    assert not any("&quot;" in t for t in decoded)


# -- 3. a JTL and its own log are not an A/B pair --------------------------------------


@pytest.mark.slow
def test_jtl_and_a_summariser_log_are_not_compared(
    shaped: tuple[Path, str, Any], tmp_path: Path
) -> None:
    path, _, _ = shaped
    log = tmp_path / "jmeter.log"
    log.write_text("\n".join(console({"summary": windows(seed=1)})) + "\n", encoding="utf-8")
    _, data = report_of(path, log)
    assert [s["source"] for s in data["sections"]["load"]["suites"]] == ["samples", "summariser"]
    assert "compare" not in data["sections"]
    assert not any(f["rule"].startswith("compare") for f in data["findings"])


def test_two_summariser_logs_are_still_compared(tmp_path: Path) -> None:
    paths = []
    for n in (1, 2):
        log = tmp_path / f"run{n}.log"
        lines = console({"summary": windows(seed=n, scale=n)})
        log.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(log)
    _, data = report_of(*paths)
    (pair,) = data["sections"]["compare"]["pairs"]
    assert (pair["a"], pair["b"]) == ("run1", "run2")


@pytest.mark.real
@pytest.mark.slow
def test_real_jtl_and_its_console_are_not_compared(real_dir: Path) -> None:
    jm = real_dir / "jmeter"
    _, data = report_of(
        jm / "generated__jmeter-5.6.3__default.csv",
        jm / "generated__jmeter-5.6.3__default.stdout.txt",
    )
    assert len(data["sections"]["load"]["suites"]) == 2
    assert "compare" not in data["sections"]


# -- 4. the load window and the parameters in provenance --------------------------------


def test_load_window_option_and_provenance(
    shaped: tuple[Path, str, Any], tmp_path: Path, runner: Any
) -> None:
    path, _text, data = shaped
    # default: 1 s windows; only the load parameter is listed (no hot-iteration window)
    assert data["sections"]["load"]["window_s"] == 1.0
    assert data["sections"]["provenance"]["parameters"] == {
        "load_window_s": 1.0,
        "load_apdex": "T = 500 ms, F = 1500 ms",
    }
    out = tmp_path / "r.html"
    res = runner.invoke(app, ["report", str(path), "--load-window", "5s", "-o", str(out)])
    assert res.exit_code == 0, res.output
    page = out.read_text(encoding="utf-8")
    wide = embedded_data(page)
    assert wide["sections"]["load"]["window_s"] == 5.0
    assert {s["window_s"] for s in wide["sections"]["load"]["series"]} == {5.0}
    assert wide["sections"]["provenance"]["parameters"] == {
        "load_window_s": 5.0,
        "load_apdex": "T = 500 ms, F = 1500 ms",
    }
    settings = {row[0][0]: row[1][0] for row in table_rows(page, "table-settings")[1:]}
    assert settings["parameter: load window (s)"] == "5"
    assert not any("hot iterations" in k for k in settings)
    bad = runner.invoke(app, ["report", str(path), "--load-window", "0", "-o", str(out)])
    assert bad.exit_code == 1 and "--load-window '0'" in bad.output


@pytest.mark.slow
def test_provenance_lists_the_parameters_of_the_sections_present(tmp_path: Path) -> None:
    bench = tmp_path / "c6a.json"
    result = [[9.83, 0.256, 0.15, 0.043, 0.042], [0.972, 0.461, 0.116, 0.066, 0.055]]
    bench.write_text(json.dumps({"system": "x", "result": result}), encoding="utf-8")
    _, data = report_of(bench)
    assert set(data["sections"]["provenance"]["parameters"]) == {"tolerance", "window", "reference"}
    jtl = shaped_jtl(tmp_path / "run.jtl")
    _, both = report_of(bench, jtl, load_window_s=2.0)
    assert both["sections"]["provenance"]["parameters"]["load_window_s"] == 2.0
    assert both["sections"]["provenance"]["parameters"]["window"] == 2
    with pytest.raises(toolkit.ToolkitError, match=r"load_window_s 0\.0 s: must be from 0\.001 s"):
        report_of(jtl, load_window_s=0.0)


# -- 5. an interval clamped at 0 is not ± -------------------------------------------------


def test_interval_text() -> None:
    assert fmt_interval(1234.5, 1222.3, 1246.7) == "1,234 ± 12"
    assert fmt_interval(0.02703, 0.0, 0.0818) == "0.027 (0–0.0818)"
    assert fmt_ratio(1.004) == "1.004"


def test_clamped_interval_shows_its_bounds(shaped: tuple[Path, str, Any], narrow: Any) -> None:
    """The rare label's interval was clamped at 0 (a rate of a handful of samples); with
    fewer than MIN_VERDICT_SAMPLES it now has no verdict and no interval, shown as "-";
    common labels keep their ± interval."""
    from toolkit.analyze.timeseries import MIN_VERDICT_SAMPLES

    path, text, data = shaped
    rare = labels_json(data)["rare"]
    assert rare["samples"] < MIN_VERDICT_SAMPLES
    assert rare["warmup_status"] == "too-short" and rare["throughput"]["steady_ci"] is None
    header, rows = by_label(text, "table-load-0")
    assert rows["rare"][header.index("steady throughput /s (95 % CI)")][0] in ("-", "–")
    assert "±" in rows["home"][header.index("steady throughput /s (95 % CI)")][0]
    res = narrow.invoke(app, ["load", str(path)])
    assert res.exit_code == 0


@pytest.mark.real
def test_real_clamped_interval(real_dir: Path) -> None:
    """JR-KO's 3 failed samples got "flat, 0.027/s (0–0.0818)": a verdict from 3 events;
    now too-short, no interval, while JR-OK's 252 keep theirs."""
    text, data = report_of(real_dir / "jmeter" / "bin__testfiles__HTMLReportTestFile.csv")
    ko = labels_json(data)["JR-KO"]
    assert ko["samples"] == 3 and ko["warmup_status"] == "too-short"
    assert ko["throughput"]["steady_ci"] is None
    assert labels_json(data)["JR-OK"]["throughput"]["steady_ci"] is not None
    header, rows = by_label(text, "table-load-0")
    assert rows["JR-KO"][header.index("steady throughput /s (95 % CI)")][0] in ("-", "–")


# -- 6. error percentages ---------------------------------------------------------------


def test_error_percentages_and_their_colour(shaped: tuple[Path, str, Any]) -> None:
    _, text, _ = shaped
    header, rows = by_label(text, "table-load-0")
    col = header.index("errors")
    assert rows["home"][col][0] == "1 (0.009%)"  # was "1 (0%)"
    assert rows["api"][col][0] == "18 (0.9%)" and "tone-bad" not in rows["api"][col][1]
    assert rows["pay"][col][0] == "3 (1.2%)" and "tone-bad" in rows["pay"][col][1]
    assert fmt_error_pct(1 / 10_000) == "0.01%"
    assert fmt_error_pct(0.010004) == "1%" and not error_pct_above(0.010004, 1.0)
    assert error_pct_above(0.0118, 1.0) and fmt_error_pct(0.35) == "35%"
    header, rows = by_label(text, "table-jmeter-0")
    assert rows["home"][header.index("Error %")][0] == "0.009%"


# -- 7. the cool-down -------------------------------------------------------------------


def test_cool_down_is_shown(shaped: tuple[Path, str, Any], narrow: Any) -> None:
    path, text, data = shaped
    labels = labels_json(data)
    cool = labels["home"]["cooldown_start_s"]
    assert cool is not None and 95 <= cool <= 105
    assert labels["api"]["cooldown_start_s"] is None
    header, rows = by_label(text, "table-load-0")
    col = header.index("cool-down from")
    assert rows["home"][col][0] == f"{cool:g} s"
    assert rows["api"][col][0] == ""
    assert 'title="exact, between the warm-up end and the cool-down start"' in text
    res = narrow.invoke(app, ["load", str(path)])
    home = next(line for line in res.stdout.splitlines() if line.strip().startswith("home"))
    assert f"{labels['home']['warmup_end_s']:g}–{cool:g}" in home


# -- 8. the written file's size ---------------------------------------------------------


def test_file_size_text() -> None:
    assert file_size(512) == "512 bytes"
    assert file_size(39_210) == "39 kB"
    assert file_size(999_499) == "999 kB"
    assert file_size(999_500) == "1.0 MB"
    assert file_size(4_612_000) == "4.6 MB"


@pytest.mark.slow
def test_cli_report_prints_kilobytes(
    shaped: tuple[Path, str, Any], tmp_path: Path, runner: Any
) -> None:
    path, _, _ = shaped
    out = tmp_path / "r.html"
    res = runner.invoke(app, ["report", str(path), "--plotlyjs", "directory", "-o", str(out)])
    assert res.exit_code == 0, res.output
    size = out.stat().st_size
    assert size < 1_000_000
    assert f"wrote {out} ({size / 1000:.0f} kB)" in res.output
