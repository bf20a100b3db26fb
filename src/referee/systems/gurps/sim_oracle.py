"""A GURPS fight as a plain Python loop: one fight at a time, each attack through the
exchange engine itself (:func:`.exchange.exchange`: the attack, its critical tables,
the defense, the location, the blow through DR, the wound). It is the simulator's test
oracle and its speed reference; :mod:`.simulate` runs the same rules vectorised.

The rules of a simulated fight (*GURPS Basic Set*, 4th edition; ``COMBAT.md`` of the
rules notes), in the order applied:

1. The order of turns is fixed once: the highest Basic Speed first (B363); ties by a
   random draw (B363's DX and Per tie-breaks are left out).
2. Each round, every combatant still up takes its turn in that order:

   a. A stunned combatant does nothing, and rolls HT at the end of the turn; on a
      success it is no longer stunned (B420; the recovery roll is plain HT,
      :attr:`.wounds.StunRecovery.PLAIN`). Knocked down, it stays prone meanwhile.
   b. At 0 HP or less, it rolls HT at −1 per full multiple of HP below zero to stay
      conscious; on a failure it falls unconscious (B419), on a success it goes on.
   c. Under 1/3 of its HP (reeling, B419): with ``flee = "reeling"`` it leaves the
      fight; with ``all_out_defense = "reeling"`` it takes All-Out Defense (Increased
      Defense: +2 to every defense until its next turn, B366).
   d. Prone (knocked down, B420), it takes Change Posture to kneel, and kneeling, to
      stand: two turns from lying down to standing (B364, "Change Posture").
   e. A ranged weapon with no shot left takes Ready, one turn for each second of its
      reload (B366, "Ready"; the Shots column, B269-B270, :mod:`.shots`).
   f. It chooses an enemy who is up by its tactic (:class:`.sim_encounter.Pick`). A
      melee fighter more than a step (two yards) from it takes a Move (B364) of its
      Move in yards toward it, halved when reeling (B419); the distance between those
      two shrinks by as much, to 1 yard. Two yards off, it steps in and attacks (B365).
   g. A ranged fighter with an Acc, with no enemy up within a yard of it, takes Aim
      (B364) for its ``aim_turns`` before it shoots; a new target starts a new Aim,
      and a turn of anything else (stunned, getting up) ends it.
   h. Otherwise it attacks that enemy with its shock from the injuries since its last
      turn (B419), its Aim's bonus (B364), the range penalty at its distance (B550),
      −2 with a ranged attack at a target kneeling or prone (B551), and, against a foe
      who cannot defend (stunned, or without any defense), All-Out Attack
      (Determined), after which it has no defense until its next turn (B365). At
      effective skill below 3 it cannot attack (``000``). A shot is spent.
3. The defender rolls its best defense (:func:`.target.choose_defense`), with the
   tactics' retreat on its first defense of a turn against a melee attack (B377),
   −4 for each parry already made that turn (B376), −4 while stunned (B420), Dodge
   halved while reeling (B419), −3 prone and −2 kneeling, with no retreat kneeling
   (B551); a missile cannot be parried (B376), nor a bullet or beam blocked (B375),
   nor a retreat made against either (B377): what :func:`.defense.defenses_against`
   allows. A defense spoils the defender's Aim (B364).
4. A blow's injury (:func:`.blows.blow`) comes off its HP; its shock waits for the
   victim's next turn (at most −4, −8 with Low Pain Threshold or a critical hit's
   double shock); crossing −1×HP ... −4×HP calls an HT roll to live (a failure by 1
   or 2 leaves it dying, out of the fight; a worse or critical failure kills,
   :attr:`.wounds.SurviveCritical.DEAD`); −5×HP kills (B419); the knockdown roll the
   wound calls for (B420) stuns and knocks down (prone) on a failure, and knocks out
   on a failure by 5 or more or a critical failure. The first crippled limb is
   recorded (B421). Injured while aiming, it rolls Will or loses its Aim (B364).
5. The fight ends the moment at most one side has anyone up; that side wins. A fight
   still going after ``max_rounds`` is a draw.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...faces import draw_faces
from ...rng import RandomSource
from .defense import Allowed, RangedKind, defenses_against, missile_kind
from .exchange import Hurt, exchange
from .melee import AttackOptions, DefenseOptions, effective_attack
from .sim_encounter import Encounter, Fighter, Pick
from .situation import Posture, aim_bonus
from .success import Outcome as Roll
from .success import check
from .target import Target
from .wounds import SurviveCritical

__all__ = [
    "AGAINST",
    "DEAD",
    "FLED",
    "POSTURES",
    "UNCONSCIOUS",
    "UP",
    "First",
    "Outcome",
    "against",
    "aims",
    "can_defend",
    "run_once",
]

UP, UNCONSCIOUS, DEAD, FLED = range(4)
STEP = 1
"""The yard an Attack maneuver may step before it strikes (B365, B368): a melee fighter
two yards off steps in and attacks; one farther takes a Move."""
POSTURES = (Posture.STANDING, Posture.KNEELING, Posture.PRONE)
"""A fighter's postures, by index: standing, kneeling (getting up), prone (knocked down,
B420); a turn of Change Posture takes it one index lower (B364)."""


@dataclass(frozen=True, slots=True)
class First:
    """The fight's first exchange: who attacked whom and how it went."""

    attacker: int
    target: int
    hit: bool
    defended: bool
    injures: bool
    major: bool


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one simulated fight ended."""

    winner: int | None
    """The winning side's index, or None: a draw (the round cap, or nobody left up)."""
    rounds: int
    conditions: tuple[int, ...]
    """Each combatant's: :data:`UP`, :data:`UNCONSCIOUS`, :data:`DEAD` or :data:`FLED`."""
    hp: tuple[int, ...]
    """Each combatant's HP at the end."""
    crippled: tuple[str | None, ...]
    """The first limb or extremity each had crippled, if any."""
    dealt: tuple[int, ...]
    """The injury each combatant dealt."""
    first: First | None


