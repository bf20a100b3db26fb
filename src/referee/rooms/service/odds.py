"""The odds of a fight from where it stands (issue 68 §4): the GM's question, answered by
the simulators (``gurps simulate``, ``swn simulate``) started from the room's tracker.

What it takes from the tracker: each combatant in the fight (a removed one is not), its
side (its own, else PCs and the GM's NPCs apart), its HP now, its state (unconscious,
dead, mortally wounded, stabilized; an SWN NPC whose morale broke has fled), GURPS's
stun and shock, and the order of turns from whose turn it is. What it takes from the
sheets in the room: the numbers a simulator fights with (GURPS: :func:`referee.commands.
gurps_simulate.sheet_stats`, the sheet's best attack; SWN: AC, attack bonus, the first
weapon's skill, attribute, damage and Shock). A combatant with no sheet fights with the
simulators' own defaults for an inline combatant, and the answer names it under
``assumed``. A current combatant whose turn is spent starts the fights at the next
turn. Left out, as the simulators leave them out: FP, posture (prone), movement,
ranges, cover, an attack still to make this turn (it is made as a whole turn).

The answer is the GM's alone: nothing is logged and nothing is published; the
simulation draws from the server's own secure source, never from the room's streams.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from ...errors import RefereeError
from ...fight import Combatant, Fight
from ...sheets import Kind, Sheet, find_trait
from ..db.store import Member
from ..errors import ApiError
from ..state import State
from .guardian import Guardian

__all__ = ["MAX_RUNS", "fight_odds"]

MAX_RUNS = 20_000
"""The most fights one request may ask for (10,000 answer in well under 2 s)."""

_SWN_STATES = ("dead", "mortally wounded", "stabilized", "unconscious", "incapacitated")


async def fight_odds(st: State, room: str, member: Member, n: int, seed: int | None) -> Any:
    """The simulation of ``room``'s fight from its state now, ``n`` times: the
    simulator's own JSON (as ``--json`` prints it) with ``"from"``: where it started.

    Raises:
        ApiError: 403 for a player, before anything is read (the same answer whether or
            not there is a fight); 422 for ``n`` outside 1..:data:`MAX_RUNS`, a room
            with no fight on two sides, or a sheet the simulator cannot read.
    """
    Guardian(member).ensure_gm("asks the odds of the fight")
    if not 1 <= n <= MAX_RUNS:
        raise ApiError(422, f"runs {n} must be from 1 to {MAX_RUNS}")
    if seed is not None and not 0 <= seed < 2**63:
        raise ApiError(422, "a seed is an integer from 0 to 2**63 - 1")
    fight = await st.store.fight(room)
    if fight.system not in ("gurps", "swn"):
        raise ApiError(422, f"the odds are simulated for GURPS and SWN, not {fight.system}")
    order = [cid for cid in fight.order if cid in fight.combatants]
    ids = order + [cid for cid in fight.combatants if cid not in order]
    ids = [cid for cid in ids if cid not in fight.removed]
    fighters = [fight.combatants[cid] for cid in ids]
    sheets: dict[str, Sheet | None] = {}
    rows = await st.sheets.of(st, room)
    for c in fighters:
        row = rows.get(c.sheet) if c.sheet else None
        sheets[c.id] = None if row is None else await st.sheets.sheet(st, room, row)
    try:
        if fight.system == "gurps":
            job, start = _gurps(fight, fighters, sheets)
        else:
            job, start = _swn(fight, fighters, sheets)
    except RefereeError as exc:
        raise ApiError(422, str(exc)) from None
    try:
        async with _running():  # at most RUNNING at once on this server: each is bounded
            data: dict[str, Any] = await asyncio.to_thread(job, n, seed)
    except RefereeError as exc:
        raise ApiError(422, str(exc)) from None
    data["from"] = start
    data["headline"] = _headline(data)
    return data


RUNNING = 2
"""Simulations one server runs at once (each in a worker thread, on this machine's two
cores); more wait their turn, as new commands do (:attr:`..limits.RoomsLimits.readers`)."""

_SLOTS: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] = {}


def _running() -> asyncio.Semaphore:
    """This event loop's semaphore of :data:`RUNNING` slots."""
    loop = asyncio.get_running_loop()
    slots = _SLOTS.get(loop)
    if slots is None:
        slots = _SLOTS[loop] = asyncio.Semaphore(RUNNING)
    return slots


