"""The defense step of a GURPS exchange: the defense rolled, All-Out Defense (Double)'s
second defense after a failed first, and the parrying weapon's breakage against a heavy
weapon; with their exact odds.

Sources: *GURPS Basic Set*, 4th edition (``COMBAT.md`` states the combat pages in
short):

- B366, "All-Out Defense": Double Defense: "apply two different active defenses
  against the same attack": if the first fails, the defender tries a second, of
  another kind (a Dodge then a Parry, say). referee rolls the best the target has of
  the others, with the same modifiers; a target with only one defense is refused.
- B376, "Parrying Heavy Weapons": a weapon that parries one three or more times its
  weight may break. referee's reading: after a parry that holds, roll 1d; the parrying
  weapon breaks at ``break_on`` or less (2 by default; the weapon's quality, B274, and
  the GM's judgment set it); the attack is still parried. The breakage itself is B485's
  to resolve (the weapon is lost).
- B377, "Dodge and Drop": +3 to Dodge against a ranged attack; the defender is prone
  afterwards, whether the Dodge succeeds or not (:mod:`.defense` adds the +3).
- B375-B377, which defenses an attack allows (:func:`.defense.defenses_against`): no
  parry against a missile, no block against a bullet or beam, no retreat but against
  a melee attack (:func:`settle_defense` applies it).
- B419, B426: reeling and very tired halve Dodge (:meth:`.target.Target.level`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from ...errors import RuleError
from ...faces import draw_faces
from ...rng import RandomSource
from .defense import (
    DEFENSES,
    Allowed,
    DefenseOptions,
    DefenseRoll,
    Flank,
    RangedKind,
    defend,
    defense_modifiers,
    defenses_against,
    situation_defense,
)
from .melee import AttackOptions
from .success import skill_odds
from .target import Target, choose_defense

__all__ = [
    "Breakage",
    "DefenseOdds",
    "DefenseStep",
    "allowed_against",
    "defense_odds",
    "defense_step",
    "second_defense",
    "settle",
    "settle_defense",
    "step_calls",
]


@dataclass(frozen=True, slots=True)
class Breakage:
    """The 1d rolled after parrying a heavy weapon (B376)."""

    roll: int
    break_on: int

    @property
    def broke(self) -> bool:
        """The parrying weapon broke: the roll is at or under :attr:`break_on`."""
        return self.roll <= self.break_on

    @property
    def text(self) -> str:
        result = "the parrying weapon breaks" if self.broke else "the parrying weapon holds"
        return f"parrying a heavy weapon: rolled {self.roll} on 1d, {result} (B376)"


@dataclass(frozen=True, slots=True)
class DefenseStep:
    """What the target did against one hit that was not critical."""

    first: DefenseRoll | None
    """The defense rolled; None when the target rolls none."""
    second: DefenseRoll | None = None
    """All-Out Defense (Double)'s second defense, after a failed first (B366)."""
    breakage: Breakage | None = None
    """The heavy weapon's breakage roll, after a parry that held (B376)."""

    @property
    def held(self) -> DefenseRoll | None:
        """The defense that held, if any."""
        return next((d for d in (self.first, self.second) if d is not None and d.defended),
                    None)  # fmt: skip


def halved(target: Target, defense: str) -> str:
    """`` (halved: reeling)`` when the Dodge rolled was halved (B419, B426)."""
    why = [w for w, on in (("reeling", target.reeling), ("very tired", target.very_tired)) if on]
    return f" (halved: {' and '.join(why)})" if defense == "dodge" and why else ""


def second_defense(
    target: Target, first: str, options: DefenseOptions, against: int, parry: int | None
) -> tuple[str, int]:
    """All-Out Defense (Double)'s second defense (*GURPS Basic Set*, 4th edition, B366):
    the best of the target's other
    defenses, by effective level (Dodge first on a tie); a parry not against a missile.

    Raises:
        RuleError: the target has no other defense.
    """
    others = [(d, target.level(d)) for d in DEFENSES if d != first and target.level(d) is not None
              and not (d == "parry" and parry is None)]  # fmt: skip
    if not others:
        raise RuleError(f"All-Out Defense (Double) needs a second, different defense (B366): "
                        f"{target.name} has only its {first.title()}")  # fmt: skip

    def effective(item: tuple[str, int | None]) -> int:
        mods = defense_modifiers(item[0], options, against, parry or 0)
        return (item[1] or 0) + sum(m for _, m in mods)

    kind, level = max(others, key=effective)
    return kind, int(level or 0)


