"""Issue 52 §2: B556's Critical Head Blow Table for a critical hit to the skull, face or
eye, B400's large-area injury, and All-Out Attack's Double, Feint and Long (B365), each
against the rule's words (``COMBAT.md``: "The Critical Head Blow Table is for critical
hits to the head (skull, face, eye)"; "Skull: ... critical hits on the Critical Head
Blow Table. None of these apply to toxic damage"; "Large-area injury (B400): the DR
used is the average of the torso's and the least-protected location's"; "Double: two
attacks; Feint: a feint, then an attack; Long: +1 yard of reach, at a cost in
damage"), and their odds against enumeration."""

from __future__ import annotations

from fractions import Fraction

import pytest

from referee import commands
from referee.errors import RuleError
from referee.rng import ReplaySource
from referee.systems.gurps.allout import feint_odds, long_damage
from referee.systems.gurps.contest import quick_contest
from referee.systems.gurps.criticals import CRITICAL_HEAD_BLOW, CRITICAL_HIT, HEAD
from referee.systems.gurps.damage import read_damage
from referee.systems.gurps.exchange import Target, exchange, exchanges
from referee.systems.gurps.exchange_odds import double_odds, exchange_odds
from referee.systems.gurps.locations import LargeArea
from referee.systems.gurps.melee import AttackOptions
from test_exchange_odds import ONE_OF, WAYS, _check, _runs

ORC = Target("Orc", dodge=8, dr=3, hp=12)


def _replay(*faces: int) -> ReplaySource:
    return ReplaySource([(6, f) for f in faces])


def test_the_head_blow_table_reads_as_b556() -> None:
    """3: maximum damage, DR ignored; 4-5: DR halved (round up) and a major wound if
    any penetrates; 6-7: an eye hit; 8: off balance; 9-11: normal; 12-13: deafened or
    scarred; 14: drops his weapon; 15: maximum; 16: double; 17: DR halved (round up);
    18: triple."""
    effects = [CRITICAL_HEAD_BLOW[t].effect for t in range(3, 19)]
    assert effects == [
        "max_no_dr", "half_dr_up_major", "half_dr_up_major", "eye", "eye", "off_balance",
        "normal", "normal", "normal", "deafen_scar", "deafen_scar", "drop", "max", "double",
        "half_dr_up", "triple",
    ]  # fmt: skip
    assert HEAD == {"skull", "face", "eye"}
    assert "ignores the target's DR" in CRITICAL_HEAD_BLOW[3].text
    assert "round up" in CRITICAL_HEAD_BLOW[17].text and "round down" in CRITICAL_HIT[17].text


def test_an_aimed_skull_critical_reads_the_head_table() -> None:
    """A critical hit (3) aimed at the skull, and 3 on the table: maximum damage, the
    DR (3, and the skull's 2) ignored, ×4 (B399): 1d+1 cr does 7 basic, 28 injury."""
    x = exchange(14, read_damage("1d+1 cr"), ORC, options=AttackOptions(location="skull"),
                 defense="dodge", rng=_replay(1, 1, 1, 1, 1, 1, 2))  # fmt: skip
    assert x.attack.critical is not None and x.attack.critical.table == "critical head blow"
    assert x.hurt is not None and (x.hurt.basic, x.hurt.dr, x.hurt.injury) == (7, 0, 28)
    assert "critical head blow table" in x.text


def test_a_random_head_hit_reads_the_same_roll_on_the_head_table() -> None:
    """A critical hit (3) whose table roll is 6 (the Critical Hit Table: maximum
    damage) lands on the skull at random (3): the head table's 6, an eye hit, with no
    skull DR and normal dice: 1d imp rolls 4, DR 3, 1 through, ×4 (B399) = 4."""
    x = exchange(14, read_damage("1d imp"), ORC, options=AttackOptions(random_location=True),
                 defense="dodge", rng=_replay(1, 1, 1, 1, 2, 3, 1, 1, 1, 4))  # fmt: skip
    assert x.attack.critical is not None and x.attack.critical.table == "critical hit"
    h = x.hurt
    assert h is not None and h.head_blow is not None and h.head_blow.entry.effect == "eye"
    assert (h.location.key, h.basic, h.dr, h.injury) == ("skull", 4, 3, 4)
    assert "a head hit: critical head blow table" in x.text
    off = exchange(14, read_damage("1d imp"), ORC,
                   options=AttackOptions(random_location=True, head_blow_table=False),
                   defense="dodge", rng=_replay(1, 1, 1, 1, 2, 3, 1, 1, 1, 4))  # fmt: skip
    assert off.hurt is not None and off.hurt.head_blow is None
    assert (off.hurt.basic, off.hurt.dr, off.hurt.injury) == (6, 5, 4)  # max, skull DR +2


