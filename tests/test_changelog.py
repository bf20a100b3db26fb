"""Logs that outlive versions (issue 28): the version has one source, the changelog
keeps its format, and a change of the pinned results (the rolling commands' help
examples on fixed seeds) fails the suite until the changelog records it."""

from __future__ import annotations

import importlib.metadata
import json
import re
from pathlib import Path

from typer.testing import CliRunner

import referee
from pinned import LOCK, digest
from referee.cli.app import app

ROOT = Path(__file__).resolve().parents[1]
CHANGELOG = (ROOT / "CHANGELOG.md").read_text()
HEADING = re.compile(r"^## \[(?P<version>[^\]]+)\](?: - (?P<date>\d{4}-\d{2}-\d{2}))?$", re.M)


def _sections() -> dict[str, str]:
    found = list(HEADING.finditer(CHANGELOG))
    return {
        m["version"]: CHANGELOG[m.end() : found[i + 1].start() if i + 1 < len(found) else None]
        for i, m in enumerate(found)
    }


def test_the_pinned_results_hold() -> None:
    lock = json.loads(LOCK.read_text())
    now = digest()
    assert now == lock["digest"], (
        f"the rolling commands now give other results for the same draws (pinned results "
        f"{now}, locked {lock['digest']}). If that is meant, write it in CHANGELOG.md under "
        "'### Changed results' of the version (or [Unreleased]) with the new digest, and "
        "run 'python tests/pinned.py' to lock it."
    )


def test_the_changelog_records_the_pinned_results() -> None:
    lock = json.loads(LOCK.read_text())
    sections = _sections()
    where = [v for v, text in sections.items() if lock["digest"] in text]
    assert where, "CHANGELOG.md does not name the pinned results' digest"
    assert "Unreleased" in where or lock["version"] in where


def test_the_changelog_keeps_its_format() -> None:
    assert CHANGELOG.startswith("# Changelog\n")
    sections = _sections()
    assert next(iter(sections)) == "Unreleased"
    versions = [v for v in sections if v != "Unreleased"]
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", v) for v in versions)
    dated = {m["version"]: m["date"] for m in HEADING.finditer(CHANGELOG)}
    assert all(dated[v] for v in versions)  # every release has its date
    assert referee.__version__ in versions or "Unreleased" in sections
    for text in sections.values():  # Keep a Changelog's kinds, and ours
        for kind in re.findall(r"^### (.+)$", text, re.M):
            assert kind in {
                "Added", "Changed", "Deprecated", "Removed", "Fixed", "Security",
                "Changed results",
            }, kind  # fmt: skip


def test_the_version_has_one_source() -> None:
    assert referee.__version__ == importlib.metadata.version("referee")
    out = CliRunner().invoke(app, ["--version"])
    assert out.exit_code == 0 and referee.__version__ in out.output
    for path in (ROOT / "src" / "referee").rglob("*.py"):  # never written twice
        assert f'"{referee.__version__}"' not in path.read_text(), path
