"""An attack in the fight, whole (issue 49, §5; contract v1.3's "the fight in the usual
flow" and v1.4's "the fight referees"), for every front end (issue 72 §1): the page's
and the API's ``POST /api/rooms/{room}/fight/attack`` and Discord's buttons call
:func:`attack`.

GURPS's exchange (B369-B377, B398-B399) made of the room's own rolls, each logged
and verifiable like any other:

0. the attacker's maneuver, a fight event (``maneuver``, ``"attack": true``): taken on
   its own turn only (out of turn: 409, naming whose turn it is, and nothing changes),
   one a turn, not while stunned (B363, B420; :mod:`referee.fight.maneuvers`);
1. the attacker's roll, made as the attacker's sheet, with every modifier the fight's
   state puts on it named in its label and added as ``--mod`` (shock, posture, Move and
   Attack; All-Out Attack (Determined) as ``--all-out``): public for a player's
   character, the GM's secret roll for a combatant the GM plays (contract v1.4) unless
   the GM asks otherwise (``visibility``); an aimed attack that misses by 1 hits the
   torso instead (B399), and goes on as a hit there;
2. on a hit that is not critical (B556: a critical hit allows no defense) and against a
   target that may defend (All-Out Attack leaves none, B365), the target's defense:
   - a player's character: a ``defense`` call for her player (an ``exchange`` event
     with its ``choices``: each defense her sheet and state allow, its level after the
     fight's modifiers and its exact odds; :func:`referee.fight.defenses.defense_choices`).
     She rolls it herself, public, with ``POST .../fight`` ``{"event": {"kind":
     "answer", "call": ID, "choice": N}, "roll": "call"}``; if it fails, the attacker's
     damage follows (:mod:`.fights`). When the GM rolls that character's defenses
     (``gm_defends`` on its card), the server rolls its best one, public;
   - a GM's NPC: its best defense as the GM's secret roll (``gm_defends``: a ``defense``
     call for the GM instead); the fight logs a public, sealed ``defend`` event;
3. if it does not hold, the attacker's damage roll (as visible as the attack), applied
   to the target through its DR at the location, by the fight's rules.

Body: ``{"attacker": id, "target": id, "weapon": text, "location": text or null,
"maneuver": "attack" | "all-out attack" | "all-out attack (double)" | "move and attack",
"visibility": null or the GM's choice}``. Who: the attacker's owner or the GM, against
a combatant the caller can see. The answer is 201 ``{"rolls": [...], "entries": [...]}``.

Left out (documented in docs/rooms/fight.md): ranged attacks' own modifiers (range,
Aim's Acc), and the critical hit table's damage effects (the damage roll is plain).
"""

from __future__ import annotations

import asyncio
import shlex
from typing import Any

from ....errors import RefereeError
from ....fight import Combatant, Fight
from ....fight.maneuvers import MANEUVERS as MANEUVER_NAMES
from ....fight.maneuvers import aim_turns, attack_refusal, tracker_modifiers
from ....fight.swn import fled_refusal
from ....systems.gurps.damage import read_damage
from ....systems.gurps.locations import require_targetable
from ...db.store import Member
from ...errors import ApiError
from ..access import conflicts, writable
from ..rolls import roll_entry
from .blows import damage_step, sheet_of, unnamed, weapon_of
from .swn import answered, applied, swn_attack

__all__ = ["MANEUVERS", "attack"]


MANEUVERS = ("attack", "all-out attack", "all-out attack (double)", "move and attack")
"""The maneuvers an attack may be made with (B365)."""


def _permit(fight: Any, ev: Any, roll: int | None) -> None:
    """The fight's check for the events this exchange logs: :func:`attack` has decided
    who may make the exchange before any die was drawn."""


