"""``referee verify``'s check of the fight (contract v1.2, "The fight's state"): the
export's events replayed through :func:`referee.fight.step`, each logged ``change``,
``combatant`` and ``turn`` entry compared with what the rules give, and each number
an event took from a roll compared with that roll's result.

What the exporter may not see is taken as logged, unchecked (:func:`referee.fight.step.adopt`):
a redacted entry is skipped, and a public entry whose event is hidden (a turn moved
by a hidden NPC's initiative) is adopted; after such an event, a shown event whose
entries do not follow is taken as logged too, counted apart
(:func:`..fightlog.replay_seen`). A sealed event (contract v1.3: public entries of a
change taken from a secret roll) is checked with its numbers put back from that roll
when the exporter sees it. The GM's export checks the whole fight.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from ...errors import RefereeError
from ...fight import numbers
from ...fight.maneuvers import defense_modifiers as state_defense_modifiers
from ...fight.maneuvers import defenses_allowed, rolling_as, typed_modifiers
from ..fightlog import Seen, events_of, replay_seen

__all__ = ["check_fight"]


def check_fight(entries: list[dict[str, Any]]) -> tuple[int, int, list[tuple[int, str]]]:
    """``(events checked, events taken as logged, problems as (seq, what))``."""
    system = next((e.get("system") for e in entries if e.get("kind") == "room"), None)
    groups = events_of(entries)
    if not groups:
        return 0, 0, []
    if system not in ("gurps", "swn", "fudge"):
        return 0, 0, [(int(groups[0][1][0].get("seq", 0)), "a fight in a room with no system")]
    problems: list[tuple[int, str]] = []
    by_seq = {e.get("seq"): e for e in entries}
    binding = _Binding(_opened(entries))

    def replayed(part: list[dict[str, Any]], start: Seen | None) -> Seen:
        return replay_seen(
            str(system),
            part,
            problems,
            start=start,
            roll_check=lambda ev, e: _either(binding.check(ev, e, by_seq), _checked(ev, e, by_seq)),
            fill=lambda ev, why: _filled(ev, why, by_seq),
        )

    # The fight replayed up to each roll the tracker put modifiers on, and each defense
    # call offered with its choices (contract v1.4), those modifiers recomputed from it;
    # then the rest.
    seen: Seen | None = None
    at = 0
    for point in entries:
        check = _checkpoint(point)
        if check is None:
            continue
        seq = int(point.get("seq", 0))
        part = []
        while at < len(entries) and int(entries[at].get("seq", 0)) < seq:
            part.append(entries[at])
            at += 1
        seen = replayed(part, seen)
        wrong = check(seen, point)
        if wrong:
            problems.append((seq, wrong))
    seen = replayed(entries[at:], seen)
    return seen.checked, seen.adopted, problems


def _checkpoint(e: Mapping[str, Any]) -> Any:
    """The check to make of ``e`` against the fight as the log stood before it, if any:
    an attack roll's ``tracker`` (:func:`_tracked`), a defense call's choices
    (:func:`_offered`, on the first entry of its ``exchange`` event)."""
    if e.get("kind") == "roll" and isinstance(e.get("tracker"), list):
        return _tracked
    event = e.get("event")
    part = e.get("part")
    if isinstance(event, Mapping) and event.get("kind") == "exchange" and event.get("choices"):
        if isinstance(part, list) and part and part[0] == 0:
            return _offered
    return None


def _offered(seen: Seen, e: Mapping[str, Any]) -> str | None:
    """What is wrong with a defense call's choices (contract v1.4): each defense one the
    defender's state allows (:func:`referee.fight.maneuvers.defenses_allowed`), with the
    state's modifiers (:func:`referee.fight.maneuvers.defense_modifiers`: stun, posture,
    All-Out Defense) as its ``--mod``; None when they hold or the exporter cannot know.
    (Its levels come from the defender's sheet, which an export does not hold.)"""
    if seen.unseen:
        return None
    event = e["event"]
    c = seen.fight.combatants.get(str(event.get("combatant")))
    if c is None:
        return None
    allowed = defenses_allowed(c)
    for choice in event.get("choices") or ():
        words = str(choice.get("command", "")).split()
        kind = words[2] if len(words) > 2 else ""
        mods = [int(words[i + 1]) for i, w in enumerate(words[:-1]) if w == "--mod"]
        want = [m for _, m in state_defense_modifiers(c, kind)]
        if kind not in allowed or mods != want:
            return (
                f"the defense offered at {e.get('seq')} is not the fight's: "
                f"{choice.get('label')!r} (the fight gives {kind} {want})"
            )
    return None


def _tracked(seen: Seen, roll: Mapping[str, Any]) -> str | None:
    """What is wrong with the modifiers a roll says the tracker put on it (``tracker``),
    recomputed from the fight as the log stood before it
    (:func:`referee.fight.maneuvers.tracker_modifiers`); None when they hold, or when
    the exporter cannot know (the attacker hidden from it, or an event hidden before)."""
    if seen.unseen:
        return None  # a hidden event may have changed the attacker: not this reader's
    fight = seen.fight
    try:
        words = shlex.split(str(roll.get("resolved") or ""))
    except ValueError:
        words = []
    c = rolling_as(fight, str(roll.get("sheet")), words)
    if c is None or words[:1] != ["gurps"] or words[1:2] not in (["attack"], ["defend"], ["check"]):
        return f"roll {roll.get('seq')} names modifiers of the fight, but is no roll they change"
    if words[1] == "attack":
        try:
            int(words[2])
        except (IndexError, ValueError):
            return f"roll {roll.get('seq')} names modifiers of the fight, but no skill level"
    # The Fight panel's attack (contract v1.4) and a typed roll (issue 72 §3) alike.
    want = [f"{n} {m:+d}" for n, m in typed_modifiers(fight, c, words)]
    if roll.get("tracker") != want:
        return (
            f"roll {roll.get('seq')}'s modifiers are not the fight's: it names "
            f"{roll.get('tracker')}, the fight gives {want}"
        )
    return None


CALL_RULES = 5
"""The first rules (:data:`referee.fight.events.RULES`) under which a call is answered
only by its own roll (contract v1.4)."""


def _either(first: str | None, second: str | None) -> str | None:
    """The first problem found, both checks having run (the binding keeps count)."""
    return first or second


def _opened(entries: list[dict[str, Any]]) -> dict[str, int]:
    """Each call's id and the seq of the entry that opened it (as the exporter sees the
    log: a call of a combatant hidden from it is not there)."""
    out: dict[str, int] = {}
    for e in entries:
        if e.get("kind") == "change" and isinstance(e.get("calls"), list):
            for c in e["calls"]:
                if isinstance(c, dict) and isinstance(c.get("call"), str):
                    out.setdefault(c["call"], int(e.get("seq", 0)))
    return out


class _Binding:
    """Contract v1.4's check of each answer's roll: its call's own (the roll names the
    call), made after the call opened, and answering no other call."""

    def __init__(self, opened: dict[str, int]) -> None:
        self.opened = opened
        self.used: dict[int, str] = {}

    def check(
        self, event: Mapping[str, Any], e: Mapping[str, Any], by_seq: Mapping[Any, Any]
    ) -> str | None:
        if event.get("kind") != "answer" or int(event.get("rules", 1)) < CALL_RULES:
            return None
        why, call = e.get("why"), str(event.get("call"))
        if not isinstance(why, int):
            return None  # the GM's answer by hand (no roll): the GM's to make
        roll = by_seq.get(why)
        if roll is None or roll.get("kind") != "roll":
            return f"its roll {why} is not in the log"
        if why in self.used:
            return f"roll {why} answered call {self.used[why]} already: a roll answers one call"
        self.used[why] = call
        if roll.get("redacted"):
            return None  # the GM's export checks the roll's call
        if roll.get("call") != call:
            return f"roll {why} is not call {call}'s own roll (it names {roll.get('call')!r})"
        opened = self.opened.get(call)
        if opened is not None and why < opened:
            return f"roll {why} was made before call {call} opened (at {opened})"
        return None


def _filled(
    event: Mapping[str, Any], why: Any, by_seq: Mapping[Any, Any]
) -> Mapping[str, Any] | None:
    """A sealed event with its numbers put back from its roll, when the exporter sees
    that roll whole (contract v1.3: the GM does; a player, once it is revealed)."""
    roll = by_seq.get(why) if isinstance(why, int) else None
    if roll is None or roll.get("kind") != "roll" or roll.get("redacted"):
        return None
    try:
        rules = int(event.get("rules", 1))
        return {**event, **numbers(str(event.get("kind")), roll.get("result") or {}, rules)}
    except RefereeError:
        return None


def _checked(
    event: Mapping[str, Any], e: Mapping[str, Any], by_seq: Mapping[Any, Any]
) -> str | None:
    """A player's answer must name its roll (the GM may answer by hand); and the
    numbers an event took from its roll must be that roll's."""
    if event.get("kind") == "answer" and e.get("why") is None and e.get("by") != "gm":
        return "a player's answer names no roll"
    return _from_roll(event, e.get("why"), by_seq)


def _from_roll(event: Mapping[str, Any], why: Any, by_seq: Mapping[Any, Any]) -> str | None:
    """Whether the numbers an event took from the roll it names are that roll's."""
    kind = event.get("kind")
    if not isinstance(why, int) or kind not in ("damage", "answer", "result"):
        return None
    roll = by_seq.get(why)
    if roll is None or roll.get("kind") != "roll":
        return f"its roll {why} is not in the log"
    if roll.get("redacted"):
        return None  # not the exporter's to see: the draws' check is the GM's
    try:
        wanted = numbers(str(kind), roll.get("result") or {}, int(event.get("rules", 1)))
    except RefereeError as exc:
        return f"roll {why}: {exc}"
    if any(event.get(k) != v for k, v in wanted.items()):
        return f"its numbers are not roll {why}'s"
    return None
