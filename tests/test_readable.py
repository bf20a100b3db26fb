"""Odds a person can read: percentages first, short fractions only, long tables and long
runs of retries folded into a summary, and sides, ties and targets named in the text.

The JSON keeps every exact fraction; only the text changes.
"""

from __future__ import annotations

import re
from fractions import Fraction
from itertools import pairwise

import pytest

from referee import commands, seeded
from referee.errors import DiceLimitError
from referee.odds import odds
from referee.render import MAX_ROWS, shown_rows
from referee.systems import gurps as g

LONG = re.compile(r"\d{13,}")
"""A number no person reads: a fraction's part longer than ``fmt.SHORT_DIGITS``."""

PERCENT = re.compile(r"(<0\.1|>99\.9|\d+\.\d)%")


def _text(line: str) -> str:
    return commands.run(line, seeded(1)).text


def _shares(table: str) -> float:
    """The sum of a table's row percentages (``<0.1%`` as 0.05)."""
    total = 0.0
    for line in table.splitlines()[1:]:
        found = PERCENT.search(line)
        if found is None or line.startswith(("(", "note:", "P(")):
            continue
        value = found.group(1)
        total += {"<0.1": 0.05, ">99.9": 99.95}.get(value) or float(value)
    return total


# --- 1. percentages, and a fraction only while it is short --------------------------------


def test_odds_20d6_text_has_no_long_fraction_but_the_json_is_exact() -> None:
    r = commands.run("odds 20d6")
    assert not LONG.search(r.text), r.text
    assert "174074868515/152339935002624" not in r.text
    assert [49, "174074868515/152339935002624"] in r.data["distribution"]
    assert sum(Fraction(p) for _, p in r.data["distribution"]) == 1


def test_small_tables_look_as_before_with_their_short_fractions() -> None:
    lines = _text("odds 3d6 --at-least 15").splitlines()
    assert len(lines) == 1 + 16 + 1  # a row per total
    assert lines[1] == "     3   1/216    0.5%  █"
    assert lines[8] == "    10     1/8   12.5%  " + "█" * 40
    assert lines[-1] == "P(total >= 15) = 9.3% (5/54)"


# --- 2. long tables fold their tails and group their totals --------------------------------


def test_odds_100d100_is_a_short_table_whose_rows_add_up() -> None:
    r = commands.run("odds 100d100")
    lines = r.text.splitlines()
    assert len(lines) <= MAX_ROWS + 2, len(lines)
    assert max(len(line) for line in lines) <= 100
    assert not LONG.search(r.text)
    assert lines[1].lstrip().startswith("≤ ") and lines[-2].lstrip().startswith("≥ ")
    assert any(re.match(r"\s*\d,\d{3}\.\.\d,\d{3} ", line) for line in lines)
    assert _shares(r.text) == pytest.approx(100, abs=1)
    assert len(r.data["distribution"]) == 9901  # the JSON keeps every total


@pytest.mark.slow  # make check leaves it to make test
@pytest.mark.parametrize(
    "expr", ["d100", "d1000", "40d6", "d6!", "d6!*d6!", "d2*10000+10d6", "1000d6", "d10000"]
)
def test_every_long_table_fits_and_shares_out_every_case(expr: str) -> None:
    o = odds(expr)
    rows, _ = shown_rows(o.outcomes, o.counts, o.denominator)
    assert len(rows) <= MAX_ROWS
    assert sum(r.count for r in rows) == o.denominator
    assert all(a.high < b.low for a, b in pairwise(rows))
    assert rows[0].low == o.outcomes[0] and rows[-1].high == o.outcomes[-1]
    text = commands.run(f"odds {expr}").text
    assert max(len(line) for line in text.splitlines()[1:]) <= 100


def test_a_long_sample_histogram_is_folded_too() -> None:
    text = _text("sample 8d6! -n 20000 --seed 1")
    lines = text.splitlines()
    assert len(lines) <= MAX_ROWS + 2
    total = sum(float(m) for m in re.findall(r" (\d+\.\d\d)% ", text))
    assert total == pytest.approx(100, abs=0.5)


# --- 3. gurps retry: a header, and long runs folded ----------------------------------------


