"""Fudge dice and the ladder (002 and the rules README): published counts, brute force,
named rule clauses, seeded statistics."""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from conftest import Fixed, chi_square_ok
from referee import RuleError, odds, seeded
from referee.results import Versus
from referee.systems import fudge as f
from referee.systems.fudge import FATE_CORE, PSI_PUNK, Strategy
from referee.systems.fudge.dice import reroll_dice

DATA = Path(__file__).parent / "data" / "published.txt"
MINUS, BLANK, PLUS = 0, 1, 2  # randbelow(3) values for the faces -, 0, +


def _published_4df() -> dict[int, int]:
    for line in DATA.read_text().splitlines():
        if line.startswith("4dF |"):
            cells = line.split("|")[3].split()
            return {int(k): int(v) for k, v in (c.split(":") for c in cells)}
    raise AssertionError("4dF row missing from published.txt")


@functools.cache
def _p_at_least(k: int, need: int) -> Fraction:
    """P(k fresh Fudge dice sum to at least ``need``), by enumeration."""
    rolls = list(itertools.product((-1, 0, 1), repeat=k))
    return Fraction(sum(1 for r in rolls if sum(r) >= need), len(rolls))


def _best_subset(faces: tuple[int, ...], net: int, need: int | None) -> tuple[int, ...]:
    """Brute-force search: of every subset of at most ``net`` dice, the one with the best
    chance of success (``need`` = dice total that succeeds), then the best expected
    result, then the fewest dice."""
    best: tuple[tuple[Fraction, int, int], tuple[int, ...]] | None = None
    for k in range(net + 1):
        for subset in itertools.combinations(range(4), k):
            kept = sum(x for i, x in enumerate(faces) if i not in subset)
            p = Fraction(0) if need is None else _p_at_least(k, need - kept)
            score = (p, kept, -k)
            if best is None or score > best[0]:
                best = score, subset
    assert best is not None
    return best[1]


def _brute(net: int, strategy: Strategy, need: int | None = None) -> dict[int, Fraction]:
    """Every face sequence of 4dF, the rule applied to that sequence, every reroll outcome."""
    counts: Counter[int] = Counter()
    for faces in itertools.product((-1, 0, 1), repeat=4):
        if net < 0:
            chosen = [i for i, x in enumerate(faces) if x == 1][:-net]
        elif strategy is Strategy.OPTIMAL:
            chosen = list(_best_subset(faces, net, need))
        else:
            order = [i for i, x in enumerate(faces) if x == -1]
            if strategy is Strategy.MINUS_THEN_BLANK:
                order += [i for i, x in enumerate(faces) if x == 0]
            chosen = order[:net]
        for new in itertools.product((-1, 0, 1), repeat=len(chosen)):
            kept = sum(x for i, x in enumerate(faces) if i not in chosen)
            counts[kept + sum(new)] += 3 ** (4 - len(chosen))
    total = sum(counts.values())
    return {k: Fraction(v, total) for k, v in counts.items()}


# --- dice ------------------------------------------------------------------------------


def _name(r: f.ActionRoll) -> str:
    assert r.result is not None, "the action was not rolled"
    return r.result.name


def test_4df_matches_published_counts() -> None:
    published = _published_4df()
    assert published == {-4: 1, -3: 4, -2: 10, -1: 16, 0: 19, 1: 16, 2: 10, 3: 4, 4: 1}
    assert dict(f.dice_distribution()) == {k: Fraction(v, 81) for k, v in published.items()}
    assert odds("4dF").distribution == dict(f.dice_distribution())


@pytest.mark.parametrize("net", range(-4, 5))
@pytest.mark.parametrize("strategy", list(Strategy))
def test_reroll_distribution_matches_brute_force(net: int, strategy: Strategy) -> None:
    assert dict(f.dice_distribution(net, strategy)) == _brute(net, strategy)


@pytest.mark.parametrize("net", range(1, 5))
@pytest.mark.parametrize("need", range(-4, 6))
def test_optimal_distribution_matches_brute_force_search(net: int, need: int) -> None:
    # Issue 9, item 5: the default reroll is the player's best choice for the difficulty.
    assert dict(f.dice_distribution(net, Strategy.OPTIMAL, need)) == _brute(
        net, Strategy.OPTIMAL, need
    )


