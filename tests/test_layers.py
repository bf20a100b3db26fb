"""The layers (issue 53): `make lint`'s import-linter contracts (``pyproject.toml``'s
``[tool.importlinter]``) hold on the tree, and each fails, naming the import, when a
copy of the tree has an import planted that breaks it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT = Path(sys.executable).parent / "lint-imports"


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` with the project's contracts, on the package under ``tree``."""
    return subprocess.run(
        [str(LINT), "--no-cache", str(ROOT / "pyproject.toml")],
        cwd=tree,
        env={"PYTHONPATH": str(tree / "src"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of ``src/referee``, to plant imports in."""
    root = tmp_path_factory.mktemp("layers")
    shutil.copytree(
        ROOT / "src" / "referee",
        root / "src" / "referee",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    return root


def test_the_tree_keeps_every_contract(tree: Path) -> None:
    got = _lint(tree)
    assert got.returncode == 0, got.stdout + got.stderr
    assert "Contracts: 7 kept, 0 broken." in got.stdout


@pytest.mark.parametrize(
    ("module", "planted", "broken", "named"),
    [
        (
            "rooms/discord/linking.py",
            "from referee.rooms.routes import api",
            "Discord reaches the rooms through their service layer, never their routes",
            "referee.rooms.discord.linking -> referee.rooms.routes.api",
        ),
        (
            "systems/gurps/damage.py",
            "import referee.cli.output",
            "The engine and the rules import no front end",
            "referee.systems.gurps.damage -> referee.cli.output",
        ),
        (
            "rooms/service/__init__.py",
            "import referee.rooms.discord.store",
            "The service layer imports no front end",
            "referee.rooms.service -> referee.rooms.discord.store",
        ),
        (
            "rng.py",
            "import referee.roller",
            "No circles between sibling modules",
            "It could be made acyclic by removing 1 dependency",
        ),
    ],
)
def test_a_planted_import_breaks_its_contract_and_is_named(
    tree: Path, module: str, planted: str, broken: str, named: str
) -> None:
    path = tree / "src" / "referee" / module
    before = path.read_text()
    path.write_text(before + f"\n{planted}  # planted\n")
    try:
        got = _lint(tree)
    finally:
        path.write_text(before)
    assert got.returncode == 1, got.stdout
    assert f"{broken} BROKEN" in got.stdout
    assert named in got.stdout, got.stdout