def turn_order(enc: Encounter, rng: RandomSource) -> list[int]:
    """The order of turns: highest Basic Speed first (*GURPS Basic Set*, 4th edition,
    B363), ties by a random draw (B363's DX and Per tie-breaks left out). Draws one
    number a combatant."""
    draws = [draw_faces(rng, 1, 1_000_000)[0] for _ in enc.fighters]
    return sorted(range(len(enc.fighters)), key=lambda i: (-enc.fighters[i].basic_speed, draws[i]))


def target_of(f: Fighter, hp: int, stunned: bool) -> Target:
    """The exchange's :class:`.target.Target` for a combatant at ``hp`` of its HP:
    stunned, every active defense at −4 (*GURPS Basic Set*, 4th edition, B420); Dodge
    halved when reeling is the target's own (B419, :meth:`.target.Target.level`)."""
    less = 4 if stunned else 0
    return Target(
        f.name,
        dodge=None if f.dodge is None else f.dodge - less,
        parry=None if f.parry is None else f.parry - less,
        block=None if f.block is None else f.block - less,
        dr=f.dr, hp=f.hp, current_hp=hp, dr_at=f.dr_at, hpt=f.hpt, lpt=f.lpt, fencing=f.fencing,
    )  # fmt: skip


AGAINST = (defenses_against(), defenses_against(RangedKind.ARROW),
           defenses_against(RangedKind.BULLET))  # fmt: skip
"""What a melee attack, an arrow (any missile that may be blocked) and a bullet or beam
each allow (:func:`.defense.defenses_against`; B375-B377), by :func:`against`'s index."""


def against(f: Fighter) -> int:
    """The index in :data:`AGAINST` of what ``f``'s attack allows its foe: 0 in melee, 1
    an arrow, 2 a bullet or beam (a missile told by its damage, :func:`.defense.
    missile_kind`, as the exchange tells it)."""
    if not f.ranged:
        return 0
    return 2 if missile_kind(f.damage.damage_type) is RangedKind.BULLET else 1


def can_defend(f: Fighter, allowed: Allowed | bool) -> bool:
    """Whether ``f`` has an active defense against the attack (*GURPS Basic Set*, 4th
    edition): a Parry is none against a missile (B376), a Block none against a bullet or
    beam (B375). ``allowed`` True: a missile that may be blocked; False: melee."""
    if isinstance(allowed, bool):
        allowed = AGAINST[int(allowed)]
    return (f.dodge is not None or (f.block is not None and allowed.block)
            or (f.parry is not None and allowed.parry is not None))  # fmt: skip


