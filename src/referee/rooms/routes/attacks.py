"""A player's attack on a visible NPC, in one request (issue 49, §5; contract v1.3's
"the fight in the usual flow"): ``POST /api/rooms/{room}/fight/attack``.

GURPS's exchange (B369-B377, B398-B399) made of the room's own rolls, each logged
and verifiable like any other, with the NPC's numbers kept the GM's:

1. the attacker's roll, public, made as the attacker's sheet (``@dai gurps attack
   'Knife (Swung)' [--location L]``);
2. on a hit that is not critical (B556: a critical hit allows no defense), the
   target's best active defense (B374-B377; repeated parries at −4 each, B376), rolled
   by the server as the GM's secret roll, made as the target's sheet (``gurps defend
   parry --parried 1 --against -1``); the fight logs a public, sealed ``defend`` event:
   the table sees that the NPC parried and whether it held, never its Parry or roll;
3. if it does not hold, the attacker's damage roll, public (``gurps damage '1d-3
   cut'``), applied to the target through the target's own DR at the location, by
   the fight's rules (contract v1.3, "Damage applied from a roll").

When the GM rolls the target's defenses by hand (its ``gm_defends`` value, set on its
card), step 2 is a ``defense`` call instead (an ``exchange`` event: the defense to roll,
written with no number of the sheet, and the damage that follows): the GM's **Roll**
makes it as the target's sheet, secret, and a failure brings step 3 (its route is
``POST .../fight``'s answer, :mod:`.fights`).

Body: ``{"attacker": id, "target": id, "weapon": text, "location": text or null}``.
Who: the attacker's owner or the GM, against a combatant the caller can see. The
answer is 201 ``{"rolls": [...], "entries": [...]}``: the roll entries and the fight's
entries, as the caller may see them. The GM's own attacks, and an NPC's on a player,
go through ``gurps attack ... --vs @SHEET`` as before (every step the GM's to see).
"""

from __future__ import annotations

import asyncio
import shlex
from dataclasses import replace
from typing import Any

from fastapi import FastAPI, Request
from pydantic import BaseModel, ConfigDict, Field

from ... import commands
from ...commands.gurps_target import target_of
from ...errors import RefereeError
from ...systems.gurps.melee import DefenseOptions
from ...systems.gurps.target import choose_defense
from ..db.epochs import Conflict
from ..db.fightstore import NOTHING
from ..db.store import Member
from ..errors import ApiError
from ..log import view
from ..service import conflicts, roll_entry, writable
from .api import Caller, state
from .models import ERRORS

__all__ = ["install"]


class NewAttack(BaseModel):
    model_config = ConfigDict(extra="forbid")
    attacker: str = Field(max_length=40)
    target: str = Field(max_length=40)
    weapon: str = Field(min_length=1, max_length=80)
    location: str | None = Field(default=None, max_length=20)


def _permit(fight: Any, ev: Any, roll: int | None) -> None:
    """The fight's check for the events this exchange logs: the route has decided
    who may make the exchange before any die was drawn."""


def install(app: FastAPI) -> None:
    @app.post("/api/rooms/{room}/fight/attack", status_code=201, responses=ERRORS)
    async def attack(room: str, body: NewAttack, member: Caller, request: Request) -> Any:
        st = state(request)
        await writable(st, room)
        fight = await conflicts(st.store.fight(room))
        if fight.system != "gurps":
            raise ApiError(422, "an exchange in the fight is GURPS's: roll 'swn attack' instead")
        attacker = fight.combatants.get(body.attacker)
        target = fight.combatants.get(body.target)
        hidden = target is None or (target.hidden and not member.is_gm)
        if attacker is None or (attacker.owner != member.id and not member.is_gm):
            raise ApiError(403, "a player attacks with their own character")
        if hidden or target is None:  # a hidden NPC is not there for a player
            raise ApiError(422, f"no combatant {body.target!r} to attack in this fight")
        for c in (attacker, target):
            if c.id in fight.removed or fight.out_of_action(c.id):
                raise ApiError(422, f"{c.name} is out of the fight")
            if c.sheet is None:
                raise ApiError(422, f"{c.name} has no sheet to read its numbers from")
        dice = await _weapon_damage(st, room, attacker, body.weapon)  # before any die
        where = f" --location {shlex.quote(body.location)}" if body.location else ""
        made = f"@{attacker.sheet} gurps attack {shlex.quote(body.weapon)}{where}"
        rolls = [await roll_entry(st, room, member, made)]
        st.published(room, rolls[0])
        logged: list[dict[str, Any]] = []
        hit = rolls[0]["result"]
        if hit.get("success") and not hit.get("refused"):
            held = False
            if hit.get("outcome") != "critical success" and target.value("gm_defends"):
                # The GM rolls this NPC's defenses: a call for it, the damage to follow.
                event = await _exchange(st, room, attacker, target, hit, dice, body.location)
                logged.extend(
                    await conflicts(
                        st.store.fight_event(room, member.id, event, None, None, _permit)
                    )
                )
                held = True  # for now: the GM's roll decides
            elif hit.get("outcome") != "critical success":  # B556: none to a critical
                gm = Member(room, "gm", "GM")
                rolled, entries = await _defend(st, room, gm, target, hit)
                rolls.append(rolled)
                logged.extend(entries)
                held = bool(rolled["result"].get("success"))
            if not held:
                hurt = f"@{attacker.sheet} gurps damage {shlex.quote(dice)}"
                damage = await roll_entry(st, room, member, hurt)
                st.published(room, damage)
                rolls.append(damage)
                ev: dict[str, Any] = {"kind": "damage", "combatant": target.id}
                if body.location:
                    ev["location"] = body.location
                try:
                    logged.extend(
                        await st.store.fight_event(
                            room, member.id, ev, damage["seq"], None, _permit
                        )
                    )
                except Conflict as exc:  # the DR stopped it all: the exchange is over
                    if NOTHING not in str(exc):
                        raise
        for e in logged:
            st.published(room, e)
        revealed = await st.revealed(room)
        return {
            "rolls": [view(e, member.id, revealed) for e in rolls],
            "entries": [view(e, member.id, revealed) for e in logged],
        }


