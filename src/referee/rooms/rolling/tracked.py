"""An exchange against a combatant of the room's fight reads the fight's values, not
its sheet's (issue 49, §5): the HP it has now, which the rules of the exchange need
(B419: reeling under 1/3 HP; the major wound and the −N×HP thresholds from where it
stands; SWN: the HP left, for mortal wounds); in GURPS also its parries since its
last turn (B376) and whether it is very tired (B426)."""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING, Any

from ...fight.maneuvers import rolling_as, typed_modifiers
from ..db.epochs import Conflict
from ..errors import ApiError
from .rollas import as_sheet

if TYPE_CHECKING:
    from ...commands import CommandLimits
    from ..db.store import Member, Store
    from .rollas import _State  # the server's state, as rolling as a sheet uses it

__all__ = ["made_as_sheet", "with_tracked_hp"]

_VS = re.compile(r"(?:^|\s)--vs[ =]@([A-Za-z0-9_-]{1,40})(?=\s|$)")
_NOW = {"gurps": "--hp-now", "swn": "--target-hp"}
"""The option that gives a target's HP now, by system."""


async def with_tracked_hp(store: Store, room: str, typed: str, resolved: str) -> str:
    """``resolved`` with the target's HP now from the fight (``--hp-now`` for a GURPS
    exchange, ``--target-hp`` for an SWN attack) when ``typed`` aims ``--vs @SHEET``
    at a sheet that a combatant of the fight plays, and names no such HP itself; the
    same command otherwise. The roll's ``resolved`` then says what it was rolled
    against, and ``referee verify`` replays it as it is."""
    found = _VS.search(typed)
    words = resolved.split()
    if found is None or not words or words[0] not in _NOW:
        return resolved
    if words[:2] == ["swn", "stabilize"]:
        return await _down_rounds(store, room, found.group(1), resolved)
    if words[:2] == ["gurps", "attack"] and "--defense" not in typed.split():
        await _her_own_defense(store, room, found.group(1))
    option = _NOW[words[0]]
    if option in typed.split():
        return resolved  # the roller's own figure stands
    try:
        fight = await store.fight(room)
    except Conflict:  # no fight in a room with no system
        return resolved
    for cid, c in fight.combatants.items():
        if c.sheet == found.group(1) and cid not in fight.removed and "hp" in c.values:
            out = f"{resolved} {option} {c.value('hp')}"
            if words[0] == "gurps" and words[1:2] == ["blow"]:  # the exchange's damage
                if "--hp" not in words and c.value("hp_max"):
                    out += f" --hp {c.value('hp_max')}"
                if "unconscious" in c.conditions and "--unconscious" not in words:
                    out += " --unconscious"  # B420: no knockdown roll (issue 71 §1.4)
            if words[0] == "gurps" and "gurps attack" in resolved:
                given = typed.split()
                if "--hp" not in words and c.value("hp_max"):  # the sheet gave none
                    out += f" --hp {c.value('hp_max')}"
                if c.value("parried") and "--parried" not in given:  # B376
                    out += f" --parried {c.value('parried')}"
                fp_max = c.value("fp_max")
                if fp_max and 3 * c.value("fp") < fp_max and "--very-tired" not in given:
                    out += " --very-tired"  # B426
            return out
    return resolved


async def _her_own_defense(store: Store, room: str, sheet: str) -> None:
    """Contract v1.4, "the defender chooses her defense": a typed exchange aimed at a
    player's character in a fight under way, which would choose her defense for her, is
    refused before any die is drawn, unless it names the defense (``--defense``: the
    GM's call, such as ``none`` for a foe who cannot defend) or the GM rolls that
    character's defenses (``gm_defends``). The Fight panel's attack gives her the
    defense call."""
    try:
        fight = await store.fight(room)
    except Conflict:
        return
    for cid, c in fight.combatants.items():
        if c.sheet != sheet or cid in fight.removed or not c.pc or not fight.round:
            continue
        if c.value("gm_defends") or fight.out_of_action(cid):
            continue
        raise Conflict(
            422,
            f"{c.name}'s player rolls her own defense (contract v1.4): attack from the Fight "
            "panel, which gives her the defense call, or name the defense here (--defense "
            "dodge, parry, block, best or none)",
        )


_ROUNDS = re.compile(r"\s--rounds[ =][0-9]+")


async def _down_rounds(store: Store, room: str, sheet: str, resolved: str) -> str:
    """A stabilize roll aimed at a combatant of the fight (issue 65 §7): its rounds are
    the ones the tracker counts it down (``003``, "Mortal Wounds": the difficulty is
    10, 8 with a medkit or 6 with a Lazarus patch, + those rounds), whatever was typed."""
    try:
        fight = await store.fight(room)
    except Conflict:
        return resolved
    for cid, c in fight.combatants.items():
        if c.sheet == sheet and cid not in fight.removed:
            return _ROUNDS.sub("", resolved) + f" --rounds {c.value('rounds_down')}"
    return resolved