def aims(f: Fighter) -> bool:
    """Whether ``f`` takes Aim when it may: a ranged weapon with an Acc, whose
    ``aim_turns`` of Aim add something (B364: an Acc of 0 adds nothing after one turn)."""
    return f.ranged and f.acc is not None and aim_bonus(f.tactics.aim_turns, f.acc) > 0


def options_for(
    a: Fighter, all_out: bool, shock: int, aim: int = 0, yards: int = 0,
    target: Posture = Posture.STANDING,
) -> AttackOptions:  # fmt: skip
    """The attack options the tactics give (*GURPS Basic Set*, 4th edition): All-Out
    Attack (Determined, B365), where it aims (B398's random table, or a location at its
    penalty), a ranged weapon (B365, B376), the attacker's shock (B419); for a ranged
    weapon, ``aim`` turns of Aim with its Acc (B364), the range penalty at ``yards``
    (B550) and the ``target``'s posture (B551, :meth:`.situation.Posture.as_target`)."""
    where = a.tactics.aim
    low = target.as_target(None if where == "random" else where) if a.ranged else 0
    return AttackOptions(
        all_out=all_out,
        ranged=a.ranged,
        shock=shock,
        location=None if where in ("random", "torso") else where,
        random_location=where == "random",
        aim=aim if a.ranged and a.acc is not None else 0,
        acc=a.acc if aim and a.ranged else None,
        range_yards=yards if a.ranged else None,
        modifiers=(low,) if low else (),
    )


