"""GURPS encounters for the simulator: combatants, their weapons and their tactics, read
from TOML (``examples/gurps/`` has complete ones; docs/systems/gurps-simulate.md the
format)::

    name = "Three adventurers vs four orcs"
    max_rounds = 50                  # optional: the round cap (a draw)

    [[combatants]]
    sheet = "sheets/orc.toml"        # a sheet (GCS, TOML), relative to this file, or
    side = "orcs"                    # example:dai.gcs; or the numbers below, inline
    count = 4                        # Orc 1 ... Orc 4
    weapon = "Axe"                   # default: the sheet's best attack
    target = "weakest"               # tactics: see :class:`Tactics` for each default

A sheet gives the combatant's HP, HT, Will, Basic Speed, its weapon's level, damage,
Acc and Shots, its Dodge, best Parry and Block, DR and pain threshold; the same keys
written inline (``hp``, ``ht``, ``will``, ``basic_speed``, ``move``, ``skill``,
``damage``, ``ranged``, ``acc``, ``shots``, ``dodge``, ``parry``, ``block``,
``fencing``, ``dr``, ``hpt``, ``lpt``) give them without a sheet or override the
sheet's. ``distance`` places a combatant that many yards from its foes at the start.

Sources: *GURPS Basic Set*, 4th edition: B16-B17 (HP, HT, Basic Speed), B363 (the
order of turns by Basic Speed), B365-B366 (All-Out Attack and Defense), B374-B377
(active defenses, retreat), B398 (hit locations), B364 (Move, Aim), B17 (Basic Move),
B269-B270 (Shots, :mod:`.shots`); ``COMBAT.md`` of the rules notes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from fractions import Fraction
from pathlib import Path
from typing import Any

from ...errors import RefereeError, RuleError
from ...odds import odds
from .damage import DamageSpec, _dice_adds, read_damage
from .locations import read_location, require_targetable
from .shots import Shots, read_shots
from .success import skill_odds

__all__ = [
    "MAX_COMBATANTS",
    "MAX_ROUNDS",
    "Aim",
    "Encounter",
    "Fighter",
    "Pick",
    "Tactics",
    "danger",
    "encounter_from_data",
]

MAX_COMBATANTS = 32
MAX_ROUNDS = 1_000
MAX_DISTANCE = 1_000
"""The farthest a combatant may start from its foes, in yards."""
STATS = ("hp", "ht", "will", "basic_speed", "move", "skill", "damage", "ranged", "acc", "shots",
         "dodge", "parry", "block", "fencing", "dr", "hpt", "lpt")  # fmt: skip
TACTICS = ("target", "aim", "aim_turns", "retreat", "all_out_attack", "all_out_defense", "flee")
FIELDS = {"name", "side", "count", "sheet", "weapon", "distance", *STATS, *TACTICS}


class Pick(StrEnum):
    """Whom a combatant attacks, among the enemies still up."""

    FIRST = "first"
    """The default: the first in the encounter's order (the nearest, as the file lists
    them)."""
    WEAKEST = "weakest"
    """The one with the fewest HP left (the first listed on a tie)."""
    DANGEROUS = "dangerous"
    """The one whose attack does the most injury on average before any defense:
    P(hit) × its damage dice's mean (the first listed on a tie)."""


class Aim(StrEnum):
    """Where a combatant's blows land (B398)."""

    RANDOM = "random"
    """The default: a random location on B398's 3d6 table, at no penalty."""
    TORSO = "torso"
    """Always the torso (no penalty)."""


