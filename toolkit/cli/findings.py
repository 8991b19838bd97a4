"""``warmup findings`` and ``warmup check``: every finding of a store, and the CI gate."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from toolkit.analyze.findings import Finding
from toolkit.cli.common import (
    EXIT_FINDING,
    ConfigOption,
    DbOption,
    EncodingOption,
    FailOnOption,
    FormatOption,
    JsonOption,
    MaxBytesOption,
    PathsArgument,
    analysis_store,
    app,
    check_fail_on,
    check_inputs,
    fail,
    finish,
    info,
    input_spec,
    print_findings,
    print_json,
    settings_of,
    with_errors,
)
from toolkit.config import Settings, check_fail_level
from toolkit.numbers import plural

if TYPE_CHECKING:
    pass

JunitOption = Annotated[
    Path | None,
    typer.Option(
        "--junit",
        help="Also write the verdicts as a JUnit XML file (one test case per rule and "
        "subject; a failure for each finding at or above --fail-on), for Jenkins, GitLab "
        "and GitHub.",
        dir_okay=False,
        metavar="FILE",
    ),
]


def _findings_of(
    paths: list[Path] | None,
    db: Path | None,
    format: str | None,
    encoding: str | None,
    max_bytes: str | None,
    settings: Settings,
) -> list[Finding]:
    """Every finding of the inputs (or ``--db``), ranked: what both commands act on."""
    spec = input_spec(format=format, encoding=encoding, max_bytes=max_bytes)
    check_inputs(paths, db)
    # the libraries, once the command line is known to be good (issue 20 item 4)
    from toolkit.ingest.jmeter import LOAD_COLUMNS
    from toolkit.pipeline.findings import store_findings

    # the report's load window (the config's), so that these are the report's findings
    window_s = settings.load_window_s
    # a JTL's findings are those of `warmup load`: a scratch store reads its columns only,
    # a CSV JTL into the load analysis's groups, no row stored (issue 20 item 3)
    with analysis_store(
        paths,
        db,
        spec,
        sample_columns=LOAD_COLUMNS,
        group_window_ms=max(1, round(window_s * 1000)),
    ) as store:
        return store_findings(store, settings, load_window_s=window_s)


@app.command(
    epilog="Example: warmup findings results/ run.jtl   (or: warmup findings --db bench.duckdb "
    "--json)"
)
@with_errors
def findings(
    paths: PathsArgument = None,
    db: DbOption = None,
    format: FormatOption = None,
    encoding: EncodingOption = None,
    max_bytes: MaxBytesOption = None,
    config: ConfigOption = None,
    fail_on: FailOnOption = None,
    as_json: JsonOption = False,
) -> None:
    """Every finding on the inputs, problems first, then by the size of the effect: what
    the report shows first, and the union of what gaps, detect, score, load and cache say.
    """

    settings = settings_of(config)
    check_fail_on(fail_on)
    found = _findings_of(paths, db, format, encoding, max_bytes, settings)
    if as_json:
        print_json({"findings": [f.as_json() for f in found]})
    elif found:
        print_findings(found)
    else:
        info("no findings")
    finish(found, fail_on, settings)


@app.command(
    epilog="Example: warmup check results/ --fail-on warning --junit verdicts.xml   "
    "(exit 4 when a finding reaches the level)"
)
@with_errors
def check(
    paths: PathsArgument = None,
    db: DbOption = None,
    format: FormatOption = None,
    encoding: EncodingOption = None,
    max_bytes: MaxBytesOption = None,
    config: ConfigOption = None,
    fail_on: FailOnOption = None,
    junit: JunitOption = None,
) -> None:
    """The CI gate: exit 0 when no finding reaches --fail-on (default: problem, or the
    config file's fail_on), 4 when one does; each failing finding on one line.
    """
    settings = settings_of(config)
    level = check_fail_level(fail_on or settings.fail_on)
    if junit is not None and not junit.parent.is_dir():
        fail(f"{junit}: folder {junit.parent} does not exist; create it first")
    found = _findings_of(paths, db, format, encoding, max_bytes, settings)
    from toolkit.pipeline.findings import failing

    hits = failing(found, level)
    if junit is not None:
        from toolkit.report.junit import junit_xml

        try:
            junit.write_text(junit_xml(found, level), encoding="utf-8")
        except OSError as exc:
            fail(f"{junit}: cannot write the JUnit file: {exc.strerror}")
    if hits:
        print_findings(hits, title=f"Failed (--fail-on {level})")
    counts = ", ".join(
        plural(sum(1 for f in found if f.severity == sev), sev, "info" if sev == "info" else None)
        for sev in ("problem", "warning", "info")
    )
    verdict = f"FAILED ({len(hits)} at or above {level}, exit {EXIT_FINDING})" if hits else "passed"
    typer.echo(f"warmup check: {counts}; {verdict}")
    finish(found, level)