async def attack(
    st: Any,
    room: str,
    member: Member,
    attacker_id: str,
    target_id: str,
    weapon: str,
    location: str | None = None,
    maneuver: str = "attack",
    visibility: str | None = None,
) -> dict[str, Any]:
    """One attack in the fight, whole (module doc): ``{"rolls": [...], "entries":
    [...]}``, as ``member`` may see them. Everything that refuses it is checked before
    anything is logged or rolled.

    Raises:
        ApiError: 403 for another's attacker, 409 out of turn or with no attack left,
            422 for a target, weapon or location the fight cannot take.
    """
    if maneuver not in MANEUVERS:
        raise ApiError(422, f"an attack's maneuver is one of {', '.join(MANEUVERS)}")
    if visibility not in (None, "public", "gm"):
        raise ApiError(422, "an attack is seen public or gm")
    await writable(st, room)
    fight = await conflicts(st.store.fight(room))
    if fight.system not in ("gurps", "swn"):
        raise ApiError(422, "an attack in the fight is GURPS's or SWN's")
    attacker = fight.combatants.get(attacker_id)
    target = fight.combatants.get(target_id)
    hidden = target is None or (target.hidden and not member.is_gm)
    if attacker is None or (attacker.owner != member.id and not member.is_gm):
        raise ApiError(403, "a player attacks with their own character")
    if hidden or target is None:  # a hidden NPC is not there for a player
        raise ApiError(422, f"no combatant {target_id!r} to attack in this fight")
    if visibility is not None and not member.is_gm:
        raise ApiError(422, "a player's attack is public (contract v1.4)")
    for c in (attacker, target):
        if c.id in fight.removed or fight.out_of_action(c.id) and c is attacker:
            raise ApiError(422, f"{c.name} is out of the fight")
        if c.sheet is None:
            raise ApiError(422, f"{c.name} has no sheet to read its numbers from")
    _on_turn(fight, attacker)  # contract v1.4: turns are the fight's (409)
    fled = fled_refusal(attacker) if fight.system == "swn" else None
    if fled is not None:
        raise ApiError(409, fled)
    if fight.system == "swn":
        return await swn_attack(st, room, member, attacker, target, weapon, visibility)
    level, dice, ranged = await weapon_of(st, room, attacker, weapon)  # before any die
    if location:  # a location the blow may not reach is refused before anything
        try:
            require_targetable(location, read_damage(dice).damage_type, False)
        except RefereeError as exc:
            raise ApiError(422, str(exc)) from None
    name = _maneuver_of(attacker, maneuver)
    move = {"kind": "maneuver", "combatant": attacker.id, "maneuver": name, "attack": True}
    if maneuver == "all-out attack (double)":
        move["double"] = True
    logged: list[dict[str, Any]] = list(
        await conflicts(st.store.fight_event(room, member.id, move, None, None, _permit))
    )
    moved = (await conflicts(st.store.fight(room))).combatants[attacker.id]
    mods = tracker_modifiers(moved, level, ranged)  # as referee verify recomputes them
    made = f"@{attacker.sheet} gurps attack {shlex.quote(weapon)}"
    if ranged:  # a weapon with an Acc on the sheet: a missile (B373; no parry, B376)
        made += " --ranged"
        if aim_turns(moved):  # B364: the weapon's Acc, +1 or +2 for more turns
            made += f" --aim {aim_turns(moved)}"
    if location:
        made += f" --location {shlex.quote(location)}"
    if name == "all-out attack" and "all-out attack (double)" not in moved.conditions:
        made += " --all-out"  # Determined: +4 (B365)
    made += "".join(f" --mod {m}" for _, m in mods)
    if mods:
        named = ", ".join(f"{n} {m:+d}" for n, m in mods)
        made += " --label " + shlex.quote(f"{weapon} ({named})")
    seen = visibility or ("gm" if attacker.owner == "gm" else "public")
    tracked = [f"{n} {m:+d}" for n, m in mods]
    rolls = [await roll_entry(st, room, member, made, seen, tracker=tracked)]
    st.published(room, rolls[0])
    hit = rolls[0]["result"]
    location = None if hit.get("torso_instead") else location  # B399
    if (hit.get("success") or hit.get("torso_instead")) and not hit.get("refused"):
        now = (await conflicts(st.store.fight(room))).combatants[target.id]
        then, extra = damage_step(dice, target, location, hit, attacker.owner == "gm")
        secret = seen != "public" or attacker.hidden  # players may not see the attack
        held, rolled, entries = await _defense(
            st, room, member, attacker, now, hit, then, ranged,
            attack=int(rolls[0]["seq"]) if secret else None,
            damage_type=read_damage(dice).damage_type,
        )  # fmt: skip
        rolls.extend(rolled)
        logged.extend(entries)
        if not held:
            damage = await roll_entry(st, room, member, f"@{attacker.sheet} {then}", seen)
            st.published(room, damage)
            rolls.append(damage)
            ev: dict[str, Any] = {"kind": "damage", "combatant": target.id, **extra}
            logged += await applied(st, room, member, ev, damage["seq"])
    return await answered(st, room, member, rolls, logged)


