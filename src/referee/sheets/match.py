"""Finding a trait or an attack on a sheet by the name a player types: the one place
names are matched, for every system.

The rules, in order:

1. case does not matter, nor do runs of spaces;
2. an exact name wins: the full name (``Fast-Draw (Knife)``; with its tech level,
   ``Navigation/TL7 (Sea)``, which tells apart the same skill at two tech levels),
   then the name alone (``Stealth``), then, for an attack, its usage alone (``Punch``);
   an entry written twice, the same in every field, is one entry;
3. otherwise a unique prefix of a full name is accepted (``fast-draw (kn``);
4. a name that matches several is refused, listing each with its level;
   an unknown name is refused, naming the character. Nothing is chosen silently.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from ..errors import SheetError
from .model import Attack, Kind, Sheet, Trait

__all__ = ["find_attack", "find_trait", "normal"]

T = TypeVar("T")


def normal(name: str) -> str:
    """A name as matching compares it: casefolded, one space between words, and one
    space before a parenthesis.

    >>> normal("  Fast-Draw(KNIFE) "), normal("Animal   Handling")
    ('fast-draw (knife)', 'animal handling')
    """
    text = re.sub(r"\s*\(\s*", " (", name.strip())
    text = re.sub(r"\s*\)", ")", text)
    return " ".join(text.casefold().split())


def _pick(
    items: Sequence[T],
    query: str,
    names: Callable[[T], Sequence[str]],
    shown: Callable[[T], str],
    what: str,
    who: str,
) -> T:
    """The one item of ``items`` that ``query`` names; ``names(item)`` lists its exact
    names, full name first."""
    q = normal(query)
    if not q:
        raise SheetError(f"name a {what} of {who}")
    ranks = max((len(names(i)) for i in items), default=0)
    for rank in range(ranks):  # the full name, then the name alone, then the usage
        exact = [i for i in items if len(names(i)) > rank and normal(names(i)[rank]) == q]
        if exact:
            return _one(exact, query, shown, what, who)
    prefixed = [i for i in items if normal(names(i)[0]).startswith(q)]
    if prefixed:
        return _one(prefixed, query, shown, what, who)
    # here, not at the top: 2 ms of start-up otherwise (issue 53)
    import difflib

    close = difflib.get_close_matches(q, [normal(names(i)[0]) for i in items], n=1)
    hint = ""
    if close:
        found = next(i for i in items if normal(names(i)[0]) == close[0])
        hint = f": did you mean {names(found)[0]!r}?"
    raise SheetError(f"{who} has no {what} {query!r}{hint}")


def _one(found: Sequence[T], query: str, shown: Callable[[T], str], what: str, who: str) -> T:
    if all(f == found[0] for f in found):  # one, or the same entry written twice
        return found[0]
    listed = "; ".join(shown(i) for i in found[:12])
    more = f"; and {len(found) - 12} more" if len(found) > 12 else ""
    raise SheetError(
        f"{query!r} matches {len(found)} {what}s of {who}: {listed}{more}. Name one of them"
    )


def _trait_shown(t: Trait) -> str:
    return f"{t.shown_name} {t.level} ({t.kind.value})"


def find_trait(sheet: Sheet, query: str, kinds: Sequence[Kind] = ()) -> Trait:
    """The trait of ``sheet`` that ``query`` names, among ``kinds`` (all by default).

    Raises:
        SheetError: no such trait, or several (each listed with its level).
    """
    pool = sheet.of_kind(*kinds)
    what = kinds[0].value if len(kinds) == 1 else "trait"
    return _pick(
        pool,
        query,
        lambda t: (t.shown_name, t.full_name, t.name),
        _trait_shown,
        what,
        sheet.name or "the sheet",
    )


def _attack_names(a: Attack) -> tuple[str, ...]:
    return (a.full_name, a.name, a.usage) if a.usage else (a.full_name,)


def find_attack(sheet: Sheet, query: str) -> Attack:
    """The attack of ``sheet`` that ``query`` names: ``Natural Attacks (Bite)``, or
    ``Punch`` when only one item has that usage.

    Raises:
        SheetError: no such attack, or several (each listed with its damage).
    """
    return _pick(
        sheet.attacks,
        query,
        _attack_names,
        lambda a: f"{a.full_name} {a.damage}",
        "attack",
        sheet.name or "the sheet",
    )