@dataclass(frozen=True, slots=True)
class Tactics:
    """What a combatant chooses each turn; each default is the first value named."""

    target: Pick = Pick.FIRST
    aim: str = "random"
    """``random`` (B398's table), or a location aimed at with its penalty (B398)."""
    aim_turns: int = 1
    """A ranged fighter with an Acc takes this many turns of Aim (0 to 3; B364: +Acc
    after one, +1 more after two, +2 after three) before a shot while no foe is up
    within a yard of it, when they add something (an Acc of 0 and one turn do not); 0
    never aims."""
    retreat: bool = True
    """Retreat on the first defense of each turn against a melee attack (B377: +3
    Dodge, +1 Parry or Block, +3 a fencing Parry)."""
    all_out_attack: str = "defenseless"
    """``defenseless`` (the default): All-Out Attack (Determined, +4 in melee, +1 ranged,
    B365) against a foe who cannot defend: one stunned (B420) or with no active
    defense; the attacker then has no defense until its next turn. ``never``."""
    all_out_defense: str = "never"
    """``never`` (the default); ``reeling``: when under 1/3 of its HP, All-Out Defense
    (Increased Defense, +2 to every defense it rolls until its next turn; B366) instead
    of attacking."""
    flee: str = "never"
    """``never`` (the default); ``reeling``: it leaves the fight at the start of a turn
    under 1/3 of its HP (counted as fled, not down)."""


@dataclass(frozen=True, slots=True)
class Fighter:
    """One combatant, with every number the fight reads."""

    name: str
    side: str
    hp: int
    """Full HP (B16)."""
    ht: int
    basic_speed: Fraction
    """For the order of turns (B363)."""
    skill: int
    """The weapon's level as the sheet records it."""
    damage: DamageSpec
    weapon: str = "weapon"
    ranged: bool = False
    """A missile weapon: it cannot be parried (B376), All-Out Attack is +1, no retreat."""
    will: int = 10
    """For the Will roll to keep an Aim when injured (B364); a sheet's Will, else IQ."""
    move: int = 5
    """Yards a Move maneuver covers (B364): Basic Move, by default Basic Speed's whole
    part (B17; a sheet's own Basic Move is not read); halved while reeling (B419); 0
    never moves."""
    acc: int | None = None
    """A ranged weapon's Accuracy, added after an Aim (B364); None: it cannot aim."""
    shots: Shots | None = None
    """A ranged weapon's Shots and reload (B269-B270); None: it never reloads."""
    distance: int = 0
    """Yards from its foes at the start (0: within reach of them all, as before)."""
    dodge: int | None = None
    parry: int | None = None
    block: int | None = None
    fencing: bool = False
    dr: int = 0
    dr_at: tuple[tuple[str, int], ...] = ()
    hpt: bool = False
    lpt: bool = False
    tactics: Tactics = field(default_factory=Tactics)

    @property
    def danger(self) -> float:
        """P(the attack succeeds) × the damage dice's mean: :attr:`Pick.DANGEROUS`'s key."""
        return danger(self.skill, self.damage.expression)


@functools.lru_cache(maxsize=256)
def danger(skill: int, expression: str) -> float:
    """P(an attack at ``skill`` succeeds, ``000``) × the mean of ``expression``'s dice
    and adds (at least 0): how :attr:`Pick.DANGEROUS` ranks a foe, and how a sheet's best
    weapon is chosen."""
    count, adds = _dice_adds(expression)
    return float(skill_odds(skill).success) * max(0.0, float(odds(f"{count}d6").mean) + adds)


@dataclass(frozen=True, slots=True)
class Encounter:
    """Combatants, their sides (in the order first listed) and the round cap."""

    name: str
    fighters: tuple[Fighter, ...]
    sides: tuple[str, ...]
    max_rounds: int = 50

    def side_index(self, name: str) -> int:
        """The position of a side in :attr:`sides`."""
        return self.sides.index(name)


SheetReader = Callable[[str, str | None], Mapping[str, Any]]
"""What reads a combatant's ``sheet`` (with its ``weapon``, None for the best) into
the stat fields; the command line's reads files, and nothing else reads any."""


def _no_sheets(name: str, weapon: str | None) -> Mapping[str, Any]:
    raise RuleError(f"cannot read the sheet {name!r} here: give the combatant's numbers inline")


def _line(text: str, key: str, start: int = 1) -> int:
    lines = text.splitlines()
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    for number in range(start, len(lines) + 1):
        if pattern.match(lines[number - 1]):
            return number
    return start


