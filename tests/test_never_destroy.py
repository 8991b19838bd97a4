"""Issue 22: a report never overwrites its inputs or the store, and is written atomically;
C1 control characters never reach the terminal."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolkit.cli.common import app, escape_controls


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_report_refuses_to_overwrite_the_store(
    runner: CliRunner, fixtures_dir: Path, tmp_path: Path
) -> None:
    db = tmp_path / "s.duckdb"
    ok = runner.invoke(app, ["ingest", str(fixtures_dir / "clickbench"), "--db", str(db)])
    assert ok.exit_code == 0, ok.output
    before = _digest(db)
    result = runner.invoke(app, ["report", "--db", str(db), "-o", str(db)])
    assert result.exit_code == 1
    assert "refusing to overwrite" in result.output and "the store" in result.output
    assert _digest(db) == before
    # the store still reads
    assert runner.invoke(app, ["suites", "--db", str(db)]).exit_code == 0


@pytest.mark.parametrize("as_folder", [False, True])
def test_report_refuses_to_overwrite_an_input(
    runner: CliRunner, fixtures_dir: Path, tmp_path: Path, as_folder: bool
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    jtl = folder / "run.jtl.gz"
    shutil.copy(fixtures_dir / "jmeter" / "baseline.jtl.gz", jtl)
    before = _digest(jtl)
    source = folder if as_folder else jtl
    result = runner.invoke(app, ["report", str(source), "-o", str(jtl)])
    assert result.exit_code == 1, result.output
    assert "is an input of this command" in result.output
    assert _digest(jtl) == before


@pytest.mark.slow
def test_report_is_written_atomically(
    runner: CliRunner, fixtures_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "r.html"
    out.write_text("the previous report", encoding="utf-8")

    def disk_full(self: Path, target: Path) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "replace", disk_full)
    result = runner.invoke(app, ["report", str(fixtures_dir / "clickbench"), "-o", str(out)])
    assert result.exit_code == 1 and "No space left on device" in result.output
    assert out.read_text(encoding="utf-8") == "the previous report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]  # no temporary left
    monkeypatch.undo()
    result = runner.invoke(app, ["report", str(fixtures_dir / "clickbench"), "-o", str(out)])
    assert result.exit_code == 0 and out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_c1_controls_are_escaped() -> None:
    # CSI (U+009B) is ESC [ on many terminals; NEL (U+0085) a line break
    assert escape_controls("a\x9b31mb\x85c") == "a\\x9b31mb\\x85c"
    assert escape_controls("é ü ß") == "é ü ß"


def test_atomic_write_keeps_devices_and_links(tmp_path: Path) -> None:
    """A device or FIFO is written in place, never replaced by a renamed file (as root,
    a rename over /dev/full replaced the device); a symbolic link keeps pointing at its
    file, which gets the new text."""
    import os

    from toolkit.report.render import atomic_write_text

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        atomic_write_text(fifo, "through the pipe")
        assert os.read(reader, 100) == b"through the pipe"
    finally:
        os.close(reader)
    assert fifo.is_fifo()
    real = tmp_path / "real.html"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.html"
    link.symlink_to(real)
    atomic_write_text(link, "new")
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "new"
    if Path("/dev/full").exists():
        with pytest.raises(OSError):
            atomic_write_text(Path("/dev/full"), "x")
        assert Path("/dev/full").is_char_device()
