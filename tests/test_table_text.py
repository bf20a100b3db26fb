"""Text a GM reads at a glance, the same options everywhere, no silent defaults, and GURPS
injury (issue 17). Each test names the line of the issue it checks."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from fractions import Fraction

import pytest
from typer.testing import CliRunner

from conftest import Fixed
from referee import commands, seeded
from referee.cli.app import app
from referee.cli.local import LOCAL
from referee.commands.registry import COMMANDS
from referee.systems import gurps as g
from referee.systems import swn
from test_commands import ROLLING

runner = CliRunner()
SYSTEM_ROLLING = [line for name, lines in ROLLING.items() if name != "roll" for line in lines]


@pytest.mark.parametrize("line", SYSTEM_ROLLING)
def test_one_way_to_show_dice(line: str) -> None:
    # "rolled 14 (4, 5, 5)", never "rolled [12]" or "7 [4, 1]" (Fudge shows its faces).
    text = commands.run(line, seeded(2), resources=LOCAL).text
    if not line.startswith("fudge"):
        assert "rolled [" not in text and not re.search(r"\d \[\d", text), text
        assert re.search(r"rolled \d+( \(\d+(, \d+)+\))?", text) or "initiative" in line


SHOWN = r"rolled (-?\d+)(?: \([^)]*\))?(?: [^=:]*= (-?\d+))? ([≤>≥<]) (-?\d+):"
"""A check's text: the natural roll, the total after modifiers, the comparison, the target."""


@pytest.mark.parametrize("seed", range(40))
def test_every_comparison_shown_holds(seed: int) -> None:
    # "swn morale 1" printed "rolled [2, 4] = 6 ≤ 1: breaks".
    for line in (
        "swn morale 1 --roll-anyway",
        "swn morale 12 --roll-anyway",
        "swn save physical --level 9",
        "swn check",
    ):
        text = commands.run(line, seeded(seed)).text
        found = re.search(
            r"rolled (-?\d+)(?: \([^)]*\))?(?: [^=:]*= (-?\d+))? ([≤>≥<]) (-?\d+):", text
        )
        assert found is not None, text
        natural, total, op, target = found.groups()
        a, b = int(total or natural), int(target)
        assert {"≤": a <= b, ">": a > b, "≥": a >= b, "<": a < b}[op], text


def test_a_tie_reads_as_a_tie_settled_by_the_rule() -> None:
    # "swn oppose 2 1" printed "side 1 wins (tie)"; a tie must say which rule settled it.
    for seed in range(200):
        r = swn.oppose((1, True), (1, False), rng=seeded(seed))
        if r.first.total == r.second.total:
            assert "a tie, side 1 wins (ties go to the PC)" in r.text
            break
    else:
        raise AssertionError("no tie in 200 seeds")
    ambush = swn.oppose((1, True), (1, False), ties="defender", rng=Fixed([2, 2, 2, 2]))
    assert "a tie, side 2 wins (ties go to the defender)" in ambush.text


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("gurps contest 14 12", ("side 1", "side 2")),
        ("gurps contest 14 12 --names Alice,Orc", ("Alice", "Orc")),
        ("gurps contest 18 16 --regular --names Alice,Orc", ("Alice", "Orc")),
        ("fudge oppose Good Fair --names Ron,Bouncer", ("Ron", "Bouncer")),
        ("swn oppose 2 1 --names Vex,Guard", ("Vex", "Guard")),
    ],
)
def test_every_percentage_names_its_side(line: str, names: tuple[str, str]) -> None:
    # "odds 63.7% / 27.9% / tie 8.4%" named nobody.
    text = commands.run(line, seeded(1)).text
    odds = text.split("odds:")[1]
    for pct in re.findall(r"[\d.]+%", odds):
        before = odds.split(pct)[0].rstrip().split()[-1]
        assert before in (*names[0].split(), *names[1].split(), "wins", "tie"), (pct, text)
    assert all(n in odds for n in names)
    data = commands.run(line, seeded(1)).data
    assert data.get("names", list(names)) == list(names)