def test_toxic_damage_at_the_skull_reads_the_critical_hit_table() -> None:
    """B399: none of the skull's special effects apply to toxic damage, the head table
    among them: 3 then 3 is the Critical Hit Table's triple damage."""
    x = exchange(14, read_damage("1d tox"), ORC, options=AttackOptions(location="skull"),
                 defense="dodge", rng=_replay(1, 1, 1, 1, 1, 1, 2))  # fmt: skip
    assert x.attack.critical is not None and x.attack.critical.table == "critical hit"
    assert x.hurt is not None and x.hurt.basic == 6 and x.hurt.effect == "triple"


def test_the_odds_read_the_head_table_at_the_head() -> None:
    """The odds of a critical that lands on the face: the head table's rows (an eye
    hit is ×4, a face hit ×1 for crushing), so they differ from the Critical Hit
    Table's, and equal them with the option off on the torso."""
    face = AttackOptions(location="face")
    on = exchange_odds(14, read_damage("1d cr"), ORC, face, "none")
    off = exchange_odds(14, read_damage("1d cr"), ORC,
                        AttackOptions(location="face", head_blow_table=False), "none")  # fmt: skip
    assert on.injury != off.injury and on.hit == off.hit
    torso = exchange_odds(14, read_damage("1d cr"), ORC, AttackOptions(), "none")
    flat = exchange_odds(14, read_damage("1d cr"), ORC, AttackOptions(head_blow_table=False),
                         "none")  # fmt: skip
    assert torso == flat


def test_large_area_injury_averages_the_torso_and_the_least_protected_dr_b400() -> None:
    """B400 (``COMBAT.md``: "the DR used is the average of the torso's and the
    least-protected location's"): torso DR 3, bare arms (0): DR 2 (1.5, a half rounded
    up by default, as GCS and GURPS Game Aid; 1 with ``LargeArea.DOWN``: B400 does not
    say); no location may be chosen; and its odds equal enumeration."""

    bare = Target("Orc", dodge=8, dr=3, hp=12, dr_at=(("arm", 0),))
    x = exchange(14, read_damage("3d cr"), bare, options=AttackOptions(large_area=True),
                 defense="dodge", rng=_replay(2, 4, 5, 2, 2, 5, 3, 4, 3))  # fmt: skip
    assert x.hurt is not None and (x.hurt.dr, x.hurt.penetrating) == (2, 8)
    down = AttackOptions(large_area=LargeArea.DOWN)
    x = exchange(14, read_damage("3d cr"), bare, options=down, defense="dodge",
                 rng=_replay(2, 4, 5, 2, 2, 5, 3, 4, 3))  # fmt: skip
    assert x.hurt is not None and (x.hurt.dr, x.hurt.penetrating) == (1, 9)
    covered = Target("Orc", dodge=8, dr=3, hp=12, dr_at=(("skull", 1),))  # the skull: 1 + 2
    y = exchange(14, read_damage("3d cr"), covered, options=AttackOptions(large_area=True),
                 defense="dodge", rng=_replay(2, 4, 5, 2, 2, 5, 3, 4, 3))  # fmt: skip
    assert y.hurt is not None and y.hurt.dr == 3  # every location 3 or more: (3 + 3) / 2
    with pytest.raises(RuleError, match="B400"):
        AttackOptions(large_area=True, location="skull")
    _check(12, "1d+1 cr", bare, AttackOptions(large_area=True), "dodge")


