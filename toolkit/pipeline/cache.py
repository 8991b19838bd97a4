"""``warmup cache``: read profiled runs from a store, analyse each series, build the JSON.

One series = one ``query_runs.series`` value and cache epoch, runs in time order (start
time where every run has one, else ``run`` order: ``analyze.cache.time_ordered``).
Series whose every run reports 0 bytes scanned (DDL, ``USE``, metadata-only statements
in a query-history export) are left out: there is no cache to warm.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from toolkit.analyze.cache import CacheSeries, cache_findings, cache_series, iso_time
from toolkit.analyze.cache import human_bytes as human_bytes
from toolkit.analyze.cache import human_elapsed as human_elapsed
from toolkit.analyze.cache import human_minutes as human_minutes
from toolkit.analyze.cache import human_rate as human_rate
from toolkit.analyze.findings import named, rank_findings
from toolkit.errors import UsageError
from toolkit.store import Store

# Scan operators (Snowflake GET_QUERY_OPERATOR_STATS) joined by query id: their summed share
# of the query's time, their time-weighted I/O shares within the scan, and their cache split
_SCANS = """
SELECT query_id,
       sum(time_share) AS op_scan_share,
       sum(time_share * coalesce(TRY_CAST(json_extract_string(breakdown, '$.remote_disk_io')
           AS DOUBLE), 0)) / nullif(sum(time_share), 0) AS op_remote_io,
       sum(time_share * coalesce(TRY_CAST(json_extract_string(breakdown, '$.local_disk_io')
           AS DOUBLE), 0)) / nullif(sum(time_share), 0) AS op_local_io,
       sum(time_share * coalesce(TRY_CAST(json_extract_string(breakdown, '$.processing')
           AS DOUBLE), 0)) / nullif(sum(time_share), 0) AS op_processing,
       sum(TRY_CAST(json_extract_string(io, '$.bytes_scanned') AS DOUBLE)) AS op_bytes,
       sum(TRY_CAST(json_extract_string(io, '$.bytes_scanned') AS DOUBLE)
           * TRY_CAST(json_extract_string(io, '$.cache_fraction') AS DOUBLE)) AS op_local_bytes
FROM operator_runs
WHERE query_id IS NOT NULL AND operator_type IN ('TableScan', 'ExternalScan', 'IndexScan')
GROUP BY query_id
"""

_COLUMNS = """q.series, q.cache_epoch, q.run, epoch(q.start_time) AS start_epoch_s,
    q.elapsed_ms / 1000.0 AS elapsed_s,
    coalesce(q.exec_ms, q.elapsed_ms) / 1000.0 AS io_time_s, q.bytes_scanned,
    coalesce(q.bytes_remote, CAST(q.bytes_scanned
        - round(q.bytes_scanned * s.op_local_bytes / nullif(s.op_bytes, 0)) AS BIGINT))
        AS bytes_remote,
    coalesce(q.bytes_local, CAST(round(q.bytes_scanned * s.op_local_bytes
        / nullif(s.op_bytes, 0)) AS BIGINT)) AS bytes_local,
    coalesce(q.scan_share, s.op_scan_share) AS scan_share,
    coalesce(q.remote_io_share, s.op_remote_io) AS remote_io_share,
    coalesce(q.local_io_share, s.op_local_io) AS local_io_share,
    coalesce(q.processing_share, s.op_processing) AS processing_share,
    q.remote_read_ms / 1000.0 AS remote_read_s, q.result_cache_hit, q.nodes, q.split_method, q.system, q.warehouse_size"""


def profile_runs(store: Store, suites: list[str] | None = None) -> pl.DataFrame:
    """All ``query_runs`` rows (of the named suites), elapsed and I/O time in seconds, with
    the scan shares of ``operator_runs`` filled in by query id where the run has none."""
    ids = store.suite_ids(suites, kind="profile") if suites else None
    where = ""
    params: list[object] = []
    if ids is not None:
        where = f"WHERE q.suite_id IN ({', '.join('?' for _ in ids)})"
        params = list(ids)
    return store.frame(
        f"WITH scans AS ({_SCANS}) SELECT {_COLUMNS} "
        f"FROM query_runs q LEFT JOIN scans s ON s.query_id = q.query_id {where} "
        # series in the order they were first ingested
        "ORDER BY min(q.rowid) OVER (PARTITION BY q.series), q.cache_epoch, q.run",
        params,
    )


def analyze_cache(
    store: Store,
    *,
    suites: list[str] | None = None,
    epsilon: float = 0.02,
    min_io_s: float = 1.0,
) -> list[CacheSeries]:
    """Run :func:`toolkit.analyze.cache.cache_series` on every series in the store.

    ``epsilon`` (0 < ε < 1, default 2 %, warmup-science.md §8.13) is the warm tolerance.
    """
    if not 0 < epsilon < 1:
        raise UsageError(f"--epsilon {epsilon!r} must be a fraction between 0 and 1 (e.g. 0.02)")
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
                        "remote_stream_rate": r.remote_stream_rate,
                        "start_time": iso_time(r.start_epoch_s),
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
                "ordered_by": s.ordered_by,
                "verdict": s.verdict,
                "verdict_note": s.verdict_note,
                "settled_from": s.settled_from,
                "evicted_runs": [
                    {
                        "run": e.run,
                        "previous_run": e.previous_run,
                        "local_share": e.local_share,
                        "previous_local_share": e.previous_local_share,
                        "elapsed_s": e.elapsed_s,
                        "previous_elapsed_s": e.previous_elapsed_s,
                        "since_previous_s": e.since_previous_s,
                    }
                    for e in s.evicted
                ],
                "runs_to_warm": s.runs_to_warm,
                "warm_metric": s.warm_metric,
                "capacity_bytes": s.capacity_bytes,
                "capacity_per_node_bytes": s.capacity_per_node_bytes,
                "capacity_note": s.capacity_note,
                "cold_s": s.cold_s,
                "warm_s": s.warm_s,
                "speedup": s.speedup,
                "fit": _fit_json(s),
                "fit_note": s.fit_note,
                # the same findings as the report's cache section and the table output
                "findings": [f.as_json() for f in cache_findings(s)],
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
    # every series' findings, ranked (schemas/cache.schema.json)
    found = rank_findings([named(f) for s in results for f in cache_findings(s)])
    return {"series": out, "findings": [f.as_json() for f in found]}


def analyse_cache(
    store: Store,
    *,
    suites: list[str] | None = None,
    epsilon: float = 0.02,
    min_io_s: float = 1.0,
) -> list[CacheSeries]:
    """Deprecated spelling of :func:`analyze_cache` (kept for one release)."""
    import warnings

    warnings.warn(
        "analyse_cache is deprecated; use analyze_cache", DeprecationWarning, stacklevel=2
    )
    return analyze_cache(store, suites=suites, epsilon=epsilon, min_io_s=min_io_s)
