"""Stars Without Number: what a GM's trial found ("No silent defaults in SWN" and more).
Each test failed before the fix. Expected odds come from the rules, by enumerating
the dice (``../shared/rules/003``, "Skill Checks", "Aiding a Skill Check",
"Attack Resolution", "Stabilization", "Morale"; the rules README).
"""

from __future__ import annotations

import itertools
import re
from fractions import Fraction
from typing import Any

import pytest

from referee import RuleError, commands, seeded
from referee.rng import RecordingSource
from referee.systems import swn

D6 = range(1, 7)
TWO_D6 = [a + b for a, b in itertools.product(D6, D6)]
LONG = re.compile(r"\d{13,}")
"""A number longer than 12 digits (referee.fmt.SHORT_DIGITS): never in the text."""


def p_2d6(bonus: int, difficulty: int) -> Fraction:
    """P(2d6 + bonus >= difficulty), by enumeration of the 36 faces."""
    return Fraction(sum(1 for r in TWO_D6 if r + bonus >= difficulty), 36)


def p_aided(bonus: int, difficulty: int, helpers: list[int]) -> Fraction:
    """P(success) of a check aided by helpers with these bonuses, by enumerating every
    helper's 2d6 and the actor's: +1 if any helper meets the difficulty, however many."""
    wins = total = 0
    for rolls in itertools.product(TWO_D6, repeat=len(helpers) + 1):
        *theirs, own = rolls
        aid = any(r + h >= difficulty for r, h in zip(theirs, helpers, strict=True))
        wins += own + bonus + aid >= difficulty
        total += 1
    return Fraction(wins, total)


def odds(data: dict[str, Any]) -> Fraction:
    return Fraction(data["odds"]["success"])


# --- 1. skill 0 when --skill is not given is said, not silent ----------------------------


def test_attack_without_skill_says_skill_0_is_assumed() -> None:
    r = commands.run("swn attack --ac 12 --damage 1d8", seeded(1))
    said = "skill 0 (not given; --untrained for none: -2)"
    assert f"assumed {said}" in r.text and r.data["assumed"] == [said]
    assert r.data["modifiers"]["skill"] == 0
    assert odds(r.data) == Fraction(sum(1 for d in range(1, 21) if d >= 12), 20)
    given = commands.run("swn attack --ac 12 --damage 1d8 --skill 0", seeded(1))
    assert "assumed" not in given.text and given.data["assumed"] == []
    both = commands.run("swn attack --damage 1d8", seeded(1)).data["assumed"]
    assert both == ["AC 10 (not given)", said]
    assert said in commands.run("swn odds attack --ac 12", None).text


def test_untrained_combat_skill_is_minus_2_and_untrained_skill_check_minus_1() -> None:
    # Rules README: "An untrained combat skill counts as -2"; 003: "-1 penalty if lacking
    # even level-0 in the skill".
    a = commands.run("swn attack --ac 12 --untrained", seeded(1))
    assert a.data["modifiers"]["skill"] == -2 and a.data["assumed"] == []
    assert odds(a.data) == Fraction(sum(1 for d in range(1, 21) if d - 2 >= 12), 20)
    c = commands.run("swn check --untrained --int 14 --difficulty 8", seeded(1))
    assert c.data["modifiers"]["skill"] == -1 and "skill 0" not in c.text
    assert odds(c.data) == p_2d6(-1 + 1, 8)
    s = commands.run("swn stabilize --rounds 1 --untrained --int 14", seeded(1))
    assert s.data["modifiers"]["skill"] == -1 and odds(s.data) == p_2d6(-1 + 1, 11)
    with pytest.raises(RuleError, match="give --skill 1 or --untrained, not both"):
        commands.run("swn attack --skill 1 --untrained", seeded(1))


@pytest.mark.parametrize(
    ("line", "difficulty"),
    [("swn check --int 14 --difficulty 10", 10), ("swn stabilize --rounds 2 --int 14", 12)],
)
def test_check_and_stabilize_without_skill_say_so(line: str, difficulty: int) -> None:
    r = commands.run(line, seeded(1))
    assert "assumed skill 0 (not given)" in r.text
    assert r.data["assumed"] == ["skill 0 (not given)"]
    assert r.data["target"] == difficulty and odds(r.data) == p_2d6(0 + 1, difficulty)
    twin = commands.run(line.replace("swn ", "swn odds ", 1), None)
    assert "skill 0 (not given)" in twin.text and twin.data["assumed"] == ["skill 0 (not given)"]
    assert "skill 0" not in commands.run(line + " --skill 0", seeded(1)).text