def encounter_from_data(
    data: Mapping[str, Any],
    text: str = "",
    where: str = "encounter",
    sheets: SheetReader = _no_sheets,
) -> Encounter:
    """Build an :class:`Encounter` from parsed TOML; errors name the file, line and field.

    Raises:
        RuleError: an unknown or malformed field, fewer than two sides, too many
            combatants, two combatants of one name.
    """
    starts = [n for n, line in enumerate(text.splitlines(), 1) if line.strip() == "[[combatants]]"]

    def fail(key: str, problem: str, block: int | None = None) -> RuleError:
        start = starts[block] if block is not None and block < len(starts) else 1
        return RuleError(f"{where}, line {_line(text, key, start)}, field {key!r}: {problem}")

    unknown = set(data) - {"name", "max_rounds", "combatants"}
    if unknown:
        raise fail(sorted(unknown)[0], "unknown field (expected name, max_rounds, combatants)")
    name = data.get("name", Path(where).stem)
    if not isinstance(name, str):
        raise fail("name", "must be a string")
    max_rounds = data.get("max_rounds", 50)
    if not isinstance(max_rounds, int) or isinstance(max_rounds, bool) \
            or not 1 <= max_rounds <= MAX_ROUNDS:  # fmt: skip
        raise fail("max_rounds", f"must be an integer from 1 to {MAX_ROUNDS}")
    raw = data.get("combatants")
    if not isinstance(raw, list) or not raw:
        raise fail("combatants", "add at least one [[combatants]] table")
    fighters: list[Fighter] = []
    for i, entry in enumerate(raw):
        if not isinstance(entry, dict):
            raise fail("combatants", "each entry must be a table")
        try:
            fighters.extend(_fighters(entry, i, fail, sheets))
        except RefereeError as exc:
            if str(exc).startswith(where):
                raise
            raise fail("sheet" if "sheet" in entry else "damage", str(exc), i) from None
        if len(fighters) > MAX_COMBATANTS:
            raise fail("count", f"at most {MAX_COMBATANTS} combatants in all", i)
    names = [f.name for f in fighters]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:
        raise fail("name", f"two combatants are called {dup!r}: name them apart")
    sides = tuple(dict.fromkeys(f.side for f in fighters))
    if len(sides) < 2:
        raise fail("side", "an encounter needs combatants on at least two sides")
    return Encounter(name, tuple(fighters), sides, max_rounds)


