"""The Markdown linter of ``make lint`` (pymarkdown, rules in ``.pymarkdown``) catches what
Python-Markdown, and so the docs site, renders otherwise than GitHub does: a list right
after a paragraph, a nested list or a list item's later paragraph indented by less than 4
spaces, and an item run into the indented block above it. And the docs cite what a
reader can look up: no path into the project's private ``shared/`` folder."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RENDERED = ["README.md", "CHANGELOG.md", "docs"]  # as `make lint` scans them


def lint(*paths: str | Path) -> subprocess.CompletedProcess[str]:
    """``pymarkdown scan``, from the repository's root so that it reads ``.pymarkdown``."""
    return subprocess.run(
        [sys.executable, "-m", "pymarkdown", "scan", "--recurse", *map(str, paths)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


# Each case: what Python-Markdown renders wrongly, the fix, and the rule that catches it.
CASES = {
    "list right after a paragraph": (
        "Options:\n- one\n- two\n",
        "Options:\n\n- one\n- two\n",
        "MD032",
    ),
    "nested list indented by 2": (
        "- one\n  - one a\n- two\n",
        "- one\n    - one a\n- two\n",
        "PML101",
    ),
    "an item's second paragraph indented by 2": (
        "- one\n\n  more of one\n- two\n",
        "- one\n\n    more of one\n\n- two\n",
        "REF001",
    ),
    "an item right after an indented block": (
        "1. one\n\n    more of one\n2. two\n",
        "1. one\n\n    more of one\n\n2. two\n",
        "REF001",
    ),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_the_linter_fails_on_what_the_site_renders_wrongly_and_passes_the_fix(
    case: str, tmp_path: Path
) -> None:
    wrong, right, rule = CASES[case]
    page = tmp_path / "page.md"
    page.write_text(f"# A page\n\n{wrong}", encoding="utf-8")
    done = lint(page)
    assert done.returncode != 0, done.stdout + done.stderr
    assert rule in done.stdout, done.stdout
    page.write_text(f"# A page\n\n{right}", encoding="utf-8")
    done = lint(page)
    assert done.returncode == 0, done.stdout + done.stderr


def test_make_lint_runs_the_linter_on_what_is_rendered() -> None:
    """``make lint`` scans the rendered Markdown, and ``make test`` runs ``make lint``:
    the scan runs there, once (as a test too, it took 30-40 s more of ``make test``)."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    lint_target = makefile.split("\nlint:", 1)[1].split("\n\n", 1)[0]
    scan = "pymarkdown scan --recurse " + " ".join(RENDERED)
    assert re.search(re.escape(scan) + r"\b", lint_target)
    test_target = makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert re.search(r"\blint\b", test_target)


def test_no_path_into_the_shared_folder_in_docs_src_or_readme() -> None:
    files = [ROOT / "README.md"]
    for top in ("docs", "src"):
        files += [
            p for p in (ROOT / top).rglob("*") if p.is_file() and "__pycache__" not in p.parts
        ]
    found = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # images
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if re.search(r"(?<![\w.-])shared/", line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "cite a book, or docs/reference/..., instead:\n" + "\n".join(found)


def test_the_docs_folder_holds_no_build_code() -> None:
    """MkDocs copies every file of docs/ into the site: hooks live in scripts/."""
    assert not [p for p in (ROOT / "docs").rglob("*.py")]