# --- 2. difficulty 8 when --difficulty is not given is said -----------------------------


def test_check_without_difficulty_says_normal_8_is_assumed() -> None:
    r = commands.run("swn check --skill 1 --int 14", seeded(1))
    said = "difficulty 8 (normal, not given)"
    assert f"assumed {said}" in r.text and r.data["assumed"] == [said]
    assert r.data["target"] == 8 and odds(r.data) == p_2d6(2, 8)
    twin = commands.run("swn odds check --skill 1 --int 14", None)
    assert said in twin.text and odds(twin.data) == p_2d6(2, 8)
    named = commands.run("swn check --skill 1 --int 14 --difficulty normal", seeded(1))
    assert "assumed" not in named.text and named.data["assumed"] == []
    assert said not in commands.run("swn odds check --skill 1 --int 14 --difficulty 8", None).text


# --- 3. a certain morale result is not rolled ------------------------------------------


@pytest.mark.parametrize(("score", "mod"), list(itertools.product(range(0, 16), range(-3, 4))))
def test_morale_rolls_only_when_the_result_is_uncertain(score: int, mod: int) -> None:
    holds = sum(1 for r in TWO_D6 if r + mod <= score)  # 003: "Equal or less = keep fighting"
    p = Fraction(holds, 36)
    certain = holds in (0, 36)
    line = f"swn morale {score} --mod {mod}"
    r = commands.run(line, seeded(score))
    assert {"system", "kind", "outcome", "odds", "text", "dice"} <= set(r.data)
    assert r.data["system"] == "swn" and r.data["kind"] == "morale" and odds(r.data) == p
    if certain:
        assert r.draws == () and r.data["dice"] == [] and r.data["rolled"] is False
        assert r.data["success"] is (p == 1)
        assert r.data["outcome"] == ("holds" if p == 1 else "breaks")
        word = "hold" if p == 1 else "break"
        assert f"Morale {score}: certain to {word}" in r.text and "no roll needed" in r.text
        assert "rolled" not in r.text
    else:
        assert len(r.draws) == 2 and len(r.data["dice"]) == 2 and r.data["rolled"] is True
    anyway = commands.run(line + " --roll-anyway", seeded(score))
    assert len(anyway.draws) == 2 and odds(anyway.data) == p
    assert anyway.data["success"] is (sum(anyway.data["dice"]) + mod <= score)


def test_morale_13_and_0_read_as_the_trial_asked() -> None:
    hold = commands.run("swn morale 13", seeded(1))
    assert hold.text == (
        "Morale 13: certain to hold, no roll needed (2d6 + 0 is at most 12) — 100.0% to hold"
    )
    assert hold.draws == () and hold.data["odds"]["success"] == "1/1"
    flee = commands.run("swn morale 0", seeded(1))
    assert flee.text.startswith("Morale 0: certain to break") and "(2d6 + 0 is at least 2)" in (
        flee.text
    )
    assert flee.draws == () and flee.data["odds"]["success"] == "0/1"
    rec = RecordingSource(seeded(1))
    assert swn.morale(13, rng=rec).rolled is False and rec.draws == ()
    assert swn.morale(13, roll_anyway=True, rng=rec).rolled and len(rec.draws) == 2
    assert "certain to hold" in commands.run("swn odds morale 13", None).text


# --- 4. each helper their own skill and modifier, and their dice shown --------------------