def test_retry_says_what_its_lines_are_and_folds_a_long_run() -> None:
    r = commands.run("gurps retry 12 --max 1000")
    lines = r.text.splitlines()
    assert len(lines) <= 20, r.text
    assert "effective skill 12" in lines[0]
    assert "−1, cumulative" in r.text and "a critical failure ends the attempts" in r.text
    assert "within k attempts" in r.text
    assert lines[3] == "within 1 (skill 12): 74.1% (20/27)"
    assert any(line.startswith("within 9..1000: 96.1%") for line in lines)
    assert "below 3" in r.text  # why the chance no longer changes
    assert not LONG.search(r.text)
    within = r.data["within"]
    assert len(within) == 1000 and within[0] == "20/27"
    assert Fraction(within[999]) == g.retry_odds(12, 1000)
    assert Fraction(within[7]) == g.retry_odds(12, 8)


def test_retry_after_a_critical_failure_says_so() -> None:
    text = _text("gurps retry 15 --max 30 --continue-after-critical")
    assert "does not end" in text and len(text.splitlines()) <= 12


# --- 4. no long fraction in any gurps or fudge odds text -----------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "gurps odds check 12",
        "gurps odds reaction +2",
        "gurps odds damage 20d --type cut --dr 3",
        "gurps retry 40 --max 1000",
        "fudge odds Good --vs Great --reroll +4",
        "fudge odds Good --against Great --reroll +4",
        "fudge odds oppose Good Great --reroll +4 --reroll2 -4",
    ],
)
def test_no_long_fraction_in_gurps_and_fudge_odds(line: str) -> None:
    assert not LONG.search(_text(line))


def test_damage_odds_keep_exact_fractions_in_the_json() -> None:
    r = commands.run("gurps odds damage 20d --type cut")
    assert any(len(p.split("/")[1]) > 12 for _, p in r.data["injury_distribution"])
    assert "  injury   30   <0.1%" in r.text.splitlines()


# --- 5. fudge sides named, and no tie share when ties go to the defender --------------------


def test_fudge_odds_against_names_both_sides() -> None:
    head = _text("fudge odds Good --against Great").splitlines()[0]
    assert head == "Good vs Great: Good wins 26.1% (1711/6561), Great wins 58.4%, tie 15.5%"
    same = _text("fudge odds Good --against good").splitlines()[0]
    assert "Good (you) wins 41.6%" in same and "Good (opponent) wins 41.6%" in same


def test_ties_to_the_defender_show_no_tie_share() -> None:
    against = _text("fudge odds Good --against Great --ties defender").splitlines()[0]
    assert "tie" not in against and "Great wins 73.9%" in against
    twin = commands.run("fudge odds oppose Good Great --ties defender")
    assert "tie" not in twin.text and "side 2 wins 73.9%" in twin.text
    assert twin.data["odds"]["tie"] == "0/1"  # the JSON is unchanged
    rolled = commands.run("fudge oppose Good Great --ties defender", seeded(1))
    odds_part = rolled.text.split("— odds:")[1]
    assert "tie" not in odds_part and rolled.data["text"] == rolled.text
    assert "tie 15.5%" in _text("fudge oppose Good Great")


# --- 6. a success roll's odds do not repeat a bare number ----------------------------------


def test_check_odds_name_the_target_without_repeating_it() -> None:
    assert _text("gurps odds check 12 --defense").startswith("Defense 12: success 74.1%")
    assert _text("gurps odds check 12").startswith("Skill 12: success 74.1% (20/27)")
    assert _text("gurps odds check Broadsword-14-2").startswith("Broadsword 14-2 = 12: ")
    assert _text("gurps odds check 14 --mod -2").startswith("Skill 14-2 = 12: ")
    assert _text("gurps odds 9-5+10 --label Lockpicking").startswith("Lockpicking 9-5+10 = 14:")


# --- 7. a lower explosion cap is suggested only when something explodes --------------------


def test_explosion_cap_is_suggested_only_for_exploding_dice() -> None:
    with pytest.raises(DiceLimitError) as plain:
        commands.run("odds 500d100")
    assert "explosion cap" not in str(plain.value) and "try sample" in str(plain.value)
    with pytest.raises(DiceLimitError) as kept:
        commands.run("odds 200d100kh100")
    assert "explosion cap" not in str(kept.value)
    with pytest.raises(DiceLimitError) as boom:
        commands.run("odds 100d6!")
    assert "try sample, or a lower explosion cap" in str(boom.value)
    with pytest.raises(DiceLimitError) as mixed:
        commands.run("odds 50d20!!+400d100")
    assert "explosion cap" in str(mixed.value)
