"""``warmup cache``: read profiled runs from a store, analyse each series, build the JSON.

One series = one ``query_runs.series`` value and cache epoch, runs in ``run`` order.
Series whose every run reports 0 bytes scanned (DDL, ``USE``, metadata-only statements
in a query-history export) are left out: there is no cache to warm.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from toolkit.analyze.cache import CacheSeries, cache_series
from toolkit.store import Store

_COLUMNS = """series, cache_epoch, run, elapsed_ms / 1000.0 AS elapsed_s, bytes_scanned,
    bytes_remote, bytes_local, scan_share, remote_io_share, local_io_share, result_cache_hit,
    nodes, split_method, system, warehouse_size"""


def profile_runs(store: Store, suites: list[str] | None = None) -> pl.DataFrame:
    """All ``query_runs`` rows (of the named suites) with elapsed time in seconds."""
    ids = store.suite_ids(suites, kind="profile") if suites else None
    where = ""
    params: list[object] = []
    if ids is not None:
        where = f"WHERE suite_id IN ({', '.join('?' for _ in ids)})"
        params = list(ids)
    return store.frame(
        f"SELECT {_COLUMNS} FROM query_runs {where} "
        # series in the order they were first ingested
        "ORDER BY min(rowid) OVER (PARTITION BY series), cache_epoch, run",
        params,
    )


def analyse_cache(
    store: Store,
    *,
    suites: list[str] | None = None,
    epsilon: float = 0.02,
    min_io_s: float = 1.0,
) -> list[CacheSeries]:
    """Run :func:`toolkit.analyze.cache.cache_series` on every series in the store."""
    frame = profile_runs(store, suites)
    results: list[CacheSeries] = []
    if frame.is_empty():
        return results
    for (series, epoch), part in frame.group_by(["series", "cache_epoch"], maintain_order=True):
        scanned = part.get_column("bytes_scanned")
        if scanned.null_count() < part.height and (scanned.fill_null(0) == 0).all():
            continue
        nodes_col = part.get_column("nodes").drop_nulls()
        nodes = int(nodes_col.max()) if nodes_col.len() else None  # type: ignore[arg-type]
        name = str(series) if int(str(epoch)) == 1 else f"{series} (cache epoch {epoch})"
        result = cache_series(part, series=name, nodes=nodes, epsilon=epsilon, min_io_s=min_io_s)
        if result.runs:
            results.append(result)
    return results


def _fit_json(series: CacheSeries) -> dict[str, Any] | None:
    fit = series.fit
    if fit is None:
        return None
    return {
        "model": fit.model,
        "t_inf_s": fit.t_inf_s,
        "tau_runs": fit.tau_runs,
        "beta": fit.beta,
        "k_eps": fit.k_eps,
        "aic": {f.model: f.aic for f in series.fits},
    }


def cache_payload(results: list[CacheSeries]) -> dict[str, Any]:
    """The ``warmup cache --json`` payload (DESIGN.md CLI contract; rates in bytes/s)."""
    out = []
    for s in results:
        att = s.attribution
        out.append(
            {
                "series": s.series,
                "nodes": s.nodes,
                "runs": [
                    {
                        "run": r.run,
                        "elapsed_s": r.elapsed_s,
                        "bytes_scanned": r.bytes_scanned,
                        "bytes_remote": r.bytes_remote,
                        "bytes_local": r.bytes_local,
                        "local_share": r.local_share,
                        "remote_rate": r.remote_rate,
                        "local_rate": r.local_rate,
                        "rate_basis": r.rate_basis,
                    }
                    for r in s.runs
                ],
                "excluded_runs": list(s.excluded_runs),
                "remote_rate": s.remote_rate,
                "remote_rate_run": s.remote_rate_run,
                "local_rate": s.local_rate,
                "local_remote_ratio": s.local_remote_ratio,
                "remote_time_per_tb_s": s.remote_time_per_tb_s,
                "local_time_per_tb_s": s.local_time_per_tb_s,
                "bytes_scanned_first": s.scanned_first,
                "bytes_scanned_last": s.scanned_last,
                "compaction": s.compaction,
                "runs_to_warm": s.runs_to_warm,
                "warm_metric": s.warm_metric,
                "capacity_bytes": s.capacity_bytes,
                "capacity_per_node_bytes": s.capacity_per_node_bytes,
                "capacity_note": s.capacity_note,
                "cold_s": s.cold_s,
                "warm_s": s.warm_s,
                "speedup": s.speedup,
                "fit": _fit_json(s),
                "attribution": None
                if att is None
                else {
                    "intercept_s": att.intercept_s,
                    "remote_s_per_gb": att.s_per_remote_byte * 1e9,
                    "local_s_per_gb": att.s_per_local_byte * 1e9,
                    "remote_s": list(att.remote_s),
                    "local_s": list(att.local_s),
                    "rest_s": list(att.rest_s),
                    "r_squared": att.r_squared,
                    "residual_trend": att.residual_trend,
                },
            }
        )
    return {"series": out}


# -- units as the seed prints them (decimal: 1 GB = 10^9 bytes, profiles.md §0 item 7) ------


def human_bytes(value: float | None) -> str:
    """``121700000000`` → ``121.7 GB``; ``269900000`` → ``269.9 MB`` (decimal units)."""
    if value is None:
        return ""
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(value) >= size:
            return f"{value / size:.1f} {unit}"
    return f"{value:.0f} B"


def human_rate(bytes_per_s: float | None) -> str:
    """``264.7e6`` → ``264.7 MB/s``; ``5.18e9`` → ``5.2 GB/s`` (decimal, like the seed)."""
    if bytes_per_s is None:
        return ""
    if bytes_per_s >= 1e9:
        return f"{bytes_per_s / 1e9:.1f} GB/s"
    if bytes_per_s >= 1e6:
        return f"{bytes_per_s / 1e6:.1f} MB/s"
    return f"{bytes_per_s / 1e3:.1f} kB/s"


def human_elapsed(seconds: float | None) -> str:
    """Execution time as the seed's profile prints it: ``33.5s``, ``7m 48s``, ``31m``."""
    if seconds is None:
        return ""
    if seconds < 60:
        return f"{seconds:.1f}s" if seconds != int(seconds) else f"{int(seconds)}s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes >= 60:
        hours, minutes = divmod(minutes, 60)
        return f"{hours}h {minutes}m {secs}s" if secs else f"{hours}h {minutes}m"
    return f"{minutes}m {secs}s" if secs else f"{minutes}m"


def human_minutes(seconds: float | None) -> str:
    """A long duration to the nearest minute, in minutes below two hours: ``63 min``,
    ``4 h 11 min`` (the seed writes "63 minutes" and "4 hours 10 minutes" for 62.9 and
    250.6 min)."""
    if seconds is None:
        return ""
    total = round(seconds / 60)
    if total < 120:
        return f"{total} min"
    hours, minutes = divmod(total, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"
