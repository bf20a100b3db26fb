"""Discord messages of referee's results: the CLI's text in an embed, with the dice and
the odds, and the short ephemeral notes (errors, "rolled blind"). Pure functions of a
result's JSON: the rendering layer of the Discord front end."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ...systems.gurps.reaction import BANDS
from .slash import EPHEMERAL

__all__ = ["blind_note", "embed", "message", "note", "odds_field"]

COLOURS = {"success": 0x2E7D32, "failure": 0xC62828, "tie": 0x757575}
MOST_TEXT = 4000
"""An embed's description holds 4,096 characters; a longer text is cut."""
MOST_FIELD = 1024
"""An embed field's value holds 1,024 characters."""


def _order() -> dict[str, int]:
    """The order outcomes are listed in, whatever order a result's JSON has them in (a
    room's entry is kept with its keys sorted): a check's, then the reaction table's
    bands from worst to best; any other after them, by name."""
    known = ["success", "critical_success", "critical_failure", "first", "second", "tie",
             "penetrates", "injures", *(name for _, name in BANDS), "Excellent"]  # fmt: skip
    return {name: i for i, name in enumerate(dict.fromkeys(known))}


_ORDER = _order()


def odds_field(data: Mapping[str, Any]) -> str | None:
    """The chances a result's JSON states (``odds``: exact fractions by outcome), as
    percentages, every one of them, in one order; or None.

    >>> odds_field({"odds": {"critical_success": "1/54", "success": "1/2"}})
    'success 50.0% · critical success 1.9%'
    """
    odds = data.get("odds")
    if not isinstance(odds, Mapping):
        return None
    parts = []
    for name in sorted(odds, key=lambda n: (_ORDER.get(str(n), len(_ORDER)), str(n))):
        try:
            chance = Fraction(str(odds[name]))
        except (ValueError, ZeroDivisionError):
            continue  # a distribution, not a chance
        parts.append(f"{str(name).replace('_', ' ')} {float(chance):.1%}")
    return " · ".join(parts)[:MOST_FIELD] or None


def _dice(draws: Sequence[Sequence[int]]) -> str:
    """``3d6: 2, 4, 4``: the dice drawn, by kind, in order."""
    parts: list[str] = []
    for sides, value in draws[:60]:
        label = f"d{sides}"
        if parts and parts[-1].startswith(label + ":"):
            parts[-1] += f", {value}"
        else:
            parts.append(f"{label}: {value}")
    more = f" … and {len(draws) - 60} more" if len(draws) > 60 else ""
    return "; ".join(parts)[:1000] + more


def embed(
    title: str,
    text: str,
    data: Any = None,
    draws: Sequence[Sequence[int]] = (),
    footer: str | None = None,
) -> dict[str, Any]:
    """A result as an embed: the command as its title, the CLI's text, the dice, the
    odds and, for a room's roll, where its log is. ``data`` is the result's JSON: an
    object with its odds and outcome, or a list (several rolls at once: no odds).

    >>> e = embed("gurps check 14 -4", "14-4 = 10: rolled 10 (2, 4, 4), success by 0",
    ...           {"odds": {"success": "1/2"}, "outcome": "success"}, [[6, 2], [6, 4], [6, 4]])
    >>> [(f["name"], f["value"]) for f in e["fields"]]
    [('Dice', 'd6: 2, 4, 4'), ('Odds', 'success 50.0%')]
    """
    body = text if len(text) <= MOST_TEXT else text[: MOST_TEXT - 1] + "…"
    if "\n" in body:
        body = f"```text\n{body[: MOST_TEXT - 20]}\n```"
    out: dict[str, Any] = {"title": title[:256], "description": body}
    fields = []
    if draws:
        fields.append({"name": "Dice", "value": _dice(draws), "inline": True})
    if not isinstance(data, Mapping):  # several rolls (roll 3d6 2d6), or none
        data = {}
    odds = odds_field(data)
    if odds:
        fields.append({"name": "Odds", "value": odds, "inline": True})
    if fields:
        out["fields"] = fields
    outcome = data.get("outcome")
    if isinstance(outcome, str):
        for word, colour in COLOURS.items():
            if word in outcome:
                out["color"] = colour
                break
    if footer:
        out["footer"] = {"text": footer[:2048]}
    return out


def message(
    content: str | None = None, embeds: Sequence[Mapping[str, Any]] = (), ephemeral: bool = False
) -> dict[str, Any]:
    """A message's data; ``ephemeral``: only the user who asked sees it (flag 64). No
    message mentions anyone: a result's text never pings a user or a role."""
    out: dict[str, Any] = {"allowed_mentions": {"parse": []}}
    if content:
        out["content"] = content[:2000]
    if embeds:
        out["embeds"] = list(embeds)
    if ephemeral:
        out["flags"] = EPHEMERAL
    return out


def note(text: str) -> dict[str, Any]:
    """A short ephemeral answer: an error, or what was set up."""
    return message(text, ephemeral=True)


def blind_note(number: str) -> dict[str, Any]:
    """What a player sees of a blind roll: the same words whatever was rolled."""
    return note(f"Rolled blind ({number}): the result went to the GM.")