def test_optimal_choice_is_best_for_every_outcome() -> None:
    for faces in itertools.product((-1, 0, 1), repeat=4):
        for net in range(1, 5):
            for need in (None, *range(-3, 5)):
                # each rerolled die draws 1 (a blank); only the choice matters here
                _, done = reroll_dice(faces, net, Strategy.OPTIMAL, Fixed([1] * 4), need)
                chosen = tuple(x.index for x in done)
                best = _best_subset(faces, net, need)
                kept = sum(x for i, x in enumerate(faces) if i not in chosen)
                best_kept = sum(x for i, x in enumerate(faces) if i not in best)
                if need is not None:
                    assert _p_at_least(len(chosen), need - kept) == _p_at_least(
                        len(best), need - best_kept
                    ), (faces, net, need)
                assert (kept, len(chosen)) == (best_kept, len(best)), (faces, net, need)


def test_one_reroll_bonus_raises_plus_one_or_better() -> None:
    def at_least_one(d: dict[int, Fraction]) -> Fraction:
        return sum((p for v, p in d.items() if v >= 1), Fraction(0))

    assert at_least_one(dict(f.dice_distribution())) == Fraction(31, 81)
    # The old fixed order (- first, then blanks) rerolled a blank even on a success.
    assert at_least_one(_brute(1, Strategy.MINUS_THEN_BLANK)) == Fraction(142, 243)
    brute = at_least_one(_brute(1, Strategy.OPTIMAL, 1))
    assert brute == Fraction(146, 243)  # the audit's figure, derived by enumeration above
    assert f.action_odds("Good", difficulty="Great", reroll=+1).success == brute
    kept = f.action("Good", difficulty="Great", reroll=+1, rng=seeded(23))
    assert kept.success and not kept.rerolls  # the audit's seed: a success is kept
    penalised = f.action_odds("Good", difficulty="Great", reroll=-1).success
    assert penalised is not None and penalised < Fraction(31, 81)


def test_bonuses_and_penalties_cancel_before_rolling() -> None:
    assert f.net_rerolls([+1, -1]) == 0
    assert f.net_rerolls([+2, -1]) == 1
    # Only four dice are drawn: a cancelled reroll draws nothing more (Fixed would run dry).
    r = f.action("Good", reroll=[+1, -1], rng=Fixed([MINUS] * 4))
    assert r.rerolls == () and r.reroll == 0 and r.dice == r.natural == (-1,) * 4
    assert r.odds == f.action_odds("Good")


def test_penalty_with_no_plus_rerolls_nothing() -> None:
    r = f.action("Good", reroll=-2, rng=Fixed([MINUS, BLANK, BLANK, MINUS]))
    assert r.rerolls == () and r.dice == r.natural == (-1, 0, 0, -1)
    assert "no + die to reroll" in r.text


def test_penalty_rerolls_plus_dice_and_second_result_stands() -> None:
    r = f.action("Good", reroll=-1, rng=Fixed([BLANK, PLUS, PLUS, MINUS, MINUS]))
    assert r.natural == (0, 1, 1, -1) and r.natural_total == 1
    assert r.rerolls == (f.Reroll(1, 1, -1),)  # the first + die, now worse: it stands
    assert r.dice == (0, -1, 1, -1) and r.total == -1 and _name(r) == "Fair"


def test_bonus_rerolls_minus_first_then_blanks_never_plus() -> None:
    r = f.action(
        "Fair",
        reroll=+3,
        strategy="minus-then-blank",
        rng=Fixed([PLUS, BLANK, MINUS, BLANK, PLUS, PLUS, PLUS]),
    )
    assert [x.index for x in r.rerolls] == [1, 2, 3]  # drawn left to right
    assert r.dice == (1, 1, 1, 1) and r.natural == (1, 0, -1, 0)


