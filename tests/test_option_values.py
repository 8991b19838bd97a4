"""Values a user gives: the config file's string values (``load_window``, ``apdex``,
``apdex_per_label``) are checked where the file is read, a bad one one line naming the file
and the key, never an option the command line did not have; a load window is finite (``inf``
and ``1e300`` were an internal error, exit 3); a tolerance or target is a fraction whether
it comes from the file or an option."""

from __future__ import annotations

import json
import math
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from toolkit.cli import app
from toolkit.config import ConfigError, Settings, load_settings
from toolkit.duckdb_time import (
    DUCKDB_VERSION,
    NAMES,
    STRPTIME_CODES,
    installed_duckdb_version,
    listed_zone,
    module_text,
    strptime_format_error,
)
from toolkit.errors import UsageError
from toolkit.options import MAX_WINDOW_S, check_time_format, check_timezone, parse_window

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "fixtures" / "jmeter" / "baseline.jtl.gz"
CANDIDATE = ROOT / "fixtures" / "jmeter" / "candidate.jtl.gz"

BAD_VALUES = [
    ('load_window = "abc"', "load_window", "expected e.g. 1s, 500ms, 2m"),
    ('load_window = "inf"', "load_window", "must be at most a week"),
    ('load_window = "0"', "load_window", "must be at least 1ms"),
    ("load_window = true", "load_window", 'expected a duration such as "1s"'),
    ('apdex = "x"', "apdex", "e.g. 500,1500"),
    ('apdex = "5,1"', "apdex", "at most the tolerated threshold"),
    ('apdex_per_label = "x"', "apdex_per_label", "is not PATTERN:T|F"),
]


def commands(tmp_path: Path) -> list[list[str]]:
    """Every command that reads the load window or the APDEX thresholds, on a JTL."""
    return [
        ["load", str(BASELINE)],
        ["compare", str(BASELINE), str(CANDIDATE)],
        ["report", str(BASELINE), "-o", str(tmp_path / "r.html")],
        ["findings", str(BASELINE)],
        ["check", str(BASELINE)],
    ]


