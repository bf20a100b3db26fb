"""Stage 1 of the pipeline: notation text -> :class:`~referee.ast.Expression`, and back.

The grammar lives in ``grammar.lark`` (LALR). The lark parser applies the
transformer inline, so no stage of parsing recurses on the depth of the input.
Lark's exceptions are translated here, at the boundary, into
:class:`~referee.errors.DiceSyntaxError` with a column.

Notation summary:

* ``NdS`` (N defaults to 1), ``d%`` = d100, ``dF`` = Fudge die, bare ``d`` = d6 (GURPS).
* ``+ - * /`` (``/`` rounds down), unary minus, parentheses, integers.
* ``kh3``/``k3``, ``kl1``, ``dh1``, ``dl1``: keep or drop highest/lowest.
* ``!`` explodes on the maximum face, ``!>=9`` on a threshold, ``!5`` on a face.
* ``r1``, ``r<3``: reroll until the face no longer matches; ``ro1``: reroll once.
* ``>=8`` (also ``>``, ``<``, ``<=``, ``=``) after a pool: count the dice that meet it.
* ``3d6>3f<2`` counts failures; ``cs>19``/``cf<3`` mark critical dice; ``s``/``sd`` sort.
* ``{a, b}kh1`` keeps, drops or counts whole sub-rolls; ``{5d6!!}>8`` (one pool in
  braces) is that pool with the modifiers.
* ``floor ceil round abs min max``: functions, with exact ``/`` inside them.
* ``# label`` at the end names the roll.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from .ast import (
    FUDGE,
    AnyOf,
    Arith,
    Compare,
    CompareOp,
    Dice,
    Explode,
    ExplodeMode,
    Expression,
    Func,
    Group,
    Keep,
    Literal,
    Neg,
    Node,
    Reroll,
)
from .errors import DiceLimitError, DiceSyntaxError
from .limits import DEFAULT_LIMITS, Limits, check_dice, keep_problem, worst_case_dice
from .notation import format_expr

if TYPE_CHECKING:
    from lark import Lark, Token

__all__ = ["format_expr", "parse", "worst_case_dice"]


_MAX_NUMBER = 10**9
"""Largest integer literal or modifier number accepted (keeps every stage in int64)."""


class _Part(NamedTuple):
    """What the inline transformer passes upward while parsing."""

    node: Node
    depth: int
    grouped: bool
    column: int
    deep_column: int
    dice_columns: tuple[int, ...]


_TOKEN_NAMES = {
    "INT": "a number",
    "DICE": "dice such as 3d6",
    "LPAR": "'('",
    "RPAR": "')'",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "COMMA": "','",
    "FUNC": "a function such as floor(",
    "PLUS": "'+'",
    "MINUS": "'-'",
    "STAR": "'*'",
    "SLASH": "'/'",
    "KEEP": "a keep/drop such as kh3",
    "REROLL": "a reroll such as r1",
    "EXPLODE": "'!'",
    "SUCCESS": "a target such as >=8",
    "FAILURE": "a failure target such as f1",
    "CRIT": "a critical marker such as cs>19",
    "SORT": "a sort such as s or sd",
    "LABEL": "a '# label'",
    "$END": "the end",
}


_FIRST = {name: i for i, name in enumerate(["a number", "dice such as 3d6", "')'", "'('"])}
"""What an error lists first among the things expected (the rest alphabetically)."""


def _number(text: str, full: str, column: int) -> int:
    value = int(text)
    if abs(value) > _MAX_NUMBER:
        raise DiceLimitError(
            f"number {text!r} is too large (the limit is {_MAX_NUMBER:,})", full, column
        )
    return value


def _compare(text: str, full: str, column: int) -> Compare:
    """``'>=8'`` -> Compare(GE, 8); a bare number means equality."""
    for op in (">=", "<=", "=", ">", "<"):
        if text.startswith(op):
            return Compare(CompareOp(op), _number(text[len(op) :], full, column))
    return Compare(CompareOp.EQ, _number(text, full, column))


def _located(exc: DiceSyntaxError | DiceLimitError, text: str) -> Exception:
    exc.text = text
    return exc


class _Builder:
    """Inline lark callbacks that build AST nodes.

    They are stateless; errors they raise carry a column but no text, and
    :func:`parse` fills the text in at the boundary.
    """

    def literal(self, tok: Token) -> _Part:
        col = tok.column or 1
        return _Part(Literal(_number(str(tok), "", col)), 1, False, col, col, ())

    def dice(self, tok: Token, *mods: Token) -> _Part:
        col = tok.column or 1
        head, _, tail = str(tok).lower().partition("d")
        count = _number(head, "", col) if head else 1
        if tail == "":
            sides = 6
        elif tail == "%":
            sides = 100
        elif tail == "f":
            sides = FUDGE
        else:
            sides = _number(tail, "", col + len(head) + 1)
            if sides < 1:
                raise DiceSyntaxError("a die needs at least 1 side", "", col)
        fields: dict[str, Any] = {}
        _apply(fields, mods, col)
        return _Part(Dice(count, sides, **fields), 1, False, col, col, (col,))

    def braces(self, lbrace: Token, *rest: Any) -> _Part:
        col = lbrace.column or 1
        end = next(i for i, r in enumerate(rest) if getattr(r, "type", "") == "RBRACE")
        items = [r for r in rest[:end] if isinstance(r, _Part)]
        mods = rest[end + 1 :]
        only = items[0].node if len(items) == 1 else None
        if isinstance(only, Dice):  # {5d6!!}>8: one pool, the modifiers act on its dice
            fields = {f: getattr(only, f) for f in only.__dataclass_fields__}
            del fields["count"], fields["sides"]
            _apply(fields, mods, col, merged=True)
            node = Dice(only.count, only.sides, **fields)
            return items[0]._replace(node=node, depth=items[0].depth + 1, column=col)
        group: dict[str, Any] = {}
        for mod in mods:
            if mod.type not in ("KEEP", "SUCCESS", "FAILURE"):
                raise DiceSyntaxError(
                    f"{str(mod)!r} acts on dice, not on a group of sub-rolls "
                    "(a group takes keep/drop, a target and failures)",
                    "",
                    mod.column or col,
                )
        _apply(group, mods, col)
        problem = keep_problem(group["keep"], len(items), "sub-rolls")
        if problem is not None:
            raise DiceSyntaxError(problem, "", col)
        return _nest(Group(tuple(i.node for i in items), **group), col, items)

    def func(self, name: Token, lpar: Token, *rest: Any) -> _Part:
        col = name.column or 1
        fname = str(name).lower()
        items = [r for r in rest if isinstance(r, _Part)]
        if fname not in ("min", "max") and len(items) != 1:
            raise DiceSyntaxError(
                f"{fname} takes one argument, not {len(items)}",
                "",
                items[1].column if len(items) > 1 else col,
            )
        return _nest(Func(fname, tuple(i.node for i in items)), col, items)

    def add(self, left: _Part, op: Token, right: _Part) -> _Part:
        return _chain(left, str(op), right, additive=True)

    def mul(self, left: _Part, op: Token, right: _Part) -> _Part:
        return _chain(left, str(op), right, additive=False)

    def neg(self, op: Token, operand: _Part) -> _Part:
        col = op.column or 1
        return operand._replace(
            node=Neg(operand.node), depth=operand.depth + 1, grouped=False, column=col
        )

    def group(self, lpar: Token, inner: _Part, rpar: Token) -> _Part:
        # Parentheses count as a level of nesting even where the tree stays flat.
        return inner._replace(grouped=True, column=lpar.column or 1, depth=inner.depth + 1)

    def start(self, body: _Part, label: Token | None) -> tuple[Expression, _Part]:
        text = str(label)[1:].strip() if label is not None else ""
        return Expression(body.node, text or None), body


def _nest(node: Node, col: int, items: list[_Part]) -> _Part:
    """A group or a function: it nests and counts like a pair of parentheses."""
    deepest = max(items, key=lambda i: i.depth)
    columns = tuple(c for i in items for c in i.dice_columns)
    return _Part(node, deepest.depth + 1, True, col, deepest.deep_column, columns)


def _apply(fields: dict[str, Any], mods: tuple[Token, ...], col: int, merged: bool = False) -> None:
    """Read modifier tokens into dataclass fields, refusing a second one of a kind
    (keep/drop and rerolls may repeat: ``kh2dl1``, ``r1r3``)."""
    fields.setdefault("keep", ())
    for mod in mods:
        kind = mod.type.lower()
        mcol = mod.column or col
        value = _modifier(kind, str(mod), mcol)
        if kind == "crit":
            kind = "crit_success" if str(mod).lower().startswith("cs") else "crit_failure"
        if kind == "keep" and isinstance(value, Keep):
            fields["keep"] = (*fields["keep"], value)
            continue
        if kind == "reroll" and fields.get(kind) is not None and isinstance(value, Reroll):
            fields[kind] = _more_rerolls(fields[kind], value, str(mod), mcol)
            continue
        if fields.get(kind) is not None:
            where = " (the pool in braces has one already)" if merged else ""
            raise DiceSyntaxError(f"second {kind} modifier {str(mod)!r}{where}", "", mcol)
        if kind == "failure" and fields.get("success") is None:
            raise DiceSyntaxError(
                f"{str(mod)!r} counts failures, so a success target must come first (3d6>3f1)",
                "",
                mcol,
            )
        fields[kind] = value


def _more_rerolls(first: Reroll, more: Reroll, text: str, col: int) -> Reroll:
    """``r1r3``: one reroll rule whose condition is any of the conditions written."""
    if first.once != more.once:
        raise DiceSyntaxError(f"{text!r} mixes ro with r: use one kind of reroll", "", col)
    conds = first.cond.conds if isinstance(first.cond, AnyOf) else (first.cond,)
    return Reroll(AnyOf((*conds, *_as_conds(more.cond))), first.once)


def _as_conds(cond: Compare | AnyOf) -> tuple[Compare, ...]:
    return cond.conds if isinstance(cond, AnyOf) else (cond,)


def _modifier(kind: str, text: str, col: int) -> Keep | Reroll | Explode | Compare | str:
    text = text.lower()  # KH2 = kh2, as D6 = d6
    if kind == "keep":
        drop = text[0] == "d"
        # Roll20's shorthand: d3 drops the lowest 3 (k4 keeps the highest 4).
        highest = not text.startswith(("kl", "dl")) and not (drop and text[1].isdigit())
        return Keep(highest, drop, _number(text.lstrip("khdl"), "", col))
    if kind == "failure":
        return _compare(text[1:], "", col)
    if kind == "crit":
        return _compare(text[2:], "", col)
    if kind == "sort":
        return "a" if text in ("s", "sa") else "d"
    if kind == "reroll":
        once = text.startswith("ro")
        return Reroll(_compare(text[2 if once else 1 :], "", col), once)
    if kind == "explode":
        mode = ExplodeMode.ADD
        if text.startswith(("!!", "!p")):
            mode = ExplodeMode.COMPOUND if text[1] == "!" else ExplodeMode.PENETRATE
            text = text[1:]
        return Explode(_compare(text[1:], "", col) if len(text) > 1 else None, mode)
    return _compare(text, "", col)


def _chain(left: _Part, op: str, right: _Part, additive: bool) -> _Part:
    """Extend a flat ``a + b - c`` chain, or start one (parenthesised chains stay nested)."""
    node = left.node
    deep = left.deep_column if left.depth >= right.depth else right.deep_column
    if isinstance(node, Arith) and not left.grouped and node.additive == additive:
        arith = Arith(node.first, (*node.rest, (op, right.node)))
        depth = max(left.depth, right.depth + 1)
    else:
        arith = Arith(node, ((op, right.node),))
        depth = 1 + max(left.depth, right.depth)
    return _Part(arith, depth, False, left.column, deep, left.dice_columns + right.dice_columns)


_RULES = ("literal", "dice", "braces", "func", "add", "mul", "neg", "group", "start")


@functools.cache
def _lark() -> Lark:
    # here, not at the top: 32 ms of start-up otherwise (issue 53)
    from lark import Lark, Transformer

    builder = _Builder()
    inline: Transformer[Any, Any] = Transformer()
    for rule in _RULES:
        method = getattr(builder, rule)
        setattr(inline, rule, lambda children, method=method: method(*children))
    grammar = Path(__file__).with_name("grammar.lark").read_text(encoding="utf-8")
    return Lark(
        grammar,
        parser="lalr",
        transformer=inline,
        maybe_placeholders=True,
        cache=_cache_path(grammar),
    )


def _cache_path(grammar: str) -> str:
    """Where lark keeps its analysis of the grammar: the temp directory, one file per
    grammar and lark version (``cache=True`` would write into the working directory)."""
    # here, not at the top: each import costs 5-34 ms of start-up otherwise (issue 53)
    import tempfile

    import lark

    key = hashlib.sha256(f"{lark.__version__}\n{grammar}".encode()).hexdigest()[:16]
    return str(Path(tempfile.gettempdir()) / f"referee-lark-{key}.cache")


def _translate(exc: Exception, text: str) -> DiceSyntaxError:
    """Turn a lark exception into a DiceSyntaxError with a column."""
    # here, not at the top: 39 ms of start-up otherwise (issue 53)
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    if isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream or 0
        char = text[pos] if pos < len(text) else ""
        return DiceSyntaxError(f"unexpected character {char!r}", text, exc.column)
    if isinstance(exc, UnexpectedToken):
        names = {_TOKEN_NAMES.get(t, t) for t in exc.expected if not t.startswith("_")}
        expected = sorted(names, key=lambda n: (_FIRST.get(n, len(_FIRST)), n))
        if exc.token.type == "$END":
            msg = "the expression ends too soon" if text.strip() else "the expression is empty"
            return DiceSyntaxError(
                f"{msg}; expected {' or '.join(expected[:4])}", text, len(text) + 1
            )
        return DiceSyntaxError(
            f"unexpected {str(exc.token)!r}; expected {' or '.join(expected[:4])}",
            text,
            exc.column if isinstance(exc.column, int) else None,
        )
    if isinstance(exc, UnexpectedEOF):
        return DiceSyntaxError("the expression ends too soon", text, len(text) + 1)
    return DiceSyntaxError(str(exc), text, None)


def parse(text: str, limits: Limits = DEFAULT_LIMITS) -> Expression:
    """Parse dice notation into an immutable :class:`~referee.ast.Expression`.

    Results are cached, so parsing the same text twice costs a dictionary look-up.
    Every limit in ``limits`` is checked here, before anything is rolled.

    >>> parse("4d6kh3").root.keep
    (Keep(highest=True, drop=False, count=3),)
    >>> parse("3d-3 # punch").label
    'punch'

    Raises:
        DiceSyntaxError: the text is not valid notation (with its column).
        DiceLimitError: the text is valid but exceeds ``limits``.
    """
    return _parse_cached(text, limits)


@functools.lru_cache(maxsize=4096)
def _parse_cached(text: str, limits: Limits) -> Expression:
    if not isinstance(text, str):
        raise DiceSyntaxError(f"expected dice notation as text, got {type(text).__name__}")
    if len(text) > limits.length:
        raise DiceLimitError(
            f"the expression has {len(text):,} characters; the limit is {limits.length:,}",
            text[: limits.length],
            limits.length + 1,
        )
    breaks = [i for i, ch in enumerate(text) if ch in "\r\n"]
    if breaks:
        raise DiceSyntaxError(
            "an expression is one line: unexpected line break", text, breaks[0] + 1
        )
    # here, not at the top: 48 ms of start-up otherwise (issue 53)
    from lark.exceptions import LarkError

    try:
        parsed: tuple[Expression, _Part] = _lark().parse(text)  # type: ignore[assignment]
        expression, part = parsed
    except (DiceSyntaxError, DiceLimitError) as exc:
        raise _located(exc, text) from None
    except LarkError as exc:
        inner = getattr(exc, "orig_exc", None)
        if isinstance(inner, (DiceSyntaxError, DiceLimitError)):
            raise _located(inner, text) from None
        raise _translate(exc, text) from None
    # A bare number or die is depth 1; each parenthesis, sign or operator level adds one.
    if part.depth - 1 > limits.nesting:
        raise DiceLimitError(
            f"the expression nests {part.depth - 1} deep; the limit is {limits.nesting}",
            text,
            part.deep_column,
        )
    check_dice(expression.root, part.dice_columns, text, limits)
    return expression