def test_minus_only_strategy_leaves_blanks() -> None:
    r = f.action(
        "Fair", reroll=+3, strategy="minus-only", rng=Fixed([PLUS, BLANK, MINUS, BLANK, PLUS])
    )
    assert [x.index for x in r.rerolls] == [2] and r.dice == (1, 0, 1, 0)


def test_reading_procedure_cancels_pairs_and_drops_blanks() -> None:
    assert f.read_faces([1, 1, -1, 0]) == (1,)
    assert f.read_faces([1, -1, 0, 0]) == ()
    assert f.read_faces([-1, -1, 0, -1]) == (-1, -1, -1)
    r = f.action("Good", difficulty="none", rng=Fixed([PLUS, PLUS, MINUS, BLANK]))
    assert r.text == "Good, rolled [+ + - 0] → [+] (+1) → Great"


# --- actions -------------------------------------------------------------------------


def test_unopposed_success_meets_or_beats_fair_by_default() -> None:
    r = f.action("Good", rng=Fixed([MINUS, BLANK, BLANK, BLANK]))  # -1: Good-1 = Fair
    assert r.difficulty == f.Level("Fair", 0) and _name(r) == "Fair"
    assert r.success is True and r.degree == 0 and r.degree_name == "Fair"
    r = f.action("Good", difficulty="Great", rng=Fixed([PLUS, PLUS, PLUS, BLANK]))
    assert _name(r) == "Wonderful" and r.degree == 2 and r.degree_name == "Great"
    r = f.action("Good", difficulty="Great", rng=Fixed([BLANK] * 4))
    assert r.success is False and r.degree == -1 and r.degree_name == "Mediocre"


def test_modifiers_add_to_trait_and_are_capped_at_three() -> None:
    r = f.action("Good", modifier=[2, 1], roll_anyway=True, rng=Fixed([BLANK] * 4))
    assert r.modifier == 3 and _name(r) == "Wonderful"
    with pytest.raises(RuleError, match=r"\+4 is beyond ±3"):
        f.action("Good", modifier=4)
    with pytest.raises(RuleError, match="beyond ±3"):
        f.action_odds("Good", modifier=[-2, -2])
    r = f.action("Good", modifier=6, extreme=True, roll_anyway=True, rng=Fixed([PLUS] * 4))
    assert r.result == f.Level("Astonishing+4", 11)


def test_reroll_count_beyond_four_is_refused() -> None:
    with pytest.raises(RuleError, match="more than the 4 dice"):
        f.action("Good", reroll=5)
    with pytest.raises(RuleError, match="penalty of 5dF"):
        f.action("Good", reroll=[-3, -2])


def test_opposed_each_result_is_the_others_difficulty() -> None:
    # Brad: Great +2 on the dice = Wonderful; Matt: Good +1 = Great (002, "Degree of Success").
    rng = Fixed([PLUS, PLUS, BLANK, BLANK, PLUS, BLANK, BLANK, BLANK])
    o = f.oppose("Great", "Good", rng=rng)
    assert _name(o.first) == "Wonderful" and _name(o.second) == "Great"
    assert o.first.difficulty == o.second.result and o.second.difficulty == o.first.result
    assert o.degree == 2 and o.winner == 1 and "degree +2 (Great)" in o.text


def test_opposed_tie_rule() -> None:
    same = [BLANK] * 8
    assert f.oppose("Good", "Good", rng=Fixed(same)).winner is None
    assert f.oppose("Good", "Good", ties="defender", rng=Fixed(same)).winner == 2


def test_opposed_odds_match_enumeration() -> None:
    a = f.action_odds("Great", reroll=1, difficulty="none")
    b = f.action_odds("Good", reroll=-1, difficulty="none")
    win = lose = tie = Fraction(0)
    # opposed: no fixed difficulty, so the best choice maximises the expected result
    da, db = _brute(1, Strategy.MINUS_ONLY), _brute(-1, Strategy.MINUS_ONLY)
    for x, y in itertools.product(da, db):
        p = da[x] * db[y]
        if 2 + x > 1 + y:
            win += p
        elif 2 + x < 1 + y:
            lose += p
        else:
            tie += p
    assert f.oppose_odds(a, b, "nobody") == Versus(win, lose, tie)
    assert f.oppose_odds(a, b, "defender") == Versus(win, lose + tie, Fraction(0))


