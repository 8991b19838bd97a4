"""The report's parameters and its context: the store, the parameters and the analyses computed once."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolkit.analyze.timeseries import ApdexThresholds
from toolkit.config import Settings
from toolkit.store import Store

if TYPE_CHECKING:
    from toolkit.pipeline.findings import Analyses


@dataclass(frozen=True)
class ReportParams:
    """Analyzer parameters shown in the provenance section and embedded in report-data.

    ``tolerance``: a hot value within ±10 % of the reference counts as steady (the seed's
    table; research/warmup-science.md §8). ``window``: hot iterations in the benchmark's
    own hot value (ClickBench: min(run 2, run 3) = 2; research/clickbench.md §1).
    ``load_window_s``: seconds per window of the load-test analysis (throughput series,
    MSER-5 warm-up end, batch means; pipeline/load.py), as ``warmup load --window``.
    ``load_apdex``: the load-test APDEX thresholds, as ``warmup load --apdex`` and
    ``--apdex-per-label`` set them. ``load_steady_from_s``/``load_steady_to_s``: the
    steady window set by ``--steady-from``/``--steady-to`` (s from each suite's first
    sample), None for the detected one. ``settings``: the thresholds of the findings rules
    (:mod:`toolkit.config`), with the file they came from for the provenance.
    """

    tolerance: float = 0.10
    window: int = 2
    reference: str = "min-all"
    compare: tuple[tuple[str, str], ...] = ()
    load_window_s: float = 1.0
    load_apdex: ApdexThresholds = field(default_factory=ApdexThresholds)
    load_steady_from_s: float | None = None
    load_steady_to_s: float | None = None
    settings: Settings = field(default_factory=Settings)


@dataclass
class ReportContext:
    """The store and parameters, with per-pipeline results computed once: the analyses
    the findings engine reads (:class:`~toolkit.pipeline.findings.Analyses`) are the ones
    the sections draw, so the report shows what ``warmup findings`` says."""

    store: Store
    params: ReportParams
    _cache: dict[str, Any] = field(default_factory=dict)

    def cached(self, key: str, compute: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def computed(self, key: str) -> Any:
        """The value cached under ``key``, None when nothing has cached it yet."""
        return self._cache.get(key)

    @property
    def analyses(self) -> Analyses:
        """The store's analyses with the report's parameters (made once)."""
        from toolkit.pipeline.findings import Analyses

        value: Analyses = self.cached(
            "analyses",
            lambda: Analyses(
                self.store,
                self.params.settings,
                hot_window=self.params.window,
                compare=self.params.compare,
                load_window_s=self.params.load_window_s,
                load_apdex=self.params.load_apdex,
                steady_from_s=self.params.load_steady_from_s,
                steady_to_s=self.params.load_steady_to_s,
            ),
        )
        return value


def detections(ctx: ReportContext) -> tuple[list[Any], dict[str, Any]]:
    """The warm-up engine's results for every iteration series (pipeline/detect.py) and
    their ``warmup detect --json`` payload, each series with ``suite_id`` and
    ``query_index`` added for joins."""

    def compute() -> tuple[list[Any], dict[str, Any]]:
        from toolkit.pipeline.detect import detect_payload

        results = ctx.analyses.detections()
        payload = detect_payload(results)
        for entry, det in zip(payload["series"], results, strict=True):
            entry["suite_id"] = det.suite_id
            entry["query_index"] = det.query_index
        return results, payload

    value: tuple[list[Any], dict[str, Any]] = ctx.cached("detect", compute)
    return value