def _fighters(
    entry: dict[str, Any], block: int, fail: Callable[..., RuleError], sheets: SheetReader
) -> list[Fighter]:
    bad = set(entry) - FIELDS
    if bad:
        raise fail(sorted(bad)[0], "unknown field", block)
    weapon = entry.get("weapon")
    if weapon is not None and not isinstance(weapon, str):
        raise fail("weapon", "must be a weapon's name on the sheet", block)
    stats: dict[str, Any] = {}
    if "sheet" in entry:
        if not isinstance(entry["sheet"], str):
            raise fail("sheet", "must be a file name or example:NAME", block)
        stats.update(sheets(entry["sheet"], weapon))
    stats.update({k: entry[k] for k in STATS if k in entry})
    if "name" in entry:
        stats["name"] = entry["name"]
    for key in ("name", "side"):
        value = entry.get(key, stats.get(key))
        if not isinstance(value, str) or not value.strip():
            raise fail(key, "required: a non-empty string", block)
    for key in ("hp", "ht", "skill"):
        if stats.get(key) is None:
            raise fail(key, f"required (inline, or from a sheet): {key}", block)
    if "distance" in entry:
        stats["distance"] = entry["distance"]
    ints = {"hp": (1, 10_000), "ht": (1, 40), "will": (1, 40), "move": (0, 100),
            "skill": (-10, 40), "acc": (0, 30), "dodge": (-10, 40), "parry": (-10, 40),
            "block": (-10, 40), "dr": (0, 1000), "distance": (0, MAX_DISTANCE)}  # fmt: skip
    for key, (lo, hi) in ints.items():
        value = stats.get(key)
        if value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
            raise fail(key, f"must be an integer from {lo} to {hi}", block)
    for key in ("ranged", "fencing", "hpt", "lpt", "retreat"):
        if key in stats and not isinstance(stats[key], bool):
            raise fail(key, "must be true or false", block)
    if entry.get("retreat") is not None and not isinstance(entry["retreat"], bool):
        raise fail("retreat", "must be true or false", block)
    damage = stats.get("damage", "1d-2 cr")
    if not isinstance(damage, DamageSpec):
        if not isinstance(damage, str):
            raise fail("damage", 'must be a damage such as "2d+1 cut"', block)
        damage = read_damage(damage)
    speed = stats.get("basic_speed")
    if speed is None:
        speed = Fraction(stats["ht"] + stats.get("dx", stats["ht"]), 4)
    if not isinstance(speed, Fraction | int | float) or isinstance(speed, bool) or speed <= 0:
        raise fail("basic_speed", "must be a positive number", block)
    shots = stats.get("shots")
    if shots is not None and not isinstance(shots, Shots):
        if not isinstance(shots, str):
            raise fail("shots", 'must be text such as "1(2)" (B269)', block)
        try:
            shots = read_shots(shots)
        except RuleError as exc:
            raise fail("shots", str(exc), block) from None
    for key in ("shots", "acc"):
        if stats.get(key) is not None and not stats.get("ranged", False):
            raise fail(key, "is a ranged weapon's (B269), and this weapon is not ranged "
                            "(ranged = true makes it a missile weapon)", block)  # fmt: skip
    count = entry.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_COMBATANTS:
        raise fail("count", f"must be an integer from 1 to {MAX_COMBATANTS}", block)
    tactics = _tactics(entry, block, fail)
    if tactics.aim not in ("random", "torso"):
        try:
            require_targetable(tactics.aim, damage.damage_type)
        except RuleError as exc:
            raise fail("aim", str(exc), block) from None
    base = Fighter(
        name=str(stats["name"]).strip(), side=str(entry["side"]).strip(), hp=stats["hp"],
        ht=stats["ht"], basic_speed=Fraction(speed).limit_denominator(100), skill=stats["skill"],
        damage=damage, weapon=str(stats.get("weapon", weapon or "weapon")),
        ranged=stats.get("ranged", False), dodge=stats.get("dodge"), parry=stats.get("parry"),
        block=stats.get("block"), fencing=stats.get("fencing", False), dr=stats.get("dr", 0),
        dr_at=tuple(stats.get("dr_at", ())), hpt=stats.get("hpt", False),
        lpt=stats.get("lpt", False), tactics=tactics, will=stats.get("will", 10),
        move=stats.get("move", int(speed)), acc=stats.get("acc"),
        shots=shots, distance=stats.get("distance", 0),
    )  # fmt: skip
    if count == 1:
        return [base]
    return [_renamed(base, f"{base.name} {k}") for k in range(1, count + 1)]


def _renamed(f: Fighter, name: str) -> Fighter:
    return replace(f, name=name)


def _tactics(entry: dict[str, Any], block: int, fail: Callable[..., RuleError]) -> Tactics:
    choices = {"target": [p.value for p in Pick], "all_out_attack": ["defenseless", "never"],
               "all_out_defense": ["never", "reeling"], "flee": ["never", "reeling"]}  # fmt: skip
    got: dict[str, Any] = {}
    for key, allowed in choices.items():
        if key in entry:
            if entry[key] not in allowed:
                raise fail(key, f"{entry[key]!r} is not one of {', '.join(allowed)}", block)
            got[key] = entry[key]
    if "target" in got:
        got["target"] = Pick(got["target"])
    if "aim" in entry:
        aim = entry["aim"]
        if not isinstance(aim, str):
            raise fail("aim", "random, or a hit location (torso, skull, vitals...)", block)
        if aim != "random":
            try:
                aim = read_location(aim).key
            except RuleError as exc:
                raise fail("aim", str(exc), block) from None
        got["aim"] = aim
    if "retreat" in entry:
        got["retreat"] = entry["retreat"]
    if "aim_turns" in entry:
        turns = entry["aim_turns"]
        if not isinstance(turns, int) or isinstance(turns, bool) or not 0 <= turns <= 3:
            raise fail("aim_turns", "must be an integer from 0 to 3 (B364)", block)
        got["aim_turns"] = turns
    return Tactics(**got)