@pytest.mark.slow  # make check leaves it to make test
@pytest.mark.parametrize(
    ("net", "strategy"),
    [(0, "optimal"), (2, "optimal"), (1, "minus-then-blank"), (-1, "optimal"), (3, "minus-only")],
)
def test_seeded_rolls_match_exact_odds(net: int, strategy: str) -> None:
    rng = seeded(f"fudge-{net}-{strategy}")
    n = 20_000
    seen: Counter[int] = Counter()
    for _ in range(n):
        r = f.action("Fair", reroll=net, strategy=strategy, rng=rng)
        assert r.result is not None
        seen[r.result.value] += 1
    expected = dict(f.action_odds("Fair", reroll=net, strategy=strategy).distribution)
    assert chi_square_ok(seen, expected, n)


def test_seeded_opposed_winners_match_exact_odds() -> None:
    rng = seeded("fudge-oppose")
    n = 20_000
    seen = Counter(f.oppose("Great", "Good", rng=rng).winner or 0 for _ in range(n))
    o = f.oppose("Great", "Good").odds
    assert chi_square_ok(seen, {1: o.first, 2: o.second, 0: o.tie}, n)


# --- ladder --------------------------------------------------------------------------


@pytest.mark.parametrize("ladder", [PSI_PUNK, FATE_CORE])
def test_ladder_round_trips(ladder: f.Ladder) -> None:
    for value in range(-30, 31):
        assert ladder.parse(ladder.name_of(value)).value == value
    for lv in ladder.levels:
        assert ladder.parse(lv.name) == lv and ladder.parse(lv.name.upper()) == lv
        assert ladder.name_of(lv.value) == lv.name


def test_level_forms() -> None:
    p = PSI_PUNK.parse
    assert p("Good") == p("good") == p("+1") == p("1") == p("Fair+1") == p(1)
    assert p("Gr").name == "Great" and p("Great+1").name == "Superb" and p("-1").name == "Mediocre"
    assert p("Astonishing+2") == f.Level("Astonishing+2", 9)
    assert p("Abysmal-1") == f.Level("Abysmal-1", -4)
    assert p("ab") == f.Level("Abysmal", -3)
    assert FATE_CORE.parse("Fair").value == 2 and FATE_CORE.default_difficulty == 2


def test_ambiguous_and_unknown_levels() -> None:
    with pytest.raises(RuleError, match="ambiguous.*Great, Good"):
        PSI_PUNK.parse("G")
    with pytest.raises(RuleError, match="unknown level 'Heroic'"):
        PSI_PUNK.parse("Heroic")
    with pytest.raises(RuleError, match="cannot read level"):
        PSI_PUNK.parse("Good++")
    with pytest.raises(RuleError, match="out of range"):
        PSI_PUNK.parse("+1001")


def test_traits_run_from_poor_to_phenomenal() -> None:
    assert PSI_PUNK.trait("Poor").value == -2 and PSI_PUNK.trait("Phenomenal").value == 5
    for rolled_only in ("Abysmal", "Extraordinary", "Astonishing", "Phenomenal+1"):
        with pytest.raises(RuleError, match="not a trait"):
            f.action(rolled_only)
    # ... but any level is a difficulty.
    assert f.action_odds("Phenomenal", difficulty="Astonishing+2").success == Fraction(1, 81)


