"""GURPS exchanges in a fight (issue 49): a defense counted (B376), damage taken through
the target's own DR (contract v1.3), and the GM's hand on an NPC's defense (a
``defense`` call). Used by :func:`.step.step`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

from ..errors import RuleError
from ..systems.gurps.blows import BLOWS, blow
from ..systems.gurps.damage import DamageSpec, armor_divisor, armor_dr
from ..systems.gurps.locations import location_injury, read_location
from ..systems.gurps.target import Target
from ..systems.gurps.wounds import extra_dr
from .model import Call, Combatant, Fight

__all__ = ["BLOW_RULES", "TOXIC_RULES", "defended", "exchange", "struck", "through_dr"]

BLOW_RULES = 5
"""The first rules by which a damage event may carry a critical hit's ``effect`` (B556),
applied by the exchange's own blow (:func:`struck`)."""

PLAIN_RULES = 4
"""The first rules (:data:`.events.RULES`) by which :func:`through_dr` reads a divisor only
when plain and within B378's range."""

SECRET_CALL_RULES = 6
"""The first rules by which an exchange whose attack players may not see carries the
attack roll's seq (``attack``) instead of its damage roll (``then``), and its call names
a hidden attacker by its opaque id (contract v1.5)."""

TOXIC_RULES = 5
"""The first rules by which toxic damage at the skull or eye meets no skull DR and calls
no −10 knockdown (B399: "none of these effects apply to toxic damage"; :func:`through_dr`
and :func:`.gurps.injure`), and DR 0 is DR 1 against a divisor under 1 (B110)."""

_DIVISOR = re.compile(r"[0-9]{1,3}(?:\.[0-9]{1,3})?(?:/[0-9]{1,3})?")
"""An armor divisor as a damage roll's JSON writes it (``3``, ``1/2``) or a GM types
it (``0.5``)."""

_EXPONENT = re.compile(r"[eE]\s*([+-]?[0-9_]{1,80})")
"""The exponent of a number as ``Fraction`` reads it (``1e3``), checked before it does."""


def exchange(fight: Fight, ev: Mapping[str, Any]) -> Fight:
    """An attack on a combatant whose defense the GM rolls by hand (GURPS, B369-B377):
    a ``defense`` call for it, whose ``command`` is the defense roll (made as its
    sheet, so no number of it is in the call) and whose ``then`` is the attacker's
    damage roll, rolled if the defense fails."""
    if fight.system != "gurps":
        raise RuleError("an exchange is GURPS's (B369-B377)")
    target, attacker = fight.combatant(ev["combatant"]), fight.combatant(ev["attacker"])
    then, attack = ev.get("then"), ev.get("attack")
    if fight.rules >= SECRET_CALL_RULES and (then is None) == (attack is None):
        raise RuleError(
            "an exchange names its damage roll ('then') or, when players may not see its "
            "attack, the attack roll's seq ('attack'): one of the two"
        )
    if then is None and fight.rules < SECRET_CALL_RULES:
        raise RuleError("an exchange event needs 'then' (a 'gurps blow' or 'gurps damage' roll)")
    if not ev["command"].startswith("gurps defend ") or not (
        then is None or then.startswith("gurps damage ") or then.startswith("gurps blow ")
    ):
        raise RuleError(
            "an exchange's command is a 'gurps defend' roll, then a 'gurps blow' (or 'gurps "
            "damage') one"
        )
    for c in (target, attacker):
        if c.id in fight.removed:
            raise RuleError(f"{c.name} is out of the fight")
    if fight.rules >= SECRET_CALL_RULES and "unconscious" in target.conditions:
        raise RuleError(f"{target.name} is unconscious: no active defense (B420)")
    n = fight.counts.get(target.id, 0) + 1
    # A hidden attacker by its opaque id (rules 6, contract v1.5): the call is public.
    named = attacker.id if attacker.hidden and fight.rules >= SECRET_CALL_RULES else attacker.name
    why = f"defend against {named}'s attack (B374-B377)"
    choices = tuple(dict(c) for c in ev.get("choices", ()))
    if choices and choices[0]["command"] != ev["command"]:
        raise RuleError("an exchange's first choice is its command (the best defense)")
    for choice in choices:
        if not str(choice["command"]).startswith("gurps defend "):
            raise RuleError("a defense call's choices are 'gurps defend' rolls")
    call = Call(
        f"{target.id}/{n}",
        target.id,
        "defense",
        ev["command"],
        why,
        attacker.id,
        then,
        choices,
        attack,
    )
    return replace(fight, calls=(*fight.calls, call), counts={**fight.counts, target.id: n})


def defended(fight: Fight, c: Combatant, ev: Mapping[str, Any]) -> Combatant:
    """A GURPS active defense made (``defend``: ``defense`` and its ``success``): its
    count since the combatant's own turn began, ``defended``, and of parries,
    ``parried``, which the next parry's −4 each (−2 fencing) follows (B376). Both
    start again at 0 with its turn (rules 2). From rules 5, a defense made with a
    retreat (``retreat``) leaves ``retreated`` until the combatant's next turn: one
    retreat a turn (B377)."""
    if fight.system != "gurps":
        raise RuleError("active defenses are GURPS's (B374-B377)")
    if ev["defense"] not in ("dodge", "parry", "block"):
        raise RuleError(f"a defense is dodge, parry or block, not {ev['defense']!r}")
    counts = {"defended": c.value("defended") + 1}
    if ev["defense"] == "parry":
        counts["parried"] = c.value("parried") + 1
    if fight.rules >= BLOW_RULES and c.value("aiming"):
        counts["aiming"] = 0  # B364: an active defense spoils the aim
    out = c.with_values(**counts)
    if ev.get("retreat") and fight.rules >= BLOW_RULES:  # one retreat a turn (B377)
        out = out.with_conditions(out.conditions | {"retreated"})
    return out


