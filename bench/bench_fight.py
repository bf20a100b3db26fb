"""The fight engine (issue 41, "Speed"): ``referee.fight.replay`` of a 20-combatant
fight from a 10,000-event log, GURPS and SWN, against reading the same events with
``read_event`` (the check every event goes through: the least a replay can cost), in
the same process; and the same log one ``step`` at a time, records and all, as a
room's store replays it. Target: each under 200 ms.

The logs are made here, from a fixed seed, by a table that plays the fight through
``referee.fight.step``: combatants added (some hidden, a few joining under way), the
start and the initiative or tie rolls answered, then turn after turn attacks, the
HT, morale and initiative rolls they call for answered (or dismissed), healing,
fatigue, the GM's hand (``set``: standing up, strain, waking), hidden NPCs revealed,
delays, a step back, the dead removed. Only events the fight takes and that log
something are kept, as a room keeps them.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from typing import Any

from _timing import best_of, fmt, row, verdict
from referee import fight
from referee.errors import RuleError

EVENTS = 10_000
COMBATANTS = 20
GOAL = 0.200
"""Seconds for a whole replay (issue 41)."""

Event = dict[str, Any]


class Table:
    """A fight played by the GM and the players, its events kept as a room logs them."""

    def __init__(self, system: str, seed: int) -> None:
        self.rng = random.Random(seed)
        self.fight = fight.begin(system)
        self.log: list[Event] = []
        self.removed = 0

    def take(self, ev: Event) -> bool:
        """Log ``ev`` if the fight takes it and it changes something."""
        try:
            done = fight.step(self.fight, ev)
        except RuleError:
            return False
        if not done.records:
            return False
        self.fight = done.fight
        self.log.append(ev)
        return True

    def answer(self, call: fight.Call, success: bool, total: int) -> None:
        margin = self.rng.randint(0, 4) if success else -self.rng.choice((1, 1, 2, 3, 5))
        crit = not success and self.rng.random() < 0.05
        self.take(
            {
                "kind": "answer",
                "call": call.id,
                "success": success,
                "margin": margin,
                "critical": crit,
                "total": total,
            }
        )

    def alive(self) -> list[str]:
        down = {"dead", "unconscious", "mortally wounded", "stabilized"}
        return [
            cid
            for cid, c in self.fight.combatants.items()
            if cid not in self.fight.removed and not (c.conditions & down)
        ]

    def play(self, reserves: list[Event], turn: Callable[[str], None]) -> list[Event]:
        """Turns until the log holds :data:`EVENTS` events: ``turn(current)`` each."""
        while len(self.log) < EVENTS:
            cur = self.fight.current
            if cur is None:
                raise RuntimeError("the fight ran out of combatants")
            if reserves and self.rng.random() < 0.01:
                self.take(reserves.pop(0))  # joins under way
            hidden = [c.id for c in self.fight.combatants.values() if c.hidden]
            if hidden and self.rng.random() < 0.02:
                self.take({"kind": "reveal", "combatant": self.rng.choice(hidden)})
            turn(cur)
            r = self.rng.random()
            if r < 0.02 and len(self.fight.order) > 2:
                self.take({"kind": "delay", "combatant": cur})
                self.take({"kind": "act", "combatant": cur})
            elif r < 0.04:
                self.take({"kind": "previous"})  # a correction, then on again
                self.take({"kind": "next"})
            self.take({"kind": "next"})
        return self.log[:EVENTS]


def _add(rng: random.Random, i: int, pc: bool, foe: str, values: dict[str, int]) -> Event:
    """Combatant ``i``'s ``add``: a PC from a player's sheet, or a foe, hidden at times."""
    ev: Event = {
        "kind": "add",
        "combatant": f"pc{i}" if pc else f"{foe}{i}",
        "values": values,
        "side": "pcs" if pc else f"{foe}s",
        "pc": pc,
    }
    if pc:
        ev.update(name=f"Hero {i}", owner=f"player{i}", sheet=f"hero{i}")
    elif rng.random() < 0.3:
        ev["hidden"] = True
    return ev


def _begin(t: Table, adds: list[Event]) -> None:
    """The first 17 combatants in, then the fight starts (the rest join under way)."""
    for ev in adds[:17]:
        t.take(ev)
    t.take({"kind": "start"})


def gurps_log(seed: int = 41) -> list[Event]:
    """A GURPS fight: 17 combatants at the start, 3 joining under way."""
    t = Table("gurps", seed)
    rng = t.rng
    adds: list[Event] = []
    for i in range(COMBATANTS):
        pc = i < 5
        values = {"st": rng.randint(9, 14), "dx": rng.randint(10, 13), "ht": rng.randint(10, 12)}
        if rng.random() < 0.2:
            values["hpt"] = 1
        adds.append(_add(rng, i, pc, "orc", values))
    _begin(t, adds)
    for call in t.fight.calls:
        t.answer(call, True, rng.randint(1, 6))  # the tie rolls

    def turn(cur: str) -> None:
        f = t.fight
        me = f.combatants[cur]
        if me.conditions & {"prone"} and rng.random() < 0.7:
            t.take({"kind": "set", "combatant": cur, "drop": ["prone"]})  # stands up
        if "collapsed" in me.conditions and me.value("fp") > 0:
            t.take({"kind": "set", "combatant": cur, "drop": ["collapsed"]})
        targets = [c for c in t.alive() if c != cur]
        for _ in range(rng.choice((1, 1, 1, 2))):
            if targets and rng.random() < 0.8:
                loc = rng.choice(("torso",) * 6 + ("skull", "vitals", "arm", "leg", "face"))
                hurt = rng.choice((1, 2, 2, 3, 3, 4, 5, 6, 8))
                t.take(
                    {
                        "kind": "damage",
                        "combatant": rng.choice(targets),
                        "amount": hurt,
                        "location": loc,
                    }
                )
        if rng.random() < 0.1:
            t.take({"kind": "fatigue", "combatant": cur, "amount": rng.choice((1, 2, -2))})
        for call in list(t.fight.calls):
            if call.kind in ("conscious", "collapse") and rng.random() < 0.2:
                t.take({"kind": "dismiss", "call": call.id})  # Do Nothing spares the roll
            elif call.kind == "stun" and rng.random() < 0.1:
                t.take(
                    {"kind": "result", "combatant": call.combatant, "of": "stun", "success": True}
                )
            else:
                t.answer(call, rng.random() < 0.7, rng.randint(3, 18))
        for cid, c in t.fight.combatants.items():
            if cid in t.fight.removed:
                continue
            if "dead" in c.conditions:
                if t.removed < 4:
                    t.removed += t.take({"kind": "remove", "combatant": cid})
                else:  # the GM brings in a fresh one in its place
                    t.take(
                        {
                            "kind": "set",
                            "combatant": cid,
                            "values": {"hp": c.value("hp_max")},
                            "drop": ["dead", "unconscious", "mortally wounded", "prone"],
                        }
                    )
            elif "mortally wounded" in c.conditions and rng.random() < 0.05:  # surgery
                t.take(
                    {
                        "kind": "set",
                        "combatant": cid,
                        "values": {"hp": 1},
                        "drop": ["mortally wounded", "unconscious"],
                    }
                )
            elif c.value("hp") * 2 < c.value("hp_max") and rng.random() < 0.12:
                t.take({"kind": "heal", "combatant": cid, "amount": rng.randint(2, 8)})
            elif "unconscious" in c.conditions and c.value("hp") > 0 and rng.random() < 0.2:
                t.take({"kind": "set", "combatant": cid, "drop": ["unconscious"]})

    return t.play(adds[17:], turn)


def swn_log(seed: int = 41) -> list[Event]:
    """An SWN fight: 5 PCs against 15 raiders with a morale score, 3 joining late."""
    t = Table("swn", seed)
    rng = t.rng
    adds: list[Event] = []
    for i in range(COMBATANTS):
        pc = i < 5
        values = {
            "hp_max": rng.randint(8, 20) if pc else rng.randint(4, 10),
            "dex_mod": rng.randint(-1, 2),
            "strain_max": rng.randint(8, 14),
        }
        if not pc:
            values["morale"] = rng.randint(7, 10)
        adds.append(_add(rng, i, pc, "raider", values))
    _begin(t, adds)

    def initiative() -> None:
        for call in list(t.fight.calls):
            if call.kind == "initiative":
                t.answer(call, True, rng.randint(1, 8))

    initiative()

    def turn(cur: str) -> None:
        initiative()  # one who joined under way
        targets = [c for c in t.alive() if c != cur]
        me = t.fight.combatants[cur]
        if targets and rng.random() < 0.85:
            foes = [c for c in targets if t.fight.combatants[c].side != me.side] or targets
            t.take(
                {
                    "kind": "damage",
                    "combatant": rng.choice(foes),
                    "amount": rng.choice((1, 2, 3, 3, 4, 5, 6, 7, 9)),
                    "lethal": rng.random() < 0.9,
                }
            )
        if rng.random() < 0.05 and me.value("strain") < me.value("strain_max"):
            t.take({"kind": "set", "combatant": cur, "values": {"strain": me.value("strain") + 1}})
        for call in list(t.fight.calls):
            if call.kind == "morale":
                t.answer(call, rng.random() < 0.6, rng.randint(2, 12))
        for cid, c in t.fight.combatants.items():
            if cid in t.fight.removed:
                continue
            if "mortally wounded" in c.conditions and rng.random() < 0.15:
                t.take(
                    {
                        "kind": "result",
                        "combatant": cid,
                        "of": "stabilize",
                        "success": rng.random() < 0.6,
                    }
                )
            elif c.conditions & {"stabilized", "unconscious"} and rng.random() < 0.1:
                t.take(
                    {
                        "kind": "set",
                        "combatant": cid,
                        "values": {"hp": 1},
                        "drop": ["stabilized", "unconscious"],
                    }
                )
            elif "broken" in c.conditions and t.removed < 4 and rng.random() < 0.05:
                t.removed += t.take({"kind": "remove", "combatant": cid})  # fled
            elif "broken" in c.conditions and rng.random() < 0.2:
                t.take({"kind": "set", "combatant": cid, "drop": ["broken"]})  # rallied
            elif "dead" in c.conditions:
                if t.removed < 4:
                    t.removed += t.take({"kind": "remove", "combatant": cid})
                else:
                    t.take(
                        {
                            "kind": "set",
                            "combatant": cid,
                            "values": {"hp": c.value("hp_max")},
                            "drop": ["dead"],
                        }
                    )
            elif c.value("hp") * 2 < c.value("hp_max") and rng.random() < 0.1:
                t.take({"kind": "heal", "combatant": cid, "amount": rng.randint(1, 6)})

    return t.play(adds[17:], turn)


def _read(log: list[Event]) -> None:
    for ev in log:
        fight.read_event(ev)


def _stepped(system: str, log: list[Event]) -> fight.Fight:
    """The log replayed one ``step`` at a time, records and all (as a room's store does)."""
    f = fight.begin(system)
    for ev in log:
        f = fight.step(f, ev).fight
    return f


def main() -> None:
    print(f"== fight replay: {COMBATANTS} combatants, {EVENTS:,} events, vs read_event alone ==")
    row("case", "fight", "read_event", "200 ms / fight", "target")
    for system, make in (("gurps", gurps_log), ("swn", swn_log)):
        log = make()
        kinds = sorted({e["kind"] for e in log})
        assert len(log) == EVENTS and len(fight.replay(system, log).combatants) == COMBATANTS
        took, stepped, read = best_of(
            (partial(fight.replay, system, log), None),
            (partial(_stepped, system, log), None),
            (partial(_read, log), None),
        )
        for label, t in ((f"{system} replay", took), (f"{system} by step", stepped)):
            row(label, fmt(t), fmt(read), f"{GOAL / t:.2f}x", verdict(GOAL / t, 1.0))
        print(f"  ({len(kinds)} kinds: {', '.join(kinds)})")
    print(
        "(target: a fight in <= 200 ms, i.e. 200 ms / fight >= 1; read_event alone, the"
        " least a replay costs, for reference; 'by step' also works out every step's records)"
    )


if __name__ == "__main__":
    main()
