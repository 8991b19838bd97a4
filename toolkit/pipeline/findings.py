"""The findings engine: every analysis of a store computed once, every finding rule run on
it, and one ranked list that the report, each command and the library all print.

The rules live in :mod:`toolkit.analyze` (a module per family: iteration, score, load,
compare, cache); this module runs the analyses they read, keeps the rules a configuration
ignores, folds and ranks (:func:`toolkit.analyze.findings.rank_findings`: problems first,
then by the size of the effect). ``warmup findings`` lists the result, ``warmup check``
turns it into an exit code and a JUnit file, and each analysing command prints the
findings of its own family, so no output says what another does not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from toolkit.analyze.findings import Finding, named, rank_findings, reaches
from toolkit.config import FailLevel, Settings
from toolkit.store import Store

if TYPE_CHECKING:
    from toolkit.analyze.cache import CacheSeries
    from toolkit.analyze.iteration_findings import IterationSettings
    from toolkit.analyze.timeseries import ApdexThresholds
    from toolkit.pipeline.detect import SeriesDetection

__all__ = [
    "COMMAND_FAMILIES",
    "FAMILIES",
    "Analyses",
    "Family",
    "failing",
    "family_findings",
    "finalized",
    "iteration_family",
    "iteration_settings",
    "store_findings",
]

Family = Literal["iteration", "score", "load", "compare", "cache", "ingest"]

#: Every family of rules, in the order the report's sections come.
FAMILIES: tuple[Family, ...] = ("iteration", "score", "load", "compare", "cache", "ingest")

#: The families whose findings each command prints (the report and ``warmup findings``
#: print all).
COMMAND_FAMILIES: dict[str, tuple[Family, ...]] = {
    "gaps": ("iteration",),
    "detect": ("iteration",),
    "score": ("score",),
    "load": ("load",),
    "compare": ("compare",),
    "cache": ("cache",),
}


@dataclass
class Analyses:
    """The analyses of one store that the rules read, each computed on first use and kept.

    ``settings``: thresholds (tolerance, target, minimum effect, load window, APDEX,
    ignored rules; :mod:`toolkit.config`). ``hot_window``: hot iterations in the
    benchmark's own hot value (ClickBench: 2). ``compare``: load-suite pairs (A, B) to
    compare (names or input files; none: the two JTL suites when there are two).
    ``load_window_s``, ``load_apdex``, ``steady_from_s``, ``steady_to_s``: as
    :func:`toolkit.pipeline.load.load_report` takes them.
    """

    store: Store
    settings: Settings = field(default_factory=Settings)
    hot_window: int = 2
    compare: tuple[tuple[str, str], ...] = ()
    load_window_s: float = 1.0
    load_apdex: ApdexThresholds | None = None
    steady_from_s: float | None = None
    steady_to_s: float | None = None
    _cache: dict[str, Any] = field(default_factory=dict)

    def cached(self, key: str, compute: Callable[[], Any]) -> Any:
        """``compute()``, once per key."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def score(self) -> dict[str, Any] | None:
        """The ``warmup score --json`` payload of the ClickBench suites in the store, or
        None with fewer than two scored entries (a score is relative to the other entries).

        Only suites read from ClickBench result files are scored; with other iteration
        suites present, the ClickBench ones are scored as given (every date)."""

        def compute() -> dict[str, Any] | None:
            from toolkit.pipeline.score import score_payload, suite_scores

            rows = self.store.con.execute(
                """SELECT s.name, bool_and(src.format = 'clickbench') AS clickbench
                   FROM suites s JOIN suite_sources ss USING (suite_id)
                   JOIN sources src USING (source_id)
                   WHERE s.kind = 'iterations' GROUP BY s.suite_id, s.name
                   ORDER BY s.suite_id"""
            ).fetchall()
            names = [str(name) for name, clickbench in rows if clickbench]
            if len(names) < 2:
                return None
            result = (
                suite_scores(self.store)
                if len(names) == len(rows)
                else suite_scores(self.store, suites=names)
            )
            payload = score_payload(result)
            scored = [e for e in payload["entries"] if e["hot"] is not None]
            return payload if len(scored) >= 2 else None

        value: dict[str, Any] | None = self.cached("score", compute)
        return value

    def detections(self) -> list[SeriesDetection]:
        """The warm-up engine's result for every iteration series
        (:func:`toolkit.pipeline.detect.detect_series`)."""

        def compute() -> list[SeriesDetection]:
            from toolkit.pipeline.detect import detect_series

            return detect_series(self.store)

        value: list[SeriesDetection] = self.cached("detections", compute)
        return value

    def iteration_settings(self) -> IterationSettings:
        """The iteration rules' thresholds (:func:`iteration_settings`)."""
        return iteration_settings(self.settings, self.hot_window)

    def load(self) -> tuple[list[int], dict[str, Any]] | None:
        """Load suite ids and the ``warmup load --json`` payload, or None without load
        suites."""

        def compute() -> tuple[list[int], dict[str, Any]] | None:
            from toolkit.analyze.timeseries import ApdexThresholds
            from toolkit.pipeline.load import load_report

            ids = self.store.suite_ids(None, kind="load")
            if not ids:
                return None
            return ids, load_report(
                self.store,
                window_s=self.load_window_s,
                apdex=self.load_apdex or ApdexThresholds(),
                steady_from_s=self.steady_from_s,
                steady_to_s=self.steady_to_s,
            )

        value: tuple[list[int], dict[str, Any]] | None = self.cached("load", compute)
        return value

    def pairs(self) -> list[tuple[str, str]]:
        """The load-suite pairs to compare (:func:`toolkit.pipeline.load.compare_pairs`)."""
        from toolkit.pipeline.load import compare_pairs

        value: list[tuple[str, str]] = self.cached(
            "pairs", lambda: compare_pairs(self.store, self.compare)
        )
        return value

    def comparisons(self) -> list[dict[str, Any]]:
        """The ``warmup compare --json`` payload of every pair of :meth:`pairs`."""

        def compute() -> list[dict[str, Any]]:
            from toolkit.pipeline.load import compare_report

            pairs = self.pairs()
            loaded = self.load() if pairs else None
            # the suites as load() analysed them (same window and steady bounds), once
            analysed = dict(zip(loaded[0], loaded[1]["suites"], strict=True)) if loaded else None
            return [
                compare_report(
                    self.store,
                    a,
                    b,
                    window_s=self.load_window_s,
                    steady_from_s=self.steady_from_s,
                    steady_to_s=self.steady_to_s,
                    analysed=analysed,
                )
                for a, b in pairs
            ]

        value: list[dict[str, Any]] = self.cached("comparisons", compute)
        return value

    def cache(self) -> list[CacheSeries]:
        """Every profiled query series analysed (:func:`toolkit.pipeline.cache.analyze_cache`)."""

        def compute() -> list[CacheSeries]:
            from toolkit.pipeline.cache import analyze_cache

            return analyze_cache(self.store)

        value: list[CacheSeries] = self.cached("cache", compute)
        return value