def through_dr(c: Combatant, ev: Mapping[str, Any], rules: int = PLAIN_RULES) -> int:
    """The injury a GURPS damage roll's basic damage (``basic``, of ``type``, with an
    armor ``divisor``) does to ``c`` at the event's location (the torso if none): less
    the combatant's DR there (``dr_<location>``, else ``dr``, from its sheet) and the
    location's own (the skull's 2, B399), divided as the divisor says (B378), times
    the location's wounding modifier, at least 1 if anything penetrates, capped where
    it cripples (B398; :func:`referee.systems.gurps.locations.location_injury`, the
    exchange's own rule). Contract v1.3: "Damage applied from a roll follows the
    roll's own numbers": the target's DR is applied here, not the roll's ``--dr``.

    From ``rules`` 4, the divisor is read only when written plainly and within B378's
    0.1 to 100, and the DR must be 0 to 1000, as a damage roll's ``--dr``; before, as
    then (any number ``Fraction`` reads, but never one with an exponent that would take
    it minutes to build). From rules 5 (:data:`TOXIC_RULES`), toxic damage meets no
    skull DR (B399, :func:`referee.systems.gurps.wounds.extra_dr`), and DR 0 is DR 1
    against a divisor under 1 (B110, :func:`referee.systems.gurps.damage.armor_dr`);
    before, the skull's 2 and DR 0, as then.
    """

    basic, kind = ev["basic"], ev.get("type", "cr")
    if basic < 0:
        raise RuleError("basic damage is 0 or more")
    where = read_location(ev.get("location") or "torso")
    key = "dr_" + where.key.removeprefix("right ").removeprefix("left ").replace(" ", "_")
    own = extra_dr(where, kind) if rules >= TOXIC_RULES else where.extra_dr  # B399
    dr = c.values.get(key, c.value("dr")) + own
    if rules >= PLAIN_RULES and not 0 <= dr <= 1000:
        raise RuleError(f"{c.name}'s DR at the {where.key} is {dr}: DR is 0 to 1000")
    text = ev.get("divisor")
    try:
        if text is None:
            divisor = None
        elif rules >= PLAIN_RULES:  # read only when plain: Fraction("1e99999999") takes minutes
            if not _DIVISOR.fullmatch(text):
                raise ValueError(text)
            divisor = armor_divisor(Fraction(text))
        else:
            exponent = _EXPONENT.search(text)
            if exponent and abs(int(exponent.group(1))) > 100:
                raise ValueError(text)
            divisor = Fraction(text)
            if divisor == 0:  # (a division by zero then, never logged)
                raise ValueError(text)
    except (ValueError, ZeroDivisionError, RuleError):
        raise RuleError(
            f"an armor divisor is a fraction from 0.1 to 100 such as 3/1, not {text!r}"
        ) from None
    through = max(0, basic - armor_dr(dr, divisor, bare_dr_one=rules >= TOXIC_RULES))
    return location_injury(through, kind, where.key, c.value("hp_max"))


_DICE = re.compile(r"[0-9]{1,3}d(?:[+-][0-9]{1,4})?")
"""A damage roll's dice and adds as its JSON writes them (``2d+1``)."""


def struck(c: Combatant, ev: Mapping[str, Any]) -> int:
    """The injury of a damage event that carries a critical hit's ``effect`` (B556; a
    damage roll's ``basic`` damage, its ``type``, ``divisor`` and ``expression``), from
    rules 5: the exchange's own blow (:func:`referee.systems.gurps.blows.blow`: the
    effect on the basic damage and the DR, the location's DR and wounding) against the
    combatant's DR from its values, so that a room's exchange made of separate rolls
    does what ``gurps attack``'s exchange does on the same dice (issue 65 §6).

    Raises:
        RuleError: an unknown effect, a maximum-damage effect with no dice to read, an
            unreadable divisor.
    """
    effect = ev.get("effect", "normal")
    if effect not in BLOWS:
        raise RuleError(f"a blow's effect is one of {', '.join(sorted(BLOWS))}, not {effect!r}")
    expression = ev.get("expression") or f"0d+{ev['basic']}"
    if not _DICE.fullmatch(expression):
        raise RuleError(f"a damage roll's dice are written like 2d+1, not {expression!r}")
    if effect in ("max", "max_no_dr") and expression.startswith("0d"):
        raise RuleError("a maximum-damage blow needs its roll's dice ('expression')")
    text = ev.get("divisor")
    if text is not None and not _DIVISOR.fullmatch(text):
        raise RuleError(f"an armor divisor is a fraction from 0.1 to 100 such as 3/1, not {text!r}")
    divisor = None if text is None else armor_divisor(Fraction(text))
    table = tuple((k[3:].replace("_", " "), v) for k, v in c.values.items() if k.startswith("dr_"))
    target = Target(
        c.name,
        dr=c.value("dr"),
        hp=c.value("hp_max") or None,
        dr_at=table,
        hpt=bool(c.value("hpt")),
        lpt=bool(c.value("lpt")),
        male=bool(c.value("male")),
    )
    spec = DamageSpec(expression, ev.get("type", "cr"), divisor)
    where = read_location(ev.get("location") or "torso")
    return blow(ev["basic"], spec, target, where, effect).injury