def test_contests_show_their_work() -> None:
    # "gurps contest 18 16 --regular" hid the 18 and 16, the shortening and the rounds.
    r = commands.run("gurps contest 18 16 --regular", seeded(4))
    assert r.text.startswith("Regular Contest 18 vs 16 (shortened, 4e: 12 vs 10)")
    n = len(r.data["rounds"])
    assert (f"({n} rounds: " in r.text) if n > 1 else "(1 round)" in r.text
    assert r.data["skills"] == [18, 16] and r.data["effective_skills"] == [12, 10]
    q = commands.run("gurps contest 14 12", seeded(1)).text
    assert re.search(r"side 1 rolled \d+ \(.*\), \w+ by \d+; side 2 rolled", q)


@pytest.mark.parametrize("line", SYSTEM_ROLLING + ["roll 3d6"])
def test_a_secret_roll_says_so(line: str) -> None:
    # "gurps reaction is secret by default and prints like an open roll".
    res = runner.invoke(app, [*line.split(), "--secret", "--seed", "1"])
    assert res.exit_code == 0, res.output  # every rolling command takes --secret (issue 25)
    if line.startswith("gurps reaction"):  # secret already, by default
        assert runner.invoke(app, [*line.split(), "--seed", "1"]).output == res.output
        assert runner.invoke(app, [*line.split(), "--open"]).output.startswith("Reaction")
    both = runner.invoke(app, [*line.split(), "--secret", "--open"])
    assert both.exit_code == 2 and "give --secret or --open, not both" in both.output
    assert all(t.startswith("(secret) ") for t in res.output.strip().split("\n(secret)")[:1])
    assert res.output.startswith("(secret) ")


def test_errors_in_a_players_words() -> None:
    res = runner.invoke(app, ["gurps", "contest", "14", "12", "--edition", "4"])
    assert res.exit_code == 2 and "Value error" not in res.output and "'4e'" in res.output
    res = runner.invoke(app, ["fudge", "roll", "Good", "--mod", "4"])
    assert "extreme=True" not in res.output and "allow it with --extreme" in res.output
    res = runner.invoke(app, ["swn", "check", "--mod", "3"])
    assert "force=True" not in res.output and "allow it with --force" in res.output


def test_the_same_options_everywhere() -> None:
    assert commands.run("gurps check 14 --mod -2", seeded(1)).data["effective_skill"] == 12
    c = commands.run("gurps contest 14-2 12", seeded(1)).data
    assert c["skills"] == [12, 12]
    b = commands.run("gurps check Broadsword-14", seeded(1)).data
    assert b["label"] == "Broadsword" and b["effective_skill"] == 14
    b2 = commands.run("gurps check Broadsword-14-2", seeded(1)).data
    assert b2["label"] == "Broadsword" and b2["modifiers"] == [-2]


@pytest.mark.parametrize("line", SYSTEM_ROLLING)
def test_label_on_every_rolling_command(line: str) -> None:
    r = commands.run(f"{line} --label Ambush", seeded(1), resources=LOCAL)
    assert r.text.startswith("Ambush"), r.text
    items = r.data if isinstance(r.data, list) else [r.data]
    assert all(item["label"] == "Ambush" for item in items)


def test_every_rolling_system_command_has_odds_without_rolling() -> None:
    rolling = [m.path for m in COMMANDS.values() if m.rolls and m.path[0] != "roll"]
    missing = [p for p in rolling if (p[0], "odds", p[1]) not in COMMANDS]
    assert missing == [("swn", "initiative")]  # an order, not a chance: no odds to give


def test_no_silent_defaults() -> None:
    # "swn attack --damage 1d8 with no --ac rolls against AC 10 and says nothing".
    a = commands.run("swn attack --damage 1d8", seeded(1))
    assert "assumed AC 10 (not given)" in a.text
    assert a.data["assumed"] == [
        "AC 10 (not given)",
        "skill 0 (not given; --untrained for none: -2)",
    ]
    plain = commands.run("swn attack --damage 1d8 --ac 12 --skill 0", seeded(1)).text
    assert "assumed" not in plain
    assert "(assumed: no --ac given)" in commands.run("swn odds attack", None).text
    for line in ("swn save physical", "swn check --skill 1", "swn stabilize --rounds 1"):
        assert "+0, no attribute given" in commands.run(line, seeded(1)).text, line
    assert "no attribute" not in commands.run("swn check --int 14", seeded(1)).text


