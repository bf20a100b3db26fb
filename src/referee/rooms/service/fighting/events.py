"""The fight's events, for every front end (issue 72 §1): the page's and the API's
``POST /api/rooms/{room}/fight`` and ``GET .../fight``, and Discord's buttons, call
:func:`event` and :func:`seen`.

* ``POST /api/rooms/{room}/fight`` takes ``{"event": {...}, "roll": seq or null,
  "why": text or null}`` (the events of :mod:`referee.fight.events`) and answers 201
  ``{"entries": [...]}``, the entries it logged as the caller may see them. With
  ``roll``, the event's numbers come from that roll (the injury of a damage roll, the
  success and margin of a called HT roll, an initiative total).
* ``GET /api/rooms/{room}/fight`` answers the fight as the caller may see it:
  combatants, order, turn, round, conditions and the open calls, replayed from the log
  as the caller sees it (a change the log hides from a player is not in their answer).

The GM may make any event. A player may answer the calls of their own combatants
(with their own roll of the call's command, or ``"roll": "call"``), end their own
combatant's turn (``next``), count their own combatant's defense (``defend``, with
their own ``gurps defend`` roll: repeated parries, B376), and spend their own
combatant's Luck Points (``set`` of ``luck`` to fewer). An ``add`` that names a room
sheet takes its values from it (:func:`referee.fight.sheets.values_from`), its name
and its owner; values given in the event win.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from ....errors import RefereeError
from ....fight import Fight, visible
from ....fight.sheets import values_from
from ...db.epochs import Conflict
from ...db.fightstore import NOTHING
from ...db.store import Member
from ...errors import ApiError
from ...log import view
from ..access import conflicts, writable
from ..guardian import Guardian
from ..rolls import roll_entry
from .blows import damage_after

__all__ = ["event", "seen"]


async def event(
    st: Any,
    room: str,
    member: Member,
    ev: Mapping[str, Any],
    roll: int | str | None = None,
    visibility: str | None = None,
    why: str | None = None,
) -> dict[str, Any]:
    """A fight event (:mod:`referee.fight.events`) by ``member``: ``{"entries": [...]}``
    as the member may see them, with ``"roll"`` (``roll`` = ``"call"``: the call's own
    roll, made here) and ``"damage"`` (a failed defense's damage roll) when made.

    Raises:
        ApiError: 403 for an event the member may not make, 409 or 422 as the fight's
            rules refuse it (naming why).
    """
    await writable(st, room)
    if why is not None and (len(why) > 200 or not why.isprintable()):
        raise ApiError(422, "'why' is at most 200 printable characters")
    if (
        roll is not None
        and roll != "call"
        and (not isinstance(roll, int) or isinstance(roll, bool))
    ):
        raise ApiError(422, "'roll' is a roll's seq or \"call\"")
    ev = dict(ev)
    if ev.get("kind") == "add":
        await _adding(st, room, member, ev)
    rolled: dict[str, Any] | None = None
    if roll == "call":
        rolled = await _call_roll(st, room, member, ev, visibility)
        roll = int(rolled["seq"])
    elif visibility is not None:
        raise ApiError(422, '\'visibility\' goes with "roll": "call" only')
    seq = roll if isinstance(roll, int) else None
    before = await conflicts(st.store.fight(room)) if ev.get("kind") == "answer" else None
    logged = await conflicts(
        st.store.fight_event(room, member.id, ev, seq, why, Guardian(member).fight_event)
    )
    for e in logged:
        st.published(room, e)
    sequel = await _sequel(st, room, before, ev, seq)
    logged.extend(sequel[1])
    revealed = await st.revealed(room)
    out: dict[str, Any] = {"entries": [view(e, member.id, revealed) for e in logged]}
    if sequel[0] is not None:
        out["damage"] = view(sequel[0], member.id, revealed)
    if rolled is not None:
        out["roll"] = view(rolled, member.id, revealed)
    return out


async def seen(st: Any, room: str, member: Member) -> dict[str, Any]:
    """The fight as ``member`` may see it (``GET .../fight``): replayed from the log as
    that member sees it (:meth:`..db.store.Store.seen_fight`)."""
    fight = await conflicts(st.store.seen_fight(room, member.id))
    out: dict[str, Any] = visible(fight, member.id)
    return out


def _permit(fight: Fight, ev: Mapping[str, Any], roll: int | None) -> None:
    """The check for what the server does itself, once the caller's event was allowed."""


async def _sequel(
    st: Any, room: str, before: Fight | None, ev: Mapping[str, Any], roll: int | None
) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """After the answer to a ``defense`` call (the GM's own roll of an NPC's defense,
    issue 49 §5): when it failed, the attacker's damage roll, public and made as the
    attacker's sheet by the server for its owner (the attack was theirs), applied to
    the defender through its DR. ``(the damage roll, the fight's entries)``."""
    call = (
        None if before is None else next((c for c in before.calls if c.id == ev.get("call")), None)
    )
    if call is None or call.kind != "defense" or roll is None or before is None:
        return None, []
    if call.then is None and call.attack is None:
        return None, []
    answered = await st.store.entry(room, roll)
    if answered is None or (answered.get("result") or {}).get("success"):
        return None, []
    attacker = before.combatants.get(call.attacker or "")
    target = before.combatants.get(call.combatant)
    if attacker is None or attacker.sheet is None or target is None:
        return None, []
    owner = Member(room, attacker.owner, "")
    seen = "gm" if attacker.owner == "gm" else "public"  # an NPC's: the GM's (v1.4)
    event: dict[str, Any] = {"kind": "damage", "combatant": call.combatant}
    then = call.then
    if then is None:  # rules 6: made from the server's own record of the attack
        attack = await st.store.entry(room, int(call.attack or 0))
        made = None if attack is None else await damage_after(st, room, attack, attacker, target)
        if made is None:
            return None, []
        then, extra = made
        event.update(extra)
    damage = await roll_entry(st, room, owner, f"@{attacker.sheet} {then}", seen)
    st.published(room, damage)
    where = then.split("--location ")
    if len(where) == 2 and "location" not in event:
        event["location"] = shlex.split(where[1])[0]
    try:
        entries = await st.store.fight_event(
            room, owner.id, event, int(damage["seq"]), None, _permit
        )
    except Conflict as exc:  # its DR stopped it all
        if NOTHING not in str(exc):
            raise
        entries = []
    for e in entries:
        st.published(room, e)
    return damage, entries


async def _call_roll(
    st: Any, room: str, member: Member, ev: Mapping[str, Any], asked: str | None
) -> dict[str, Any]:
    """Roll the command of the call ``ev`` answers, as its combatant (contract v1.3),
    naming the call (contract v1.4: "a call is answered by its own roll"): its roller
    the member, its sheet the combatant's. Its visibility (contract v1.4, "the GM's
    NPCs roll in secret by default"): a combatant the GM plays rolls ``gm`` unless the
    GM asks otherwise (a hidden one always ``gm``); a player's character rolls public
    unless the GM asks otherwise.

    Everything that could refuse the answer is checked before any die is drawn, so
    that no roll is made that its answer would then leave unused (a player who could
    make the server roll and then see her answer refused could roll again, and choose
    among the rolls): the event is exactly ``{"kind": "answer", "call": ID}``, the
    call is open, and it is the member's to answer; a player gets the same 403 for a
    call not hers and one that is not open."""
    if ev.get("kind") != "answer" or not isinstance(ev.get("call"), str):
        raise ApiError(422, '"roll": "call" answers a call: {"kind": "answer", "call": ID}')
    extra = sorted(set(ev) - {"kind", "call", "choice"})
    if extra:
        raise ApiError(
            422,
            f'an answer made with "roll": "call" takes its numbers from that roll: '
            f"leave out {extra[0]!r}",
        )
    choice = ev.get("choice")
    if choice is not None and (not isinstance(choice, int) or isinstance(choice, bool)):
        raise ApiError(422, "an answer's 'choice' is the index of one of its call's choices")
    fight = await conflicts(st.store.fight(room))
    call = next((c for c in fight.calls if c.id == ev["call"]), None)
    who = None if call is None else fight.combatants.get(call.combatant)
    if not member.is_gm and (who is None or who.owner != member.id):
        raise ApiError(403, "a player may not make this answer event: it is the GM's")
    if call is None or who is None:
        raise ApiError(422, f"no call {ev['call']!r} is open in this fight")
    try:
        command = call.command_of(ev.get("choice")) if call is not None else ""
    except RefereeError as exc:
        raise ApiError(422, str(exc)) from None
    if asked is not None and not member.is_gm:
        raise ApiError(422, "a player's roll for her own call is public (contract v1.4)")
    visibility = asked or ("gm" if who.owner == "gm" else "public")
    if who.hidden:
        visibility = "gm"  # nothing a player receives may name a hidden combatant
    if call.kind == "defense" and who.sheet:  # a defense is rolled as the sheet
        made_as: dict[str, Any] = await roll_entry(
            st, room, member, f"@{who.sheet} {command}", visibility, call=call.id, typed=False
        )  # its choice carries the state already (checked through its call)
        st.published(room, made_as)
        return made_as
    rolled = await roll_entry(st, room, member, command, visibility,
                              call_sheet=who.sheet or "", call=call.id)  # fmt: skip
    st.published(room, rolled)
    return rolled


async def _adding(st: Any, room: str, member: Member, ev: dict[str, Any]) -> None:
    """An ``add`` event made ready: the GM's alone; a hidden combatant's id left to the
    store (opaque, contract v1.3); a sheet's values, name and owner filled in (values
    given in the event win); the side a PC or an NPC takes by default."""
    if not member.is_gm:
        raise ApiError(403, "only the GM adds combatants")
    if ev.get("hidden") is True and "combatant" in ev:
        raise ApiError(
            422,
            "a hidden combatant's id is the server's, one that names nothing (contract "
            "v1.3): leave out 'combatant', and read its id in the answer",
        )
    if isinstance(ev.get("sheet"), str):
        rows = await st.sheets.of(st, room)
        row = rows.get(ev["sheet"])
        if row is None:
            raise ApiError(422, f"no sheet {ev['sheet']!r} in this room")
        sheet = await st.sheets.sheet(st, room, row)
        given: dict[str, Any] = ev["values"] if isinstance(ev.get("values"), dict) else {}
        ev["values"] = {**values_from(sheet), **given}
        ev.setdefault("name", sheet.name)
        ev.setdefault("owner", row.owner)
        ev.setdefault("pc", row.owner != "gm")
        if ev.get("hidden") is not True:
            ev.setdefault("combatant", ev["sheet"])
    if ev.get("hidden") is not True and "combatant" not in ev:
        raise ApiError(422, "an add event needs 'combatant' (its id) or 'sheet'")
    # Sides (SWN's morale counts a side's losses, 003): the players' characters one side,
    # the GM's NPCs the other, unless the event says otherwise.
    ev.setdefault("side", "PCs" if ev.get("pc") else "NPCs")
