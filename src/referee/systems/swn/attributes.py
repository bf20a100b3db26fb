"""Stars Without Number (revised) attributes: scores, modifiers, and which one a roll uses.

Source: the rules ``README.md``, "Stars Without Number", attribute modifier
table; ``003``, "Saving Throw Mechanics" and "Skill Checks" (a check adds one
attribute's modifier; a save the better of two).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...errors import RuleError

__all__ = ["ATTRIBUTES", "attribute_modifier", "best_attribute", "resolve_modifier"]


def attribute_modifier(score: int, name: str = "attribute") -> int:
    """The modifier of an attribute score: 3 → −2, 4–7 → −1, 8–13 → 0, 14–17 → +1, 18 → +2.

    Source: rules README, "Stars Without Number", attribute modifier table.

    >>> list(attribute_modifier(s) for s in (3, 4, 7, 8, 13, 14, 17, 18))
    [-2, -1, -1, 0, 0, 1, 1, 2]

    Raises:
        RuleError: the score is outside 3–18 (the message names the attribute).
    """
    if not 3 <= score <= 18:
        raise RuleError(f"{name} score {score} is outside 3-18")
    if score == 3:
        return -2
    if score <= 7:
        return -1
    if score <= 13:
        return 0
    if score <= 17:
        return 1
    return 2


def resolve_modifier(name: str, score: int | None, modifier: int | None) -> int:
    """An attribute's modifier from its score or directly (``--dex 14`` or ``--dex-mod +1``).

    Raises:
        RuleError: both given, a score outside 3–18, or a modifier outside −2..+2.
    """
    if score is not None and modifier is not None:
        raise RuleError(f"give either {name} or {name}-mod, not both")
    if score is not None:
        return attribute_modifier(score, name)
    if modifier is None:
        return 0
    if not -2 <= modifier <= 2:
        raise RuleError(f"{name}-mod {modifier:+d} is outside -2..+2")
    return modifier


ATTRIBUTES = ("str", "dex", "con", "int", "wis", "cha")
"""The six attributes, as the command line names them."""


def best_attribute(
    attributes: Mapping[str, int], allowed: Sequence[str], what: str, *, single: bool = False
) -> int:
    """The better modifier among the attributes given (0 if none), all of them ``allowed``.

    With ``single``, at most one may be given (a check uses one attribute).

    >>> best_attribute({"int": 1, "dex": -1}, ("int", "dex"), "stabilizing")
    1

    Raises:
        RuleError: an attribute that does not apply, or two where one is allowed.
    """
    extra = [a for a in attributes if a not in allowed]
    if extra:
        raise RuleError(f"{extra[0]} does not apply to {what} (use {', '.join(allowed)})")
    if single and len(attributes) > 1:
        raise RuleError(f"{what} uses one attribute: give only one of {', '.join(attributes)}")
    return max(attributes.values(), default=0)
