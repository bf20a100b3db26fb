"""Initiative and turns: the order, whose turn it is, the round; delaying, acting and
leaving the fight; and what a turn's start and end call for.

Sources:
- GURPS: *Basic Set*, B363, "Sequence of Turns": highest Basic Speed first, then the
  higher DX, then a random roll (here a ``roll 1d6`` each tied combatant makes, the
  higher first; a second tie keeps the order they were added in).
- SWN: ``003``, "Initiative and Rounds": 1d8 + Dex modifier, highest first, PCs win
  ties, not rerolled each round (rules README). Two NPCs (or two PCs) that tie keep
  the order they were added in. ``group`` (an option; ``003`` gives no group rule)
  rolls once for each side, adding the side's best Dex modifier.
- Psi-punk: ``002`` gives no initiative rule, so the GM's order is kept (``order``),
  or the order the combatants were added in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from ..errors import RuleError
from . import gurps
from . import swn as swn_rules
from .maneuvers import MANEUVER_RULES, new_turn
from .model import Call, Combatant, Fight

__all__ = [
    "INITIATIVE",
    "TURN_EVENTS",
    "initiative_answer",
    "rolling",
    "settled",
    "start",
    "tracked",
    "turn_event",
]

TURN_EVENTS = ("next", "previous", "delay", "act", "remove")
"""The events that move the turn."""

INITIATIVE = ("initiative", "side initiative", "tiebreak")
"""The kinds of call whose answer is a place in the order (its roll's ``total``)."""

ORDER_RULES = 4
"""The first rules (:data:`.events.RULES`) by which :func:`settled` sets the order."""

SIDE_WHY = "1d8 + the side's best Dex modifier (003; one roll a side is an option)"


def tracked(system: str) -> tuple[str, ...]:
    """The values a system's combatants carry."""
    if system == "gurps":
        return gurps.TRACKED
    return swn_rules.SWN_TRACKED if system == "swn" else swn_rules.FUDGE_TRACKED


def start(fight: Fight, ev: Mapping[str, Any]) -> Fight:
    """Begin the fight (``ev``: the ``start`` event), or find a place in it for a
    combatant who joins it under way (``{"join": id}``). When rolls decide the order,
    they are called for, and the first round begins when the last is answered."""
    join = ev.get("join")
    if join is None:
        if fight.round or any(c.kind in INITIATIVE for c in fight.calls):
            raise RuleError("the fight has started already")
        if not fight.combatants:
            raise RuleError("add combatants before the fight starts")
    ids = [join] if join else [c for c in fight.combatants if c not in fight.removed]
    if ev.get("order"):
        order = ev["order"]
        if sorted(order) != sorted(ids):
            raise RuleError("'order' names each combatant in the fight once: " + ", ".join(ids))
        return _begin(fight, tuple(order))
    if fight.system == "gurps":
        keys = {
            cid: (fight.combatants[cid].value("speed"), fight.combatants[cid].value("dx"))
            for cid in ids
        }
        fight = replace(fight, initiative={**fight.initiative, **keys})
        if join:
            return _place(fight, join)
        tied = [cid for cid in ids if list(keys.values()).count(keys[cid]) > 1]
        if not tied:
            return _begin(fight)
        return _call(
            fight,
            [
                (
                    cid,
                    "tiebreak",
                    "roll 1d6 --label 'Initiative tie'",
                    "a tie of Basic Speed and DX: a roll decides (B363)",
                )
                for cid in tied
            ],
        )
    if fight.system == "swn":
        now = fight.rules >= ORDER_RULES
        if ev.get("group") and not join:
            sides: dict[str, list[str]] = {}
            for cid in ids:
                sides.setdefault(fight.combatants[cid].side, []).append(cid)
            specs = []
            for team in sides.values():
                if now:
                    up = [cid for cid in team if not fight.out_of_action(cid)]
                    specs.append(_side_roll(fight, up or team))
                    continue
                best = max(fight.combatants[cid].value("dex_mod") for cid in team)
                specs.append((team[0], "side initiative", _d8(best), "the side's initiative"))
            return _call(fight, specs)
        theirs = _sides_key(fight, join) if join and now else None
        if join and theirs is not None:  # its side rolled as one: its place is the side's
            return _place(replace(fight, initiative={**fight.initiative, join: theirs}), join)
        return _call(
            fight,
            [
                (
                    cid,
                    "initiative",
                    _d8(fight.combatants[cid].value("dex_mod")),
                    "1d8 + Dex modifier (003)",
                )
                for cid in ids
            ],
        )
    if join:
        return replace(fight, order=(*fight.order, join))
    return _begin(fight, tuple(ids))


def _sides_key(fight: Fight, cid: str) -> tuple[int, ...] | None:
    """The key ``cid``'s side rolled as one (SWN, ``"group": true``: a key of three
    numbers, :func:`initiative_answer`), if it did."""
    side = fight.combatants[cid].side
    keys = fight.initiative.items()
    mates = (k for o, k in keys if o != cid and len(k) == 3 and fight.combatants[o].side == side)
    return next(mates, None)


def _side_roll(fight: Fight, team: list[str]) -> tuple[str, str, str, str]:
    """The call for a side's one roll (rules 4): ``1d8`` + the best Dex modifier of
    ``team``, rolled by its first member; by its first hidden one when a hidden
    member's modifier is the best, so that no player's call shows a hidden NPC's
    number (contract v1.3: hidden combatants are anonymous to players)."""
    dex = {cid: fight.combatants[cid].value("dex_mod") for cid in team}
    best = max(dex.values())
    hidden = [cid for cid in team if fight.combatants[cid].hidden]
    shown = [dex[cid] for cid in team if cid not in hidden]
    roller = hidden[0] if hidden and (not shown or max(shown) < best) else team[0]
    return (roller, "side initiative", _d8(best), SIDE_WHY)


def _side_rank(fight: Fight, side: str) -> int:
    """The place of ``side`` among the fight's sides, in the order their first members
    were added."""
    return list(dict.fromkeys(c.side for c in fight.combatants.values())).index(side)


def _d8(mod: int) -> str:
    return f"roll 1d8{mod:+d} --label Initiative" if mod else "roll 1d8 --label Initiative"


def _call(fight: Fight, specs: list[tuple[str, str, str, str]]) -> Fight:
    return fight.calling(specs)


def initiative_answer(fight: Fight, call: Call, total: int) -> Fight:
    """An initiative roll's ``total`` (or a tie's roll) for ``call``'s combatant."""
    c = fight.combatants[call.combatant]
    keys = dict(fight.initiative)
    if call.kind == "tiebreak":
        keys[c.id] = (*keys[c.id][:2], total)
    elif call.kind == "side initiative" and fight.rules >= ORDER_RULES:
        team = [x for x in fight.combatants.values() if x.side == c.side]
        pcs = int(any(x.pc for x in team if x.id not in fight.removed))
        block = (total, pcs, -_side_rank(fight, c.side))
        for other in team:  # one block; a side with a PC wins a tie, else the first added
            keys[other.id] = block
    elif call.kind == "side initiative":  # (rules 1-3: as each member's own roll)
        for other in fight.combatants.values():
            if other.side == c.side:
                keys[other.id] = (total, int(other.pc))
    elif fight.rules >= ORDER_RULES and any(len(k) == 3 for k in keys.values()):
        keys[c.id] = (total, int(c.pc), -_side_rank(fight, c.side))  # beside sides' blocks
    else:
        keys[c.id] = (total, int(c.pc))
    fight = replace(fight, initiative=keys)
    if fight.round:
        return _place(fight, c.id) if c.id not in fight.order else fight
    if any(x.kind in INITIATIVE for x in fight.calls):
        return fight
    return _begin(fight)


def _ranked(fight: Fight, ids: list[str]) -> list[str]:
    """``ids`` in initiative order, the highest keys first, then as they were added; from
    rules 4, one with no key (its roll closed unanswered) after those with one."""
    added = list(fight.combatants)
    last = fight.rules >= ORDER_RULES

    def key(cid: str) -> tuple[int, tuple[int, ...], int, int]:
        got = fight.initiative.get(cid)
        unranked = int(last and got is None)  # (kept with its side)
        # A combatant this reader may not see (a hidden NPC in a player's replay, issue
        # 71 §1.2) has no side or place known here: the logged order stands for it.
        c = fight.combatants.get(cid)
        side = _side_rank(fight, c.side) if unranked and c is not None else 0
        return (unranked, tuple(-k for k in got or ()), side,
                added.index(cid) if cid in added else len(added))  # fmt: skip

    return sorted(ids, key=key)


def rolling(fight: Fight) -> bool:
    """Whether initiative rolls are open: the order is not set yet."""
    return not fight.round and any(c.kind in INITIATIVE for c in fight.calls)


def settled(before: Fight, after: Fight, kind: str, answered: str | None = None) -> Fight:
    """From rules 4, the fight after an event that closed initiative rolls without
    answering them (a ``dismiss``, a ``remove``, a fall that closes its calls; not the
    ``answered`` call):

    - a side's roll (``"group": true``) whose roller was removed or fell passes to the
      next of the side's members who can act, at their best Dex modifier;
    - a GURPS tie's roll closed unanswered counts as the lowest (0: a 1d6 is 1 or more);
    - once no initiative roll is open, the order is set and the first round begins,
      those whose roll went unanswered after those who rolled (:func:`_ranked`); unless
      no one in it can act, when the fight waits for a new ``start``.

    Before rules 4 the order waited for an answer that could no longer come."""
    if after.rules < ORDER_RULES or not rolling(before) or after.round:
        return after
    closed = [c for c in before.calls if c not in after.calls and c.id != answered]
    keys = dict(after.initiative)
    for call in closed:
        if call.kind == "tiebreak" and call.combatant in keys:
            keys[call.combatant] = (*keys[call.combatant][:2], 0)
        if call.kind != "side initiative" or kind == "dismiss":
            continue
        side = before.combatants[call.combatant].side
        team = [cid for cid, c in after.combatants.items() if c.side == side
                and cid not in after.removed and not after.out_of_action(cid)]  # fmt: skip
        if team:
            after = after.calling([_side_roll(after, team)])
    after = replace(after, initiative=keys) if keys != after.initiative else after
    if rolling(after):
        return after
    try:
        return _begin(after)
    except RuleError:  # every one left is out of action: no one can take the first turn
        return after


def _begin(fight: Fight, order: tuple[str, ...] | None = None) -> Fight:
    if order is None:
        ids = [c for c in fight.combatants if c not in fight.removed]
        order = tuple(_ranked(fight, ids))
    if not order:  # every combatant removed before the start
        raise RuleError("every combatant is out of the fight: nobody is left to start it")
    first = _acting(fight, order)
    fight = replace(fight, order=order, round=1, current=first[0])
    return _begin_turn(fight, first[0])


def _acting(fight: Fight, order: tuple[str, ...]) -> list[str]:
    """Those of ``ids`` who get a turn: all, under rules 1; from rules 2, those not out
    of the fight (:meth:`.Fight.out_of_action`), of whom there must be one."""
    ids = list(order)
    if fight.rules < 2:
        return ids
    up = [cid for cid in ids if not fight.out_of_action(cid)]
    if ids and not up:
        raise RuleError(
            "every combatant in the order is out of the fight (down or dead): "
            "nobody can take a turn"
        )
    return up


def _place(fight: Fight, cid: str) -> Fight:
    ranked = _ranked(fight, [*fight.order, cid])
    at = ranked.index(cid)
    order = list(fight.order)
    order.insert(at, cid)
    return replace(fight, order=tuple(order))


def _begin_turn(fight: Fight, cid: str) -> Fight:
    c = fight.combatants.get(cid)
    if fight.rules >= 2 and c is not None and (c.value("defended") or c.value("parried")):
        fight = fight.put(c.with_values(defended=0, parried=0))  # B376: a new turn
    c = fight.combatants.get(cid)
    if fight.rules >= MANEUVER_RULES and c is not None and fight.system in ("gurps", "swn"):
        fight = fight.put(new_turn(c))  # last turn's maneuver and retreat end (B364, B377)
    return _turn_rule(fight, cid, gurps.start_turn)


def _end_turn(fight: Fight, cid: str) -> Fight:
    return _turn_rule(fight, cid, gurps.end_turn)


def _turn_rule(fight: Fight, cid: str, rule: Callable[[Combatant], Any]) -> Fight:
    """A GURPS turn's start or end (:func:`.gurps.start_turn`, :func:`.gurps.end_turn`)
    for ``cid``, and the rolls it calls for; nothing in other systems, or for a
    combatant the caller cannot see."""
    c = fight.combatants.get(cid)
    if fight.system != "gurps" or c is None:
        return fight
    new, specs = rule(c)
    return fight.put(new).calling((cid, *spec) for spec in specs)


def _end_round(fight: Fight) -> Fight:
    if fight.system != "swn":
        return fight
    ended = {cid: swn_rules.end_round(c) for cid, c in fight.combatants.items()}
    return replace(fight, combatants=ended)


def _advance(fight: Fight, after: str, order: tuple[str, ...]) -> Fight:
    """The turn passes from ``after`` (at its place in the old order) to the next in
    ``order``; past the last, a new round begins."""
    old = fight.order
    skip = fight.rules >= 2
    for cid in old[old.index(after) + 1 :]:  # the next who may act, this round
        if cid in order and not (skip and fight.out_of_action(cid)):
            return _begin_turn(fight.turned(order, cid, fight.round), cid)
    if not order:
        return fight.turned(order, None, fight.round)
    first = _acting(fight, order)[0]
    fight = _end_round(fight.turned(order, first, fight.round + 1))
    return _begin_turn(fight, first)


def turn_event(fight: Fight, ev: Mapping[str, Any]) -> Fight:
    """``next`` (the current turn ends, the next begins), ``previous`` (the pointer
    steps back, a correction with no rule effects), ``delay`` (a combatant holds its
    action and leaves the order), ``act`` (a delayed combatant acts now, before the
    current one) and ``remove`` (out of the fight)."""
    kind = ev["kind"]
    if kind == "remove":
        cid = fight.combatant(ev["combatant"]).id
        if cid in fight.removed:
            raise RuleError(f"{cid!r} is out of the fight already")
        calls = tuple(c for c in fight.calls if c.combatant != cid)
        fight = replace(
            fight,
            removed=(*fight.removed, cid),
            calls=calls,
            delayed=tuple(d for d in fight.delayed if d != cid),
        )
        if cid not in fight.order:
            return fight
        order = tuple(o for o in fight.order if o != cid)
        if fight.current != cid:
            return replace(fight, order=order)
        return _advance(fight, cid, order)
    if not fight.round or fight.current is None:
        raise RuleError("the fight has not started: 'start' it first")
    cur = fight.current
    if kind == "next":
        return _advance(_end_turn(fight, cur), cur, fight.order)
    if kind == "previous":
        at = fight.order.index(cur)
        if at == 0 and fight.round == 1:
            raise RuleError("this is the first turn of the fight")
        if at == 0:
            return replace(fight, current=fight.order[-1], round=fight.round - 1)
        return replace(fight, current=fight.order[at - 1])
    cid = fight.combatant(ev["combatant"]).id
    if kind == "delay":
        if cid not in fight.order:
            raise RuleError(f"{cid!r} is not in the order")
        order = tuple(o for o in fight.order if o != cid)
        if not order:
            raise RuleError(f"{cid!r} is the only one in the order: nobody to wait for")
        fight = replace(fight, delayed=(*fight.delayed, cid))
        if cid != cur:
            return replace(fight, order=order)
        return _advance(fight, cid, order)
    if cid not in fight.delayed:
        raise RuleError(f"{cid!r} is not holding its action")
    acting = list(fight.order)
    acting.insert(acting.index(cur), cid)
    return replace(
        fight, order=tuple(acting), current=cid, delayed=tuple(d for d in fight.delayed if d != cid)
    )