def defense_step(
    target: Target,
    choice: str,
    options: DefenseOptions,
    against: int,
    parry: int | None,
    rng: RandomSource | None,
) -> DefenseStep:
    """Roll the target's defense against a hit: the one chosen (:func:`.target.
    choose_defense`), then with All-Out Defense (Double) a second after a failed first,
    then with a heavy weapon's parry the 1d for breakage. Draws: 3d6, 3d6 for the second
    defense, 1d for breakage, as each applies.

    Raises:
        RuleError: as :func:`.target.choose_defense` and :func:`second_defense`.
    """
    chosen = choose_defense(target, choice, options, against, parry)
    if chosen is None:
        return DefenseStep(None)
    rolls = [_roll(target, chosen, options, against, parry, rng)]
    if not rolls[0].defended and options.aod_double:
        again = second_defense(target, chosen[0], options, against, parry)
        rolls.append(_roll(target, again, options, against, parry, rng))
    held = next((d for d in rolls if d.defended), None)
    breakage = None
    if held is not None and held.defense == "parry" and options.heavy:
        breakage = Breakage(draw_faces(rng, 1, 6)[0], options.break_on)
    return DefenseStep(rolls[0], rolls[1] if len(rolls) > 1 else None, breakage)


def _roll(
    target: Target,
    chosen: tuple[str, int],
    options: DefenseOptions,
    against: int,
    parry: int | None,
    rng: RandomSource | None,
) -> DefenseRoll:
    kind, level = chosen
    where = ", ".join(f"{n} {m:+d}" for n, m in situation_defense(options))
    label = f"{target.name}'s {kind.title()}{halved(target, kind)}" + (f" ({where})" if where
                                                                       else "")  # fmt: skip
    return defend(kind, level, options, against=against, parry=parry or 0, label=label, rng=rng)


@dataclass(frozen=True, slots=True)
class DefenseOdds:
    """The defense step's odds against a hit that is not critical, over the feint's
    penalties (:func:`defense_odds`)."""

    defense: str | None
    level: int | None
    """The first defense's effective level, before a feint's penalty."""
    second: str | None
    second_level: int | None
    fails: Fraction
    """P(every defense rolled fails)."""
    parried: Fraction
    """P(a parry holds), which with a heavy weapon rolls for breakage."""


def defense_odds(
    target: Target,
    choice: str,
    options: DefenseOptions,
    against: int,
    parry: int | None,
    feints: tuple[tuple[int, Fraction], ...] = ((0, Fraction(1)),),
) -> DefenseOdds:
    """P(the defense step fails) and P(a parry holds), exactly, as :func:`defense_step`
    rolls it, each defense at −(the feint's penalty) with that penalty's chance
    (``feints``, :func:`.allout.feint_odds`; B365, B366, B376, 4th edition).

    Raises:
        RuleError: as :func:`defense_step`, before any die.
    """
    chosen = choose_defense(target, choice, options, against, parry)
    if chosen is None:
        return DefenseOdds(None, None, None, None, Fraction(1), Fraction(0))
    level = chosen[1] + sum(m for _, m in defense_modifiers(chosen[0], options, against,
                                                              parry or 0))  # fmt: skip
    again = second_defense(target, chosen[0], options, against, parry) if options.aod_double \
        else None  # fmt: skip
    second = None
    if again is not None:
        mods = defense_modifiers(again[0], options, against, parry or 0)
        second = again[1] + sum(m for _, m in mods)
    fails = parried = Fraction(0)
    first_parry = chosen[0] == "parry"
    second_parry = again is not None and again[0] == "parry"
    for m, p in feints:
        one = skill_odds(level - m).success
        two = Fraction(0) if second is None else skill_odds(second - m).success
        fails += p * (1 - one) * (1 - two)
        parried += p * (one * first_parry + (1 - one) * two * second_parry)
    return DefenseOdds(chosen[0], level, None if again is None else again[0], second, fails,
                       parried)  # fmt: skip


def allowed_against(options: AttackOptions, damage_type: str) -> Allowed:
    """The defenses, and the retreat, an attack with these options and this damage
    allows: :func:`.defense.defenses_against` for its kind (melee, or
    :attr:`.melee.AttackOptions.ranged_kind`; B375-B377, 4th edition).

    >>> allowed_against(AttackOptions(ranged=True), "pi").defenses
    ('dodge',)
    """
    kind = options.ranged_kind if options.ranged else None
    return defenses_against(kind, damage_type, options.tight_beam)


