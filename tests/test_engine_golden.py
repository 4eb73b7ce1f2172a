"""Golden playthroughs: the transcripts in tests/golden must match a fresh run exactly."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from biblios_kit.engine.golden import CASES, file_name, transcript

GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.mark.parametrize("case", CASES, ids=[file_name(*c) for c in CASES])
def test_golden_transcript(case) -> None:
    expected = (GOLDEN / file_name(*case)).read_text(encoding="utf-8")
    actual = transcript(*case)
    if actual != expected:
        diff = "".join(
            list(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), "golden", "now"))[:40]
        )
        pytest.fail(
            "transcript changed; if the change is intended, run "
            "`python -m biblios_kit.engine.golden` and review the diff:\n" + diff
        )


def test_every_golden_file_is_a_case() -> None:
    assert sorted(p.name for p in GOLDEN.glob("*.txt")) == sorted(file_name(*c) for c in CASES)
