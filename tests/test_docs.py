"""The documentation's shell examples run (issue 30): every ``$ referee ...`` line in a
```` ```console ```` block of the README or ``docs/`` runs as written, from the
repository's root. Where the block shows what the command prints, the output must be
exactly that; where it shows nothing, the command must succeed. (The Python examples
run as doctests in ``make doctest``; ```` ```sh ```` blocks are set-up, such as
``make run`` or a server, and are not run.)"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import zygote

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_FENCE = re.compile(r"^```console\n(.*?)^```", re.S | re.M)


@dataclass
class Example:
    page: str
    line: int
    argv: list[str]
    env: dict[str, str]
    shown: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def examples() -> list[Example]:
    """Every command of every console block, with the output shown under it."""
    found: list[Example] = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for block in _FENCE.finditer(text):
            first = text.count("\n", 0, block.start(1)) + 1
            env: dict[str, str] = {}
            lines = block[1].splitlines()
            i = 0
            while i < len(lines):
                line, at = lines[i], first + i
                i += 1
                if not line.startswith("$ "):
                    assert found and found[-1].line >= first, f"{page}:{at}: output before a $"
                    found[-1].shown.append(line)
                    continue
                command = line[2:]
                while command.endswith("\\") and i < len(lines):  # continued
                    command = command[:-1] + lines[i]
                    i += 1
                for words in _commands(command):
                    if words[:1] == ["export"]:
                        name, _, value = words[1].partition("=")
                        env[name] = value
                        continue
                    assert words[:1] == ["referee"], f"{page}:{at}: not a referee command"
                    rel = str(page.relative_to(ROOT))
                    found.append(Example(rel, at, words[1:], dict(env)))
    return found


def _commands(line: str) -> list[list[str]]:
    """A shell line's commands (split at ``;``), each as its words, comments dropped."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";")
    lexer.whitespace_split = True
    out: list[list[str]] = [[]]
    for word in lexer:
        if word == ";":
            out.append([])
        else:
            out[-1].append(word)
    return [words for words in out if words]


EXAMPLES = examples()


def test_the_docs_have_console_examples_on_every_rules_page() -> None:
    pages = {e.page for e in EXAMPLES}
    for page in ("docs/systems/gurps.md", "docs/systems/fudge.md", "docs/systems/swn.md",
                 "docs/index.md", "docs/sheets.md", "docs/guide/cli.md"):  # fmt: skip
        assert page in pages
    assert len(EXAMPLES) >= 40
    assert not [e.id for e in EXAMPLES if any(w.startswith("[") for w in e.argv)], (
        "a synopsis ([--option]) is not an example: write one that runs"
    )


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_console_example_runs_as_shown(example: Example) -> None:
    # ``python -m referee.cli ARGV``, forked from a warm parent (tests/zygote.py): some
    # ninety examples, each of which spent 0.3-0.4 s of CPU importing the CLI (issue 53).
    done = zygote.run(
        example.argv, {**os.environ, **example.env, "COLUMNS": "100", "NO_COLOR": "1"}, ROOT
    )
    got = [line.rstrip() for line in (done.stdout + done.stderr).rstrip("\n").splitlines()]
    if example.shown:
        assert got == [line.rstrip() for line in example.shown], example.id
    else:
        assert done.returncode == 0, (example.id, done.stdout, done.stderr)
        assert got, f"{example.id} printed nothing"


def test_the_cli_reference_has_every_command_with_its_help_and_examples() -> None:
    from referee.cli.reference import markdown, paths
    from referee.commands.reader import load
    from referee.commands.registry import COMMANDS

    load()
    listed = set(paths())
    wanted = {"referee " + " ".join(meta.path) for meta in COMMANDS.values()}
    wanted |= {"referee serve", "referee verify", "referee rooms copy", "referee rooms backup"}
    assert wanted <= listed, wanted - listed
    assert not [p for p in listed if "psi-punk" in p or "gurps4e" in p]  # hidden aliases
    text = markdown()
    sections = dict(
        (part.split("`\n", 1)[0], part) for part in text.split("\n#")[1:] if "`referee" in part
    )
    for path in wanted:
        section = next(s for head, s in sections.items() if head.endswith(f"`{path}"))
        assert f"Usage: {path}" in section
        assert "Examples:" in section, path


def test_every_toml_sheet_in_the_docs_reads_as_a_sheet_of_its_system() -> None:
    from referee.sheets import read_sheet

    blocks = [
        (page, block[1])
        for page in PAGES
        for block in re.finditer(
            r"^```toml\n(.*?)^```", page.read_text(encoding="utf-8"), re.S | re.M
        )
    ]
    assert len(blocks) >= 3
    systems = set()
    for page, text in blocks:
        sheet = read_sheet(text.encode())
        assert sheet.name, page
        systems.add(sheet.system)
    assert systems == {"gurps", "swn", "fudge"}
