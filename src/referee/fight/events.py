"""The events a fight takes, as JSON objects, and the check that reads one.

An event is what a GM (or a player, for their own combatant) does to the fight: add
a combatant, apply damage, answer a called roll, end a turn. It is logged inside
each entry it causes (``event``), so that replaying the events gives the state
again (:func:`referee.fight.replay`).

>>> read_event({"kind": "damage", "combatant": "orc", "amount": 7})["amount"]
7
>>> read_event({"kind": "damage", "combatant": "orc", "amount": "7"})
Traceback (most recent call last):
...
referee.errors.RuleError: a damage event's 'amount' must be an integer within ±1,000,000
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import RuleError

__all__ = ["CALL", "EVENTS", "ID", "LIMIT", "RULES", "read_event"]

RULES = 7
"""The fight's rules as this version applies them, which an event may name (``rules``,
on any kind; :func:`referee.fight.step` takes the current ones by default):

- 1, as referee applied them before contract v1.3 (every log written then): the turn
  passes to the next in the order whoever it is, and a fallen combatant's calls stay
  open until answered or dismissed;
- 2: a combatant out of the fight (dead, unconscious, mortally wounded; in SWN, at 0
  HP) gets no turn, and its calls close as it falls (a GURPS survive roll stays while
  it lives: B419's death checks are rolled unconscious too);
- 3: a GM's NPC in plain view keeps its sheet's numbers the GM's (issue 49 §5): its
  records are logged in their public form, with GM-only copies where its event names
  those numbers (:mod:`.npcs`).
- 4: the order is set once the last initiative roll is closed, however it closes (an
  answer, or a ``dismiss``, a ``remove`` or a fall); a combatant whose roll was closed
  unanswered acts after those who rolled; a side's roll passes to the next of its
  members when its roller is removed or falls; and no combatant is added while the
  rolls are open (:func:`.turns.settled`).
- 5: the fight referees (contract v1.4): a call is answered only by its own roll, the
  one the server made for it, which names it (``"call"``; ``referee verify`` checks
  the binding); a maneuver is taken on its combatant's own turn (``maneuver``); the
  tracker's state (shock, stun, posture, the maneuver) goes into the rolls it takes;
  toxic damage at the skull or eye meets no skull DR and no −10 to knockdown (B399),
  and DR 0 is DR 1 against an armor divisor under 1 (B110; ``.exchange.TOXIC_RULES``).
- 6: a call stays secret where its cause is (contract v1.5, issue 71): an ``exchange``
  whose attack roll players may not see carries that roll's seq (``attack``) instead of
  the damage roll that follows (``then``), which the server makes from its own record
  of the attack; its call names a hidden attacker by its opaque id. No defense is
  offered to, and no knockdown called for, an unconscious combatant (B420); shock
  taken on one's own turn counts from one's next turn (B419).
- 7: a call that its combatant's fall would close at once (rules 2) is not opened:
  a dead combatant's fatigue below 0 FP calls no roll to survive (B419: the death
  checks are the living's, as a dead combatant's damage already called none). Under
  rules 6 such a call was opened and closed by the same event, unlogged, yet took a
  number, so the combatant's next call's id skipped one, which a reader of the log's
  entries (a player's view, ``referee verify``) could not follow.

A log keeps each event's number, so an old log replays by the rules it was written
under."""

ID = re.compile(r"[A-Za-z0-9_-]{1,40}")
"""A combatant's id: a sheet's name, or one the GM chooses."""

CALL = re.compile(r"[A-Za-z0-9_-]{1,40}/[0-9]{1,7}")
"""A call's id: its combatant's id and the number of the call for it."""

LIMIT = 1_000_000
"""Every number in an event stays within ±this."""

EVENTS: dict[str, tuple[tuple[str, str], ...]] = {
    "add": (
        ("combatant", "id"),
        ("name", "str?"),
        ("values", "ints"),
        ("hidden", "bool?"),
        ("side", "str?"),
        ("pc", "bool?"),
        ("sheet", "id?"),
        ("owner", "str?"),
    ),
    "reveal": (("combatant", "id"),),
    "remove": (("combatant", "id"),),
    "damage": (
        ("combatant", "id"),
        ("amount", "int?"),
        ("location", "str?"),
        ("lethal", "bool?"),
        ("basic", "int?"),
        ("type", "str?"),
        ("divisor", "str?"),
        ("effect", "str?"),
        ("expression", "str?"),
    ),
    "defend": (("combatant", "id"), ("defense", "str"), ("success", "bool"), ("retreat", "bool?")),
    "defenses": (("gm", "bool"),),
    "maneuver": (
        ("combatant", "id"),
        ("maneuver", "str"),
        ("attack", "bool?"),
        ("double", "bool?"),
        ("posture", "str?"),
        ("defense", "str?"),
    ),
    "exchange": (
        ("combatant", "id"),
        ("attacker", "id"),
        ("command", "text"),
        ("then", "text?"),
        ("attack", "int?"),
        ("choices", "choices?"),
    ),
    "heal": (("combatant", "id"), ("amount", "int")),
    "fatigue": (("combatant", "id"), ("amount", "int")),
    "set": (("combatant", "id"), ("values", "ints?"), ("add", "strs?"), ("drop", "strs?")),
    "answer": (
        ("call", "call"),
        ("success", "bool"),
        ("margin", "int"),
        ("critical", "bool"),
        ("total", "int"),
        ("choice", "int?"),
    ),
    "result": (("combatant", "id"), ("of", "str"), ("success", "bool")),
    "dismiss": (("call", "call"),),
    "start": (("order", "ids?"), ("group", "bool?")),
    "next": (),
    "previous": (),
    "delay": (("combatant", "id"),),
    "act": (("combatant", "id"),),
}
"""Each event kind's fields and their types (``?``: may be left out)."""


def read_event(obj: Any) -> dict[str, Any]:
    """``obj`` checked as an event: a known ``kind`` and its fields, of their types.

    Raises:
        RuleError: naming the kind and the field that is wrong.
    """
    if not isinstance(obj, Mapping) or not isinstance(obj.get("kind"), str):
        raise RuleError("an event is an object with a 'kind' (" + ", ".join(EVENTS) + ")")
    kind = obj["kind"]
    spec = _SPECS.get(kind)
    if spec is None:
        raise RuleError(f"no event {kind!r}: one of " + ", ".join(EVENTS))
    known, fields = spec
    if not known.issuperset(obj) and not (known | {"rules"}).issuperset(obj):
        extra = sorted(set(obj) - known - {"rules"})
        raise RuleError(f"{_a(kind)} event has no field {extra[0]!r}")
    out: dict[str, Any] = {"kind": kind}
    if "rules" in obj:
        rules = obj["rules"]
        if not (isinstance(rules, int) and not isinstance(rules, bool) and 1 <= rules <= RULES):
            raise RuleError(f"an event's 'rules' is 1 to {RULES} (the fight's rules version)")
        out["rules"] = rules
    for name, typ, check, optional in fields:
        value = obj.get(name)
        if value is None:
            if not optional:
                raise RuleError(f"{_a(kind)} event needs {name!r} ({_WHAT[typ]})")
            continue
        if not check(value):
            raise RuleError(f"{_a(kind)} event's {name!r} must be {_WHAT[typ]}")
        out[name] = value
    return out


def _a(kind: str) -> str:
    return ("an " if kind[0] in "aeiou" else "a ") + kind


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and abs(v) <= LIMIT


def _str(v: Any) -> bool:
    return isinstance(v, str) and 0 < len(v) <= 80 and v.isprintable()


def _ints(v: Any) -> bool:
    return (
        isinstance(v, Mapping)
        and len(v) <= 40
        and all(isinstance(k, str) and ID.fullmatch(k) and _int(x) for k, x in v.items())
    )


def _id(v: Any) -> bool:
    return isinstance(v, str) and ID.fullmatch(v) is not None


def _choices(v: Any) -> bool:
    """A defense call's choices: at most 12, each a label and a command (texts of at
    most 200 printable characters), a level (an integer) and odds (a fraction)."""

    def one(c: Any) -> bool:
        return (
            isinstance(c, Mapping)
            and set(c) == {"label", "command", "level", "odds"}
            and all(_text(c[k]) for k in ("label", "command", "odds"))
            and _int(c["level"])
        )

    return isinstance(v, list) and 0 < len(v) <= 12 and all(one(c) for c in v)


def _text(v: Any) -> bool:
    return isinstance(v, str) and 0 < len(v) <= 200 and v.isprintable()


_CHECKS: dict[str, Callable[[Any], bool]] = {
    "id": _id,
    "call": lambda v: isinstance(v, str) and CALL.fullmatch(v) is not None,
    "ids": lambda v: isinstance(v, list) and len(v) <= 200 and all(_id(x) for x in v),
    "int": _int,
    "ints": _ints,
    "str": _str,
    "text": _text,
    "strs": lambda v: isinstance(v, list) and len(v) <= 10 and all(_str(x) for x in v),
    "bool": lambda v: isinstance(v, bool),
    "choices": _choices,
}
_WHAT = {
    "id": "1-40 of A-Z a-z 0-9 _ -",
    "call": "a call's id, such as orc/2",
    "ids": "a list of ids",
    "int": f"an integer within ±{LIMIT:,}",
    "ints": "an object of names to integers",
    "str": "text of 1-80 printable characters",
    "text": "text of 1-200 printable characters",
    "strs": "a list of texts",
    "bool": "true or false",
    "choices": "a list of defenses, each a label, command, level and odds",
}
_WHAT.update({f"{k}?": v for k, v in list(_WHAT.items())})

_SPECS: dict[str, tuple[frozenset[str], tuple[tuple[str, str, Callable[[Any], bool], bool], ...]]]
_SPECS = {
    kind: (
        frozenset({name for name, _ in fields} | {"kind"}),
        tuple((name, t.rstrip("?"), _CHECKS[t.rstrip("?")], t.endswith("?")) for name, t in fields),
    )
    for kind, fields in EVENTS.items()
}
"""Each kind's field names, and each field's type, check and whether it may be left out."""
