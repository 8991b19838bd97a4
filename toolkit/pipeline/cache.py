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
        f"SELECT {_COLUMNS} FROM query_runs {where} ORDER BY series, cache_epoch, run",
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
