"""The seed ``seeds/001_7ff7cf0f253f82a4.txt``: its two Snowflake tables, typed into the
generic profile CSV, must reproduce every figure the seed derives by hand.

Tolerance of the transfer rates: 3 % of the seed's value. The inputs are printed rounded
(bytes to 0.1 GB/MB, shares to whole or tenth percents, times to 0.1 s or whole seconds),
so a recomputed rate can differ from the seed's by the propagated rounding of its inputs.
Where that bound exceeds 3 % (a share printed as 2 % or 7 % carries ±0.5/2 = 25 % or ±7 %)
the test accepts the difference up to that bound and lists the run: Medium runs 4 and 7.
One figure is outside even that bound: X-Large run 7 (seed 431.2 MB/s; its own inputs give
6.9 GB / (29.2 s × 0.675 × 0.84) = 416.8 MB/s, 3.3 % lower, while the input rounding allows
1.6 %). The toolkit reproduces the formula, not the misprint; the test pins 416.8.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit import ingest_file
from toolkit.pipeline.cache import analyze_cache

# (run, elapsed, bytes scanned, remote, local, TableScan, remote I/O, local I/O, processing)
XL = [
    (1, "7m 48s", "121.7 GB", "121.4 GB", "269.9 MB", "99%", "99%", "0%", "0%"),
    (2, "3m 29s", "81.5 GB", "52.2 GB", "29.3 GB", "97.8%", "99%", "0%", "1%"),
    (3, "2m 1s", "70.3 GB", "32.5 GB", "37.8 GB", "95.3%", "98%", "0%", "2%"),
    (4, "1m 1s", "59.9 GB", "14.5 GB", "45.4 GB", "86.5%", "94%", "0%", "5%"),
    (5, "33.5s", "56.0 GB", "7.9 GB", "48.1 GB", "76%", "89%", "0%", "9%"),
    (6, "27.5s", "55.2 GB", "6.6 GB", "48.6 GB", "67.9%", "84%", "1%", "14%"),
    (7, "29.2s", "55.4 GB", "6.9 GB", "48.5 GB", "67.5%", "84%", "1%", "15%"),
]
MEDIUM = [
    (1, "31m", "121.7 GB", "121.5 GB", "242.1 MB", "99.2%", "99%", "0%", "0%"),
    (2, "1m 3s", "51.4 GB", "136.3 MB", "51.2 GB", "39.2%", "18%", "40%", "41%"),
    (3, "1m 33s", "51.3 GB", "82.6 MB", "51.3 GB", "42.7%", "4%", "29%", "66%"),
    (4, "1m 1s", "51.3 GB", "79.3 MB", "51.3 GB", "36.3%", "7%", "46%", "46%"),
    (5, "1m", "51.3 GB", "32.1 MB", "51.3 GB", "36.9%", "6%", "47%", "47%"),
    (6, "1m 1s", "51.3 GB", "45.9 MB", "51.3 GB", "36%", "7%", "48%", "45%"),
    (7, "1m 32s", "51.3 GB", "62.0 MB", "51.3 GB", "57%", "2%", "62%", "36%"),
]
# the seed's printed rates, MB/s (remote) and GB/s (local)
XL_REMOTE = {1: 265.0, 2: 258.4, 3: 288.3, 4: 292.3, 5: 348.0, 6: 420.3, 7: 431.2}
M_REMOTE = {1: 66.5, 2: 31.0, 3: 51.6, 4: 52.9, 5: 24.7, 6: 30.6, 7: 62.0}
M_LOCAL = {2: 5.2, 3: 4.5, 4: 5.0, 5: 5.0, 6: 4.8, 7: 1.6}
# runs whose printed inputs allow more than 3 %: propagated rounding bound of the inputs
ROUNDING_BOUND = {("Medium", 4): 0.5 / 7 + 0.5 / 61, ("Medium", 7): 0.5 / 2 + 0.5 / 92}
SEED_MISPRINT = {("X-Large", 7): 416.8}

HEADER = (
    "series,run,elapsed_s,bytes_scanned,bytes_remote,bytes_local,scan_share,"
    "remote_io_share,local_io_share,processing_share,nodes"
)


def seed_csv(path: Path) -> Path:
    lines = [HEADER]
    for name, nodes, rows in (("X-Large", 16, XL), ("Medium", 4, MEDIUM)):
        lines += [",".join((name, str(r[0]), *r[1:], str(nodes))) for r in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def seed(tmp_path: Path, store):  # type: ignore[no-untyped-def]
    result = ingest_file(store, seed_csv(tmp_path / "seed.csv"))
    assert (result.format, result.rows) == ("profile-csv", 14)
    return {s.series: s for s in analyze_cache(store)}


def test_remote_rates_per_run(seed) -> None:  # type: ignore[no-untyped-def]
    for name, printed in (("X-Large", XL_REMOTE), ("Medium", M_REMOTE)):
        got = {r.run: r.remote_rate for r in seed[name].runs}
        for run, mb_s in printed.items():
            rate = got[run]
            assert rate is not None, (name, run)
            if (name, run) in SEED_MISPRINT:
                assert rate / 1e6 == pytest.approx(SEED_MISPRINT[(name, run)], abs=0.1)
                assert abs(rate / 1e6 / mb_s - 1) > 0.03  # the seed's value is off
                continue
            tol = max(0.03, ROUNDING_BOUND.get((name, run), 0.0))
            assert rate / 1e6 == pytest.approx(mb_s, rel=tol), (name, run, rate)
    # X-Large run 1, the seed's formula: 121.4 GB / (468 s × 0.99 × 0.99) = 264.7 MB/s
    assert seed["X-Large"].runs[0].remote_rate / 1e6 == pytest.approx(264.7, abs=0.05)


def test_local_rates_and_ratio(seed) -> None:  # type: ignore[no-untyped-def]
    medium = seed["Medium"]
    got = {r.run: r.local_rate for r in medium.runs}
    for run, gb_s in M_LOCAL.items():
        assert got[run] is not None
        assert got[run] / 1e9 == pytest.approx(gb_s, rel=0.03), run
    assert got[1] is None  # 0 % local I/O: no local rate, as in the seed
    # X-Large: local I/O 0-1 % of a < 20 s scan is under the 1-s rule: no local rate (seed: none)
    assert all(r.local_rate is None for r in seed["X-Large"].runs)
    assert seed["X-Large"].local_remote_ratio is None
    # series figures: "~66.5 MB/s", "~5 GB/s" (median 4.90), "~75x" (73.7x: about 75, 2 %)
    assert medium.remote_rate / 1e6 == pytest.approx(66.5, rel=0.01)
    assert medium.local_rate / 1e9 == pytest.approx(5.0, rel=0.03)
    assert medium.local_remote_ratio == pytest.approx(75, rel=0.03)
    assert seed["X-Large"].remote_rate / 1e6 == pytest.approx(265.0, rel=0.01)
    assert seed["X-Large"].remote_rate_run == 1


def test_time_per_tb(seed) -> None:  # type: ignore[no-untyped-def]
    # "63 minutes to read 1 TB" and "4 hours 10 minutes", within a minute
    assert seed["X-Large"].remote_time_per_tb_s / 60 == pytest.approx(63, abs=1)
    assert seed["Medium"].remote_time_per_tb_s / 60 == pytest.approx(4 * 60 + 10, abs=1)


def test_compaction(seed) -> None:  # type: ignore[no-untyped-def]
    xl = seed["X-Large"]
    assert (xl.scanned_first, xl.scanned_last) == (121_700_000_000, 55_400_000_000)
    assert xl.compaction == pytest.approx(121.7 / 55.4)


def test_capacity_and_warmth(seed) -> None:  # type: ignore[no-untyped-def]
    """The tables show the plateau of local bytes: 48.5 GB on X-Large (3.0 GB per node,
    profiles.md §1) and 51.3 GB on Medium (12.8 GB per node). The seed's ~700 GB (~45 GB
    per node) and ~460 GB (~115 GB per node) come from a separate heavy query whose runs it
    does not print; :func:`test_capacity_per_node_as_in_seed` feeds that method. Both plateaus
    are lower bounds, as the seed's ~700 GB shows for X-Large."""
    xl, medium = seed["X-Large"], seed["Medium"]
    assert xl.capacity_bytes == 48_500_000_000
    assert xl.capacity_per_node_bytes == pytest.approx(48.5e9 / 16)
    assert medium.capacity_bytes == 51_300_000_000
    assert medium.capacity_per_node_bytes == pytest.approx(51.3e9 / 4)
    assert "lower bound" in xl.capacity_note and "still read remotely" in xl.capacity_note
    # the seed: Medium "put almost all data to Local Cache after the first attempt";
    # X-Large reaches its final local share (87.5 %) within 2 % at run 5 (85.9 %)
    assert medium.runs_to_warm == 2
    assert xl.runs_to_warm == 5
    assert xl.warm_metric == "local_share"
    # cold-to-warm: 468 s against the warm level 29.2 s; 1860 s against 61 s
    assert xl.speedup == pytest.approx(468 / 29.2)
    assert medium.speedup == pytest.approx(1860 / 61)


