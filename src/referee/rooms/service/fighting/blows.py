"""The damage step of a room's GURPS exchange (issue 65 §6; contract v1.5): the command
that rolls it and what the fight's ``damage`` event adds to it, made from the attack
itself, so that a defense call on a player's character caused by an attack she may not
see (the GM's secret roll, a hidden NPC's) carries none of its numbers: the server makes
the damage roll from its own record of the attack (the attack's roll entry), not from a
command kept in the public call (issue 71 §1.1)."""

from __future__ import annotations

import asyncio
import shlex
from collections.abc import Mapping
from typing import Any

from .... import commands
from ....errors import RefereeError
from ....fight import Combatant
from ....sheets import find_attack
from ....systems.gurps.blows import BLOWS
from ...errors import ApiError

__all__ = ["HIT_TABLES", "damage_after", "damage_step", "sheet_of", "unnamed", "weapon_of"]

HIT_TABLES = ("critical hit", "critical head blow")
"""The critical tables a hit reads (B556)."""


def damage_step(
    dice: str, target: Combatant, location: str | None, hit: Mapping[str, Any], by_gm: bool
) -> tuple[str, dict[str, Any]]:
    """The damage step of an exchange made of separate rolls (issue 65 §6): the command
    to roll as the attacker's sheet, and what the fight's ``damage`` event adds to it.
    Both take the exchange's own blow (:func:`referee.systems.gurps.blows.blow`), so the
    result is what ``gurps attack``'s exchange gives on the same dice: at the location
    the attack landed (the torso after an aimed miss by 1, B399), with the critical
    table's row when the attack was a critical hit (B556).

    - Rolled by the GM (an NPC's attack, the GM's secret roll): ``gurps blow --vs
      @TARGET``, the whole damage step against the target's sheet.
    - Rolled by a player: her ``gurps damage`` roll, public, which shows no number of the
      target's sheet (a GM's NPC's are the GM's, rules 3); the fight takes it through
      the target's DR with the critical's ``effect`` (:func:`referee.fight.exchange.struck`).
    """
    table = hit.get("critical_table")
    crit = hit.get("outcome") == "critical success" and isinstance(table, Mapping)
    event: dict[str, Any] = {}
    if by_gm:
        words = ["gurps", "blow", shlex.quote(dice), f"--vs @{target.sheet}"]
        if location:
            words.append(f"--location {shlex.quote(location)}")
        if crit and isinstance(table, Mapping) and table.get("table") in HIT_TABLES:
            words.append(f"--critical {int(table['total'])}")
        return " ".join(words), event
    if location:
        event["location"] = location
    if crit and isinstance(table, Mapping) and table.get("effect") in BLOWS:
        event["effect"] = table["effect"]
    return f"gurps damage {shlex.quote(dice)} --basic-only", event  # issue 71 §1.8


async def damage_after(
    st: Any, room: str, attack: Mapping[str, Any], attacker: Combatant, target: Combatant
) -> tuple[str, dict[str, Any]] | None:
    """:func:`damage_step` made from the attack's own roll entry (the server's record: the
    command the room's attack made, ``@SHEET gurps attack WEAPON [--location X] ...``,
    and its result), the weapon's damage read from the attacker's sheet as the attack
    read it; None for an entry that is no attack roll of the room's (no damage
    follows)."""
    result = attack.get("result")
    try:
        words = shlex.split(str(attack.get("command") or ""))
    except ValueError:
        return None
    if words[:1] and words[0].startswith("@"):
        words = words[1:]
    if words[:2] != ["gurps", "attack"] or len(words) < 3 or not isinstance(result, Mapping):
        return None
    _level, dice, _ranged = await weapon_of(st, room, attacker, words[2])
    location = None
    if "--location" in words[:-1] and not result.get("torso_instead"):  # B399
        location = words[words.index("--location") + 1]
    return damage_step(dice, target, location, result, attacker.owner == "gm")


def unnamed(command: str) -> str:
    """An NPC's defense as its public ``exchange`` event carries it: without the weapon it
    parries or blocks with and without the label that names it (``gurps defend parry
    --retreat --mod -4``), so that nothing of its sheet shows (rules 3); rolled as its
    sheet, it parries with its best weapon."""
    words = shlex.split(command)
    kept = words[:3]
    rest = words[3:]
    if rest and not rest[0].startswith("--"):
        rest = rest[1:]  # the weapon
    i = 0
    while i < len(rest):
        if rest[i] == "--label":
            i += 2
            continue
        kept.append(rest[i])
        i += 1
    return shlex.join(kept)


async def sheet_of(st: Any, room: str, c: Combatant) -> Any:
    return (await _sheet_and_row(st, room, c))[0]


async def _sheet_and_row(st: Any, room: str, c: Combatant) -> tuple[Any, Any]:
    row = (await st.sheets.of(st, room)).get(c.sheet)
    if row is None:
        raise ApiError(422, f"{c.name}'s sheet is no longer in this room")
    return await st.sheets.sheet(st, room, row), row


async def weapon_of(st: Any, room: str, attacker: Combatant, weapon: str) -> tuple[int, str, bool]:
    """The skill with ``weapon`` on the attacker's sheet, the damage it does (``1d-3
    cut``), as an exchange reads them, and whether it is a ranged weapon (the sheet gives
    its Acc); 422 for a weapon the sheet lacks or one with no damage. Read once per
    version of the sheet (its sha256) and weapon."""
    sheet, row = await _sheet_and_row(st, room, attacker)
    key = ("weapon", row.sha256, weapon)
    found: tuple[int, str, bool] | None = st.sheets.resolved.get(key)
    if found is not None:
        return found
    line = f"gurps attack {shlex.quote(weapon)} --vs @self"
    try:
        resolved = await asyncio.to_thread(commands.resolve, line, sheet, others={"@self": sheet})
    except RefereeError as exc:
        raise ApiError(422, str(exc)) from None
    words = shlex.split(resolved)
    if "--damage" not in words:
        raise ApiError(422, f"{weapon} gives no damage to roll")
    level = int(words[2]) if len(words) > 2 and words[2].lstrip("-").isdigit() else 10
    try:
        ranged = find_attack(sheet, weapon).acc is not None
    except RefereeError:  # a level, not a weapon of the sheet: melee
        ranged = False
    found = (level, words[words.index("--damage") + 1], ranged)
    st.sheets.resolved.keep(key, found)
    return found