def settle_defense(
    allowed: Allowed | bool, target: Target, defense: str, options: DefenseOptions
) -> tuple[str, DefenseOptions]:
    """The defense chosen and its options as the target and the attack settle them
    (:func:`settle`, without the target it leaves). ``allowed`` True: a ranged attack
    whose kind is not known (an arrow's rules), False: a melee attack."""
    if isinstance(allowed, bool):
        allowed = defenses_against(RangedKind.ARROW if allowed else None)
    _, defense, options = settle(allowed, target, defense, options)
    return defense, options


def settle(
    allowed: Allowed, target: Target, defense: str, options: DefenseOptions
) -> tuple[Target, str, DefenseOptions]:
    """The target, the defense chosen and its options as the attack settles them: a
    fencing Parry (B376, the target's); no Block against a bullet or beam (B375: the
    target's Block is left out, so ``best`` passes over it); no retreat but against a
    melee attack (B377); Dodge and Drop (B377, 4th edition) is a Dodge, against a
    ranged attack (``defense="best"`` becomes ``dodge``). ``allowed`` is
    :func:`.defense.defenses_against`'s answer for the attack.

    Raises:
        RuleError: a retreat against a ranged attack; a block against a bullet or beam,
            or a target with only a Block; Dodge and Drop against a melee attack, or
            with a parry or block.
    """
    if target.fencing and not options.fencing:
        options = replace(options, fencing=True)
    if options.flank is Flank.BACK:  # B391: an attack from behind allows no defense
        if defense in DEFENSES or options.aod_double or options.drop:
            raise RuleError("an attack from behind (--flank back) allows no active defense "
                            f"(B391): leave out --defense {defense}, --aod-double and "
                            "--dodge-and-drop")  # fmt: skip
        defense = "none"
    if options.retreat and not allowed.retreat:
        raise RuleError("--retreat is against a melee attack (B377, \"Retreating\"): a "
                        "ranged attack allows none")  # fmt: skip
    if options.aod_double:
        _two_defenses(allowed, target)
    if not allowed.block and target.block is not None:
        if defense == "block":
            raise RuleError("bullets and beams cannot be blocked (B375): dodge them")
        usable = target.dodge is not None or (target.parry is not None and allowed.parry
                                              is not None)  # fmt: skip
        if defense == "best" and not usable:
            raise RuleError(f"{target.name} has only a Block given, and bullets and beams "
                            "cannot be blocked (B375): it needs a Dodge")  # fmt: skip
        target = replace(target, block=None)
    if options.drop:
        if allowed.melee:
            raise RuleError("--dodge-and-drop is against a ranged attack (B377)")
        if defense in ("parry", "block"):
            raise RuleError(f"--dodge-and-drop is a Dodge (B377), not a {defense}")
        if defense == "best":
            defense = "dodge"
    return target, defense, options


_BARRED = {"parry": "a missile cannot be parried (B376)",
           "block": "bullets and beams cannot be blocked (B375)"}  # fmt: skip


def _two_defenses(allowed: Allowed, target: Target) -> None:
    """Refuse All-Out Defense (Double) against an attack that leaves the target fewer
    than two of the defenses it was given (B366), naming those given and why the
    attack bars the rest (B375, B376)."""
    given = [d for d in DEFENSES if target.level(d) is not None]
    barred = [d for d in given if not allowed.allows(d)]
    if barred and len(given) - len(barred) < 2:
        names = [d.title() for d in given]
        named = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
        raise RuleError(f"All-Out Defense (Double) needs two different defenses (B366): "
                        f"{target.name} has {named} given, and "
                        f"{'; '.join(_BARRED[d] for d in barred)}")  # fmt: skip


def step_calls(name: str, step: DefenseStep | None, options: DefenseOptions) -> tuple[str, ...]:
    """What the defense step leaves the GM to apply: the defender prone after Dodge and
    Drop (B377), a parrying weapon broken on a heavy weapon (B376)."""
    calls = []
    if step is not None and step.first is not None and step.first.defense == "dodge" \
            and options.drop:  # fmt: skip
        calls.append(f"{name} is prone after Dodge and Drop (B377)")
    if step is not None and step.breakage is not None and step.breakage.broke:
        calls.append(f"{name}'s parrying weapon breaks on the heavy weapon (B376)")
    return tuple(calls)