def _not_herself(typed: str, row: Any) -> None:
    """Refuse a stabilize aimed at the sheet it is rolled as (issue 71 §1.6): the
    mortally wounded are down at 0 HP and take no action, so a stabilize is another's
    Main Action (003, "Mortal Wounds" and "Stabilization": "Int/Heal or Dex/Heal as
    Main Action")."""
    found = _VS.search(typed)
    words = typed.split()
    if words[:1] and words[0].startswith("@"):
        words = words[1:]
    if row is not None and found is not None and words[:2] == ["swn", "stabilize"]:
        if found.group(1) == row.sheet:
            raise ApiError(
                422,
                f"'{row.sheet}' cannot stabilize itself: the mortally wounded take no action "
                "(003, Mortal Wounds); roll it as the medic's sheet, @MEDIC swn stabilize "
                f"--vs @{row.sheet}",
            )


async def made_as_sheet(
    st: _State,
    room: str,
    member: Member,
    command: str,
    visibility: str,
    call_sheet: str | None,
    limits: CommandLimits,
    tracked: bool = True,
) -> tuple[tuple[str, str | None] | None, str, str, list[str] | None]:
    """The sheet a roll is made as (contract v1.1: ``(the command as typed, the
    sheet's name)``, or None), the command to roll, and its visibility:

    - a roll that answers a fight's call is made as the call's combatant (contract
      v1.3): ``call_sheet`` is its sheet, or ``""`` for one with none, and the call's
      command (all numbers) is rolled as it is, never as the member's own sheet;
    - the GM's roll made as a hidden combatant's sheet is secret (``gm``), whatever was
      asked: nothing a player receives may name it (contract v1.3); when that sheet is
      only the GM's one sheet, not named and not needed (the command names no trait),
      the roll is made as no sheet instead, as asked;
    - an exchange aimed at a combatant of the fight reads its values from it
      (:func:`with_tracked_hp`);
    - with ``tracked``, a roll made as a combatant's sheet while its fight is under way
      takes the fight's modifiers, the last of the four values (:func:`_with_state`:
      the entry's ``tracker``, or None for none to name).
    """
    if call_sheet is not None:
        return ((command, call_sheet) if call_sheet else None), command, visibility, None
    found = await as_sheet(st, room, member, command, limits)
    if found is None:
        return None, command, visibility, None
    typed, row, resolved = found
    _not_herself(typed, row)
    if row is not None and row.owner == "gm" and visibility == "public":
        if await st.store.hides_sheet(room, row.sheet):
            if not command.startswith("@") and resolved == typed:
                return None, command, visibility, None  # the GM's only sheet, unasked
            visibility = "gm"
    made_as = (typed, None if row is None else row.sheet)
    resolved = await with_tracked_hp(st.store, room, typed, resolved)
    tracker: list[str] | None = None
    if tracked and row is not None:
        resolved, tracker = await _with_state(st.store, room, row.sheet, resolved)
    return made_as, resolved, visibility, tracker


async def _with_state(
    store: Store, room: str, sheet: str, resolved: str
) -> tuple[str, list[str] | None]:
    """``resolved`` with the fight's modifiers on a roll made as ``sheet`` while its fight
    is under way (issue 72 §3; :func:`referee.fight.maneuvers.typed_modifiers`), each
    a ``--mod`` and named in the label (``DX (shock -1)``), and their names for the
    entry's ``tracker`` (``[]`` when the fight puts none on it, so that ``referee
    verify`` checks that too); None for a roll made outside a fight under way or as no
    combatant's sheet."""
    try:
        fight = await store.fight(room)
    except Conflict:  # no fight in a room with no system
        return resolved, None
    try:
        words = shlex.split(resolved)
    except ValueError:
        return resolved, None
    c = rolling_as(fight, sheet, words)
    if c is None or not fight.round or fight.system != "gurps":
        return resolved, None
    if words[:1] != ["gurps"] or words[1:2] not in (["attack"], ["defend"], ["check"]):
        return resolved, None  # a roll the fight's state never changes (damage, 3d6...)
    mods = typed_modifiers(fight, c, words)
    if not mods:
        return resolved, []
    named = ", ".join(f"{n} {m:+d}" for n, m in mods)
    if "--label" in words[:-1]:
        at = words.index("--label") + 1
        words[at] = f"{words[at]} ({named})"
    else:
        words += ["--label", f"({named})"]
    words += [w for _, m in mods for w in ("--mod", str(m))]
    return shlex.join(words), [f"{n} {m:+d}" for n, m in mods]
