"""Findings as a JUnit XML file, so Jenkins, GitLab and GitHub show verdicts as test results.

One ``<testcase>`` per finding (``classname`` = the rule id, ``name`` = its subject), with a
``<failure>`` for each finding at or above the ``--fail-on`` level; findings below it pass
with their sentence as ``<system-out>``. The layout follows the JUnit schema Jenkins reads
(``testsuites/testsuite/testcase/failure``; the ``tests``/``failures``/``errors``/``skipped``
counts on both levels).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from toolkit.analyze.findings import Finding, reaches

__all__ = ["junit_xml"]


def junit_xml(findings: Sequence[Finding], level: str, *, suite: str = "warmup check") -> str:
    """The JUnit XML text of ``findings`` checked at ``level`` (problem/warning/never).
    A run without findings is one passing test case, so the suite is never empty."""
    failures = sum(1 for f in findings if reaches(f, level))
    root = ET.Element("testsuites", name=suite)
    counts = {
        "tests": str(max(len(findings), 1)),
        "failures": str(failures),
        "errors": "0",
        "skipped": "0",
    }
    root.attrib.update(counts)
    testsuite = ET.SubElement(root, "testsuite", {"name": suite, **counts})
    if not findings:
        ET.SubElement(testsuite, "testcase", classname="warmup", name="no findings")
    for f in findings:
        case = ET.SubElement(testsuite, "testcase", classname=f.rule, name=f.subject)
        if reaches(f, level):
            failure = ET.SubElement(case, "failure", message=f.sentence()[:1000], type=f.severity)
            failure.text = f.sentence()
        else:
            out = ET.SubElement(case, "system-out")
            out.text = f"{f.severity}: {f.sentence()}"
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