def _headline(data: Mapping[str, Any]) -> dict[str, Any]:
    """What the Fight panel shows: each side's chance to win, the rest (a draw at the
    round cap, or no side left up), and the mean rounds from here."""
    wins = {side: float(s.get("win", s.get("p", 0.0))) for side, s in data["sides"].items()}
    return {"win": wins, "draw": max(0.0, 1.0 - sum(wins.values())),
            "rounds": data["rounds"]["mean"]}  # fmt: skip


def _side(c: Combatant) -> str:
    return c.side or ("PCs" if c.pc or c.owner != "gm" else "NPCs")


def _from(fight: Fight, fighters: list[Combatant], up: list[bool]) -> dict[str, Any]:
    """Where the fights start: the round, whose turn it is, each combatant's side and
    whether it is still up; refused when fewer than two sides have anyone up."""
    if len({_side(c) for c, u in zip(fighters, up, strict=True) if u}) < 2:
        raise ApiError(422, "the fight has no two sides with anyone up: nothing to simulate")
    return {
        "round": fight.round,
        "current": fight.current,
        "combatants": [
            {"combatant": c.id, "side": _side(c), "up": u}
            for c, u in zip(fighters, up, strict=True)
        ],
    }


def _turns(fight: Fight, fighters: list[Combatant]) -> tuple[tuple[int, ...], int]:
    """The order of turns as indices, and the place of whose turn it is (none: speed);
    the next place when the current combatant has spent its turn (a maneuver with no
    attack left, B363-B366)."""
    if not fight.order or fight.current is None:
        return (), 0
    ids = [c.id for c in fighters]
    order = tuple(range(len(ids)))  # fighters are listed in the tracker's order
    if fight.current not in ids:
        return order, 0
    turn = ids.index(fight.current)
    now = fight.combatants[fight.current]
    if now.value("acted") and now.value("attacks") <= 0:
        turn = (turn + 1) % len(ids)
    return order, turn


def _gurps(fight: Fight, fighters: list[Combatant], sheets: Mapping[str, Sheet | None]) -> Any:
    # here, not at the top: GURPS's simulator and exchange are 30 ms of a bot's start
    # (issue 74 §2), and a fight's odds run in a worker thread
    from ...commands.gurps_simulate import sheet_stats, simulation_json
    from ...systems.gurps.sim_encounter import encounter_from_data
    from ...systems.gurps.simulate import Start, simulate

    entries, assumed = [], []
    for c in fighters:
        sheet = sheets[c.id]
        entry: dict[str, Any] = {"name": c.id, "side": _side(c), "hp": max(1, c.value("hp_max"))}
        if sheet is None:
            ht, dx = c.values.get("ht", 10), c.values.get("dx", 10)
            speed = c.values.get("speed") or (ht + dx) * 25  # hundredths, as the tracker keeps it
            entry.update(ht=ht, skill=dx, basic_speed=speed / 100, hpt=bool(c.value("hpt")),
                         lpt=bool(c.value("lpt")))  # fmt: skip
            assumed.append(f"{c.id}: no sheet: skill DX {dx}, 1d-2 cr, no defense")
        else:
            entry["sheet"] = c.id
        entries.append(entry)

    def read(ref: str, weapon: str | None) -> Mapping[str, Any]:
        found = sheets[ref]
        assert found is not None
        return sheet_stats(found, weapon, fight.combatants[ref].values.get("ht"))

    enc = encounter_from_data({"name": "the fight from here", "combatants": entries}, sheets=read)

    def state(c: Combatant) -> str:
        if c.conditions & {"dead", "destroyed"}:
            return "dead"
        return "unconscious" if c.conditions & {"unconscious", "dying"} else "up"

    states = [state(c) for c in fighters]
    order, turn = _turns(fight, fighters)
    start = Start(
        hp=tuple(c.value("hp") for c in fighters),
        state=tuple(states),
        stunned=tuple("stunned" in c.conditions for c in fighters),
        shock=tuple(c.value("shock") for c in fighters),
        order=order,
        turn=turn,
        posture=tuple(next((p for p in _LOW if p in c.conditions), "standing") for c in fighters),
    )
    where = _from(fight, fighters, [s == "up" for s in states])
    where["assumed"] = assumed
    where["starts"] = fighters[turn].id if order else None  # whose turn the fights start at

    def job(n: int, seed: int | None) -> dict[str, Any]:
        return simulation_json(simulate(enc, n, seed=seed, start=start))

    return job, where


