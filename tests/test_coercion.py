"""Plain values are read without pydantic, exactly as typer reads them (issue 53:
``referee.commands.coercion``)."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from enum import StrEnum
from typing import Annotated

import typer
from hypothesis import given
from hypothesis import strategies as st
from typer.exceptions import TyperException

from referee.commands.coercion import lighten


class Side(StrEnum):
    left = "left"
    right = "right"


def _app() -> typer.Typer:
    app = typer.Typer(add_completion=False)

    @app.command()
    def probe(
        words: Annotated[list[str], typer.Argument()],
        whole: Annotated[int | None, typer.Option()] = None,
        bounded: Annotated[int, typer.Option(min=-3, max=20)] = 5,
        decimal: Annotated[float | None, typer.Option()] = None,
        many: Annotated[list[int] | None, typer.Option()] = None,
        side: Annotated[Side, typer.Option()] = Side.left,
        anycase: Annotated[Side | None, typer.Option(case_sensitive=False)] = None,
        text: Annotated[str, typer.Option()] = "x",
    ) -> None:
        shown = [words, whole, bounded, decimal, many, side, anycase, text]
        print(repr([(type(v).__name__, v) for v in shown]))

    return app


def _run(args: list[str], light: bool) -> tuple[int, str]:
    """The command's printed values, or its refusal's message (exit status 2)."""
    command = typer.main.get_command(_app())
    if light:
        lighten(command)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            command.main(args, "probe", standalone_mode=False)
    except TyperException as exc:
        return 2, exc.format_message()
    return 0, out.getvalue()


VALUES = st.one_of(
    st.text("0123456789-+._e ", max_size=8),
    st.integers(-(10**20), 10**20).map(str),
    st.sampled_from(
        ["left", "LEFT", "right", "Right", "", "-0", "0012", "1.", ".5", "1e3", " 7", "٣"]
    ),
)


@given(
    option=st.sampled_from(
        ["--whole", "--bounded", "--decimal", "--many", "--side", "--anycase", "--text"]
    ),
    value=VALUES,
    word=VALUES,
)
def test_a_lightened_command_reads_every_value_as_typer_does(
    option: str, value: str, word: str
) -> None:
    args = ["--", word] if word.startswith("-") else [word]
    args = [f"{option}={value}", *args]
    assert _run(args, light=True) == _run(args, light=False)


def test_bounds_and_choices_still_refuse_in_typers_words() -> None:
    for args in (["w", "--bounded", "21"], ["w", "--side", "up"], ["w", "--side", "LEFT"],
                 ["w", "--whole", "x"]):  # fmt: skip
        code, out = _run(args, light=True)
        assert code == 2 and "Invalid value" in out, out
        assert (code, out) == _run(args, light=False)


def test_a_system_command_starts_without_pydantic() -> None:
    """Importing pydantic was a quarter of ``referee gurps check 12``'s start-up."""
    probe = (
        "import sys; sys.argv = ['referee', *sys.argv[1:]]\n"
        "from referee.cli import main\n"
        "try: main()\n"
        "except SystemExit as e: print('pydantic' in sys.modules, e.code, file=sys.stderr)"
    )
    for line in (["gurps", "check", "12", "--seed", "1"], ["fudge", "roll", "Good"],
                 ["gurps", "attack", "14", "--damage", "2d cut", "--dr", "2", "--dodge", "8"],
                 ["swn", "save", "physical", "--level", "3"], ["odds", "3d6"]):  # fmt: skip
        done = subprocess.run([sys.executable, "-c", probe, *line], capture_output=True, text=True)
        assert done.stderr.split()[-2:] == ["False", "0"], (line, done.stderr[-500:])


def test_a_bad_value_still_gets_typers_message_from_the_console_script() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "referee.cli", "gurps", "check", "12", "--seed", "x"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "Invalid value for '--seed'" in done.stderr and "valid integer" in done.stderr