def test_all_out_attack_long_feint_and_double_b365() -> None:
    """B365 (``COMBAT.md``: "Double: two attacks; Feint: a feint, then an attack; Long:
    +1 yard of reach, at a cost in damage"): Long's cost to a swing is −2 damage or −1 a
    die when worse (Martial Arts p. 97); a feint that succeeds by 3 against a foe who
    fails takes its margin of success, 3, off the defense (B365: "If you succeed and
    your foe fails"; issue 66 §1: it took the margin of victory, 5); Double rolls two
    exchanges, the second against the HP the first left; one option only."""
    assert [long_damage(d) for d in ("1d", "2d+1", "3d", "5d-1")] == [
        "1d-2",
        "2d-1",
        "3d-3",
        "5d-6",
    ]
    # The feint: 11 (success by 3) against 12's 14 (failure by 2): won by 5, but the foe
    # failed, so the penalty is the margin of success, 3; then the attack 10, and the
    # parry 10-3 = 7 fails on 12.
    x = exchange(14, read_damage("2d cut"), Target("Orc", parry=10, hp=12),
                 options=AttackOptions(feint=12), defense="parry",
                 rng=_replay(4, 1, 6, 4, 4, 6, 2, 6, 2, 4, 5, 3, 1, 5))  # fmt: skip
    assert x.feint is not None and x.feint.margin_of_victory == 5
    assert x.feinted == 3
    assert x.defense is not None and x.defense.check.effective_skill == 7 and not x.defense.defended
    both = exchanges(14, read_damage("2d cut"), Target("Orc", parry=10, hp=12),
                     options=AttackOptions(double=True), defense="parry",
                     rng=_replay(4, 1, 6, 4, 4, 6, 2, 6, 2, 4, 5, 1, 6, 6, 6, 6))  # fmt: skip
    assert len(both) == 2 and both[0].hp_after == 0
    assert both[1].target.current_hp == 0 and both[1].hp_after == -18  # 12 cut x1.5
    for bad in ({"strong": True, "long": True}, {"double": True, "ranged": True}):
        with pytest.raises(RuleError, match="B365"):
            AttackOptions(**bad)  # type: ignore[arg-type]


@pytest.mark.slow  # make check leaves it to make test
def test_a_feints_odds_equal_enumeration() -> None:
    """The feint's Quick Contest is two more 3d6 before the attack. Its margins are
    every pair of totals run through the exchange itself; the rest of the exchange is
    enumerated once for each margin, after the first pair of totals that gives it (the
    attack reads the feint only through its margin); the odds, a mixture over the
    margins, equal the sum."""
    spec, foe = read_damage("1d cut"), Target("Orc", parry=10, dr=1, hp=10)
    opts = AttackOptions(feint=11, criticals=False)
    rest = [*ONE_OF[10], *ONE_OF[11], 3]  # an attack, a parry, a die: read for the margin
    margins: dict[int, Fraction] = {}
    prefix: dict[int, list[int]] = {}
    for a, wa in WAYS.items():
        for b, wb in WAYS.items():
            script = [*ONE_OF[a], *ONE_OF[b]]
            x = exchange(13, spec, foe, options=opts, defense="parry",
                         rng=_replay(*script, *rest))  # fmt: skip
            assert x.feint is not None
            mine, foes = x.feint.rounds[0]  # B365: success against failure, the margin
            assert mine is not None and foes is not None  # of success; both, of victory
            m = 0
            if mine.success:
                m = mine.margin if not foes.success else max(mine.margin - foes.margin, 0)
            assert x.feinted == m
            margins[m or 0] = margins.get(m or 0, Fraction(0)) + Fraction(wa * wb, 216 * 216)
            prefix.setdefault(m or 0, script)
    assert tuple(sorted(margins.items())) == feint_odds(13, 11)
    injures = defended = Fraction(0)
    for m, p in margins.items():
        for q, x in _runs(13, spec, foe, opts, "parry", prefix[m]):
            injures += p * q if x.hurt is not None and x.hurt.injury else 0
            defended += p * q if x.defense is not None and x.defense.defended else 0
    o = exchange_odds(13, spec, foe, opts, "parry")
    assert (o.injures, o.defended) == (injures, defended)


def test_a_doubles_odds_follow_the_first_exchange() -> None:
    """Either of two attacks injures 1 − (1 − p)²; both: the first's injury, then the
    second against the HP it left (reeling halves Dodge, B419), by enumeration."""

    spec, foe = read_damage("1d cr"), Target("Orc", dodge=10, hp=5)
    opts = AttackOptions(double=True, criticals=False)
    first = exchange_odds(12, spec, foe, opts, "dodge")
    either, both = double_odds(first, 12, spec, foe, opts, "dodge")
    assert either == 1 - (1 - first.injures) ** 2
    seconds: dict[int, object] = {}
    expected = Fraction(0)
    for p, x in _runs(12, spec, foe, opts, "dodge"):
        if x.hurt is None or not x.hurt.injury:
            continue
        hp = x.hp_after
        assert hp is not None
        if hp not in seconds:
            after = Target("Orc", dodge=10, hp=5, current_hp=hp)
            seconds[hp] = sum((q for q, y in _runs(12, spec, after, opts, "dodge")
                               if y.hurt is not None and y.hurt.injury), Fraction(0))  # fmt: skip
        expected += p * seconds[hp]  # type: ignore[operator]
    assert both == expected


