"""What a GURPS exchange's blow does to a target with High or Low Pain Threshold, as
exact odds before any die: the shock penalty it leaves and the modifier of the HT roll
against knockdown it calls for.

Sources: *GURPS Basic Set*, 4th edition, as ``COMBAT.md``, "Shock, major wounds,
knockdown (B419–B420)" states them: B59, High Pain Threshold: no shock, +3 to the HT
roll against knockdown and stunning; B142, Low Pain Threshold: shock doubled, at most
−8, and −4 to that roll. The blow is :func:`.blows.blow`, the one
:func:`.exchange.exchange` rolls, so the odds and the roll cannot disagree; where it
lands, and with which critical effect, comes from :func:`.exchange_odds.exchange_odds`
(All-Out Attack (Long)'s cost to a swing only, *GURPS Martial Arts* p. 97; the
Critical Head Blow Table's rows 6-7 at the eye as :class:`.criticals.EyeRow` reads
them, B556), so each breakdown sums to the exchange's own figure.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from ...fmt import percent
from .allout import long_damage
from .blows import blow, on_head
from .criticals import EyeRow
from .damage import DamageSpec, _dice_adds
from .exchange_odds import exchange_odds
from .locations import location_odds, read_location
from .melee import AttackOptions, DefenseOptions, strong_damage
from .odds_steps import add as _add
from .odds_steps import table_odds as _table_odds
from .odds_steps import ways as _ways
from .target import Target

__all__ = ["PainOdds", "pain_odds"]


@dataclass(frozen=True, slots=True)
class PainOdds:
    """The shock and knockdown odds of one exchange (:func:`pain_odds`)."""

    hpt: bool
    """The target has High Pain Threshold (B59)."""
    lpt: bool
    """The target has Low Pain Threshold (B142)."""
    shock: tuple[tuple[int, Fraction], ...]
    """P(each shock penalty the exchange leaves, as a positive number, 0 included: a
    miss, a defense, no injury, or High Pain Threshold)."""
    knockdown: tuple[tuple[int, Fraction], ...]
    """P(an HT roll against knockdown and stunning called at each modifier: the
    location's on a major wound and the pain threshold's together, B420); the rest of
    the exchange calls none."""

    @property
    def text(self) -> str:
        """One line: the threshold, the shock's odds and the knockdown roll's."""
        name = "High Pain Threshold (B59)" if self.hpt else "Low Pain Threshold (B142)"
        shock = ", ".join(f"{-n if n else 0} {percent(p)}" for n, p in self.shock)
        knock = ", ".join(f"HT{m:+d} {percent(p)}" for m, p in self.knockdown) or "none"
        return f"  {name}: shock {shock}; knockdown roll at {knock}"


def pain_odds(
    skill: int,
    damage: DamageSpec,
    target: Target,
    options: AttackOptions | None = None,
    defense: str = "best",
    defense_options: DefenseOptions | None = None,
) -> PainOdds:
    """The odds of the shock and of the knockdown roll's modifier after an exchange
    with these arguments (those of :func:`.exchange_odds.exchange_odds`), exact.

    A blow lands undefended at a location with a critical effect: after a critical hit
    (never defended, B381), at each location with each effect of B556's table; else at
    each location as the exchange's odds place it, with no effect. Over the damage
    dice, each blow's :attr:`.wounds.Wound.shock` (B419 with B59 or B142) and
    :attr:`.wounds.Wound.knockdown` (B420) are summed.

    Raises:
        RuleError: as :func:`.exchange_odds.exchange_odds`.
    """
    options = options or AttackOptions()
    steps = exchange_odds(skill, damage, target, options, defense, defense_options)
    if options.strong:
        damage = replace(damage, expression=strong_damage(damage.expression))
    elif options.long:
        damage = replace(damage, expression=long_damage(damage.expression, options.thrust))
    landed = steps.hit - steps.defended
    if options.random_location:
        where = location_odds()
    else:
        where = {read_location(options.location or "torso").key: Fraction(1)}
    lands: dict[tuple[str, str], Fraction] = {}
    for key, p in steps.locations:
        critical = steps.critical_hit * where.get(key, Fraction(0))
        _add(lands, (key, "normal"), p * landed - critical)
        head = options.head_blow_table and on_head(key, damage.damage_type)
        as_4 = head and key == "eye" and options.eye_row is EyeRow.AS_4  # B556 rows 6-7
        table = _table_odds(head, as_4) if options.criticals else {"normal": Fraction(1)}
        for effect, q in table.items():
            _add(lands, (key, effect), critical * q)
    count, adds = _dice_adds(damage.expression)
    ways, whole = _ways(count), 6**count
    shock: dict[int, Fraction] = {}
    knockdown: dict[int, Fraction] = {}
    for (key, effect), p in lands.items():
        loc = read_location(key)
        for total, w in ways.items():
            b = blow(total + adds, damage, target, loc, effect, options.tight_beam,
                     options.large_area)  # fmt: skip
            _add(shock, b.wound.shock, p * w / whole)
            if b.injury and b.wound.knockdown is not None:
                _add(knockdown, b.wound.knockdown, p * w / whole)
    shock.pop(0, None)
    none = 1 - sum(shock.values(), Fraction(0))
    return PainOdds(
        target.hpt,
        target.lpt,
        tuple(sorted({**({0: none} if none else {}), **shock}.items())),
        tuple(sorted(knockdown.items(), key=lambda kv: -kv[0])),
    )
