"""Limits on the work one dice expression may ask for, and the checks that enforce them.

They are checked when an expression is parsed (or, for exact odds, before the
distribution is computed), so a hostile expression is refused before any dice
are rolled. :func:`check_dice` also refuses modifiers that could never do
anything (a condition no face meets, keeping no dice), as likely typos.
"""

from __future__ import annotations

from dataclasses import dataclass

from .ast import FUDGE, Arith, Dice, Func, Group, Keep, Neg, Node
from .errors import DiceLimitError, DiceSyntaxError
from .notation import format_expr

__all__ = ["DEFAULT_LIMITS", "Limits", "check_dice", "keep_problem", "worst_case_dice"]


@dataclass(frozen=True, slots=True)
class Limits:
    """The bounds every stage enforces. The defaults are the documented ones."""

    length: int = 1000
    """Most characters in an expression."""
    nesting: int = 50
    """Deepest nesting of the expression tree (parentheses, unary minus, mixed operators)."""
    dice: int = 20_000
    """Most dice one roll may throw: the worst case over explosions, times the
    expected number of draws per die for ``r`` (a ``d20r<20`` counts 20 a die)."""
    sides: int = 1_000_000
    """Most faces on one die."""
    explosions: int = 100
    """Most times one die may explode."""
    odds_outcomes: int = 2_000_000
    """Most distinct outcomes an exact distribution may have at any stage."""
    odds_work: int = 50_000_000
    """Most elementary steps (pairs of outcomes, or bits of big-integer work) for exact odds."""
    sample_n: int = 1_000_000_000
    """Most rolls one call to ``sample`` may simulate."""


DEFAULT_LIMITS = Limits()
"""The limits used when none are given."""


def _dice_nodes(node: Node) -> list[Dice]:
    """Every Dice node, left to right (iterative: safe on any depth)."""
    found: list[Dice] = []
    stack: list[Node] = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, Dice):
            found.append(cur)
        elif isinstance(cur, Neg):
            stack.append(cur.operand)
        elif isinstance(cur, Arith):
            stack.extend(reversed([cur.first, *(n for _, n in cur.rest)]))
        elif isinstance(cur, Group):
            stack.extend(reversed(cur.items))
        elif isinstance(cur, Func):
            stack.extend(reversed(cur.args))
    return found


def keep_problem(
    keeps: tuple[Keep, ...], pool: int, what: str = "dice", grows: bool = False
) -> str | None:
    """Why a sequence of keep/drop rules over ``pool`` dice (or sub-rolls) is a likely
    typo: one names more than are left, or nothing is kept (unless explosions may add
    dice: ``grows``). ``None`` if it is fine."""
    left = pool
    for keep in keeps:
        shown = f"{'d' if keep.drop else 'k'}{'h' if keep.highest else 'l'}{keep.count}"
        if keep.count > left:
            verb = "drops" if keep.drop else "keeps"
            return f"{shown} {verb} {keep.count} of only {left} {what}"
        left = left - keep.count if keep.drop else keep.count
        if left == 0 and not (grows and keep.drop):
            return f"{shown} keeps no {what}, so it is always 0"
    return None


def worst_case_dice(node: Node, limits: Limits | None = None) -> int:
    """How many dice one roll of ``node`` throws: at most, counting explosions; for ``r``,
    times the expected draws per die (``sides / faces that stand``, rounded up), since
    ``r`` is exact rejection with no cap. ``ro`` counts two draws a die."""
    limits = DEFAULT_LIMITS if limits is None else limits
    total = 0
    for dice in _dice_nodes(node):
        faces = 3 if dice.sides == FUDGE else dice.sides
        per_roll = 1
        matched = 0 if dice.reroll is None else dice.matching(dice.reroll.cond)
        if matched and dice.reroll is not None:
            standing = faces - matched
            per_roll = 2 if dice.reroll.once else -(-faces // max(standing, 1))
        chain = 1
        cond = dice.explode_cond
        if cond is not None and dice.matching(cond):
            chain = limits.explosions + 1
        total += dice.count * per_roll * chain
    return total


def check_dice(root: Node, columns: tuple[int, ...], text: str, limits: Limits) -> None:
    for dice, column in zip(_dice_nodes(root), columns, strict=True):
        if dice.sides > limits.sides:
            raise DiceLimitError(
                f"a d{dice.sides} has more than {limits.sides:,} sides", text, column
            )
        if dice.count > limits.dice:
            raise DiceLimitError(
                f"{dice.count:,} dice in one pool; the limit is {limits.dice:,}", text, column
            )
        faces = 3 if dice.sides == FUDGE else dice.sides
        cond = dice.explode_cond
        grows = dice.adds_dice and cond is not None and dice.matching(cond) > 0
        problem = keep_problem(dice.keep, dice.count, grows=grows)
        if problem is not None:
            raise DiceSyntaxError(f"{format_expr(dice)}: {problem}", text, column)
        # A compounding die's value is the sum of its chain: any target above its faces
        # can be met ({5d6!!}>8, Shadowrun).
        compounds = cond is not None and not dice.adds_dice and dice.matching(cond) > 0
        for what, c in (
            ("reroll", dice.reroll.cond if dice.reroll is not None else None),
            ("explode", dice.explode_cond),
            ("count as a success", None if compounds else dice.success),
        ):
            if c is not None and not dice.matching(c):
                shown = "-1 to 1" if dice.sides == FUDGE else f"1 to {dice.sides}"
                raise DiceSyntaxError(
                    f"{format_expr(dice)}: no face ({shown}) can {what}, so the condition "
                    "does nothing (check the number)",
                    text,
                    column,
                )
        if dice.reroll is not None and dice.matching(dice.reroll.cond) == faces:
            raise DiceSyntaxError(
                f"{format_expr(dice)} rerolls every face, so the die could never settle",
                text,
                column,
            )
        cond = dice.explode_cond
        if cond is not None and dice.matching(cond) == faces:
            raise DiceSyntaxError(
                f"{format_expr(dice)} explodes on every face, so the die would never stop",
                text,
                column,
            )
    worst = worst_case_dice(root, limits)
    if worst > limits.dice:
        raise DiceLimitError(
            f"this expression could roll {worst:,} dice counting explosions and rerolls; "
            f"the limit is {limits.dice:,}",
            text,
            None,
        )