def run_once(enc: Encounter, rng: RandomSource) -> Outcome:
    """Fight one encounter, a roll at a time, by the rules of the module docstring
    (*GURPS Basic Set*, 4th edition, with the pages it cites). Draws: the turn order,
    then each exchange's dice (:func:`.exchange.exchange`) and each HT roll (``000``,
    "Success Rolls") as they come."""
    fs = enc.fighters
    n = len(fs)
    side = [enc.side_index(f.side) for f in fs]
    hp = [f.hp for f in fs]
    cond = [UP] * n
    stunned = [False] * n
    shock = [0] * n
    parried = [0] * n
    retreated = [False] * n
    aoa = [False] * n
    aod = [False] * n
    crippled: list[str | None] = [None] * n
    dealt = [0] * n
    first: list[First] = []
    posture = [0] * n
    loaded = [0 if f.shots is None else f.shots.count for f in fs]
    readying = [0] * n
    aimed = [0] * n
    aim_at = [-1] * n
    dist = [[max(f.distance, g.distance) for g in fs] for f in fs]
    order = turn_order(enc, rng)

    def roll_ht(i: int, mod: int = 0) -> tuple[int, bool]:
        r = check(fs[i].ht, modifiers=(mod,), defense=True, rng=rng)
        return r.margin, r.outcome is Roll.CRITICAL_FAILURE

    def ended() -> bool:
        return len({side[j] for j in range(n) if cond[j] == UP}) <= 1

    def hurt(j: int, h: Hurt, i: int) -> None:
        f = fs[j]
        before = hp[j]
        hp[j] -= h.injury
        dealt[i] += h.injury
        w = h.wound
        if not h.injury or w is None:
            return
        cap = 8 if f.lpt or h.effect == "double_shock" else 4
        shock[j] = min(shock[j] + w.shock, cap)
        if w.crippled and crippled[j] is None:
            crippled[j] = w.crippled
        if hp[j] <= -5 * f.hp:
            cond[j] = DEAD
            return
        for k in range(1, 5):
            if hp[j] <= -k * f.hp < before:
                margin, crit = roll_ht(j)
                if margin < 0:
                    dies = SurviveCritical.DEAD.dies(margin, crit)
                    cond[j] = DEAD if dies else UNCONSCIOUS
                    return
        if w.knockdown is not None:
            margin, crit = roll_ht(j, w.knockdown)
            if margin <= -5 or crit:
                cond[j] = UNCONSCIOUS
                return
            if margin < 0:
                stunned[j], posture[j] = True, POSTURES.index(Posture.PRONE)
        if aimed[j] and check(f.will, rng=rng).margin < 0:  # B364: a Will roll keeps it
            aimed[j] = 0

    def pick(i: int) -> int:
        foes = [j for j in range(n) if cond[j] == UP and side[j] != side[i]]
        how = fs[i].tactics.target
        if how is Pick.WEAKEST:
            return min(foes, key=lambda j: (hp[j], j))
        if how is Pick.DANGEROUS:
            return max(foes, key=lambda j: (fs[j].danger, -j))
        return foes[0]

    def act(i: int) -> None:
        f = fs[i]
        parried[i], retreated[i], aoa[i], aod[i] = 0, False, False, False
        felt, shock[i] = shock[i], 0
        if stunned[i]:
            stunned[i] = roll_ht(i)[0] < 0
            aimed[i] = 0  # B364: a turn of anything but Aim ends it
            return
        if hp[i] <= 0 and roll_ht(i, -((-hp[i]) // f.hp))[0] < 0:
            cond[i] = UNCONSCIOUS
            return
        if 3 * hp[i] < f.hp:
            if f.tactics.flee == "reeling":
                cond[i] = FLED
                return
            if f.tactics.all_out_defense == "reeling":
                aod[i] = True
                return
        if posture[i]:  # B364: Change Posture, a step at a time toward standing
            posture[i], aimed[i] = posture[i] - 1, 0
            return
        shots = f.shots
        if shots is not None and loaded[i] == 0:  # B366: Ready, to reload (B269)
            if shots.reload:
                readying[i] += 1
                if readying[i] >= shots.reload:
                    loaded[i] = 1 if shots.one_at_a_time else shots.count
                    readying[i] = 0
            return
        j = pick(i)
        t = fs[j]
        if not f.ranged and dist[i][j] > STEP + 1:  # B364: Move toward it, halved reeling
            move = f.move if 3 * hp[i] >= f.hp else -(-f.move // 2)  # B419
            dist[i][j] = dist[j][i] = max(1, dist[i][j] - move)
            return
        if not f.ranged:  # B365: an Attack may step into reach first
            dist[i][j] = dist[j][i] = min(dist[i][j], 1)
        if aim_at[i] != j:
            aimed[i], aim_at[i] = 0, j
        if (
            aims(f)
            and aimed[i] < f.tactics.aim_turns
            and all(dist[i][k] > 1 for k in range(n) if cond[k] == UP and side[k] != side[i])
        ):
            aimed[i] += 1  # B364: Aim, while no enemy is within reach
            return
        allowed = AGAINST[against(f)]  # B375-B377: the defenses and retreat it allows
        defends = can_defend(t, allowed) and not aoa[j]
        aoa[i] = f.tactics.all_out_attack == "defenseless" and (stunned[j] or not defends)
        options = options_for(f, aoa[i], felt, aimed[i], dist[i][j], POSTURES[posture[j]])
        if effective_attack(f.skill, options) < 3:
            return  # below 3 no attack roll is allowed (000)
        aimed[i] = 0
        if shots is not None:
            loaded[i] -= 1
        kneeling = POSTURES[posture[j]] is Posture.KNEELING  # B551: no retreat kneeling
        retreat = t.tactics.retreat and allowed.retreat and not retreated[j] and not kneeling
        dopts = DefenseOptions(retreat=retreat, all_out=aod[j], parried=parried[j],
                               posture=POSTURES[posture[j]])  # fmt: skip
        ex = exchange(f.skill, f.damage, target_of(t, hp[j], stunned[j]), attacker=f.name,
                      options=options, defense="best" if defends else "none",
                      defense_options=dopts, rng=rng)  # fmt: skip
        if ex.defense is not None:
            retreated[j] = retreated[j] or retreat
            parried[j] += ex.defense.defense == "parry"
            aimed[j] = 0  # B364: a defense spoils an Aim
        if not first:
            major = any(h.wound is not None and h.wound.major for h in ex.hurts if h.injury)
            first.append(First(i, j, ex.attack.hit, ex.attack.hit and ex.hurt is None,
                               ex.success, major))  # fmt: skip
        for h in ex.hurts:
            if cond[j] == UP:
                hurt(j, h, i)
            else:
                hp[j] -= h.injury
                dealt[i] += h.injury

    winner: int | None = None
    rounds = enc.max_rounds
    done = False
    for r in range(1, enc.max_rounds + 1):
        for i in order:
            if cond[i] != UP:
                continue
            act(i)
            if ended():
                up = {side[j] for j in range(n) if cond[j] == UP}
                winner = next(iter(up), None)
                rounds, done = r, True
                break
        if done:
            break
    return Outcome(winner, rounds, tuple(cond), tuple(hp), tuple(crippled), tuple(dealt),
                   first[0] if first else None)  # fmt: skip
