"""The command line answers at once (issue 20.4) and says only what exists (issue 20.5):
no heavy library imported for ``--help`` or a command-line error, commands in workflow
order, the window options named for what they are, every command and option an advice or
error names is one the command line has."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from toolkit.cli import app
from toolkit.cli.common import INPUT_FORMATS, WORKFLOW_ORDER
from toolkit.duckdb_time import DUCKDB_VERSION, installed_duckdb_version

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
#: Libraries the commands need but ``--help`` and a mistyped option do not (~0.3 s), and
#: pydantic, which typer 0.29 imports for every command (0.1-0.2 s; pyproject keeps < 0.29).
HEAVY = (
    "duckdb", "polars", "numpy", "scipy", "scipy.stats", "plotly", "pyarrow", "jinja2",
    "pydantic",
)  # fmt: skip

_PROBE = """
import atexit, json, sys
atexit.register(lambda: sys.__stderr__.write(
    "LOADED " + json.dumps([m for m in {heavy!r} if m in sys.modules]) + "\\n"))
sys.argv = ["warmup", *{argv!r}]
from toolkit.cli import main
main()
"""


def _loaded(argv: list[str]) -> tuple[int, list[str]]:
    """Exit code of ``warmup ARGV`` in a fresh interpreter, and which of :data:`HEAVY` it
    had imported when it exited."""
    env = {k: v for k, v in os.environ.items() if k != "WARMUP_DB"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(heavy=HEAVY, argv=argv)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    (line,) = [x for x in done.stderr.splitlines() if x.startswith("LOADED ")]
    return done.returncode, json.loads(line.removeprefix("LOADED "))


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["--help"], 0),
        (["gaps", "--help"], 0),
        (["report", "--help"], 0),
        (["score", "--bogus"], 2),
        (["nosuchcommand"], 2),
        (["load", "--output-format", "xml"], 2),
    ],
)
def test_help_and_command_line_errors_import_no_heavy_library(argv: list[str], code: int) -> None:
    """Before: ``import toolkit.cli`` loaded DuckDB, Polars, numpy, scipy and pyarrow
    (0.33 s of its 0.47 s ``--help``, python -X importtime)."""
    exit_code, loaded = _loaded(argv)
    assert exit_code == code
    assert loaded == [], f"warmup {' '.join(argv)} imported {loaded}"


#: Runs each ``warmup ARGS`` of the JSON list in ``sys.argv[1]`` in turn in one fresh
#: interpreter (tests/in_process.py) and prints, for each, its exit code, its first line
#: on stderr and which of the heavy libraries had been imported by then.
_ERRORS_PROBE = """
import json, sys
sys.path.insert(0, sys.argv[2])
from in_process import invoke_warmup
heavy = json.loads(sys.argv[3])
done = []
for args in json.loads(sys.argv[1]):
    run = invoke_warmup(*args)
    first = (run.stderr.splitlines() or [""])[0]
    done.append([run.returncode, first, [m for m in heavy if m in sys.modules]])