async def _exchange(
    st: Any,
    room: str,
    attacker: Any,
    target: Any,
    hit: dict[str, Any],
    dice: str,
    location: str | None,
) -> dict[str, Any]:
    """The ``exchange`` event that asks the GM for the target's defense: its best one,
    chosen as the server would, written with no number of the target's sheet (the
    call is public: the roll is made as the sheet when the GM answers it)."""
    kind, extra = await _best(st, room, target, hit)
    then = f"gurps damage {shlex.quote(dice)}"
    if location:
        then += f" --location {shlex.quote(location)}"
    return {
        "kind": "exchange",
        "combatant": target.id,
        "attacker": attacker.id,
        "command": f"gurps defend {kind}{extra}",
        "then": then,
    }


async def _best(st: Any, room: str, target: Any, hit: dict[str, Any]) -> tuple[str, str]:
    """The target's best active defense against ``hit`` as the fight has it now, and
    its options: repeated parries (B376), reeling and very tired (B419, B426), the
    attack's effect (Deceptive, Telegraphic)."""
    row = (await st.sheets.of(st, room)).get(target.sheet)
    if row is None:
        raise ApiError(422, f"{target.name}'s sheet is no longer in this room")
    sheet = await st.sheets.sheet(st, room, row)
    against = int(hit.get("defense_modifier") or 0)
    parried = target.value("parried")
    fp, fp_max = target.value("fp"), target.value("fp_max")
    known = replace(
        target_of(sheet),
        hp=target.value("hp_max") or None,
        current_hp=target.value("hp"),
        very_tired=bool(fp_max) and 3 * fp < fp_max,
    )
    options = DefenseOptions(parried=parried)
    chosen = await asyncio.to_thread(choose_defense, known, "best", options, against)
    if chosen is None:  # pragma: no cover - "best" always names one or refuses
        raise ApiError(422, f"{target.name} has no active defense")
    kind = chosen[0]
    extra = f" --parried {parried}" if kind == "parry" and parried else ""
    extra += " --reeling" if kind == "dodge" and known.reeling else ""
    extra += " --very-tired" if kind == "dodge" and known.very_tired else ""
    extra += f" --against {against}" if against else ""
    return kind, extra


async def _defend(
    st: Any, room: str, gm: Member, target: Any, hit: dict[str, Any]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The target's best defense, the GM's secret roll, and its ``defend`` event."""
    kind, extra = await _best(st, room, target, hit)
    command = f"@{target.sheet} gurps defend {kind}{extra}"
    rolled: dict[str, Any] = await roll_entry(st, room, gm, command, "gm")
    st.published(room, rolled)
    event = {"kind": "defend", "combatant": target.id, "defense": kind}
    entries = await conflicts(st.store.fight_event(room, "gm", event, rolled["seq"], None, _permit))
    return rolled, entries


async def _weapon_damage(st: Any, room: str, attacker: Any, weapon: str) -> str:
    """The damage ``weapon`` on the attacker's sheet does (``1d-3 cut``), as an
    exchange reads it; 422 for a weapon the sheet lacks or one with no damage."""
    row = (await st.sheets.of(st, room)).get(attacker.sheet)
    if row is None:
        raise ApiError(422, f"{attacker.name}'s sheet is no longer in this room")
    sheet = await st.sheets.sheet(st, room, row)
    line = f"gurps attack {shlex.quote(weapon)} --vs @self"
    try:
        resolved = await asyncio.to_thread(commands.resolve, line, sheet, others={"@self": sheet})
    except RefereeError as exc:
        raise ApiError(422, str(exc)) from None
    words = shlex.split(resolved)
    if "--damage" not in words:
        raise ApiError(422, f"{weapon} gives no damage to roll")
    return words[words.index("--damage") + 1]