def iteration_settings(settings: Settings, hot_window: int = 2) -> IterationSettings:
    """The iteration rules' thresholds: the benchmark's hot window, the settings' target,
    tolerance and minimum effect."""
    from toolkit.analyze.iteration_findings import IterationSettings

    return IterationSettings(
        window=hot_window,
        target=settings.target,
        tolerance=settings.tolerance,
        min_effect_floor_s=settings.min_effect_ms / 1000.0,
    )


def iteration_family(
    detections: Sequence[SeriesDetection], settings: Settings, hot_window: int = 2
) -> list[Finding]:
    """The iteration findings of ``detections`` as every output shows them: folded across
    suites, ignored rules out, ranked — what ``warmup gaps``, ``warmup detect``, the report
    and ``warmup findings`` print for the same series."""
    from toolkit.analyze.iteration_findings import iteration_findings

    found = iteration_findings(detections, iteration_settings(settings, hot_window), fold=True)
    return finalized(found, settings)


def _iteration_rules(analyses: Analyses) -> list[Finding]:
    return iteration_family(analyses.detections(), analyses.settings, analyses.hot_window)


def _load_rules(analyses: Analyses) -> list[Finding]:
    from toolkit.analyze.load_findings import JMETER_STATISTIC_WINDOW, load_family_findings

    result = analyses.load()
    if result is None:
        return []
    return load_family_findings(result[1]["suites"], JMETER_STATISTIC_WINDOW)


