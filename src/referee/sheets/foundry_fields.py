"""Reading a Foundry export's fields safely: each value with the path it was found
at, so that a message names the field (``system.level.value``), and whole numbers as
Foundry stores them. Used by :mod:`.foundry`."""

from __future__ import annotations

import json
from typing import Any

from ..errors import SheetError
from .formats import whole_number

__all__ = [
    "MAX_DAMAGE",
    "MAX_WEAPONS",
    "WHO",
    "Field",
    "at",
    "effect_notes",
    "kind_of",
    "layout",
    "number",
    "show",
    "whole",
]

WHO = "the Foundry actor"
"""What messages call the actor."""
MAX_WEAPONS = 500
"""Most weapon items an export may hold: a character carries a handful, and each
weapon's damage is parsed as dice (the one costly step of reading an export)."""
MAX_DAMAGE = 40
"""Longest damage a weapon's dice are parsed from (swnr's are like ``1d8+2``): a longer
one is left out with a note, unparsed."""


class Field:
    """A value and the path it was found at, for messages (``system.level.value``)."""

    __slots__ = ("path", "present", "value")

    def __init__(self, value: Any, path: str, present: bool) -> None:
        self.value = value
        self.path = path
        self.present = present


def layout(doc: dict[str, Any]) -> tuple[str, Any]:
    """The key holding the actor's data, and that data: ``system`` from Foundry 10 on,
    ``data`` before."""
    if "system" in doc:
        return "system", doc["system"]
    return "data", doc.get("data")


def at(data: Any, where: str, *keys: str) -> Field:
    """The value at ``keys`` inside ``data``, which is found at ``where``."""
    value = data
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            return Field(None, ".".join([where, *keys]), False)
        value = value[key]
    return Field(value, ".".join([where, *keys]), True)


def show(value: Any) -> str:
    """A value for a message: its repr (JSON's words for null, true and false), cut short."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def kind_of(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "text", bool: "true/false"}
    if value is None:
        return "empty (null)"
    return names.get(type(value), f"the value {show(value)}")


def number(value: Any) -> int | None:
    """A whole number as Foundry stores one: a number, or text holding one (forms of
    older versions saved some numbers as text)."""
    return whole_number(value, text=True)


def whole(
    field: Field, what: str, lo: int, hi: int, *, required: bool = False, who: str = WHO
) -> int | None:
    """A whole number in ``lo..hi`` from ``field``; None when absent and not required.

    Raises:
        SheetError: absent but required, not a whole number, or out of range.
    """
    if not field.present or (field.value is None and not required):
        if required:
            raise SheetError(f"{who} has no {what} ({field.path})")
        return None
    subject = f"{who}'s {what}" if who == WHO else f"the {what} of {who}"
    n = number(field.value)
    if n is None:
        raise SheetError(f"{subject} ({field.path}) is {show(field.value)}, not a whole number")
    if not lo <= n <= hi:
        raise SheetError(f"{subject} ({field.path}) is {n}; it must be {lo} to {hi}")
    return n


def effect_notes(doc: dict[str, Any], items: list[dict[str, Any]], notes: list[str]) -> None:
    """A note naming the enabled active effects with changes, which are not applied."""
    names: list[str] = []
    for owner in [doc, *items]:
        effects = owner.get("effects")
        for effect in effects if isinstance(effects, list) else []:
            if (
                isinstance(effect, dict)
                and effect.get("disabled") is not True
                and isinstance(effect.get("changes"), list)
                and effect["changes"]
            ):
                label = effect.get("name") or effect.get("label")
                names.append(label if isinstance(label, str) and label else "unnamed")
    if names:
        notes.append(
            f"Foundry applies active effects ({', '.join(names)}) on top of the stored "
            "values; referee reads the stored values"
        )