def test_user_ladders_toml_and_json(tmp_path: Path) -> None:
    toml = tmp_path / "mine.toml"
    toml.write_text(
        'name = "Mine"\ntraits = ["Bad", "Top"]\n[levels]\nTop = 2\nFine = 1\nOkay = 0\nBad = -1\n'
    )
    lad = f.get_ladder(str(toml))
    assert lad.name == "Mine" and lad.trait_range == (-1, 2) and lad.default_difficulty == 0
    assert lad.name_of(4) == "Top+2" and lad.parse("fi").value == 1
    js = tmp_path / "mine.json"
    js.write_text('{"levels": {"High": 1, "Low": 0}, "default_difficulty": "High"}')
    lad = f.load_ladder(js)
    assert lad.name == "mine" and lad.default_difficulty == 1 and lad.trait_range == (0, 1)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("a.toml", "name = 'x'\n[levels]\nGood = 1\nFair = \n", r"a\.toml: not valid TOML.*line 4"),
        ("b.toml", "[levels]\nGood = 1\nFair = 'zero'\n", r"line 3, field 'Fair': .*integer"),
        (
            "c.toml",
            "[levels]\nGood = 2\nFair = 0\n",
            r"line 1, field 'levels': .*no level has the value 1",
        ),
        ("d.json", '{"levels": {"Good": 1,\n "Fair": }}', r"d\.json, line 2: not valid JSON"),
        (
            "e.json",
            '{\n"levels": {"A": 1},\n"colour": 2}',
            r"line 3, field 'colour': unknown field",
        ),
        ("f.toml", "traits = ['Good']\n[levels]\nGood = 1\n", r"line 1, field 'traits'"),
        ("g.toml", "[levels]\n'Good+1' = 1\n", r"line 2, field 'Good\+1': a level name"),
        (
            "h.toml",
            "default_difficulty = 'Nope'\n[levels]\nGood = 1\n",
            r"line 1, field 'default_difficulty'",
        ),
        ("i.toml", "[levels]\nGood = 1\ngood = 0\n", "share a name"),
    ],
)
def test_malformed_ladder_files_name_line_and_field(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(RuleError, match=message):
        f.get_ladder(str(path))


def test_unknown_ladder_name_and_missing_file() -> None:
    with pytest.raises(RuleError, match="unknown ladder 'gurps'"):
        f.get_ladder("gurps")
    with pytest.raises(RuleError, match="cannot read ladder file"):
        f.get_ladder("/nonexistent/ladder.toml")
    assert f.get_ladder("Fate") is FATE_CORE and f.get_ladder(None) is PSI_PUNK


# --- issue 9: degrees on other ladders, no roll when none is needed --------------------


def test_degrees_are_named_only_where_the_ladder_names_them() -> None:
    # Issue 9, item 6: the audit's case, "degree +2 (Fair)" on Fate Core.
    r = f.action("Good", difficulty="Fair", ladder=FATE_CORE, rng=seeded(7))
    assert r.degree == 2 and r.degree_name == "succeed" and "(Fair)" not in r.text
    assert "succeed (+2 shifts)" in r.text
    fate = [FATE_CORE.degree_name(d) for d in (-1, 0, 1, 2, 3, 5)]
    assert fate == ["fail", "tie", "succeed", "succeed", "succeed with style", "succeed with style"]
    assert PSI_PUNK.degree_name(2) == "Great" and PSI_PUNK.degree_name(-1) == "Mediocre"
    plain = f.ladder_from_data({"levels": {"Low": 0, "High": 1}})
    assert plain.degree_name(1) is None
    named = f.ladder_from_data({"levels": {"Low": 0, "High": 1}, "degrees": "ladder"})
    assert named.degree_name(1) == "High"
    with pytest.raises(RuleError, match="field 'degrees'"):
        f.ladder_from_data({"levels": {"Low": 0}, "degrees": "levels"})


def test_no_roll_when_success_is_impossible_or_certain() -> None:
    # Issue 9, item 7; 002 "Rolling the Dice": no roll for the automatic or the impossible.
    class NoDraws:
        def randbelow(self, n: int) -> int:
            raise AssertionError("no die may be drawn")

    r = f.action("Poor", difficulty="Astonishing+2", rng=NoDraws())
    assert not r.rolled and r.success is False and r.odds.success == 0 and r.natural == ()
    assert "impossible, no roll needed" in r.text
    r = f.action("Superb", modifier=3, difficulty="Mediocre", extreme=True, rng=NoDraws())
    assert not r.rolled and r.success is True and "certain success" in r.text
    r = f.action("Poor", difficulty="Astonishing+2", roll_anyway=True, rng=seeded(1))
    assert r.rolled and r.success is False and len(r.natural) == 4
    assert f.action("Good", difficulty="none", rng=seeded(1)).rolled  # no difficulty: read it