# ------------------------------------------ All-Out Attack from the command line (B365)


def test_the_command_rolls_a_double_as_two_attacks_and_a_feint_before_its_attack() -> None:
    """``gurps attack 14 --double``: two attack rolls, the second in ``"second"``;
    ``--feint 12``: the Quick Contest first, its margin of victory taken off the foe's
    defense as the text says (B365: the margin of success, 3, when the foe fails), each
    roll the engine's own on the same dice."""
    two = commands.run("gurps attack 14 --double", _replay(2, 4, 5, 6, 6, 4))
    assert (two.data["roll"], two.data["outcome"]) == (11, "success")
    assert (two.data["second"]["roll"], two.data["second"]["outcome"]) == (16, "failure")
    assert two.text.count("; then ") == 1 and two.draws == tuple((6, f) for f in (2, 4, 5, 6, 6, 4))
    # 11 (by 3) against 12's 14 (failure by 2): won by 5; then the attack, 10.
    won = commands.run("gurps attack 14 --feint 12", _replay(4, 1, 6, 4, 4, 6, 2, 6, 2))
    contest = quick_contest(14, 12, resistance=True, rng=_replay(4, 1, 6, 4, 4, 6),
                            names=("the feint", "the foe"))  # fmt: skip
    assert won.data["feint"]["margin_of_victory"] == contest.margin_of_victory == 5
    assert won.text.startswith(f"feint: {contest.text} (the foe's defense -3, B365); 14: rolled 10")
    lost = commands.run("gurps attack 14 --feint 12", _replay(6, 6, 4, 1, 1, 1, 3, 3, 3))
    assert lost.data["feint"]["winner"] == 2 and "(the foe's defense -0, B365)" in lost.text


def test_a_double_exchange_and_its_odds_from_the_command_line() -> None:
    """``gurps attack 14 --double`` against a target rolls both exchanges, the second
    against the HP the first left; ``gurps odds attack`` gives either's and both's
    chance to injure as :func:`double_odds` does."""
    line = "gurps attack 14 --double --damage 2d --dodge 9 --hp 12 --defense dodge"
    faces = (4, 1, 6, 5, 5, 5, 6, 6, 4, 1, 1, 3, 6, 6, 6, 2)
    got = commands.run(line, _replay(*faces))
    both = exchanges(14, read_damage("2d cr"), Target("the target", dodge=9, hp=12),
                     attacker="Attack", options=AttackOptions(double=True), defense="dodge",
                     rng=_replay(*faces))  # fmt: skip
    assert both[0].hp_after is not None and both[0].hp_after < 12  # the first injures
    assert both[1].target.current_hp == both[0].hp_after  # the second meets what it left
    assert got.text == f"first: {both[0].text}\nsecond: {both[1].text}"
    assert got.data["second"]["text"] == both[1].text
    odds = commands.run(line.replace("gurps attack", "gurps odds attack"))
    first = exchange_odds(14, read_damage("2d cr"), Target("the target", dodge=9, hp=12),
                          AttackOptions(double=True), "dodge")  # fmt: skip
    either, two = double_odds(first, 14, read_damage("2d cr"),
                              Target("the target", dodge=9, hp=12), AttackOptions(double=True),
                              "dodge")  # fmt: skip
    assert odds.data["double"] == {"either": str(either), "both": str(two)}
    assert "two attacks (All-Out Attack, Double): either injures" in odds.text


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("gurps attack 14 --dodge 9 --hp 12", "an exchange needs the weapon's damage"),
        ("gurps attack 14 --damage 1d --dodge 9 --range 10", "--range is for a ranged attack"),
    ],
)
def test_an_exchange_without_damage_or_a_bad_option_is_refused_by_name(
    line: str, message: str
) -> None:
    with pytest.raises(RuleError, match=message):
        commands.run(line, _replay(3, 3, 3))
