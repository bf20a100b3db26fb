"""The documentation site's check fails on a warning however it is run: a copy of the
site's sources with one broken link planted, built as ``make docs`` builds it (with
``--quiet``, under which MkDocs alone counts no warning and exits 0) and without."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _make_docs_command() -> str:
    """The ``docs`` target's recipe in the Makefile, with ``$(BIN)`` made this venv's."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\ndocs:", 1)[1].split("\n", 2)[1]
    assert recipe.startswith("\t") and "mkdocs build --strict" in recipe, recipe
    return recipe.strip().replace("$(BIN)", str(Path(sys.executable).parent))


@pytest.fixture
def broken_site(tmp_path: Path) -> Path:
    """The site's sources (the docs, the changelog, the hooks; the code linked), with a
    link to a page that does not exist."""
    for name in ("mkdocs.yml", "CHANGELOG.md"):
        shutil.copy2(ROOT / name, tmp_path / name)
    for name in ("docs", "scripts"):
        shutil.copytree(ROOT / name, tmp_path / name)
    (tmp_path / "src").symlink_to(ROOT / "src")
    page = tmp_path / "docs" / "development.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n[Gone](no-such-page.md)\n")
    return tmp_path


@pytest.mark.slow  # two builds of the site, 5 s each: make test, not make check
@pytest.mark.parametrize("quiet", [True, False], ids=["as make docs runs it", "not quiet"])
def test_a_broken_link_fails_the_site(broken_site: Path, quiet: bool) -> None:
    command = _make_docs_command()
    assert "--quiet" in command  # as make docs runs it; without it, below
    if not quiet:
        command = command.replace(" --quiet", "")
    command += f" --site-dir {broken_site / 'site'}"
    done = subprocess.run(
        command, shell=True, cwd=broken_site, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, timeout=120,
    )  # fmt: skip
    said = done.stdout + done.stderr
    assert done.returncode != 0, said
    assert re.search(r"no-such-page\.md', but the target is not found", said), said
    assert "Aborted with 1 warnings in strict mode" in said, said