print(json.dumps(done))
"""


@pytest.mark.slow
def test_option_value_and_input_errors_answer_before_any_library(tmp_path: Path) -> None:
    """Every mistake the command line shows (a bad option value, no input, a file, store
    or folder that does not exist) is one line with its exit code before DuckDB, Polars,
    numpy, scipy or Plotly is imported, so before any input is read (issue 20 item 4:
    "any error on the command line"). Before, each came after the libraries' start-up
    (0.6-1.1 s), and ``report --hot-window 0`` or ``check --junit`` into a missing folder
    after the whole ingest and analysis; ``ingest --db NEW`` (or ``load --db NEW``) of files
    that do not exist created an empty store; ``compare`` of one file (or suite) against
    itself read it first, into ``--db`` too. A ``--timezone`` is looked up in DuckDB's
    list of zones, a ``--time-format`` read by DuckDB's strptime grammar
    (toolkit.duckdb_time; before, DuckDB was imported for each: 0.29-0.47 s on 2026-11-27
    against 0.15-0.20 s for the others); only ICU's custom offsets (``UTC+5``) need
    DuckDB itself."""
    jtl = str(FIXTURES / "jmeter" / "baseline.jtl.gz")
    other = str(FIXTURES / "jmeter" / "candidate.jtl.gz")
    clickbench = str(FIXTURES / "clickbench")
    no_file, no_store = str(tmp_path / "missing.jtl"), str(tmp_path / "missing.duckdb")
    no_folder = str(tmp_path / "no-such-folder")
    new_store = str(tmp_path / "new.duckdb")
    existing = tmp_path / "existing.duckdb"  # a store is only looked for before the libraries
    existing.write_bytes(b"")
    cases: list[tuple[list[str], int, str]] = [
        *[([name], 2, "Error: no input: give result files or folders, or --db STORE")
          for name in ("load", "report", "gaps", "detect", "score", "cache", "findings", "check")],
        (["suites"], 2, "Error: give --db STORE"),
        (["doctor"], 2, "Error: give --db STORE"),
        (["suites", "--db", no_store], 1, f"Error: {no_store}: no such store"),
        (["gaps", "--db", no_store], 1, f"Error: {no_store}: no such store"),
        (["compare", "--db", no_store, "a", "b"], 1, f"Error: {no_store}: no such store"),
        (["load", jtl, no_file], 1, f"Error: {no_file}: no such file or folder"),
        (["findings", no_file], 1, f"Error: {no_file}: no such file or folder"),
        (["ingest", "--db", new_store, no_file], 1, f"Error: {no_file}: no such file or folder"),
        (["load", "--db", new_store, no_file], 1, f"Error: {no_file}: no such file or folder"),
        (["load", jtl, "--apdex", "bad"], 1, "Error: --apdex 'bad': expected"),
        (["load", jtl, "--load-window", "0"], 1, "Error: --load-window '0': must be"),
        (["load", jtl, "--steady-from", "10x"], 1, "Error: --steady-from '10x': expected"),
        (["load", jtl, "--steady-from", "20s", "--steady-to", "10s"], 1, "Error: --steady-to 10"),
        (["load", jtl, "--apdex-per-label", "x"], 1, "Error: --apdex-per-label: 'x'"),
        (["compare", jtl, other, "--load-window", "x"], 1, "Error: --load-window 'x'"),
        (["load", jtl, "--fail-on", "bogus"], 1, "Error: --fail-on: expected"),
        (["load", jtl, "--format", "nosuch"], 1, "Error: unknown --format 'nosuch'"),
        (["score", jtl, "--max-bytes", "x"], 1, "Error: --max-bytes 'x'"),
        (["cache", jtl, "--encoding", "nosuch"], 1, "Error: unknown --encoding 'nosuch'"),
        (["load", jtl, "--delimiter", "ab"], 1, "Error: --delimiter 'ab'"),
        (["load", jtl, "--timestamps", "mid"], 1, "Error: --timestamps 'mid'"),
        (["report", jtl, "--hot-window", "0"], 1, "Error: --hot-window 0: must be at least 1"),
        (["report", jtl, "--tolerance", "2"], 1, "Error: --tolerance 2.0: must be a fraction"),
        (["report", jtl, "--plotlyjs", "x"], 1, "Error: unknown --plotlyjs 'x'"),
        (["detect", clickbench, "--penalty", "x"], 1, "Error: --penalty 'x'"),
        (["gaps", clickbench, "--reference", "x"], 1, "Error: unknown --reference 'x'"),
        (["gaps", clickbench, "--grid", "--coverage", "2"], 1, "Error: --coverage must be"),
        (["ingest", "--db", f"{no_folder}/s.duckdb", jtl], 1, f"Error: {no_folder}/s.duckdb: folder"),
        (["check", jtl, "--junit", f"{no_folder}/j.xml"], 1, f"Error: {no_folder}/j.xml: folder"),
        (["demo", "-o", f"{no_folder}/d.html"], 1, f"Error: {no_folder}/d.html: folder"),
        (["compare", jtl, jtl], 1, f"Error: A and B are the same file ({jtl}, {jtl})"),
        (["compare", jtl, f"{Path(jtl).parent}/../jmeter/{Path(jtl).name}"], 1,
         "Error: A and B are the same file"),
        (["compare", "--db", new_store, jtl, jtl], 1, "Error: A and B are the same file"),
        (["compare", clickbench, f"{clickbench}/"], 1, "Error: A and B are the same folder"),
        (["compare", "--db", str(existing), "on", "on"], 1, "Error: A and B are both suite 'on'"),
        (["load", jtl, "--timezone", "Mars/Base"], 1, "Error: --timezone 'Mars/Base'"),
        (["load", jtl, "--time-format", "%d.%m.%Y %Q"], 1, "Error: --time-format '%d.%m.%Y %Q'"),
        (["ingest", "--db", new_store, jtl, "--timezone", "europe/paris!"], 1,
         "Error: --timezone 'europe/paris!'"),
        # last: an ICU custom offset, which DuckDB alone decides (utc+05:30 is none)
        (["load", jtl, "--timezone", "utc+05:30"], 1, "Error: --timezone 'utc+05:30'"),
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "WARMUP_DB"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    argv = json.dumps([args for args, _, _ in cases])
    script = [sys.executable, "-c", _ERRORS_PROBE, argv, str(Path(__file__).parent)]
    done = subprocess.run(
        [*script, json.dumps(HEAVY)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    for (args, code, message), (got_code, first, loaded) in zip(cases, results, strict=True):
        assert (got_code, first[: len(message)]) == (code, message), args
        # the custom offset comes last: it alone may load DuckDB, but for the zone and the
        # time format under a DuckDB other than the one toolkit/duckdb_time.py was written
        # from (tests/test_option_values.py warns of it)
        other = installed_duckdb_version() != DUCKDB_VERSION
        judged = "utc+05:30" in args or (
            other and ("--timezone" in args or "--time-format" in args)
        )
        allowed = {"duckdb"} if judged else set()
        assert set(loaded) <= allowed, f"warmup {' '.join(args)} imported {loaded}"
    # an ingest (or load --db) with nothing to read leaves no store behind (it created one)
    assert not Path(new_store).exists()


@pytest.mark.slow
def test_the_probe_sees_a_command_that_does_load_them() -> None:
    """The probe can fail: a command that reads a file imports DuckDB and Polars."""
    exit_code, loaded = _loaded(["score", str(FIXTURES / "clickbench"), "--json"])
    assert exit_code == 0
    assert {"duckdb", "polars"} <= set(loaded)
    # and no command pays for pydantic (typer >= 0.29): 0.1-0.2 s of every command's start
    assert "pydantic" not in loaded


def test_input_formats_are_the_registry_formats() -> None:
    """``--format``'s help lists a static tuple (no reader imported): the registry's."""
    from toolkit.ingest import known_formats

    assert tuple(INPUT_FORMATS) == tuple(sorted(known_formats()))


def test_gaps_option_defaults_are_the_library_defaults() -> None:
    from toolkit.analyze import gaps as analyze_gaps
    from toolkit.cli import gaps as cli_gaps
    from toolkit.pipeline import gaps as pipeline_gaps

    assert cli_gaps.DEFAULT_TOLERANCE == analyze_gaps.DEFAULT_TOLERANCE
    assert cli_gaps.DEFAULT_TARGET == analyze_gaps.DEFAULT_TARGET
    assert cli_gaps.DEFAULT_COVERAGE == pipeline_gaps.DEFAULT_COVERAGE


def test_help_lists_the_commands_in_workflow_order(runner: CliRunner) -> None:
    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    registered = set(group.commands)
    assert registered == set(WORKFLOW_ORDER)
    text = runner.invoke(app, ["--help"]).stdout
    listed = re.findall(r"^  ([a-z]+)\s{2,}", text.split("Commands:")[1], flags=re.M)
    assert listed == list(WORKFLOW_ORDER)
    assert listed[:3] == ["ingest", "suites", "doctor"] and listed[-1] == "demo"


def _options() -> dict[str, set[str]]:
    """Every command's option names, hidden ones included."""
    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    return {
        name: {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
        for name, command in group.commands.items()
    }


@pytest.mark.slow
def test_window_options_are_named_for_what_they_are(runner: CliRunner) -> None:
    """``report --window`` was hot iterations and ``load --window`` a duration: now
    ``--hot-window`` and ``--load-window``; ``--window`` still works, unlisted."""
    options = _options()
    for name in ("load", "compare", "report"):
        assert "--load-window" in options[name] and "--window" in options[name], name
    assert "--hot-window" in options["report"]
    for name in ("load", "compare", "report"):
        shown = runner.invoke(app, [name, "--help"]).stdout
        assert not re.search(r"--window\b", shown), name
    jtl = str(FIXTURES / "jmeter" / "baseline.jtl.gz")
    new = runner.invoke(app, ["load", jtl, "--json", "--load-window", "2s"])
    old = runner.invoke(app, ["load", jtl, "--json", "--window", "2s"])
    default = runner.invoke(app, ["load", jtl, "--json"])
    assert new.exit_code == old.exit_code == default.exit_code == 0
    assert json.loads(new.stdout) == json.loads(old.stdout) != json.loads(default.stdout)
    bad = runner.invoke(app, ["load", jtl, "--load-window", "0"])
    assert bad.exit_code == 1 and "--load-window '0'" in bad.stderr
    # report's errors name the option given (they said "window 0", an option of no command)
    for option in ("--hot-window", "--window"):
        bad = runner.invoke(app, ["report", jtl, option, "0"])
        assert bad.exit_code == 1
        assert bad.stderr.startswith(f"Error: {option} 0: must be at least 1 hot iteration")


def _string_literals() -> list[tuple[Path, str]]:
    """Every string constant of the package (f-string parts included)."""
    found = []
    for path in sorted((ROOT / "toolkit").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.append((path, node.value))
    return found


@pytest.mark.slow
def test_every_named_command_and_option_exists() -> None:
    """Each ``warmup COMMAND`` and each ``--option`` that a message, advice or help text of
    the package names is a command / an option of some command (the unrecognised-format
    advice named 4 of the 9 commands that take --format; the load findings advised
    ``--window 500ms``, in warmup report the hot iterations)."""
    options = _options()
    every_option = set().union(*options.values()) | {"--help"}
    commands = set(options)
    wrong = []
    for path, text in _string_literals():
        # "another warmup process": the program, not a command
        for command in re.findall(r"(?<!another )\bwarmup ([a-z][a-z-]+)\b", text):
            if command not in commands:
                wrong.append(f"{path.relative_to(ROOT)}: warmup {command}")
        for option in re.findall(r"(?<![\w-])(--[a-z][a-z-]*[a-z])(?![\w-])", text):
            if option not in every_option:
                wrong.append(f"{path.relative_to(ROOT)}: {option}")
    # pip's, in the advice to reinstall a package whose resources are missing
    foreign = {"--force-reinstall"}
    wrong = [w for w in wrong if w.split(": ")[1] not in foreign]
    assert not wrong, sorted(set(wrong))


def _messages() -> list[tuple[Path, int, str]]:
    """Every string constant of the package that is not a docstring nor a bare option
    name (a declaration): the texts of messages, advice and help."""
    found = []
    for path in sorted((ROOT / "toolkit").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and (body := node.body)
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and not re.fullmatch(r"--[a-z-]+", node.value)
            ):
                found.append((path, node.lineno, node.value))
    return found


@pytest.mark.slow
def test_no_message_advises_a_hidden_option() -> None:
    """A hidden option is an old spelling kept working, and may mean another thing in
    another command (``--window``: seconds in ``warmup load``, hot iterations in ``warmup
    report``): advice names the shown one (the too-many-windows error said ``--window``)."""
    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    hidden = {
        o
        for command in group.commands.values()
        for p in command.params
        if getattr(p, "hidden", False)
        for o in p.opts
    }
    assert "--window" in hidden
    named = [
        f"{path.relative_to(ROOT)}:{line}: {option}"
        for path, line, text in _messages()
        for option in re.findall(r"(?<![\w-])(--[a-z][a-z-]*[a-z])(?![\w-])", text)
        if option in hidden
    ]
    assert not named, named


def test_unrecognised_format_advice_names_every_command_taking_format(
    runner: CliRunner, tmp_path: Path
) -> None:
    stray = tmp_path / "notes.txt"
    stray.write_text("not a result file\n", encoding="utf-8")
    options = _options()
    takes_format = sorted(name for name, opts in options.items() if "--format" in opts)
    assert len(takes_format) >= 9
    for name in ("gaps", "detect", "score", "cache"):
        assert name in takes_format
        done = runner.invoke(app, [name, str(stray)])
        assert done.exit_code == 1
        assert "--format NAME (every command that reads files)" in done.stderr, done.stderr


def test_the_command_runs_numpys_blas_on_one_thread(tmp_path: Path) -> None:
    """``warmup`` sets OPENBLAS_NUM_THREADS=1 before numpy loads (its threads spin after
    each threaded call: 11-15 % of the CPU of ``warmup load`` on the real h2/pg runs),
    unless the user set it; a program importing the library keeps its own setting."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import atexit, os, sys\n"
        "atexit.register(lambda: sys.__stderr__.write("
        "'BLAS ' + str(os.environ.get('OPENBLAS_NUM_THREADS')) + '\\n'))\n",
        encoding="utf-8",
    )

    def blas_threads(*argv: str, **env: str) -> str:
        base = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
        base["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT)])
        done = subprocess.run(
            [sys.executable, *argv], env={**base, **env}, capture_output=True, text=True
        )
        (line,) = [x for x in done.stderr.splitlines() if x.startswith("BLAS ")]
        return line.removeprefix("BLAS ")

    assert blas_threads("-m", "toolkit", "--help") == "1"
    assert blas_threads("-m", "toolkit", "--help", OPENBLAS_NUM_THREADS="4") == "4"
    assert blas_threads("-c", "import toolkit.cli") == "None"
