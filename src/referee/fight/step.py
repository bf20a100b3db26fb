"""The one function that changes a fight: :func:`step`, a pure function from a fight
and an event to the next fight and the records to log; and :func:`replay`.

The records: a ``combatant`` record when one is added or revealed, a ``change``
record for each combatant whose values, conditions or calls changed (its values as
``[old, new]``), and a ``turn`` record when the order, the turn or the round moved.
A hidden combatant's records are hidden (players see them redacted); a GM's NPC's in
plain view are in their public form (:mod:`.npcs`, from rules 3).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from ..errors import RuleError
from ..systems.swn import morale_triggers
from . import gurps, npcs
from . import swn as swn_rules
from .events import RULES, read_event
from .exchange import (
    BLOW_RULES,
    SECRET_CALL_RULES,
    TOXIC_RULES,
    defended,
    exchange,
    struck,
    through_dr,
)
from .maneuvers import MANEUVER_RULES, maneuver
from .model import Call, Combatant, Fight, Record, Step
from .records import adopt  # (the log readers take it from here)
from .records import diff as _diff
from .turns import (
    INITIATIVE,
    ORDER_RULES,
    TURN_EVENTS,
    initiative_answer,
    rolling,
    settled,
    start,
    tracked,
    turn_event,
)

__all__ = ["adopt", "begin", "replay", "step"]


def begin(system: str) -> Fight:
    """An empty fight following ``system`` (``gurps``, ``swn`` or ``fudge``)."""
    return Fight(system)


def step(fight: Fight, event: Mapping[str, Any], *, rules: int = RULES) -> Step:
    """Apply ``event`` (:mod:`.events`) to ``fight``, by the rules it names (its
    ``rules``), else by ``rules``: the current ones (:data:`.events.RULES`); a log
    written before events named theirs is replayed with ``rules=1``.

    Raises:
        RuleError: an event that is malformed or does not fit the fight (an unknown
            combatant, a call that is not open, a fight not started); the fight is
            unchanged.
    """
    ev = read_event(event)
    fight = _ruled(fight, ev.get("rules", rules))
    after, head = _next(fight, ev)
    # only its combatant record for a reveal
    records = head if ev["kind"] == "reveal" else (*head, *_diff(fight, after))
    if fight.rules >= npcs.FROM_RULES:  # a GM's NPC's sheet stays the GM's
        records = npcs.public_records(fight, after, ev, records)
    return Step(after, records)


def replay(system: str, events: Iterable[Mapping[str, Any]]) -> Fight:
    """The fight that ``events`` make, from an empty one: what a log's events give.

    The same as ``step(fight, event).fight`` for each event in turn, without working
    out the records, which a replay does not keep."""
    fight = begin(system)
    for event in events:
        ev = read_event(event)
        if fight.rules != ev.get("rules", RULES):
            fight = replace(fight, rules=ev.get("rules", RULES))
        fight = _next(fight, ev)[0]
    return fight


def _ruled(fight: Fight, rules: int) -> Fight:
    return fight if fight.rules == rules else replace(fight, rules=rules)


def _next(fight: Fight, ev: Mapping[str, Any]) -> tuple[Fight, tuple[Record, ...]]:
    """The fight after ``ev`` (read), and the records it gives before its changes: the
    ``combatant`` record of one added or revealed."""
    after, head = _event(fight, ev)
    return settled(
        fight, after, ev["kind"], ev.get("call") if ev["kind"] == "answer" else None
    ), head


def _event(fight: Fight, ev: Mapping[str, Any]) -> tuple[Fight, tuple[Record, ...]]:
    kind = ev["kind"]
    if kind == "add":
        return _add(fight, ev)
    if kind == "start":
        return start(fight, ev), ()
    if kind in TURN_EVENTS:
        if kind == "next" and fight.rules >= OPEN_DEFENSE_RULES:
            _no_open_defense(fight)
        return turn_event(fight, ev), ()
    if kind == "reveal":
        c = fight.combatant(ev["combatant"])
        if not c.hidden:
            raise RuleError(f"{c.name} is not hidden")
        shown = replace(c, hidden=False)
        return fight.put(shown), (Record("combatant", shown.json()),)
    if kind == "exchange":
        return exchange(fight, ev), ()
    if kind == "defenses":
        return _defenses(fight, bool(ev["gm"])), ()
    if kind == "maneuver":
        if fight.rules < MANEUVER_RULES:
            raise RuleError(f"maneuvers are the fight's from rules {MANEUVER_RULES}")
        return fight.put(maneuver(fight, ev)), ()
    if kind in ("answer", "dismiss"):
        call = fight.call(ev["call"])
        rest = tuple(c for c in fight.calls if c.id != call.id)
        after = replace(fight, calls=rest)
        if kind == "answer":
            after = _answer(after, call, ev)
        return after, ()
    c = fight.combatant(ev["combatant"])
    if c.id in fight.removed:
        raise RuleError(f"{c.name} is out of the fight")
    new, specs = _apply(fight, c, ev)
    if fight.rules >= LATER_SHOCK_RULES and fight.current == c.id:
        new = gurps.shock_on_own_turn(c, new)
    after = _put(fight, new)
    if fight.rules >= UNOPENED_RULES:  # a call its fall would close at once is not made
        specs = [x for x in specs if _stays_open(after, c.id, x[0])]
    after = _called(after, c.id, specs)
    if fight.system == "swn" and kind == "damage":
        after = _morale(fight, after, c.id)
    return _fallen(after, c.id), ()


LATER_SHOCK_RULES = SECRET_CALL_RULES
"""The first rules by which shock taken on one's own turn counts from one's next turn
(B419; issue 71 §1.5)."""


OPEN_DEFENSE_RULES = SECRET_CALL_RULES
"""The first rules by which the turn does not pass while a defense call is open."""


UNOPENED_RULES = 7
"""The first rules by which a call that its combatant's fall would close at once is not
opened, and takes no number (a dead combatant's fatigue calls no roll to survive, B419;
see :data:`.events.RULES`)."""


def _no_open_defense(fight: Fight) -> None:
    """From rules 6 (issue 71 §1.9), the turn passes only once every defense call is
    closed: a defense is made against the attack it answers, in the attacker's turn
    (B374), so it is answered (by the defender's player, or by the GM's roll of it) or
    dismissed by the GM (no defense made: nothing follows) before ``next``."""
    open_ = [c for c in fight.calls if c.kind == "defense"]
    if open_:
        who = fight.combatants.get(open_[0].combatant)
        name = open_[0].combatant if who is None or who.hidden else who.name
        raise RuleError(
            f"{name}'s defense call {open_[0].id} is open: it is answered (her roll, or the "
            "GM's) or dismissed before the turn passes (B374)"
        )


def _fallen(fight: Fight, cid: str) -> Fight:
    """From rules 2, a combatant out of the fight has its calls closed: all of them
    once dead; while it lives, all but a GURPS survive roll (B419: the death checks
    are rolled whether or not it is conscious)."""
    if not fight.calls:
        return fight
    kept = tuple(x for x in fight.calls if x.combatant != cid or _stays_open(fight, cid, x.kind))
    return fight if len(kept) == len(fight.calls) else replace(fight, calls=kept)


def _stays_open(fight: Fight, cid: str, kind: str) -> bool:
    """Whether a call of ``kind`` for ``cid`` stays open in ``fight`` (:func:`_fallen`)."""
    if fight.rules < 2 or not fight.out_of_action(cid):
        return True
    return kind == "survive" and "dead" not in fight.combatants[cid].conditions


def _add(fight: Fight, ev: Mapping[str, Any]) -> tuple[Fight, tuple[Record, ...]]:
    cid = ev["combatant"]
    if cid in fight.combatants:
        raise RuleError(f"{cid!r} is in the fight already")
    if len(fight.combatants) >= 200:
        raise RuleError("a fight holds at most 200 combatants")
    if fight.rules >= ORDER_RULES and rolling(fight):
        raise RuleError(
            f"the initiative rolls are open: add {cid!r} once the order is set "
            "(it then takes its place in it)"
        )
    values = dict(ev["values"])
    if fight.gm_defends_pcs and ev.get("pc") and fight.system == "gurps":
        values.setdefault("gm_defends", 1)  # the room's setting (a defenses event)
    fill = {"gurps": gurps.defaults, "swn": swn_rules.swn_defaults}.get(
        fight.system, swn_rules.fudge_defaults
    )
    c = Combatant(
        id=cid,
        name=ev.get("name", cid),
        values=fill(values),
        sheet=ev.get("sheet"),
        owner=ev.get("owner", "gm"),
        hidden=ev.get("hidden", False),
        side=ev.get("side", ""),
        pc=ev.get("pc", False),
    )
    after = _put(fight, c)
    if fight.order or fight.round:  # joining a fight under way: its place in the order
        after = start(after, {"kind": "start", "join": cid})
    return after, (Record("combatant", c.json(), c.hidden),)


def _apply(fight: Fight, c: Combatant, ev: Mapping[str, Any]) -> tuple[Combatant, list[Any]]:
    kind = ev["kind"]
    if kind == "damage":
        if fight.system == "gurps" and "basic" in ev:
            kind = ev.get("type", "cr") if fight.rules >= TOXIC_RULES else "cr"  # B399
            if fight.rules >= BLOW_RULES and "effect" in ev:  # a critical hit's (B556)
                where = "eye" if ev["effect"] == "eye" else ev.get("location")
                return gurps.injure(c, struck(c, ev), where, kind, ev["effect"])
            return gurps.injure(c, through_dr(c, ev, fight.rules), ev.get("location"), kind)
        if "amount" not in ev:
            raise RuleError("a damage event needs 'amount' (an integer within ±1,000,000)")
        if ev["amount"] < 0:
            raise RuleError("damage is 0 or more (a 'heal' event gives HP back)")
        if fight.system == "gurps":
            return gurps.injure(c, ev["amount"], ev.get("location"))
        if fight.system == "swn":
            return swn_rules.injure(c, ev["amount"], ev.get("lethal", True)), []
        raise RuleError("Psi-punk has no wound track to damage (002): note a wound as a --mod")
    if kind == "defend":
        return defended(fight, c, ev), []
    if kind == "heal":
        if ev["amount"] < 0 or fight.system == "fudge":
            raise RuleError("healing is 0 or more HP, in GURPS or SWN")
        hp = min(c.value("hp_max"), c.value("hp") + ev["amount"])
        if fight.system == "swn":
            return swn_rules.injure(c, c.value("hp") - hp), []
        return c.with_values(hp=hp), []
    if kind == "fatigue":
        if fight.system != "gurps":
            raise RuleError("fatigue points are GURPS's (B426)")
        return gurps.fatigue(c, ev["amount"])
    if kind == "result":
        return _result(fight, c, ev["of"], ev["success"], 0, False), []
    return _set(fight, c, ev), []


def _set(fight: Fight, c: Combatant, ev: Mapping[str, Any]) -> Combatant:
    """The GM's hand: values and conditions set directly (a Luck Point spent, system
    strain taken, a combatant standing up). Only tracked values may be set."""

    values = dict(ev.get("values", {}))
    unknown = sorted(set(values) - set(tracked(fight.system)))
    if unknown:
        names = ", ".join(tracked(fight.system))
        raise RuleError(f"{fight.system} tracks no {unknown[0]!r} (it tracks {names})")
    out = c.with_values(**values)
    if fight.system == "swn" and out.value("strain") > out.value("strain_max"):
        raise RuleError(f"system strain {out.value('strain')} is over {c.name}'s maximum")
    if fight.system == "fudge" and out.value("luck") < 0:
        raise RuleError(f"{c.name} has no Luck Point left to spend")
    conditions = (out.conditions - set(ev.get("drop", ()))) | set(ev.get("add", ()))
    return out.with_conditions(frozenset(conditions))


def _defenses(fight: Fight, gm: bool) -> Fight:
    """The room's setting of who rolls the players' characters' defenses (contract v1.4,
    "the defender chooses her defense": the GM may set a room to roll them, for speed):
    ``gm`` the GM, else each player her own. Each PC in the fight takes it as its
    ``gm_defends``, and so does one added later (:func:`_add`)."""
    if fight.system != "gurps":
        raise RuleError("who rolls the defenses is GURPS's setting (B374-B377)")
    if fight.rules < MANEUVER_RULES:
        raise RuleError(f"the defenses setting is the fight's from rules {MANEUVER_RULES}")
    out = replace(fight, gm_defends_pcs=gm)
    for cid, c in fight.combatants.items():
        if c.pc and cid not in fight.removed:
            out = out.put(c.with_values(gm_defends=1 if gm else 0))
    return out


def _result(fight: Fight, c: Combatant, kind: str, ok: bool, margin: int, crit: bool) -> Combatant:
    if fight.system == "gurps":
        return gurps.answer(c, kind, ok, margin, crit)
    if fight.system == "swn":
        if kind not in ("stabilize", "morale"):
            raise RuleError(f"an SWN result is of 'stabilize' or 'morale', not {kind!r}")
        return swn_rules.swn_answer(c, kind, ok)
    raise RuleError("a Psi-punk fight takes no results (its rolls change no tracked value)")


def _answer(fight: Fight, call: Call, ev: Mapping[str, Any]) -> Fight:
    if call.kind in INITIATIVE:
        return initiative_answer(fight, call, ev["total"])
    c = fight.combatants[call.combatant]
    if call.kind == "defense":  # counted as a defend event counts it (B376)
        made = call.command_of(ev.get("choice")).split()
        return _put(fight, defended(fight, c, {"defense": made[2], "retreat": "--retreat" in made}))
    new = _result(fight, c, call.kind, ev["success"], ev["margin"], ev["critical"])
    return _fallen(_put(fight, new), c.id)


def _morale(before: Fight, after: Fight, hit: str) -> Fight:
    """``003``, "Morale": NPCs check after their side's first casualty and at 50%
    losses (:func:`referee.systems.swn.morale_triggers`); PCs never do."""

    side = after.combatants[hit].side
    team = [cid for cid, c in after.combatants.items() if c.side == side]
    down_before = sum(swn_rules.is_down(before.combatants[cid]) for cid in team if cid != hit)
    was = swn_rules.is_down(before.combatants[hit])
    now = swn_rules.is_down(after.combatants[hit])
    why = morale_triggers(len(team), down_before + was, down_before + now)
    for cid in team:
        c = after.combatants[cid]
        if why and not c.pc and c.value("morale") and not swn_rules.is_down(c):
            if "broken" not in c.conditions:
                label = f"Morale ({why[0]})"
                spec = (
                    "morale",
                    f"swn morale {c.value('morale')} --label '{label}'",
                    f"{' and '.join(why)} on {side or 'its side'}: NPCs check morale (003)",
                )
                after = _called(after, cid, [spec])
    return after


def _put(fight: Fight, c: Combatant) -> Fight:
    return fight.put(c)


def _called(fight: Fight, cid: str, specs: Iterable[tuple[str, str, str]]) -> Fight:
    return fight.calling((cid, *spec) for spec in specs)