_LOW = ("prone", "crawling", "kneeling", "sitting", "crouching")
"""The tracker's postures (B551) that the simulator reads: it gets up before it fights."""


def _swn(fight: Fight, fighters: list[Combatant], sheets: Mapping[str, Sheet | None]) -> Any:
    from ...render.swn import simulation_json as swn_json
    from ...systems.swn.attributes import attribute_modifier
    from ...systems.swn.encounter import encounter_from_data
    from ...systems.swn.simulate import Start, simulate

    entries, assumed = [], []
    for c in fighters:
        entry: dict[str, Any] = {"name": c.id, "side": _side(c), "pc": c.pc,
                                 "hp": max(1, c.value("hp_max"))}  # fmt: skip
        entry["dex_mod"] = min(2, max(-2, c.value("dex_mod")))
        morale = c.value("morale")
        if morale and not c.pc:
            entry["morale"] = morale
        sheet = sheets[c.id]
        if sheet is None or not sheet.attacks:
            assumed.append(f"{c.id}: no sheet or weapon: AC 10, +0 to hit, 1d6")
        else:
            weapon = sheet.attacks[0]
            entry.update(ac=sheet.ac if sheet.ac is not None else 10,
                         attack_bonus=(sheet.attack_bonus or 0) + weapon.attack_bonus,
                         damage=weapon.damage)  # fmt: skip
            if weapon.shock:
                entry["shock"] = weapon.shock
            if weapon.skill:
                try:
                    level = find_trait(sheet, weapon.skill, (Kind.SKILL,)).level
                    entry["skill"] = min(4, max(0, level))
                except RefereeError:
                    entry["skill"] = "untrained"
            scores = {t.name.casefold()[:3]: t.level for t in sheet.of_kind(Kind.ATTRIBUTE)}
            mods = [attribute_modifier(scores[a]) for a in weapon.attributes if a in scores]
            entry["attribute_mod"] = max(mods, default=0)
        entries.append(entry)
    enc = encounter_from_data({"name": "the fight from here", "combatants": entries})

    def state(c: Combatant) -> str:
        return next((s for s in _SWN_STATES if s in c.conditions), "up").replace(
            "incapacitated", "unconscious"
        )

    states = [state(c) for c in fighters]
    fled = [c.conditions & {"broken", "fled"} != set() for c in fighters]
    order, turn = _turns(fight, fighters)
    start = Start(
        hp=tuple(max(0, c.value("hp")) for c in fighters),
        state=tuple(states),
        rounds_down=tuple(c.value("rounds_down") for c in fighters),
        fled=tuple(fled),
        order=order,
        turn=turn,
    )
    where = _from(fight, fighters, [s == "up" and not f for s, f in zip(states, fled, strict=True)])
    where["assumed"] = assumed
    where["starts"] = fighters[turn].id if order else None  # whose turn the fights start at

    def job(n: int, seed: int | None) -> dict[str, Any]:
        return swn_json(simulate(enc, n, seed=seed, start=start))

    return job, where
