"""The checks of a fight event against the roll it takes its numbers from (contract
v1.3, "Damage applied from a roll follows the roll's own numbers and target"; v1.4, "a
call is answered by its own roll" and "the fight's state goes into every roll it
takes"). Used by :mod:`.fightstore` before an event is stepped; each raises
:class:`.epochs.Conflict` (422) naming what is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...errors import RefereeError
from ...fight import Call, Fight
from .epochs import Conflict

__all__ = ["aimed", "same_roll", "stabilized_at"]

_VS = re.compile(r"(?:^|\s)--vs[ =]@([A-Za-z0-9_-]{1,40})(?=\s|$)")


def aimed(fight: Fight, ev: dict[str, Any], e: Mapping[str, Any]) -> None:
    """Damage goes to the roll's own target where it names one in the fight (contract
    v1.3): a ``--vs @SHEET`` whose sheet a combatant plays. The event may leave out
    its ``combatant`` then; one that names another gets 422."""
    found = _VS.search(str(e.get("command", "")))
    aimed = None
    if found is not None:
        aimed = next(
            (cid for cid, c in fight.combatants.items()
             if c.sheet == found.group(1) and cid not in fight.removed),
            None,
        )  # fmt: skip
    if aimed is None:
        if "combatant" not in ev:
            raise Conflict(422, "name the combatant to apply this roll to ('combatant')")
        return
    if ev.setdefault("combatant", aimed) != aimed:
        name = fight.combatants[aimed].name
        what = "its damage goes" if ev.get("kind") == "damage" else "it applies"
        raise Conflict(422, f"roll {e.get('seq')} is aimed at {name}: {what} there")


_ROUNDS = re.compile(r"(?:^|\s)--rounds[ =]([0-9]{1,7})(?=\s|$)")


def stabilized_at(fight: Fight, ev: Mapping[str, Any], e: Mapping[str, Any]) -> None:
    """A stabilize roll applied to a combatant must have been made at the rounds it has
    been down, as the tracker counts them (``003``, "Mortal Wounds": the difficulty is
    10, 8 with a medkit, 6 with a Lazarus patch, plus the rounds since the fall;
    contract v1.4, "the fight's state goes into every roll it takes"): a roll typed at
    fewer rounds, or more, is refused, naming the rounds to roll at."""
    c = fight.combatants.get(str(ev.get("combatant")))
    if c is None or fight.system != "swn":
        return
    typed = _ROUNDS.search(str(e.get("resolved") or e.get("command") or ""))
    made = int(typed.group(1)) if typed else 0
    down = c.value("rounds_down")
    if made != down:
        raise Conflict(
            422,
            f"roll {e.get('seq')} was made at --rounds {made}, but {c.name} has been down "
            f"{down} round{'s' if down != 1 else ''}: roll 'swn stabilize --rounds {down}' "
            "(003, Mortal Wounds)",
        )


def same_roll(fight: Fight, ev: Mapping[str, Any], e: Mapping[str, Any]) -> None:
    """An answer's roll must be its call's own (contract v1.4, "a call is answered by
    its own roll"): the roll the server made for that call, which names it
    (``"call"``). So a roll a member made herself, one made before the call opened (its
    id was not yet given) and one that answered another call are refused, each named;
    and a call answered once is closed, so its roll answers no other. (Before rules
    5, an answer's roll had only to be the call's command: :func:`_same_command`.)"""
    try:
        call = fight.call(str(ev.get("call")))
    except RefereeError as exc:
        raise Conflict(422, str(exc)) from None
    made_for = e.get("call")
    seq = e.get("seq")
    if made_for is None:
        raise Conflict(
            422,
            f"roll {seq} was not made for call {call.id}: a call is answered only by the "
            'roll the server makes for it ("roll": "call"), not by one its roller made',
        )
    if made_for != call.id:
        raise Conflict(
            422, f"roll {seq} was made for call {made_for}: it answers that call, not {call.id}"
        )
    try:
        wanted = call.command_of(ev.get("choice"))
    except RefereeError as exc:
        raise Conflict(422, str(exc)) from None
    _same_command(call, wanted, fight, e)


def _same_command(call: Call, wanted: str, fight: Fight, e: Mapping[str, Any]) -> None:
    """An answer's roll must be the call's command (``wanted``: the one chosen), as the
    call gave it."""
    made = " ".join(str(e.get("command", "")).split())
    c = fight.combatants.get(call.combatant)
    if c is not None and c.sheet and made.startswith(f"@{c.sheet} "):
        made = made[len(c.sheet) + 2 :]  # made as the call's combatant (contract v1.3)
    if made != " ".join(wanted.split()):
        raise Conflict(422, f"call {call.id} is answered by '{wanted}', not '{made}'")
