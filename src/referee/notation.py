"""Writing an expression back as notation: the inverse of :func:`referee.parser.parse`.

``parse(format_expr(x)) == x`` for every expression (checked by Hypothesis).
"""

from __future__ import annotations

from collections.abc import Callable

from .ast import (
    FUDGE,
    AnyOf,
    Arith,
    Compare,
    CompareOp,
    Dice,
    Expression,
    Func,
    Group,
    Keep,
    Literal,
    Neg,
    Node,
)

__all__ = ["format_counting", "format_expr"]


def _format_compare(cond: Compare, bare_eq: bool) -> str:
    if cond.op is CompareOp.EQ and bare_eq:
        return str(cond.value)
    return f"{cond.op.value}{cond.value}"


def _format_dice(d: Dice) -> str:
    parts = [f"{d.count}d{'F' if d.sides == FUDGE else d.sides}"]
    if d.reroll is not None:
        tag = "ro" if d.reroll.once else "r"
        conds = d.reroll.cond.conds if isinstance(d.reroll.cond, AnyOf) else (d.reroll.cond,)
        parts += [tag + _format_compare(c, True) for c in conds]
    # A bare "!" directly before a success target would read as "!>=8" (explode on
    # >=8), so in that one case the explosion is written last.
    bare_last = (
        d.explode is not None and d.explode.cond is None and not d.keep and d.success is not None
    )
    if d.explode is not None and not bare_last:
        parts.append(d.explode.mode.value)
        if d.explode.cond is not None:
            parts.append(_format_compare(d.explode.cond, d.explode.cond.value >= 0))
    parts.append(format_counting(d.keep, d.success, d.failure))
    if d.crit_success is not None:
        parts.append("cs" + _format_compare(d.crit_success, True))
    if d.crit_failure is not None:
        parts.append("cf" + _format_compare(d.crit_failure, True))
    if d.sort is not None:
        parts.append("s" + d.sort)
    if bare_last and d.explode is not None:
        parts.append(d.explode.mode.value)
    return "".join(parts)


def format_counting(
    keep: tuple[Keep, ...], success: Compare | None, failure: Compare | None
) -> str:
    """Keep/drop rules, a success target and failures, as a pool or a group writes them."""
    parts = [f"{'d' if k.drop else 'k'}{'h' if k.highest else 'l'}{k.count}" for k in keep]
    if success is not None:
        parts.append(f"{success.op.value}{success.value}")
    if failure is not None:
        parts.append("f" + _format_compare(failure, True))
    return "".join(parts)


def _needs_parens(child: Node, parent_additive: bool) -> bool:
    return isinstance(child, Arith) and not (parent_additive and not child.additive)


def format_expr(
    expr: Expression | Node,
    dice: Callable[[Dice], str] | None = None,
    group: Callable[[Group, list[str]], str] | None = None,
) -> str:
    """Canonical notation for an expression or node; ``parse(format_expr(e)) == e``.

    ``dice``, if given, renders each pool instead (the roller uses it to show faces);
    ``group`` renders each group from its rendered sub-rolls (after them, so inner
    groups come first).

    >>> from referee.parser import parse
    >>> format_expr(parse("3d + 2*(d6-1) # hit"))
    '3d6 + 2 * (1d6 - 1) # hit'
    """
    if isinstance(expr, Expression):
        body = format_expr(expr.root, dice, group)
        return f"{body} # {expr.label}" if expr.label else body
    if isinstance(expr, Literal):
        return str(expr.value)
    if isinstance(expr, Dice):
        return _format_dice(expr) if dice is None else dice(expr)
    if isinstance(expr, Group):
        items = [format_expr(i, dice, group) for i in expr.items]
        if group is not None:
            return group(expr, items)
        return f"{{{', '.join(items)}}}{format_counting(expr.keep, expr.success, expr.failure)}"
    if isinstance(expr, Func):
        return f"{expr.name}({', '.join(format_expr(a, dice, group) for a in expr.args)})"
    if isinstance(expr, Neg):
        inner = format_expr(expr.operand, dice, group)
        return f"-({inner})" if isinstance(expr.operand, Arith) else f"-{inner}"
    additive = expr.additive
    out = []
    for i, (op, node) in enumerate([("", expr.first), *expr.rest]):
        text = format_expr(node, dice, group)
        if _needs_parens(node, additive):
            text = f"({text})"
        out.append(text if i == 0 else f" {op} {text}")
    return "".join(out)
