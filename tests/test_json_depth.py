"""The JSON nesting limit (``guarded.MAX_JSON_DEPTH``) checked only where it can be
passed: a text of at most 200 brackets cannot nest 201 levels, so ``parse_json`` skips
the walk there (issue 19: the walk was a fifth of reading 2,000 ClickBench results). The
verdict must be the walk's own, whatever the brackets inside strings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.errors import InputFormatError
from toolkit.ingest.guarded import MAX_JSON_DEPTH, _deeper_than, parse_json

PATH = Path("result.json")


def nested(depth: int, *, padding: str = "") -> Any:
    """``depth`` levels of alternating lists and objects around ``padding``."""
    value: Any = padding
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


def refused(value: Any) -> bool:
    try:
        parse_json(json.dumps(value), path=PATH)
    except InputFormatError as exc:
        assert "nested more than 200 levels deep" in str(exc)
        return True
    return False


@pytest.mark.parametrize("depth", [1, MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1])
@pytest.mark.parametrize("padding", ["", "[" * 300, "{[" * 150])
def test_limit_is_the_walks_whatever_brackets_strings_hold(depth: int, padding: str) -> None:
    """At and around the limit, with brackets in a string pushing the count past 200
    (the walk then runs) or not (skipped): refused exactly when deeper than 200."""
    value = nested(depth, padding=padding)
    assert refused(value) == (depth > MAX_JSON_DEPTH) == _deeper_than(value, MAX_JSON_DEPTH)


json_values = st.recursive(
    st.none() | st.integers() | st.text("[]{}ab", max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text("k", max_size=2), inner),
    max_leaves=60,
)


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(json_values, st.integers(0, MAX_JSON_DEPTH + 2))
@pytest.mark.slow
def test_any_document_is_refused_iff_the_walk_finds_it_too_deep(inner: Any, wrap: int) -> None:
    value = nested(wrap, padding=inner) if wrap else inner
    deep = isinstance(value, dict | list) and _deeper_than(value, MAX_JSON_DEPTH)
    assert refused(value) == deep
