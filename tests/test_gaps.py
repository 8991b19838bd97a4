"""Iteration-gap analyzer (seed 002's table), its pipeline, --json payload and CLI."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import jsonschema
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit import ingest_iterations, open_store
from toolkit.analyze.gaps import iteration_gaps, series_gaps
from toolkit.cli import app
from toolkit.pipeline.gaps import gap_tables, gaps_payload
from toolkit.resources import resource_dir

SEED_FIRST = [9.83, 0.256, 1.500, 0.043, 0.042, 0.043, 0.054, 0.042, 0.042, 0.042, 0.042]
SEED_SECOND = [0.972, 0.461, 0.116, 0.066, 0.055, 0.030, 0.036, 0.039, 0.041, 0.041]


def _schema() -> dict[str, object]:
    loaded: dict[str, object] = json.loads(
        (resource_dir("schemas") / "gaps.schema.json").read_text()
    )
    return loaded


def _frame(series: dict[str, list[float | None]], process: int = 0) -> pl.DataFrame:
    rows = [
        {"query": q, "process": process, "iteration": i, "seconds": v}
        for q, runs in series.items()
        for i, v in enumerate(runs)
    ]
    return pl.DataFrame(
        rows,
        schema={
            "query": pl.String,
            "process": pl.Int64,
            "iteration": pl.Int64,
            "seconds": pl.Float64,
        },
    )


def test_seed_first_trajectory_by_hand() -> None:
    """Seed 002, first trajectory: cold 9.83, hot 0.256, 1.500, 0.043, 0.042, 0.043, 0.054,
    0.042 x4. Running min: 0.256, 0.256 (1.5 s spike ignored by the min), 0.043, then 0.042
    from k=4 on. Reference min-all = 0.042. Within ±10 % means <= 0.0462: 0.043 is (2.4 %
    off), so the first k within is 3. ClickBench's hot (k=2) is 0.256 = 6.1x the reference.
    """
    q = series_gaps("Q23", SEED_FIRST)
    assert q.hot_s_by_k == pytest.approx([0.256, 0.256, 0.043] + [0.042] * 7)
    assert q.reference_s == 0.042
    assert q.first_k_within == 3
    assert q.hot_s_by_k[1] is not None and q.hot_s_by_k[1] / 0.042 == pytest.approx(6.095, abs=1e-3)
    assert q.cold_hot_ratio == pytest.approx(9.83 / 0.042)
    assert (q.failed_runs, q.excluded) == (0, None)


def test_seed_second_trajectory_by_hand() -> None:
    """Seed 002, second trajectory: cold 0.972, hot 0.461, 0.116, 0.066, 0.055, 0.030,
    0.036, 0.039, 0.041, 0.041 (monotonic convergence then a drift up). Running min:
    0.461, 0.116, 0.066, 0.055, then 0.030 from k=5. min-all = 0.030, so the first k within
    ±10 % is 5. Against a steady reference of 0.041 (the seed's "steady state" of the tail)
    0.030 is 27 % low: no k before 5 is within either (0.055 is +34 %), and from k=5 on the
    running min is stuck at 0.030: never within -> None (the min-bias the seed points at).
    """
    q = series_gaps("Q7", SEED_SECOND)
    assert q.hot_s_by_k == pytest.approx([0.461, 0.116, 0.066, 0.055] + [0.030] * 5)
    assert (q.reference_s, q.first_k_within) == (0.030, 5)
    steady = series_gaps("Q7", SEED_SECOND, reference_s=0.041, use_reference=True)
    assert steady.first_k_within is None
    assert steady.reference_s == 0.041


def test_seed_pair_table_by_hand() -> None:
    """Both seed trajectories as one suite (the shorter has 9 hot runs, the longer 10: the
    second one misses hot run 10, so it is excluded by the missing-run rule). With just the
    first one the rows are its running min over 0.042: k=2 gap = 0.256/0.042 - 1."""
    t = iteration_gaps(_frame({"Q23": SEED_FIRST, "Q7": SEED_SECOND}))
    assert t.runs == 11
    assert [q.excluded for q in t.per_query] == [None, "failed-run"]
    assert t.rows[1].gap == pytest.approx(0.256 / 0.042 - 1)
    assert t.rows[2].within_tolerance == 1 and t.rows[1].within_tolerance == 0
    assert t.k_for_target == 3  # 0.043 / 0.042 - 1 = +2.4 % <= 5 %
    t2 = iteration_gaps(_frame({"Q23": SEED_FIRST[:10], "Q7": SEED_SECOND}))
    # k=2: (0.256 + 0.116) / (0.042 + 0.030) - 1
    assert t2.rows[1].suite_sum_s == pytest.approx(0.372)
    assert t2.rows[1].gap == pytest.approx(0.372 / 0.072 - 1)
    assert [r.within_tolerance for r in t2.rows] == [0, 0, 1, 1, 2, 2, 2, 2, 2]


def test_failed_hot_run_excludes_query_from_every_row_failed_cold_does_not() -> None:
    """Rule: any failed hot run -> excluded from all rows (sums stay comparable across k);
    a failed cold run only nulls cold_s."""
    t = iteration_gaps(
        _frame(
            {
                "a": [1.0, 0.5, 0.25, 0.25],
                "b": [None, 0.5, 0.5, 0.5],
                "c": [1.0, 0.5, None, 0.125],
            }
        )
    )
    _a, b, c = t.per_query
    assert (b.excluded, b.cold_s, b.failed_runs) == (None, None, 1)
    assert (c.excluded, c.failed_runs) == ("failed-run", 1)
    assert c.hot_s_by_k == (0.5, None, None)
    assert [r.suite_sum_s for r in t.rows] == [1.0, 0.75, 0.75]
    assert [r.excluded for r in t.rows] == [1, 1, 1]
    assert [r.gap for r in t.rows] == [pytest.approx(1.0 / 0.75 - 1), 0.0, 0.0]


def test_processes_are_separate_series() -> None:
    f = pl.concat([_frame({"q": [1.0, 0.5, 0.25]}, 0), _frame({"q": [1.0, 1.0, 1.0]}, 1)])
    t = iteration_gaps(f)
    assert [(q.query, q.process, q.reference_s) for q in t.per_query] == [
        ("q", 0, 0.25),
        ("q", 1, 1.0),
    ]
    assert t.rows[0].suite_sum_s == 1.5 and t.rows[0].reference_sum_s == 1.25


def test_supplied_reference_seam() -> None:
    """reference_s replaces min-all; a query without one is excluded as no-reference."""
    f = _frame({"a": [1.0, 0.5, 0.4], "b": [1.0, 0.3, 0.2]})
    t = iteration_gaps(f, reference="steady", reference_s={"a": 0.4})
    assert t.reference == "steady"
    assert [q.excluded for q in t.per_query] == [None, "no-reference"]
    assert t.rows[0].gap == pytest.approx(0.25)


def test_fixture_table_reproduced_exactly_by_cli(runner, fixtures_dir: Path) -> None:  # type: ignore[no-untyped-def]
    """Acceptance: fixtures/clickbench/jvm-engine (43 queries x 10 runs, made by
    fixtures/make_clickbench_fixture.py). Hand computation from its design table:
    41 included queries with references 39 x 0.25 + 2 x 0.125 = 10 s. hot(k) = r + c until
    the settling run s, r after, so row k sums 10 + sum(c for s > k):
      k=1: 10 + (3.0 + 3.0 + 1.0 + 0.5 + 0.25 + 0.25) = 18   gap 0.8
      k=2: 18 - 3.0 = 15 (0.5);  k=3: 15 - 3.0 = 12 (0.2);  k=4: 12 - 1.0 = 11 (0.1);
      k=5: 11 - 0.5 = 10.5 (0.05);  k=6: 10.5 - 0.25 = 10.25 (0.025);  k>=7: 10 (0).
    Within ±10 % = queries with s <= k (every extra is >= +50 %): 13, 13+7=20, 30, 34,
    37, 39, 41, 41, 41. Excluded: the all-null row and the row with failed hot run 5.
    Smallest k with gap <= 5 %: 5 (6 total runs). All values are multiples of 1/64: exact.
    """
    path = fixtures_dir / "clickbench" / "jvm-engine"
    result = runner.invoke(app, ["gaps", str(path), "--json"])
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    jsonschema.validate(doc, _schema())
    (suite,) = doc["suites"]
    assert suite["suite"] == "JVMEngine (synthetic) / c6a.metal / 2026-05-19"
    assert (suite["queries"], suite["included"], suite["runs"]) == (43, 41, 10)
    assert (suite["reference"], suite["tolerance"], suite["target"]) == ("min-all", 0.1, 0.05)
    rows = [
        (
            r["hot_iterations"],
            r["total_runs"],
            r["suite_sum_s"],
            r["gap"],
            r["within_tolerance"],
            r["excluded"],
        )
        for r in suite["rows"]
    ]
    assert rows == [
        (1, 2, 18.0, 0.8, 13, 2),
        (2, 3, 15.0, 0.5, 20, 2),
        (3, 4, 12.0, 0.2, 30, 2),
        (4, 5, 11.0, 0.1, 34, 2),
        (5, 6, 10.5, 0.05, 37, 2),
        (6, 7, 10.25, 0.025, 39, 2),
        (7, 8, 10.0, 0.0, 41, 2),
        (8, 9, 10.0, 0.0, 41, 2),
        (9, 10, 10.0, 0.0, 41, 2),
    ]
    assert (suite["k_for_target"], suite["runs_for_target"]) == (5, 6)
    firsts = [q["first_k_within"] for q in suite["per_query"] if q["excluded"] is None]
    assert {k: firsts.count(k) for k in set(firsts)} == {1: 13, 2: 7, 3: 10, 4: 4, 5: 3, 6: 2, 7: 2}
    assert sorted(q["excluded"] or "" for q in suite["per_query"])[-2:] == ["failed-run"] * 2
    cold_null = [q for q in suite["per_query"] if q["cold_s"] is None and q["excluded"] is None]
    assert len(cold_null) == 1


def test_three_run_fixture_and_text_table(runner, fixtures_dir: Path) -> None:  # type: ignore[no-untyped-def]
    """native-engine: hot run 1 = 1.25 r, run 2 = r, so k=1 gap +25 %, k=2 gap 0; Q42 has
    a failed hot run and is excluded."""
    path = fixtures_dir / "clickbench" / "native-engine"
    result = runner.invoke(app, ["gaps", str(path)])
    assert result.exit_code == 0, result.stderr
    assert "+25.0 %" in result.stdout and "42/42" in result.stdout and "0/42" in result.stdout
    assert "1 of 43 queries left out of the window's sums (a failed or missing hot run): Q42" in (
        result.stdout
    )
    # with 3 runs min-all is the window itself: said once, instead of a verdict of zeros
    assert result.stdout.count("the table has nothing beyond it") == 1
    assert "Table (min-all reference): suite-sum gap <= 5 % from k = 2 (3 total runs)" in (
        result.stdout
    )
    detail = runner.invoke(app, ["gaps", str(path), "--per-query"])
    assert detail.exit_code == 0, detail.stderr
    # Q1: r = 0.25, cold 1.25, hot runs 0.3125 then 0.25 -> first within at k = 2
    (q1,) = [line for line in detail.stdout.splitlines() if "│ Q1 " in line]
    assert [c.strip() for c in q1.split("│")[1:-1]] == [
        "Q1",
        "1.25",
        "0.3125",
        "0.25",
        "0.25",
        "2",
        "",
    ]
    (q42,) = [line for line in detail.stdout.splitlines() if "│ Q42 " in line]
    assert "failed-run" in q42


def test_db_input_suite_filter_and_tolerance(runner, fixtures_dir: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "s.duckdb"
    ok = runner.invoke(app, ["ingest", "--db", str(db), str(fixtures_dir / "clickbench")])
    assert ok.exit_code == 0, ok.stderr
    name = "NativeEngine (synthetic) / c6a.metal / 2026-05-19"
    result = runner.invoke(
        app, ["gaps", "--db", str(db), "--suite", name, "--tolerance", "0.3", "--json"]
    )
    assert result.exit_code == 0, result.stderr
    (suite,) = json.loads(result.stdout)["suites"]
    assert suite["rows"][0]["within_tolerance"] == 42  # +25 % is inside ±30 %
    bad = runner.invoke(app, ["gaps", "--db", str(db), "--suite", "nope"])
    assert bad.exit_code == 1 and "unknown suite 'nope'" in bad.stderr


def test_reference_errors(runner, fixtures_dir: Path) -> None:  # type: ignore[no-untyped-def]
    path = str(fixtures_dir / "clickbench" / "native-engine")
    bad = runner.invoke(app, ["gaps", path, "--reference", "median"])
    assert bad.exit_code == 1  # a wrong value is a user error (issue 7 §6), not usage
    assert bad.stderr.strip() == "Error: unknown --reference 'median'; use one of: min-all, steady"
    steady = runner.invoke(app, ["gaps", path, "--reference", "steady", "--json"])
    # the warm-up engine gives no steady state for 3-run ClickBench series: every query
    # is excluded as "no-reference" rather than compared with a made-up value
    assert steady.exit_code == 0, steady.stderr
    (suite,) = json.loads(steady.stdout)["suites"]
    assert suite["reference"] == "steady"
    assert {q["excluded"] for q in suite["per_query"]} <= {"no-reference", "failed-run"}
    assert all(q["reference_s"] is None for q in suite["per_query"])


def test_steady_reference_from_the_warmup_engine() -> None:
    """Seed 002's second trajectory: min-all says 0.030 s, the engine's steady state is
    ≈ 0.040 s, so with --reference steady hot(k) for k ≥ 4 (0.030) is 25 % fast instead
    of exactly on target."""
    from toolkit import open_store

    frame = pl.DataFrame(
        {
            "suite": ["s"] * len(SEED_SECOND),
            "query": ["Q7"] * len(SEED_SECOND),
            "iteration": list(range(len(SEED_SECOND))),
            "seconds": SEED_SECOND,
        }
    )
    with open_store() as store:
        ingest_iterations(store, frame)
        (minall,) = gap_tables(store, reference="min-all")
        (steady,) = gap_tables(store, reference="steady")
    assert minall.table.per_query[0].reference_s == pytest.approx(0.030)
    ref = steady.table.per_query[0].reference_s
    assert ref is not None and ref == pytest.approx(0.040, abs=0.0015)
    assert steady.table.rows[-1].gap is not None and steady.table.rows[-1].gap < -0.2


def test_library_frame_through_pipeline_validates() -> None:
    from toolkit import open_store

    frame = pl.DataFrame(
        {
            "suite": ["s"] * 8,
            "query": ["x"] * 4 + ["y"] * 4,
            "iteration": [0, 1, 2, 3] * 2,
            "seconds": [2.0, 1.0, 0.5, 0.5, 2.0, 0.25, 0.25, None],
            "process": [0] * 8,
        }
    )
    with open_store() as store:
        assert ingest_iterations(store, frame) == 8
        payload = gaps_payload(gap_tables(store))
    jsonschema.validate(payload, _schema())
    (suite,) = payload["suites"]
    assert [r["suite_sum_s"] for r in suite["rows"]] == [1.0, 0.5, 0.5]
    assert suite["per_query"][1]["excluded"] == "failed-run"


def test_seed_trajectory_window_error_against_steady_state() -> None:
    """Seed trajectory 1 as a one-query suite, through the iteration findings: the window
    min(0.256, 1.500) = 0.256 s against the steady 0.042 s (median of the steady runs) is
    +510 %, all of it transient (the order-statistic part is the steady runs' own min of
    2 against their median); the min of 3 hot runs (0.043) is the first within 5 %."""
    from toolkit.analyze.iteration_findings import iteration_findings
    from toolkit.pipeline.detect import detect_series

    with open_store() as store:
        ingest_iterations(store, _frame({"Q23": SEED_FIRST}).with_columns(suite=pl.lit("seed")))
        found = iteration_findings(detect_series(store))
    (window,) = [f for f in found if f.rule == "window-error"]
    assert window.severity == "problem"
    steady = 0.042
    assert window.numbers["error"] == pytest.approx(0.256 / steady - 1, rel=0.01)
    error, transient, noise = (
        float(window.numbers[k] or 0) for k in ("error", "transient", "order_statistic")
    )
    assert error == pytest.approx(transient + noise, abs=1e-12)
    assert window.numbers["k_for_target"] == 3
    assert "take the min of 3 hot runs (4 runs per query)" in window.advice
    assert not any(f.rule.startswith(("gap-clickbench", "gap-worst", "min-all")) for f in found)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.floats(0.001, 100.0), min_size=4, max_size=4),
        min_size=1,
        max_size=6,
    )
)
def test_min_all_properties(series: list[list[float]]) -> None:
    """With min-all and no failures: sums never rise with k, gaps are >= 0, the last row
    is the reference (gap 0, every query within), and k_for_target exists."""
    t = iteration_gaps(_frame({f"q{i}": runs for i, runs in enumerate(series)}))
    sums = [r.suite_sum_s for r in t.rows]
    assert all(b <= a for a, b in itertools.pairwise(sums))
    assert all(r.gap is not None and r.gap >= -1e-12 for r in t.rows)
    assert t.rows[-1].gap == pytest.approx(0.0, abs=1e-12)
    assert t.rows[-1].within_tolerance == len(series)
    within = [r.within_tolerance for r in t.rows]
    assert within == sorted(within)
    assert t.k_for_target is not None and t.k_for_target <= 3
    for q in t.per_query:
        assert q.first_k_within is not None
        value = q.hot_s_by_k[q.first_k_within - 1]
        assert value is not None and q.reference_s is not None
        assert value <= q.reference_s * 1.1 * (1 + 1e-9) + 1e-9


@pytest.mark.real
def test_real_files_match_an_independent_computation(runner, real_dir: Path) -> None:  # type: ignore[no-untyped-def]
    """Every real ClickBench file: the rows of `warmup gaps --json` equal a direct
    computation from json.load (queries with any null hot run or a null row left out;
    hot(k) = min(runs[1..k]); reference = min(runs[1:]))."""
    folder = real_dir / "clickbench"
    result = runner.invoke(app, ["gaps", str(folder), "--json"])
    assert result.exit_code == 0, result.stderr
    suites = {s["suite"]: s for s in json.loads(result.stdout)["suites"]}
    checked = 0
    for f in sorted(folder.glob("*.json")):
        doc = json.loads(f.read_text(encoding="utf-8"))
        if "result" not in doc:
            continue
        name = f"{doc['system']} / {doc['machine']} / {doc['date']}"
        candidates = [s for n, s in suites.items() if n == name or n.startswith(name + " #")]
        rows = doc["result"]
        n_hot = max(len(r) for r in rows if r is not None) - 1
        ok = [r for r in rows if r is not None and all(v is not None for v in r[1:])]
        ref = sum(min(r[1:]) for r in ok)
        expected = [
            (k, sum(min(r[1 : k + 1]) for r in ok), len(rows) - len(ok))
            for k in range(1, n_hot + 1)
        ]
        matches = [
            s
            for s in candidates
            if [(r["hot_iterations"], r["suite_sum_s"], r["excluded"]) for r in s["rows"]]
            == [(k, pytest.approx(total, abs=1e-9), ex) for k, total, ex in expected]
        ]
        assert matches, f.name
        for row, (_k, total, _ex) in zip(matches[0]["rows"], expected, strict=True):
            assert row["gap"] == pytest.approx(total / ref - 1, abs=1e-12)
        checked += 1
    assert checked == 43


def test_zero_second_reference_is_kept() -> None:
    """ClickBench rounds to 1 ms: Doris Q0 is [0.45, 0.01, 0]. min-all = 0 s stays a
    reference: hot(1) = 0.01 is not within ±10 % of 0, hot(2) = 0 is; sums include it."""
    t = iteration_gaps(_frame({"Q0": [0.45, 0.01, 0.0], "Q1": [1.0, 0.5, 0.25]}))
    q0 = t.per_query[0]
    assert (q0.excluded, q0.reference_s, q0.first_k_within, q0.cold_hot_ratio) == (
        None,
        0.0,
        2,
        None,
    )
    assert [r.suite_sum_s for r in t.rows] == [0.51, 0.25]
    assert t.rows[0].gap == pytest.approx(0.26 / 0.25)
    only_zero = iteration_gaps(_frame({"Q0": [0.45, 0.01, 0.0]}))
    assert [r.gap for r in only_zero.rows] == [None, None]


#: run times that stress the equality: repeats, 0 s, sub-ms and 1 ms steps, failures
_RUN_VALUES = st.one_of(
    st.none(),
    st.just(float("nan")),
    st.sampled_from([0.0, 0.001, 0.002, 0.0015, 0.01, 0.0101, 0.042, 0.043, 1.0, 1.1, 9.83]),
    st.floats(0.0, 50.0, allow_nan=False),
)


@settings(max_examples=200, deadline=None)
@given(
    series=st.lists(st.lists(_RUN_VALUES, min_size=1, max_size=7), min_size=1, max_size=6),
    processes=st.integers(1, 2),
    steady=st.one_of(
        st.none(),
        st.lists(st.one_of(st.none(), st.floats(-1.0, 20.0), st.just(float("nan"))), max_size=6),
    ),
    tolerance=st.sampled_from([0.0, 0.05, 0.10, 0.5]),
)
@pytest.mark.slow
def test_iteration_gaps_equals_series_gaps(
    series: list[list[float | None]],
    processes: int,
    steady: list[float | None] | None,
    tolerance: float,
) -> None:
    """The table's per-query part, computed for all series at once in arrays (issue 19: a
    Python call per series was most of `warmup gaps` on 2,000 results), equals
    :func:`series_gaps` of each series value for value: hot(k), reference, cold/hot ratio
    (timer resolution included), first k within, failed runs and exclusions, with
    series of unequal length (missing runs), failed runs, 0 s runs and supplied references
    that are missing, NaN or negative."""
    frames = [_frame({f"q{i}": runs for i, runs in enumerate(series)}, p) for p in range(processes)]
    frame = pl.concat(frames)
    reference_s = None if steady is None else {f"q{i}": v for i, v in enumerate(steady)}
    table = iteration_gaps(frame, tolerance=tolerance, reference_s=reference_s)
    n_runs = max(len(runs) for runs in series)
    expected = [
        series_gaps(
            f"q{i}",
            [*runs, *[None] * (n_runs - len(runs))],
            process=p,
            hot_runs=n_runs - 1,
            reference_s=None if reference_s is None else reference_s.get(f"q{i}"),
            use_reference=reference_s is not None,
            tolerance=tolerance,
        )
        for i, runs in enumerate(series)
        for p in range(processes)
    ]
    assert table.per_query == tuple(expected)
