"""The encounter rules as a plain Python loop: one encounter at a time, built from
the rule functions themselves. It is the simulator's test oracle and its speed
reference; :mod:`referee.systems.swn.simulate` runs the same rules vectorised.

The rules of a simulated fight (``003``, "Combat", "Injury and Healing",
"Morale"; rules README), in the order applied:

1. Initiative is rolled once: 1d8 + Dex modifier, highest first, PCs win ties,
   other ties by a random draw.
2. Each round, every combatant still up acts in initiative order. If its side
   stabilizes and an ally is mortally wounded, it spends its Main Action on a
   stabilizing check for the most urgent one (the most rounds down, then the
   first listed), using a Lazarus patch while it has one (used up either way),
   else its medkit, else no tools. Otherwise it attacks an enemy who is up,
   chosen by its side's tactic.
3. An attack is 1d20 + attack bonus + skill (−2 untrained) + attribute modifier
   against AC; a hit deals the weapon's dice + attribute modifier + damage
   bonus, at least the Shock amount if the weapon has Shock; a miss deals Shock
   if the target's AC is within the limit.
4. At 0 HP a lethal weapon mortally wounds, a non-lethal one knocks out. A
   side's losses (combatants down) trigger morale for its NPCs at the first
   casualty and at 50%. One casualty is one event: when it is both (a side of
   one or two), each NPC checks once. An NPC that rolls over its morale breaks
   if its side flees: it flees, withdraws or surrenders (``003``), and either
   way leaves the fight, counted as fled. PCs never check.
5. The fight ends the moment at most one side has anyone up; that side wins.
   The losers' mortally wounded die untended. Through the rest of that round
   and the rounds after, the winners keep stabilizing their own fallen (if
   their side stabilizes) until each is stabilized or dead; these rounds are
   not counted in the fight's length.
6. At the end of every round the death clock of each mortally wounded
   character advances; after 6 full rounds they die.
7. A fight still going after ``max_rounds`` is capped: no winner.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...faces import draw_faces
from ...rng import RandomSource
from .combat import attack, initiative
from .encounter import Encounter, Target
from .injury import Condition, Health, end_round, stabilize, take_damage
from .opposed import morale, morale_triggers

__all__ = ["Outcome", "run_once"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one simulated encounter ended."""

    winner: int | None
    """The winning side's index, or None when capped."""
    rounds: int
    """Rounds fought (``max_rounds`` when capped)."""
    conditions: tuple[Condition, ...]
    """Each combatant's final condition."""
    fled: tuple[bool, ...]
    """Who fled."""
    mortally_wounded: tuple[bool, ...]
    """Who was mortally wounded at some point."""


def run_once(enc: Encounter, rng: RandomSource) -> Outcome:
    """Fight one encounter, a roll at a time. See the module docstring for the rules."""
    fighters = enc.combatants
    count = len(fighters)
    side = [enc.side_index(c.side) for c in fighters]
    size = [side.count(s) for s in range(len(enc.sides))]
    health = [Health(c.hp, c.hp, pc=c.pc) for c in fighters]
    fled = [False] * count
    ever = [False] * count
    patches = [c.lazarus for c in fighters]
    losses = [0] * len(enc.sides)
    index = {c.name: i for i, c in enumerate(fighters)}
    order = [
        index[e.name] for e in initiative([(c.name, c.dex_mod, c.pc) for c in fighters], rng=rng)
    ]

    def up(i: int) -> bool:
        return health[i].condition is Condition.UP and not fled[i]

    def sides_up() -> set[int]:
        return {side[i] for i in range(count) if up(i)}

    def try_stabilize(i: int) -> bool:
        if not enc.sides[side[i]].stabilize:
            return False
        down = [
            j
            for j in range(count)
            if side[j] == side[i] and health[j].condition is Condition.MORTALLY_WOUNDED
        ]
        if not down:
            return False
        v = max(down, key=lambda j: (health[j].rounds_down, -j))
        c = fighters[i]
        tool = "lazarus" if patches[i] > 0 else "medkit" if c.medkit else "none"
        if tool == "lazarus":
            patches[i] -= 1
        result = stabilize(
            victim=health[v], tool=tool, skill=c.heal, attribute=c.heal_attribute_mod, rng=rng
        )
        assert result.health is not None
        health[v] = result.health
        return True

    def strike(i: int) -> None:
        c = fighters[i]
        targets = [j for j in range(count) if side[j] != side[i] and up(j)]
        if enc.sides[side[i]].target is Target.WEAKEST:
            t = min(targets, key=lambda j: (health[j].hp, j))
        else:
            t = targets[draw_faces(rng, 1, len(targets))[0] - 1]
        a = attack(
            ac=fighters[t].ac,
            weapon=c.weapon,
            attack_bonus=c.attack_bonus,
            skill=c.skill,
            attribute=c.attribute_mod,
            damage_bonus=c.damage_bonus,
            rng=rng,
        )
        health[t] = take_damage(health[t], a.damage, lethal=c.weapon.lethal)
        if health[t].condition is Condition.UP:
            return
        ever[t] = ever[t] or health[t].condition is Condition.MORTALLY_WOUNDED
        s = side[t]
        losses[s] += 1
        if not enc.sides[s].flee:
            return
        # One casualty is one event: if it is both the first and the 50% mark, one check.
        if morale_triggers(size[s], losses[s] - 1, losses[s]):
            for k in range(count):
                score = fighters[k].morale
                if side[k] == s and up(k) and not fighters[k].pc and score is not None:
                    fled[k] = not morale(score, rng=rng).success

    live, winner, rounds = True, None, enc.max_rounds
    r = 0
    while True:
        r += 1
        if live and r > enc.max_rounds:
            break
        if not live and not any(h.condition is Condition.MORTALLY_WOUNDED for h in health):
            break
        for i in order:
            if not up(i):
                continue
            if not try_stabilize(i) and live:
                strike(i)
            if live and len(sides_up()) <= 1:
                live, rounds = False, r
                winner = next(iter(sides_up()), None)
                for j in range(count):
                    if side[j] != winner and health[j].condition is Condition.MORTALLY_WOUNDED:
                        health[j] = Health(0, health[j].max_hp, Condition.DEAD, pc=fighters[j].pc)
        health = [end_round(h) for h in health]
    return Outcome(winner, rounds, tuple(h.condition for h in health), tuple(fled), tuple(ever))