def _on_turn(fight: Fight, attacker: Combatant) -> None:
    """Refuse (409) an attack out of its attacker's turn, naming whose turn it is (a
    hidden combatant's as such), or by one who cannot attack now (stunned, B420; its
    maneuver's attacks spent, B363-B366). Checked before anything is logged or rolled."""
    if not fight.round or fight.current is None:
        raise ApiError(409, "the fight has not started: an attack is made on its attacker's turn")
    if fight.current != attacker.id:
        who = fight.combatants.get(fight.current)
        whose = who.name if who is not None and not who.hidden else "a hidden combatant"
        raise ApiError(409, f"it is {whose}'s turn, not {attacker.name}'s (B363)")
    refusal = attack_refusal(attacker) if fight.system == "gurps" else None
    if refusal is not None:
        raise ApiError(409, refusal)


def _maneuver_of(attacker: Combatant, asked: str) -> str:
    """The maneuver an attack is made with: the one its attacker took this turn, if it
    took one (the page's maneuver buttons), else the one asked."""
    if attacker.value("acted"):
        return next((m for m in MANEUVER_NAMES if m in attacker.conditions), "attack")
    return "all-out attack" if asked == "all-out attack (double)" else asked


def _choices(*args: Any) -> list[dict[str, Any]]:
    """:func:`referee.fight.defenses.defense_choices`, imported here, in the worker
    thread, on the first defense: it loads GURPS's exchange and its odds, 30 ms that a
    bot's start does not need (issue 74 §2)."""
    from ....fight.defenses import defense_choices

    return defense_choices(*args)


async def _defense(
    st: Any,
    room: str,
    member: Member,
    attacker: Combatant,
    target: Combatant,
    hit: dict[str, Any],
    then: str,
    missile: bool = False,
    attack: int | None = None,
    damage_type: str = "cr",
) -> tuple[bool, list[dict[str, Any]], list[dict[str, Any]]]:
    """The target's defense against ``hit``: ``(whether the damage waits or was kept
    off, the rolls made, the fight's entries)``. ``attack``: the seq of an attack roll
    players may not see; a call it opens carries that seq, not the damage command
    (contract v1.5: the server makes the damage roll from its own record)."""
    if hit.get("outcome") == "critical success":  # B556: none against a critical hit
        return False, [], []
    if "unconscious" in target.conditions:  # B420: no active defense while unconscious
        return False, [], []
    sheet = await sheet_of(st, room, target)
    against = int(hit.get("defense_modifier") or 0)
    choices = await asyncio.to_thread(_choices, sheet, target, against, missile, damage_type)
    # What an exchange event can hold (issue 71 §1.3: nothing refused after the roll):
    # the twelve best choices whose texts fit (a weapon's name may be long).
    choices = [c for c in choices if all(len(c[k]) <= 200 for k in ("label", "command"))][:12]
    if not choices:  # All-Out Attack (B365), or a sheet with no defense: none
        return False, [], []
    gm_rolls = bool(target.value("gm_defends"))
    if target.owner != "gm" and not gm_rolls:  # her player chooses and rolls (v1.4)
        event = {"kind": "exchange", "combatant": target.id, "attacker": attacker.id,
                 "command": choices[0]["command"], "choices": choices,
                 **({"then": then} if attack is None else {"attack": attack})}  # fmt: skip
        made = await conflicts(st.store.fight_event(room, member.id, event, None, None, _permit))
        return True, [], list(made)
    if target.owner == "gm" and gm_rolls:  # the GM rolls this NPC's defense by hand
        event = {"kind": "exchange", "combatant": target.id, "attacker": attacker.id,
                 "command": unnamed(choices[0]["command"]),
                 **({"then": then} if attack is None else {"attack": attack})}  # fmt: skip
        made = await conflicts(st.store.fight_event(room, member.id, event, None, None, _permit))
        return True, [], list(made)
    # The server rolls the best one: the GM's secret roll for an NPC; a player's
    # character's (her GM rolls her defenses, for speed) public, as her own would be.
    gm = Member(room, "gm", "GM")
    seen = "gm" if target.owner == "gm" else "public"
    command = f"@{target.sheet} {choices[0]['command']}"
    rolled: dict[str, Any] = await roll_entry(st, room, gm, command, seen, typed=False)
    st.published(room, rolled)
    words = choices[0]["command"].split()
    event = {"kind": "defend", "combatant": target.id, "defense": words[2]}
    if "--retreat" in words:  # one retreat a turn (B377): the next choices know it
        event["retreat"] = True
    entries = await conflicts(st.store.fight_event(room, "gm", event, rolled["seq"], None, _permit))
    return bool(rolled["result"].get("success")), [rolled], list(entries)