def test_total_defense_makes_the_target_immune_to_shock() -> None:
    # SWN revised, "Instant Actions: Total Defense"; the seed is silent.
    knife = swn.Weapon.make("1d4", "1/15")
    miss = swn.attack(ac=10, weapon=knife, attack_bonus=-50, total_defense=True, rng=Fixed([0]))
    assert not miss.hit and miss.damage == 0 and not miss.shock
    assert "immune to Shock" in miss.text
    anyway = swn.attack(ac=10, weapon=knife, attack_bonus=-50, total_defense=True,
                        shock_through_defense=True, rng=Fixed([0]))  # fmt: skip
    assert anyway.damage == 1 and anyway.shock
    odds = swn.attack_odds(ac=10, weapon=knife, attack_bonus=-50, total_defense=True)
    assert odds.distribution == ((0, Fraction(1)),)


def test_natural_20_and_1_on_attacks_as_an_option() -> None:
    club = swn.Weapon.make("1d4")
    assert not swn.attack(ac=30, weapon=club, rng=Fixed([19, 0])).hit  # off by default
    assert swn.attack(ac=30, weapon=club, naturals=True, rng=Fixed([19, 0])).hit
    assert not swn.attack(ac=0, weapon=club, attack_bonus=50, naturals=True, rng=Fixed([0])).hit
    assert swn.hit_odds(50, 10, naturals=True) == Fraction(19, 20)
    for bonus, ac in itertools.product(range(-25, 26, 5), (5, 10, 15, 25)):
        by_hand = Fraction(sum(1 for d in range(1, 21)
                               if d == 20 or (d != 1 and d + bonus >= ac)), 20)  # fmt: skip
        assert swn.hit_odds(bonus, ac, naturals=True) == by_hand


@pytest.mark.parametrize(
    ("kind", "mult"),
    [("cut", Fraction(3, 2)), ("imp", Fraction(2)), ("pi-", Fraction(1, 2)), ("pi", Fraction(1)),
     ("pi+", Fraction(3, 2)), ("pi++", Fraction(2)), ("cr", Fraction(1)), ("burn", Fraction(1)),
     ("cor", Fraction(1)), ("tox", Fraction(1)), ("fat", Fraction(1))],
)  # fmt: skip
def test_gurps_wounding_modifiers(kind: str, mult: Fraction) -> None:
    # Basic Set B379: penetrating damage x multiplier, rounded down, at least 1 if any.
    for through in range(0, 12):
        expected = 0 if through == 0 else max(1, int(through * mult))
        assert g.wound(through, kind) == expected
    # the injury distribution against enumeration of every 2d6
    minimum = 0 if kind == "cr" else 1
    counts: Counter[int] = Counter()
    for a, b in itertools.product(range(1, 7), repeat=2):
        basic = max(a + b + 1, minimum)
        through = max(basic - 3, 0)
        counts[0 if through == 0 else max(1, int(through * mult))] += 1
    expected_dist = {k: Fraction(v, 36) for k, v in sorted(counts.items())}
    assert g.injury_odds("2d+1", dr=3, damage_type=kind) == expected_dist


def test_gurps_damage_shows_the_injury() -> None:
    r = commands.run("gurps damage 3d-3 --dr 2 --type cut", seeded(1))
    assert r.text.endswith("5 penetrates: injury 7 (×1.5)")
    assert r.data["injury"] == 7 and r.data["wounding"] == "3/2"
    assert sum(Fraction(p) for _, p in r.data["injury_distribution"]) == 1
    assert "stopped by DR: no injury" in commands.run("gurps damage 1d --dr 9", seeded(1)).text
