"""Stars Without Number (revised) injury: hit points, mortal wounds, the death
clock, stabilizing and recovery.

Source: *Stars Without Number Revised*, "Injury and Healing" ("Mortal Wounds",
"Stabilization", "Recovery"), and the rules notes, "Mortal wounds"
(docs/reference/sources.md). A character's state is a frozen :class:`Health`; each rule is
a function from one state to the next.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from ...errors import RuleError
from ...rng import RandomSource
from .checks import ByCheck, Check, Kind
from .skills import CheckOdds, skill_check, skill_check_odds

__all__ = [
    "DEATH_ROUNDS",
    "TOOLS",
    "Condition",
    "DeathWindow",
    "Health",
    "Stabilization",
    "end_round",
    "heal",
    "rest_night",
    "stabilize",
    "stabilize_difficulty",
    "stabilize_odds",
    "take_damage",
    "wait_minutes",
]

DEATH_ROUNDS = 6
"""A mortally wounded character dies at the end of the 6th round unless stabilized."""
TOOLS = {"none": 10, "medkit": 8, "lazarus": 6}
"""Stabilization difficulty before adding the rounds since the victim went down."""
_TOOL_ALIASES = {"lazarus-patch": "lazarus", "patch": "lazarus", "no-tools": "none"}
STABILIZE_MINUTES = 10
"""A stabilized character gains 1 HP after this many minutes."""
WEEK = 7
"""Nights a stabilized PC waits before normal recovery."""


class Condition(StrEnum):
    """Where a character stands."""

    UP = "up"
    UNCONSCIOUS = "unconscious"
    MORTALLY_WOUNDED = "mortally wounded"
    STABILIZED = "stabilized"
    DEAD = "dead"


class DeathWindow(StrEnum):
    """How long "Further damage before recovery = instant death" (``003``, "Recovery") lasts.

    The text does not say what "recovery" is; both readings are offered.
    """

    FIRST_HP = "first-hp"
    """The default: until the stabilized character regains 1 HP after 10 minutes,
    the line just before it in ``003``. After that, damage is ordinary damage."""
    WEEK = "week"
    """Until a stabilized PC's week of waiting is over ("Stabilized PCs need 1 week
    before normal HP recovery"): any damage in that week kills. An NPC's window
    ends at 1 HP, as it has no week to wait."""


@dataclass(frozen=True, slots=True)
class Health:
    """A character's hit points and condition.

    ``rounds_down`` counts the rounds since going down: it is 0 in the round in
    which the character falls and goes up by one at the end of every round, so
    one downed in round 3 is at ``rounds_down`` 2 in round 5 (a stabilizing check
    at difficulty base + 2) and dies at the end of round 9, the 6th full round
    after falling. This is the reading of "dies after 6 rounds" (``003``) that
    gives six full rounds of help after the round of the fall.
    """

    hp: int
    """Current hit points (never below 0)."""
    max_hp: int
    """Maximum hit points."""
    condition: Condition = Condition.UP
    """Up, unconscious, mortally wounded, stabilized or dead."""
    rounds_down: int = 0
    """Rounds since going down, 0 to 6 (for the death clock and the difficulty)."""
    pc: bool = True
    """PCs wait a week after being stabilized before normal recovery."""
    wait_nights: int = 0
    """Nights left before normal recovery (a stabilized PC's week)."""

    def __post_init__(self) -> None:
        if self.hp < 0:
            raise RuleError(f"hp {self.hp} is negative")
        if self.max_hp < 1 or self.hp > self.max_hp:
            raise RuleError(f"max hp {self.max_hp} must be at least 1 and at least hp {self.hp}")


def take_damage(
    h: Health, amount: int, *, lethal: bool = True, window: DeathWindow = DeathWindow.FIRST_HP
) -> Health:
    """Apply damage. At 0 HP a lethal attack mortally wounds and a non-lethal one knocks out.

    Source: ``003``, "Mortal Wounds" and "Recovery" ("Further damage before
    recovery = instant death": a stabilized character still at 0 HP dies, and
    under :attr:`DeathWindow.WEEK` so does a PC in the week of waiting). A
    lethal hit on an unconscious character at 0 HP mortally wounds; more damage
    to a mortally wounded character leaves the death clock running.

    Raises:
        RuleError: negative damage.
    """
    if amount < 0:
        raise RuleError(f"damage {amount} is negative")
    if amount == 0 or h.condition is Condition.DEAD:
        return h
    if h.condition is Condition.STABILIZED or (
        DeathWindow(window) is DeathWindow.WEEK and h.wait_nights > 0
    ):
        return replace(h, hp=0, condition=Condition.DEAD)
    if h.condition is Condition.MORTALLY_WOUNDED:
        return h
    if h.condition is Condition.UNCONSCIOUS:
        if not lethal:
            return h
        return replace(h, condition=Condition.MORTALLY_WOUNDED, rounds_down=0)
    hp = max(0, h.hp - amount)
    if hp > 0:
        return replace(h, hp=hp)
    cond = Condition.MORTALLY_WOUNDED if lethal else Condition.UNCONSCIOUS
    return replace(h, hp=0, condition=cond, rounds_down=0)


def heal(h: Health, amount: int) -> Health:
    """Give back ``amount`` HP (a stim, a spell, a medic's work), up to the maximum.

    Source: ``003``, "Mortal Wounds" (a character is mortally wounded at 0 HP) and
    "Recovery" ("Further damage before recovery = instant death"), under
    :attr:`DeathWindow.FIRST_HP`, referee's default reading: once the character is
    above 0 HP again they have recovered, so healing above 0 HP ends a mortal wound,
    a stabilized state or unconsciousness from 0 HP, stops the death clock, and later
    damage is ordinary damage. A stabilized PC then waits the week before normal
    recovery, as after regaining 1 HP (:func:`wait_minutes`). The dead stay dead.

    >>> h = heal(Health(0, 8, Condition.MORTALLY_WOUNDED, rounds_down=3), 4)
    >>> h.hp, h.condition, h.rounds_down
    (4, <Condition.UP: 'up'>, 0)
    >>> take_damage(heal(Health(0, 8, Condition.STABILIZED, pc=True), 3), 1).hp
    2

    Raises:
        RuleError: negative healing.
    """
    if amount < 0:
        raise RuleError(f"healing {amount} is negative")
    if h.condition is Condition.DEAD or amount == 0:
        return h
    hp = min(h.max_hp, h.hp + amount)
    if h.condition is Condition.UP:
        return replace(h, hp=hp)
    wait = WEEK if h.pc and h.condition is Condition.STABILIZED else h.wait_nights
    return replace(h, hp=hp, condition=Condition.UP, rounds_down=0, wait_nights=wait)


def end_round(h: Health) -> Health:
    """The end of a combat round: the death clock of a mortally wounded character advances.

    Source: ``003``, "Stabilization" ("Victim dies after 6 rounds"); see
    :class:`Health` for how rounds are counted.
    """
    if h.condition is not Condition.MORTALLY_WOUNDED:
        return h
    rounds = h.rounds_down + 1
    if rounds > DEATH_ROUNDS:
        return replace(h, rounds_down=rounds, condition=Condition.DEAD)
    return replace(h, rounds_down=rounds)


def tool_name(tool: str) -> str:
    """The canonical name of a stabilizing tool: ``none``, ``medkit`` or ``lazarus``.

    Raises:
        RuleError: an unknown tool.
    """
    key = tool.strip().casefold().replace(" ", "-").replace("_", "-")
    key = _TOOL_ALIASES.get(key, key)
    if key not in TOOLS:
        raise RuleError(f"unknown tool {tool!r} (one of: none, medkit, lazarus)")
    return key


def stabilize_difficulty(tool: str, rounds: int) -> int:
    """10 + rounds with no tools, 8 + rounds with a medkit, 6 + rounds with a Lazarus patch.

    Source: ``003``, "Stabilization"; rules README.

    >>> list(stabilize_difficulty(tool, 2) for tool in ("none", "medkit", "lazarus"))
    [12, 10, 8]
    """
    if rounds < 0:
        raise RuleError(f"rounds {rounds} is negative")
    return TOOLS[tool_name(tool)] + rounds


@dataclass(frozen=True, slots=True)
class Stabilization(ByCheck):
    """A stabilizing attempt: the check, the victim's state after it, and the patch spent."""

    check: Check
    """2d6 + Heal + Int or Dex modifier against the difficulty."""
    health: Health | None
    """The victim after the attempt (None when only the rounds were given)."""
    tool: str
    """``none``, ``medkit`` or ``lazarus``."""
    patch_used: bool
    """A Lazarus patch is used up even if the check fails."""

    kind = "stabilize"

    @property
    def text(self) -> str:
        """The check, and what became of the patch."""
        tail = "; the Lazarus patch is used up" if self.patch_used else ""
        return self.check.text + tail


def stabilize_odds(
    *, rounds: int, tool: str = "none", skill: int | None = 0, attribute: int = 0
) -> CheckOdds:
    """The target and exact odds of :func:`stabilize`, without rolling.

    Source: as :func:`stabilize`.

    Raises:
        RuleError: an unknown tool, or rounds past the death clock.
    """
    if rounds > DEATH_ROUNDS:
        raise RuleError(f"after {DEATH_ROUNDS} rounds the victim is dead: no check can help")
    difficulty = stabilize_difficulty(tool_name(tool), rounds)
    return skill_check_odds(skill=skill, attribute=attribute, difficulty=difficulty)


def stabilize(
    *,
    rounds: int | None = None,
    victim: Health | None = None,
    tool: str = "none",
    skill: int | None = 0,
    attribute: int = 0,
    assumed: Sequence[str] = (),
    rng: RandomSource | None = None,
) -> Stabilization:
    """Try to stabilize a mortally wounded character (a Main Action; failures may be retried).

    Source: ``003``, "Stabilization" (Int/Heal or Dex/Heal; difficulty by tool
    plus rounds since downed; the victim dies after 6 rounds); rules README
    (the Lazarus patch is used up even on a failure). Give either the
    ``victim``'s :class:`Health` (its ``rounds_down`` is used) or ``rounds``.
    ``assumed`` names what the caller took for granted (``skill 0 (not given)``).

    Raises:
        RuleError: an unknown tool, negative rounds, or a victim who is not
            mortally wounded.
    """
    key = tool_name(tool)
    if victim is not None:
        if victim.condition is not Condition.MORTALLY_WOUNDED:
            raise RuleError(
                f"only a mortally wounded character can be stabilized, not {victim.condition}"
            )
        rounds = victim.rounds_down
    if rounds is None:
        raise RuleError("give the rounds since the victim went down, or the victim")
    if rounds > DEATH_ROUNDS:
        raise RuleError(f"after {DEATH_ROUNDS} rounds the victim is dead: no check can help")
    check = skill_check(
        skill=skill,
        attribute=attribute,
        difficulty=stabilize_difficulty(key, rounds),
        label=f"Stabilize ({key}, round {rounds})",
        assumed=assumed,
        rng=rng,
    )
    check = replace(check, kind=Kind.STABILIZE)
    after = None
    if victim is not None:
        after = replace(victim, condition=Condition.STABILIZED) if check.success else victim
    return Stabilization(check, after, key, key == "lazarus")


def wait_minutes(h: Health, minutes: int) -> Health:
    """Time passing after a fight: a stabilized character gains 1 HP after 10 minutes.

    Source: ``003``, "Recovery"; a stabilized PC then waits a week (:data:`WEEK`
    nights) before normal recovery.
    """
    if h.condition is Condition.STABILIZED and minutes >= STABILIZE_MINUTES:
        return replace(h, hp=1, condition=Condition.UP, wait_nights=WEEK if h.pc else 0)
    return h


def rest_night(h: Health, level: int) -> Health:
    """A night's rest: a character who is up regains their level in HP (up to the maximum).

    Source: ``003``, "Recovery" ("Non-mortally wounded regain level in HP per
    night's rest"; "Stabilized PCs need 1 week before normal HP recovery").
    An unconscious character (knocked out, not mortally wounded) wakes with
    the HP of the night's rest.
    """
    if level < 1:
        raise RuleError(f"level {level} must be at least 1")
    if h.wait_nights > 0:
        return replace(h, wait_nights=h.wait_nights - 1)
    if h.condition not in (Condition.UP, Condition.UNCONSCIOUS):
        return h
    return replace(h, hp=min(h.max_hp, h.hp + level), condition=Condition.UP)
