"""The fight's entries in a log (contract v1.2, "The fight's state"), read back: grouped
by the event that made them (:func:`events_of`), and the fight replayed from them as one
member sees them (:func:`replay_seen`). Pure: the store, the routes and ``referee
verify`` all read the log through these, so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import RefereeError
from ..fight import Fight, begin, step
from ..fight.step import adopt
from .log import FIGHT_KINDS

__all__ = ["Seen", "events_of", "replay_seen", "sealed_event"]

_COMMON = ("room", "seq", "kind", "time", "salt", "digest", "chain", "event", "part", "why",
           "by", "visibility", "sealed")  # fmt: skip
"""The fields every fight entry has beside its record's own."""

RollCheck = Callable[[Mapping[str, Any], Mapping[str, Any]], "str | None"]
Fill = Callable[[Mapping[str, Any], Any], "Mapping[str, Any] | None"]
"""``fill(event, why)``: a sealed event (contract v1.3: logged public without the numbers
it took from a roll players may not see) with those numbers put back from the roll at
seq ``why``, or None for a reader who may not see that roll."""
"""``check(event, entry)``: what is wrong with the numbers an event took from its roll
(``entry``: the event's first entry, with its ``why`` and ``by``)."""


@dataclass(frozen=True, slots=True)
class Seen:
    """A fight replayed from a log as one member sees it, and how far: resumable."""

    fight: Fight
    checked: int = 0
    """Events stepped through the rules, their entries compared."""
    adopted: int = 0
    """Events taken as logged (hidden from this member, or after one that was)."""
    unseen: bool = False
    """Whether an event hidden from this member came before: after it, a shown event
    whose entries do not follow is taken as logged (the hidden one may explain it)."""


def events_of(
    logged: Iterable[Mapping[str, Any]],
) -> list[tuple[Mapping[str, Any] | None, list[Mapping[str, Any]]]]:
    """The fight's entries of a log grouped by event: ``(event, its entries)`` each, in
    order; the event is None when none of its entries shows it (a hidden one)."""
    out: list[tuple[Mapping[str, Any] | None, list[Mapping[str, Any]]]] = []
    group: list[Mapping[str, Any]] = []
    for e in logged:
        if e.get("kind") not in FIGHT_KINDS:
            continue
        part = e.get("part")
        if isinstance(part, list) and part and part[0] == 0 and group:
            out.append(_closed(group))
            group = []
        group.append(e)
        if isinstance(part, list) and len(part) == 2 and part[0] == part[1] - 1:
            out.append(_closed(group))
            group = []
    if group:
        out.append(_closed(group))
    return out


def _closed(
    group: list[Mapping[str, Any]],
) -> tuple[Mapping[str, Any] | None, list[Mapping[str, Any]]]:
    event = next(
        (e["event"] for e in group if isinstance(e.get("event"), Mapping) and not e.get("sealed")),
        None,
    )
    return event, group


def sealed_event(group: list[Mapping[str, Any]]) -> tuple[Mapping[str, Any], Any] | None:
    """A group's sealed event and the seq of the roll that holds its numbers, if it has
    one (and no whole event)."""
    for e in group:
        if e.get("sealed") and isinstance(e.get("event"), Mapping):
            return e["event"], e.get("why")
    return None


def replay_seen(
    system: str,
    entries: Iterable[Mapping[str, Any]],
    problems: list[tuple[int, str]] | None = None,
    *,
    start: Seen | None = None,
    roll_check: RollCheck | None = None,
    fill: Fill | None = None,
) -> Seen:
    """The fight as ``entries`` (a log as one member sees it, whole events) give it,
    from ``start`` if given, each problem added to ``problems``.

    Each event whose entries are all shown is stepped through the rules and its
    entries compared with what they give (and, with ``roll_check``, the numbers it
    took from its roll). What the member may not see is taken as logged: a redacted
    entry is skipped, a shown entry of a hidden event adopted. Once an event was
    hidden, the member cannot know what it changed (a secret roll's damage to a
    player's character): from then on a shown event whose entries do not follow is
    taken as logged too, counted apart, not as a problem. The GM sees every event, so
    the GM's replay checks them all.

    A sealed event (one whose roll players may not see) is stepped when ``fill`` can
    put its roll's numbers back; otherwise its entries, all shown, are taken as logged:
    they say exactly what changed, so nothing after them is in doubt.
    """
    s = start or Seen(begin(system))
    fight, checked, adopted, unseen = s.fight, s.checked, s.adopted, s.unseen
    found: list[tuple[int, str]] = []
    for event, group in events_of(entries):
        whole = [e for e in group if not e.get("redacted")]
        first = int(group[0].get("seq", 0))
        if event is None and fill is not None and len(whole) == len(group):
            sealed = sealed_event(group)
            event = None if sealed is None else fill(*sealed)
        if event is None or len(whole) < len(group):  # it touches what is hidden
            # What this member may not see may have changed anything; a public entry
            # with no event (a hidden NPC's turn moved) changed only what it shows.
            unseen = unseen or len(whole) < len(group)
            fight = _adopt_all(fight, whole, found)
            adopted += 1
            continue
        wrong = roll_check(event, whole[0]) if roll_check else None
        try:
            done = step(fight, event, rules=1)  # an event naming none: as then
        except RefereeError as exc:
            done, wrong = None, wrong or f"the fight refuses this event: {exc}"
        mismatched = [] if done is None else _mismatches(done.records, group)
        if unseen and (done is None or mismatched):
            fight = _adopt_all(fight, whole, found)  # a hidden event may explain it
            adopted += 1
            continue
        if wrong:
            found.append((first, wrong))
        found.extend(mismatched)
        if done is None:
            fight = _adopt_all(fight, whole, found)
            continue
        fight = done.fight
        checked += 1
    if problems is not None:
        problems.extend(found)
    return Seen(fight, checked, adopted, unseen)


def _adopt_all(
    fight: Fight, shown: list[Mapping[str, Any]], problems: list[tuple[int, str]]
) -> Fight:
    for e in shown:
        fight = _adopt(fight, e, problems)
    return fight


def _mismatches(records: Any, group: list[Mapping[str, Any]]) -> list[tuple[int, str]]:
    """Where the logged ``group`` differs from the ``records`` its event gives."""
    out: list[tuple[int, str]] = []
    for i, r in enumerate(records):
        logged = next(
            (e for e in group if isinstance(e.get("part"), list) and e["part"][0] == i), None
        )
        if logged is None:
            continue
        body = {k: v for k, v in logged.items() if k not in _COMMON and k != "redacted"}
        if logged.get("kind") != r.kind or body != dict(r.fields):
            what = f"this {logged.get('kind')} entry does not follow from its event"
            out.append((int(logged.get("seq", 0)), what))
    if len(group) != len(records):
        first = int(group[0].get("seq", 0))
        out.append((first, f"the event gives {len(records)} entries, the log {len(group)}"))
    return out


def _adopt(fight: Fight, e: Mapping[str, Any], problems: list[tuple[int, str]]) -> Fight:
    try:
        return adopt(fight, str(e.get("kind")), e)
    except (RefereeError, KeyError, TypeError, ValueError):
        problems.append((int(e.get("seq", 0)), "a fight entry that cannot be read"))
        return fight