def test_each_helper_has_their_own_skill_and_modifier() -> None:
    r = commands.run("swn check --helper 1/+1 --helper 0 --difficulty 8 --int 10", seeded(1))
    aid = r.data["aid"]
    assert [a["modifiers"] for a in aid] == [
        {"skill": 1, "attribute": 1},
        {"skill": 0, "attribute": 0},
    ]
    assert odds(r.data) == p_aided(0, 8, [2, 0])
    assert Fraction(r.data["odds"]["without_aid"]) == p_2d6(0, 8)
    # Each helper's roll is in the text, as the JSON has it, and the bonus it gave.
    for i, a in enumerate(aid, 1):
        bonus = sum(a["modifiers"].values())
        shown = f"rolled {sum(a['dice'])} ({a['dice'][0]}, {a['dice'][1]})"
        shown += f" {bonus:+d}" if bonus else ""
        cmp = "≥" if a["success"] else "<"
        assert f"helper {i} {shown} = {a['total']} {cmp} 8 {a['outcome']}" in r.text
    gave = "+1" if any(a["success"] for a in aid) else "no bonus"
    assert f"{a['outcome']}: {gave}" in r.text
    assert ("aid" in r.data["modifiers"]) is any(a["success"] for a in aid)


def test_an_untrained_helper_and_the_odds_twin() -> None:
    line = "swn check --skill 2 --difficulty hard --helper untrained/-1 --helper 2/+2"
    r = commands.run(line, seeded(4))
    assert [a["modifiers"] for a in r.data["aid"]] == [
        {"skill": -1, "attribute": -1},
        {"skill": 2, "attribute": 2},
    ]
    expected = p_aided(2, 10, [-2, 4])
    assert odds(r.data) == expected
    twin = commands.run(line.replace("swn check", "swn odds check"), None)
    assert odds(twin.data) == expected and "2 helpers" in twin.text


def test_the_helpers_shorthand_still_works_and_the_forms_do_not_mix() -> None:
    short = commands.run("swn check --helpers 2 --helper-skill 1 --helper-mod 1", seeded(3))
    each = commands.run("swn check --helper 1/+1 --helper 1/+1", seeded(3))
    assert short.text == each.text and short.draws == each.draws
    assert odds(short.data) == p_aided(0, 8, [2, 2])
    bare = commands.run("swn check --helpers 1", seeded(3))
    assert "each helper skill 0, attribute +0 (not given)" in bare.text
    for line in (
        "swn check --helper 1 --helpers 2",
        "swn check --helper 1 --helper-skill 2",
        "swn check --helper 0/+1 --helper-mod 1",
    ):
        with pytest.raises(RuleError, match="not both"):
            commands.run(line, seeded(1))
    with pytest.raises(RuleError, match="give N too"):
        commands.run("swn check --helper-skill 1", seeded(1))
    for bad, why in (("5", "outside 0-4"), ("1/+3", "outside -2..\\+2"), ("x/1", "SKILL")):
        with pytest.raises(RuleError, match=why):
            commands.run(f"swn check --helper {bad}", seeded(1))
    assert "--helper 1/+1" in commands.help_text("swn check")


# --- 5. no fraction longer than 12 digits in the odds' text ----------------------------


def test_attack_odds_text_has_no_long_fractions_but_the_json_is_exact() -> None:
    r = commands.run("swn odds attack --ac 10 --skill 0 --damage 20d6", None)
    assert not LONG.search(r.text), r.text
    dist = [(v, Fraction(p)) for v, p in r.data["damage_distribution"]]
    assert sum(p for _, p in dist) == 1
    assert any(len(str(p.denominator)) > 12 for _, p in dist)  # exact in the JSON
    assert dist[0] == (0, Fraction(sum(1 for d in range(1, 21) if d < 10), 20))
    assert "  0 damage   45.0%  9/20" in r.text  # short fractions are still shown


def test_check_odds_text_has_no_long_fractions_but_the_json_is_exact() -> None:
    line = "swn odds check --skill 0 --int 10 --difficulty 8 --helpers 20 --helper-skill 0"
    r = commands.run(line + " --helper-mod 0", None)
    assert not LONG.search(r.text), r.text
    # 20 helpers at 2d6 + 0: P(none of them meets 8) = (1 - P(2d6 >= 8))^20.
    none = (1 - p_2d6(0, 8)) ** 20
    expected = (1 - none) * p_2d6(1, 8) + none * p_2d6(0, 8)
    assert odds(r.data) == expected and len(str(expected.denominator)) > 12
    assert r.text.startswith("Skill check vs 8 with 20 helpers: 58.3% (without aid 41.7% (5/12))")
