"""An SWN attack in the fight, whole (issue 65 §7): :func:`.attacks.attack` in an SWN
room. The player picks her target from the
fight; the server reads its Armor Class and HP from its sheet and the tracker (she no
longer types them), rolls her attack as her sheet, and applies its damage (with Shock)
to the target.

Source: ``003``, "Combat": 1d20 + attack bonus + skill + attribute modifier against
the target's AC, damage on a hit and Shock on a miss within its AC; a Main Action, on
one's own turn (:func:`.attacks._on_turn` checks the turn). An NPC's AC is
not among the numbers the GM keeps (:data:`referee.fight.npcs.SHEET_NUMBERS`): the roll
names it, as a player's own ``swn attack --vs`` would.
"""

from __future__ import annotations

import shlex
from typing import Any

from ....fight import Combatant
from ...db.epochs import Conflict
from ...db.fightstore import NOTHING
from ...db.store import Member
from ...errors import ApiError
from ...log import view
from ..access import conflicts
from ..rolls import roll_entry

__all__ = ["answered", "applied", "swn_attack"]


def _permit(fight: Any, ev: Any, roll: int | None) -> None:
    """:func:`.attacks.attack` decided who may attack before any die was drawn."""


async def swn_attack(
    st: Any,
    room: str,
    member: Member,
    attacker: Combatant,
    target: Combatant,
    weapon: str,
    visibility: str | None,
) -> dict[str, Any]:
    """The attack roll, as the attacker's sheet against the target's AC and HP now, and
    its damage applied: ``{"rolls": [...], "entries": [...]}``."""
    row = (await st.sheets.of(st, room)).get(target.sheet)
    if row is None:
        raise ApiError(422, f"{target.name}'s sheet is no longer in this room")
    sheet = await st.sheets.sheet(st, room, row)
    if attacker.value("acted"):  # one attack a turn: the round's Main Action (003)
        raise ApiError(409, f"{attacker.name} attacked this turn already (003: one Main Action)")
    move = {"kind": "maneuver", "combatant": attacker.id, "maneuver": "attack", "attack": True}
    moved = await conflicts(st.store.fight_event(room, member.id, move, None, None, _permit))
    ac = sheet.ac if sheet.ac is not None else 10
    words = [
        f"@{attacker.sheet}", "swn", "attack", shlex.quote(weapon), f"--ac {ac}",
        "--target-name", shlex.quote(target.name), f"--target-hp {max(0, target.value('hp'))}",
    ]  # fmt: skip
    if "total defense" in target.conditions:  # 003: +2 AC, and no Shock on a miss
        words.append("--total-defense")
    seen = visibility or ("gm" if attacker.owner == "gm" else "public")
    rolled = await roll_entry(st, room, member, " ".join(words), seen)
    st.published(room, rolled)
    logged: list[dict[str, Any]] = list(moved)
    result = rolled["result"]
    if not result.get("refused") and result.get("damage"):
        event = {"kind": "damage", "combatant": target.id}
        logged += await applied(st, room, member, event, rolled["seq"])
    return await answered(st, room, member, [rolled], logged)


async def applied(
    st: Any, room: str, member: Member, event: dict[str, Any], seq: int
) -> list[dict[str, Any]]:
    """A damage ``event`` taken from the roll at ``seq``, logged: its entries, or none
    when the target's DR stopped it all (the exchange is over)."""
    try:
        return list(await st.store.fight_event(room, member.id, event, seq, None, _permit))
    except Conflict as exc:
        if NOTHING not in str(exc):
            raise
        return []


async def answered(
    st: Any, room: str, member: Member, rolls: list[dict[str, Any]], logged: list[dict[str, Any]]
) -> dict[str, Any]:
    """An attack's answer: its fight entries published, and ``{"rolls", "entries"}`` as
    ``member`` may see them."""
    for e in logged:
        st.published(room, e)
    revealed = await st.revealed(room)
    return {
        "rolls": [view(e, member.id, revealed) for e in rolls],
        "entries": [view(e, member.id, revealed) for e in logged],
    }