def _compare_rules(analyses: Analyses) -> list[Finding]:
    from toolkit.analyze.compare import compare_findings

    return [f for result in analyses.comparisons() for f in compare_findings(result)]


def _cache_rules(analyses: Analyses) -> list[Finding]:
    from toolkit.analyze.cache import cache_findings

    return [f for s in analyses.cache() for f in cache_findings(s)]


def _ingest_rules(analyses: Analyses) -> list[Finding]:
    """Skipped files (``skipped_files``) and stored files' warnings (``sources``)."""
    from toolkit.analyze.ingest_findings import SkippedFile, SourceWarnings, ingest_findings

    con = analyses.store.con
    skipped = [
        SkippedFile(str(path), str(fmt), str(reason))
        for path, fmt, reason in con.execute(
            "SELECT path, format, reason FROM skipped_files ORDER BY path"
        ).fetchall()
    ]
    sources = [
        SourceWarnings(str(path), int(rows), tuple(str(w) for w in warnings))
        for path, rows, warnings in con.execute(
            "SELECT path, rows, warnings FROM sources WHERE len(warnings) > 0 ORDER BY source_id"
        ).fetchall()
    ]
    return ingest_findings(skipped, sources)


def _score_rules(analyses: Analyses) -> list[Finding]:
    from toolkit.analyze.score import score_findings

    payload = analyses.score()
    return [] if payload is None else score_findings(payload)


#: The rules of each family: a function of the analyses to its findings. Families that
#: have no data in a store return no findings.
FAMILY_RULES: dict[Family, Callable[[Analyses], list[Finding]]] = {
    "iteration": _iteration_rules,
    "score": _score_rules,
    "load": _load_rules,
    "compare": _compare_rules,
    "cache": _cache_rules,
    "ingest": _ingest_rules,
}


def family_findings(analyses: Analyses, families: Sequence[Family] = FAMILIES) -> list[Finding]:
    """The findings of ``families`` on the store of ``analyses``: each rule's findings with
    the subject leading the message, without the rules the settings ignore, ranked
    (:func:`~toolkit.analyze.findings.rank_findings`)."""
    found: list[Finding] = []
    for family in families:
        rules = FAMILY_RULES.get(family)
        if rules is not None:
            found.extend(rules(analyses))
    return finalized(found, analyses.settings)


def finalized(found: Sequence[Finding], settings: Settings) -> list[Finding]:
    """Findings as every output shows them: the subject leading each message, the rules
    ``settings.ignore`` names dropped, ranked (problems first, then by effect)."""
    return rank_findings([named(f) for f in found if f.rule not in settings.ignore])


def store_findings(store: Store, settings: Settings | None = None, **options: Any) -> list[Finding]:
    """Every finding on ``store`` (all families), ranked: what ``warmup findings`` lists
    and the report shows first. ``options``: the other fields of :class:`Analyses`."""
    from toolkit.pipeline.load import fences_once

    # the load and compare analyses share one computation of the time fences
    with fences_once(store):
        return family_findings(Analyses(store, settings or Settings(), **options))


def failing(findings: Sequence[Finding], level: FailLevel) -> list[Finding]:
    """The findings at or above ``level`` (``problem``: problems; ``warning``: problems
    and warnings; ``never``: none) — what makes ``--fail-on`` exit 4."""
    return [f for f in findings if reaches(f, level)]
