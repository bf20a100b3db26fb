"""``fudge oppose`` between two characters' sheets as a game room runs it (issue 40):
the roller's sheet is the default one and the second is named with ``--sheet2 @name``
(what a room makes of ``fudge oppose @ron @bouncer Notice``). Its resolved command
names no sheet and rolls the same with none.

Expected odds are counted here over the 81 outcomes of 4dF (the rules ``README.md``,
"4dF": 1, 4, 10, 16, 19, 16, 10, 4, 1) and the example sheets' TOML, read with
:mod:`tomllib`; *Psi-punk* (``002``), "Opposed Actions": the higher result wins.
"""

from __future__ import annotations

import dataclasses
import itertools
import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from referee import commands, seeded
from referee.commands.result import BUILTIN
from referee.errors import CommandError, RuleError
from referee.sheets import Sheet, read_sheet
from referee.systems.fudge import PSI_PUNK

EXAMPLES = Path(__file__).parent.parent / "examples" / "sheets"
RON_TEXT = (EXAMPLES / "ron.toml").read_text()
BOUNCER_TEXT = (EXAMPLES / "bouncer.toml").read_text()
RON, BOUNCER = read_sheet(RON_TEXT.encode()), read_sheet(BOUNCER_TEXT.encode())


def level(text: str, trait: str) -> int:
    """The trait's ladder value, as the TOML writes its name."""
    return PSI_PUNK.parse(tomllib.loads(text)["traits"][trait]).value


def four_df() -> list[int]:
    """The 81 equally likely sums of 4dF."""
    return [sum(f) for f in itertools.product((-1, 0, 1), repeat=4)]


def first_wins(a: int, b: int) -> Fraction:
    """P(a + 4dF > b + 4dF)."""
    pairs = [(x, y) for x in four_df() for y in four_df()]
    return Fraction(sum(1 for x, y in pairs if a + x > b + y), len(pairs))


def room(roller: Sheet, others: dict[str, Sheet]) -> Any:
    """Resources as a room gives them: the roller's sheet for None, others by name."""

    def sheet(name: str | None) -> Sheet | None:
        if name is None:
            return roller
        if name in others:
            return others[name]
        raise CommandError(f"no sheet {name!r}")

    return dataclasses.replace(BUILTIN, sheet=sheet)


def test_four_df_is_the_published_table() -> None:
    counts = [four_df().count(n) for n in range(-4, 5)]
    assert counts == [1, 4, 10, 16, 19, 16, 10, 4, 1]


@pytest.mark.parametrize(
    ("first", "second"), [("Notice", "Notice"), ("Ranged Combat", "Brawling"), ("Focus", "Bluff")]
)
def test_two_sheets_oppose_and_the_resolved_command_rolls_the_same(first: str, second: str) -> None:
    a, b = level(RON_TEXT, first), level(BOUNCER_TEXT, second)
    line = f"fudge oppose '{first}' '{second}' --sheet2 @bouncer"
    resolved = commands.resolve(line, RON, others={"@bouncer": BOUNCER})
    assert resolved == f"fudge oppose {a:+d} {b:+d} --names Ron,Bouncer"
    res = room(RON, {"@bouncer": BOUNCER})
    for seed in range(6):
        mine = commands.run(line, seeded(seed), resources=res)
        bare = commands.run(resolved, seeded(seed))
        assert mine.draws == bare.draws
        assert {k: v for k, v in mine.data.items() if k not in ("traits", "text")} == {
            k: v for k, v in bare.data.items() if k != "text"
        }
        d = mine.data
        assert d["names"] == ["Ron", "Bouncer"]
        assert [t["sheet"] for t in d["traits"]] == ["Ron", "Bouncer"]
        assert [t["level"] for t in d["traits"]] == [a, b]
        one = a + sum({"+": 1, "0": 0, "-": -1}[f] for f in d["first"]["dice"])
        two = b + sum({"+": 1, "0": 0, "-": -1}[f] for f in d["second"]["dice"])
        assert d["first"]["result"]["value"] == one and d["second"]["result"]["value"] == two
        assert d["winner"] == (1 if one > two else 2 if two > one else None)
        ron, bouncer = mine.text.splitlines()[:2]
        assert ron.startswith(f"Ron: {first} (") and bouncer.startswith(f"Bouncer: {second} (")
    assert Fraction(mine.data["odds"]["first"]) == first_wins(a, b)
    assert Fraction(mine.data["odds"]["second"]) == first_wins(b, a)


def test_options_pass_into_the_resolved_command() -> None:
    line = "fudge oppose Notice Notice --sheet2 @bouncer --mod +1 --reroll2 -1 --ties defender"
    resolved = commands.resolve(line, RON, others={"@bouncer": BOUNCER})
    assert resolved == (
        "fudge oppose +0 +1 --mod +1 --reroll2 -1 --ties defender --names Ron,Bouncer"
    )
    res = room(RON, {"@bouncer": BOUNCER})
    for seed in range(4):
        mine = commands.run(line, seeded(seed), resources=res)
        assert mine.draws == commands.run(resolved, seeded(seed)).draws


def test_levels_with_a_second_sheet_resolve_without_it() -> None:
    # Levels typed need no sheet, but the second sheet's ladder counts: the resolved
    # command names the ladder and never the sheet.
    fate = read_sheet(BOUNCER_TEXT.replace('"psi-punk"', '"fate-core"').encode())
    line = "fudge oppose Good Fair --sheet2 @bouncer"
    assert commands.resolve(line, RON, others={"@bouncer": BOUNCER}) == "fudge oppose Good Fair"
    resolved = commands.resolve(line, RON, others={"@bouncer": fate})
    assert resolved == "fudge oppose Good Fair --ladder fate-core"
    mine = commands.run(line, seeded(3), resources=room(RON, {"@bouncer": fate})).data
    bare = commands.run(resolved, seeded(3)).data
    assert mine["first"]["ladder"] == bare["first"]["ladder"] == "Fate Core"
    assert mine["odds"] == bare["odds"]


def test_the_second_sides_trait_must_be_on_the_second_sheet() -> None:
    with pytest.raises(Exception, match="Bouncer has no trait 'Focus'"):
        commands.resolve("fudge oppose Notice Focus --sheet2 @bouncer", RON,
                         others={"@bouncer": BOUNCER})  # fmt: skip
    with pytest.raises(CommandError, match="cannot read '@nobody'"):
        commands.resolve("fudge oppose Notice Notice --sheet2 @nobody", RON)


def test_sheets_on_different_ladders_need_one_given() -> None:
    fate = read_sheet(BOUNCER_TEXT.replace('"psi-punk"', '"fate-core"').encode())
    with pytest.raises(RuleError, match="give --ladder"):
        commands.resolve("fudge oppose Notice Notice --sheet2 @bouncer", RON,
                         others={"@bouncer": fate})  # fmt: skip