def test_capacity_per_node_as_in_seed(tmp_path: Path, store) -> None:  # type: ignore[no-untyped-def]
    """The seed's method: the most local bytes seen for a heavy query, divided by nodes:
    ~700 GB / 16 = 43.75 GB ("~45 GB per node") and ~460 GB / 4 = 115 GB."""
    rows = [HEADER]
    for name, nodes, total in (("heavy XL", 16, 700), ("heavy M", 4, 460)):
        # capacity needs a warming trend (issue 16 item 5): the time falls as the cache fills
        for run, (t, local) in enumerate(
            ((100, total * 0.6), (40, total * 0.98), (30, total), (30, total)), start=1
        ):
            rows.append(f"{name},{run},{t},{total} GB,,{local} GB,,,,,{nodes}")
    path = tmp_path / "heavy.csv"
    path.write_text("\n".join(rows) + "\n")
    ingest_file(store, path)
    got = {s.series: s for s in analyze_cache(store)}
    assert got["heavy XL"].capacity_per_node_bytes / 1e9 == pytest.approx(45, rel=0.03)
    assert got["heavy M"].capacity_per_node_bytes / 1e9 == pytest.approx(115, rel=0.001)


def test_curve_fit_and_attribution(seed) -> None:  # type: ignore[no-untyped-def]
    xl = seed["X-Large"]
    assert xl.fit is not None
    assert {f.model for f in xl.fits} == {"step", "geometric", "power"}
    # a gradual fill (seed: "more data into the Local Cache with each subsequent run")
    # is not a step; the geometric model's asymptote lies near the last runs (27.5-33.5 s)
    assert xl.fit.model != "step"
    geo = next(f for f in xl.fits if f.model == "geometric")
    assert 20 < geo.t_inf_s < 40
    assert geo.tau_runs is not None and 0.5 < geo.tau_runs < 3
    medium = seed["Medium"]
    # one-shot fill on Medium: the step model wins by AIC
    assert medium.fit is not None and medium.fit.model == "step"
    att = xl.attribution
    assert att is not None and att.r_squared > 0.95
    # remote bytes explain the time: about 1/265 MB/s = 3.8 s per GB remote
    assert 2.0 < att.s_per_remote_byte * 1e9 < 6.0


def test_runs_to_warm_edge_cases() -> None:
    from toolkit.analyze.cache import runs_to_warm

    assert runs_to_warm([10.0, 1.0], epsilon=0.02) == 2
    assert runs_to_warm([10.0, 1.0, 1.01, 1.0], epsilon=0.02) == 2
    assert runs_to_warm([10.0, 1.0, 2.0], epsilon=0.02) is None  # last run off the level
    assert runs_to_warm([1.0], epsilon=0.02) is None