@pytest.mark.parametrize(("line", "key", "detail"), BAD_VALUES)
def test_a_bad_config_value_names_the_file_and_key(
    tmp_path: Path, line: str, key: str, detail: str
) -> None:
    config = tmp_path / "warmup.toml"
    config.write_text(f"[tool.warmup]\n{line}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_settings(config)
    message = str(err.value)
    assert message.startswith(f"{config}: key '{key}'") and detail in message, message
    for args in commands(tmp_path):
        result = CliRunner().invoke(app, [*args, "--config", str(config)])
        assert result.exit_code == 1, (args, result.output)
        lines = result.output.strip().splitlines()
        assert lines == [f"Error: {message}"], (args, lines)
        # before: "--window 'abc'", "--apdex 'x'", "--load-apdex-per-label", or exit 3
        assert "--" not in message, message
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("value", ["inf", "1e309", "1e300", "nan", "604801"])
def test_an_endless_load_window_is_one_line(tmp_path: Path, value: str) -> None:
    for args in commands(tmp_path)[:3]:
        result = CliRunner().invoke(app, [*args, "--load-window", value])
        assert result.exit_code == 1, (args, result.output)
        assert result.output.strip().splitlines() == [
            f"Error: --load-window '{value}': "
            + (
                "expected e.g. 1s, 500ms, 2m"
                if value == "nan"
                else "must be at most a week (604800s), e.g. 1m or 60m"
            )
        ]


def test_a_week_is_the_longest_window() -> None:
    assert parse_window(str(MAX_WINDOW_S)) == 604_800.0
    assert parse_window("10080m") == 604_800.0
    with pytest.raises(UsageError, match="at most a week"):
        parse_window("10081m")
    with pytest.raises(UsageError, match="load_window 'abc'"):
        _ = Settings(load_window="abc").load_window_s


def test_a_number_of_seconds_is_a_load_window(tmp_path: Path) -> None:
    def load_json(config_line: str | None) -> object:
        args = ["load", str(BASELINE), "--json"]
        if config_line is not None:
            config = tmp_path / "warmup.toml"
            config.write_text(f"[tool.warmup]\n{config_line}\n", encoding="utf-8")
            args += ["--config", str(config)]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    five = load_json("load_window = 5")
    assert five == load_json('load_window = "5s"')
    assert five != load_json(None)  # 1 s windows: the number was read, not ignored
    assert load_settings(tmp_path / "warmup.toml").load_window_s == 5.0


@pytest.mark.parametrize("window_s", [math.inf, math.nan, 1e300, 0.0005])
def test_the_library_refuses_an_endless_window(tmp_path: Path, window_s: float) -> None:
    from toolkit import ingest_file, open_store
    from toolkit.pipeline.load import compare_report, load_report
    from toolkit.report.render import report_params

    with open_store(tmp_path / "s.duckdb") as store:
        ingest_file(store, BASELINE)
        ingest_file(store, CANDIDATE)
        calls: list[Callable[[], object]] = [
            lambda: load_report(store, window_s=window_s),
            lambda: compare_report(store, "baseline", "candidate", window_s=window_s),
            lambda: report_params(load_window_s=window_s),
        ]
        for call in calls:
            with pytest.raises(UsageError, match=r"must be from 0\.001 s \(1 ms\) to 604800 s"):
                call()
        assert load_report(store, window_s=MAX_WINDOW_S)["suites"]  # a week is a window


CLICKBENCH = ROOT / "fixtures" / "clickbench" / "jvm-engine"


@pytest.mark.parametrize("value", ["nan", "inf", "0", "1", "1.5", "-0.1"])
@pytest.mark.parametrize(
    ("command", "option"),
    [("gaps", "--tolerance"), ("gaps", "--target"), ("report", "--tolerance")],
)
def test_a_tolerance_or_target_is_a_fraction(
    tmp_path: Path, command: str, option: str, value: str
) -> None:
    """``gaps --tolerance nan`` printed "Queries within ±nan %" and exit 0, ``--tolerance
    5`` "±500 %", where the config file and ``report`` refused them; now one line naming
    the option, as in the file."""
    out = ["-o", str(tmp_path / "r.html")] if command == "report" else []
    result = CliRunner().invoke(app, [command, str(CLICKBENCH), option, value, *out])
    assert result.exit_code == 1, result.output
    example = "0.05 = 5 %" if option == "--target" else "0.10 = 10 %"
    assert result.output.strip().splitlines() == [
        f"Error: {option} {float(value)!r}: must be a fraction between 0 and 1 ({example})"
    ]
    good = CliRunner().invoke(app, [command, str(CLICKBENCH), option, "0.2", *out])
    assert good.exit_code == 0, good.output


@pytest.mark.parametrize(
    ("time_format", "reason"),
    [
        ("%Q", "Unrecognized format for strftime/strptime: %Q"),
        ("%Y %", "Trailing format character %"),
        # a character of more than a byte after %: DuckDB's message was cut inside it, and
        # reading it raised UnicodeDecodeError, an internal error (exit 3)
        ("%é", "Unrecognized format for strftime/strptime: %é"),
        ("%d.%m.%Y %-Q", "Unrecognized format for strftime/strptime: %-Q"),
    ],
)
def test_a_time_format_strptime_cannot_use_is_one_line(
    tmp_path: Path, time_format: str, reason: str
) -> None:
    """It was an internal error (exit 3) at the first row, from DuckDB's strptime."""
    from toolkit import IngestOptions, ingest_file, open_store

    result = CliRunner().invoke(app, ["load", str(BASELINE), "--time-format", time_format])
    assert result.exit_code == 1, result.output
    (line,) = result.output.strip().splitlines()
    assert line.startswith(f"Error: --time-format {time_format!r}: not a strptime format (")
    if installed_duckdb_version() != DUCKDB_VERSION and "é" in time_format:
        reason = "an unknown code after a %"  # DuckDB's own message, cut inside the é
    assert reason in line and "'%d.%m.%Y %H:%M:%S.%f'" in line
    with open_store(tmp_path / "s.duckdb") as store:
        with pytest.raises(UsageError, match="not a strptime format"):
            ingest_file(store, BASELINE, options=IngestOptions(time_format=time_format))
        assert store.con.execute("SELECT count(*) FROM sources").fetchall() == [(0,)]


def _duckdb_knows(con: Any, name: str) -> bool:
    """Whether DuckDB applies ``name`` as a time zone (what ``--timezone`` feeds it)."""
    import duckdb

    try:
        con.execute("SELECT timezone(?, TIMESTAMP '2000-01-01')", [name])
    except duckdb.Error:
        return False
    return True


def test_the_zone_list_is_the_installed_duckdbs() -> None:
    """``--timezone`` is checked from DuckDB's list of zone names without importing DuckDB
    (issue 20 item 4: 0.32-0.47 s for a bad zone, now as any other command-line error).
    The list is the installed DuckDB's, found without importing it; with another DuckDB
    installed the list tells only that a listed name is a zone (a later DuckDB may know a
    zone it does not), and the test warns."""
    import duckdb

    assert installed_duckdb_version() == duckdb.__version__
    if duckdb.__version__ != DUCKDB_VERSION:
        # not a failure (a DuckDB release is no fault of a change), but slower checks
        warnings.warn(
            f"toolkit/duckdb_time.py is of DuckDB {DUCKDB_VERSION}, {duckdb.__version__} is "
            "installed: --timezone and --time-format import DuckDB (~0.2 s); run "
            "toolkit.duckdb_time.write_module()",
            stacklevel=1,
        )
    else:
        # fails after an upgrade of DuckDB that changed its zones or codes:
        # toolkit.duckdb_time.write_module() writes it again
        assert (ROOT / "toolkit" / "duckdb_time.py").read_text(encoding="utf-8") == module_text()
    names = {row[0] for row in duckdb.sql("SELECT name FROM pg_timezone_names()").fetchall()}
    assert {name.lower() for name in names} == NAMES or duckdb.__version__ != DUCKDB_VERSION
    assert listed_zone("Mars/Base", "0.0.1") is None
    assert listed_zone("Europe/Paris", "0.0.1") is True


def test_the_zone_list_decides_as_duckdb_does() -> None:
    """Where the list decides, DuckDB decides the same: every zone it lists, in three
    cases, ICU's custom offsets (which DuckDB alone decides: ``GMT+5`` and ``UTC+5:30`` are
    zones, ``utc+05:30`` and ``GMT+25`` are not) and names of no zone."""
    import duckdb

    con = duckdb.connect()
    names = [row[0] for row in con.execute("SELECT name FROM pg_timezone_names()").fetchall()]
    candidates = [
        *names, *(n.lower() for n in names), *(n.upper() for n in names),
        "GMT+5", "UTC+5", "UTC-3", "gmt+5", "GMT+0530", "GMT+05:30", "UTC+5:30", "utc+05:30",
        "GMT+25", "UTC+15", "GMT+14:59", "Etc/Unknown", "Mars/Base", "", " UTC", "UTC ",
        "Z", "UT", "+05:00", "Europe/Paris/", "Europe", "America/New York", "ESTT", "GMT5",
    ]  # fmt: skip
    decided = 0
    for name in candidates:
        listed = listed_zone(name, DUCKDB_VERSION)
        if listed is not None and duckdb.__version__ == DUCKDB_VERSION:
            assert listed == _duckdb_knows(con, name), name
            decided += 1
    assert listed_zone("Mars/Base", DUCKDB_VERSION) is False
    assert listed_zone("utc+05:30", DUCKDB_VERSION) is False  # no DuckDB import for it
    assert listed_zone("UTC+5:30", DUCKDB_VERSION) is None  # DuckDB's own UTC offsets
    assert decided >= 3 * len(names) or duckdb.__version__ != DUCKDB_VERSION


@pytest.mark.parametrize(
    ("prefixes", "longest"),
    [
        (("GMT", "utc"), 3),
        pytest.param(("GMT", "gmt", "GmT", "utc", "Utc"), 5, marks=pytest.mark.ci_only),
    ],
    ids=["short", "long"],
)
def test_icus_custom_offsets_are_decided_as_duckdb_does(
    prefixes: tuple[str, ...], longest: int
) -> None:
    """``GMT`` or ``utc`` in some cases and a sign, followed by every string of up to
    ``longest`` of ``0259:`` (and a few others: other digits, spaces, seconds, signs):
    where the list decides (all but ``UTC`` in capitals), DuckDB says the same (DuckDB
    takes ~6 ms to refuse a name: the long run is a CI-only check)."""
    import itertools

    import duckdb

    if duckdb.__version__ != DUCKDB_VERSION:
        pytest.skip(f"DuckDB {duckdb.__version__} installed: the list decides for {DUCKDB_VERSION}")
    con = duckdb.connect()
    bodies = [
        "".join(chars)
        for size in range(longest + 1)
        for chars in itertools.product("0259:", repeat=size)
    ]
    bodies += ["５", "05:３0", "05:30 ", " 5", "05:30:00:00", "1_0", "+5", "0x5", "05h", "1234567"]
    bodies += ["12345", "123456", "5:30:15", "23:59:59", "24", "2360"]
    decided = zones = 0
    for prefix in prefixes:
        for sign in "+-":
            for body in bodies:
                name = prefix + sign + body
                listed = listed_zone(name, DUCKDB_VERSION)
                assert listed is not None, name
                assert listed == _duckdb_knows(con, name), name
                decided += 1
                zones += listed
    assert decided == len(prefixes) * 2 * len(bodies) and zones > 50
    assert listed_zone("UTC+5", DUCKDB_VERSION) is None


def test_a_bad_zone_is_one_line_from_the_library_too() -> None:
    """``check_timezone`` (the command line's and the ingest's check) refuses a zone
    DuckDB does not know, from the list or from DuckDB (a custom offset), and takes one
    it knows in any case."""
    for bad in ("Mars/Base", "utc+05:30", "GMT+25", "UTC+20"):
        with pytest.raises(UsageError, match=f"--timezone '{re.escape(bad)}': unknown time zone"):
            check_timezone(bad)
    for good in ("europe/london", "UTC+5:30", "Etc/Unknown", "US/Eastern"):
        check_timezone(good)


def _duckdb_reason(con: Any, time_format: str) -> str | None:
    """DuckDB's reason for refusing ``time_format`` ("" if it takes it; None where its
    message cannot be read: cut inside a character)."""
    import duckdb

    try:
        con.execute("SELECT try_strptime('', ?)", [time_format]).fetchall()
    except duckdb.Error as exc:
        return str(exc).partition(": ")[2]
    except UnicodeDecodeError:
        return None
    return ""


def test_the_strptime_grammar_decides_as_duckdb_does() -> None:
    """``--time-format`` is checked by DuckDB's grammar without DuckDB: the same verdict
    and the same reason as DuckDB's ``strptime`` on every code after ``%`` and ``%-``
    (printable ASCII and a few others) and on 2,000 random formats of codes, literals and
    percent signs."""
    import random

    import duckdb

    if duckdb.__version__ != DUCKDB_VERSION:
        assert strptime_format_error("%Q", duckdb.__version__) is None  # DuckDB decides
        return
    con = duckdb.connect()
    singles = [chr(c) for c in range(32, 127)] + ["é", "€", "\t", "\n"]
    formats = [f"{prefix}{c}" for prefix in ("%", "%-", "x%", "%Y-%") for c in singles]
    rng = random.Random(20)
    alphabet = ["%", "%", "-", "d", "m", "Y", "H", "Q", "é", " ", ".", "f", "z"]
    formats += ["".join(rng.choices(alphabet, k=rng.randint(1, 8))) for _ in range(2000)]
    refused = 0
    for time_format in formats:
        ours = strptime_format_error(time_format, DUCKDB_VERSION)
        theirs = _duckdb_reason(con, time_format)
        assert ours is not None
        if theirs is None:  # DuckDB's message unreadable: it refused the format
            assert ours, time_format
        else:
            assert ours == theirs, time_format
        refused += bool(ours)
    assert 0.2 * len(formats) < refused < 0.9 * len(formats)  # both kinds well covered
    assert len(STRPTIME_CODES) == 31


def test_another_duckdb_decides_the_time_format(monkeypatch: pytest.MonkeyPatch) -> None:
    """With another DuckDB installed its own ``strptime`` decides, and a message of its
    cut inside a character is still one line."""
    import toolkit.duckdb_time

    monkeypatch.setattr(toolkit.duckdb_time, "installed_duckdb_version", lambda: "0.0.1")
    assert strptime_format_error("%Q", "0.0.1") is None
    with pytest.raises(UsageError, match=r"not a strptime format \(an unknown code after a %\)"):
        check_time_format("%é")
    with pytest.raises(UsageError, match="Unrecognized format for strftime/strptime: %Q"):
        check_time_format("%Q")
    check_time_format("%d.%m.%Y %H:%M:%S.%f")


def test_the_duckdb_version_is_read_from_one_dist_info(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The installed DuckDB's version comes from its one ``.dist-info`` folder; none, or
    two (an upgrade's leftover), tell none, and DuckDB itself decides then."""
    from importlib.machinery import ModuleSpec

    import toolkit.duckdb_time

    package = tmp_path / "duckdb"
    package.mkdir()
    spec = ModuleSpec("duckdb", None, origin=str(package / "__init__.py"))
    monkeypatch.setattr(toolkit.duckdb_time, "find_spec", lambda name: spec)
    assert installed_duckdb_version() is None
    (tmp_path / f"duckdb-{DUCKDB_VERSION}.dist-info").mkdir()
    assert installed_duckdb_version() == DUCKDB_VERSION
    (tmp_path / "duckdb-1.4.0.dist-info").mkdir()
    assert installed_duckdb_version() is None
