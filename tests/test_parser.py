"""Grammar, AST, canonical formatting and limits."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from abuse import ABUSE
from referee import (
    DiceLimitError,
    DiceSyntaxError,
    Limits,
    RefereeError,
    format_expr,
    parse,
    roll,
    seeded,
)
from referee.ast import (
    FUDGE,
    AnyOf,
    Arith,
    Compare,
    CompareOp,
    Dice,
    Explode,
    ExplodeMode,
    Func,
    Group,
    Keep,
    Literal,
    Neg,
    Reroll,
)
from referee.limits import keep_problem


@pytest.mark.parametrize(
    ("text", "node"),
    [
        ("3d6", Dice(3, 6)),
        ("d20", Dice(1, 20)),
        ("d%", Dice(1, 100)),
        ("3d", Dice(3, 6)),
        ("d", Dice(1, 6)),
        ("4dF", Dice(4, FUDGE)),
        ("dF", Dice(1, FUDGE)),
        ("4d6kh3", Dice(4, 6, keep=(Keep(True, False, 3),))),
        ("4d6k3", Dice(4, 6, keep=(Keep(True, False, 3),))),
        ("4d6kl1", Dice(4, 6, keep=(Keep(False, False, 1),))),
        ("4d6dh1", Dice(4, 6, keep=(Keep(True, True, 1),))),
        ("4d6dl1", Dice(4, 6, keep=(Keep(False, True, 1),))),
        ("d6!", Dice(1, 6, explode=Explode(None))),
        ("d10!>=9", Dice(1, 10, explode=Explode(Compare(CompareOp.GE, 9)))),
        ("d20r1", Dice(1, 20, reroll=Reroll(Compare(CompareOp.EQ, 1), False))),
        ("d20r<3", Dice(1, 20, reroll=Reroll(Compare(CompareOp.LT, 3), False))),
        ("d20ro1", Dice(1, 20, reroll=Reroll(Compare(CompareOp.EQ, 1), True))),
        ("6d10>=8", Dice(6, 10, success=Compare(CompareOp.GE, 8))),
    ],
)
def test_notation(text: str, node: Dice) -> None:
    assert parse(text).root == node


def test_gurps_dice_adds() -> None:
    assert parse("3d-3").root == Arith(Dice(3, 6), (("-", Literal(3)),))
    assert parse("2d+1").root == Arith(Dice(2, 6), (("+", Literal(1)),))


def test_label_and_arithmetic() -> None:
    e = parse("1d20+5 # attack")
    assert e.label == "attack"
    assert parse("-(1+2)*3").root == Arith(
        Neg(Arith(Literal(1), (("+", Literal(2)),))), (("*", Literal(3)),)
    )
    # Parenthesised chains stay nested; plain chains are flat.
    assert parse("(1+2)+3") != parse("1+2+3")
    assert parse("d6!-1").root == Arith(Dice(1, 6, explode=Explode(None)), (("-", Literal(1)),))


@pytest.mark.parametrize(
    ("text", "column", "fragment"),
    [
        ("3d6x", 4, "unexpected character 'x'"),
        ("3d6 +", 6, "ends too soon"),
        ("", 1, "empty"),
        ("k3", 1, "unexpected 'k3'"),
        ("1d6 + (2d6kh3)", 8, "keeps 3 of only 2"),
        ("d6r<7", 1, "rerolls every face"),
        ("d6!>=1", 1, "explodes on every face"),
        ("4d6dh1dl1dl3", 1, "dl3 drops 3 of only 2 dice"),
        ("3d6kh2dl2", 1, "dl2 keeps no dice"),
        ("{1d6, 1d8}!", 11, "acts on dice, not on a group"),
        ("{1d6, 1d8}kh3", 1, "kh3 keeps 3 of only 2 sub-rolls"),
        ("{5d6!!}!", 8, "second explode modifier '!' (the pool in braces has one"),
        ("1 + floor(1d6, 2)", 16, "floor takes one argument, not 2"),
        ("{1d6, }", 7, "unexpected '}'"),
        ("max()", 5, "unexpected ')'"),
        ("floor 7", 7, "unexpected '7'; expected '('"),
        ("2*)", 3, "unexpected ')'"),
    ],
)
def test_syntax_errors_name_the_column(text: str, column: int, fragment: str) -> None:
    with pytest.raises(DiceSyntaxError) as info:
        parse(text)
    assert info.value.column == column
    assert fragment in str(info.value)
    assert info.value.caret().splitlines()[-1] == " " * (column - 1) + "^"


@pytest.mark.parametrize(("text", "fragment"), ABUSE)
def test_limits_refused_before_work(text: str, fragment: str) -> None:
    with pytest.raises(DiceLimitError, match=fragment):
        parse(text)


def test_dice_may_both_reroll_and_explode() -> None:
    # Issue 10: r is exact rejection, so the bound counts explosions (101 rolls a die)
    # times the expected draws of a d6r1 (6/5, rounded up to 2).
    assert parse("d6r1!").root == Dice(1, 6, reroll=Reroll(Compare(CompareOp.EQ, 1), False),
                                       explode=Explode(None))  # fmt: skip
    parse("20d6r1!")
    with pytest.raises(DiceLimitError, match="could roll 20,200 dice"):
        parse("100d6r1!")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("3d6f1", "a success target must come first"),
        ("2d6r1ro2", "mixes ro with r"),
        ("3d6>3f<2f1", "second failure modifier"),
        ("4d6sasd", "second sort modifier"),
    ],
)
def test_new_modifiers_refuse_what_means_nothing(text: str, fragment: str) -> None:
    with pytest.raises(DiceSyntaxError, match=fragment):
        parse(text)


def test_custom_limits() -> None:
    with pytest.raises(DiceLimitError):
        parse("20d6", Limits(dice=10))
    assert parse("(((1)))", Limits(nesting=3)).root == Literal(1)
    with pytest.raises(DiceLimitError, match="nests 3 deep; the limit is 2"):
        parse("(((1)))", Limits(nesting=2))


def test_nesting_limit_is_exactly_as_documented() -> None:
    assert parse("(" * 50 + "1" + ")" * 50).root == Literal(1)  # 50 deep: allowed
    assert parse("-" * 50 + "1").root is not None


def test_modifiers_are_case_insensitive_like_the_d() -> None:
    assert parse("3D6KH2").root == parse("3d6kh2").root
    assert parse("4d6DL1").root == parse("4d6dl1").root
    assert parse("d20RO<3").root == parse("d20ro<3").root


def test_line_breaks_are_refused_with_their_column() -> None:
    with pytest.raises(DiceSyntaxError, match="one line") as err:
        parse("d6\n+2")
    assert err.value.column == 3


def test_an_empty_label_is_no_label() -> None:
    assert parse("d6 # ").label is None
    assert roll("d6 # ", rng=seeded(1)).text == "d6 = [2] = 2"


# ---------------------------------------------------------- round trip

conds = st.builds(Compare, st.sampled_from(list(CompareOp)), st.integers(-1, 12))


@st.composite
def dice_nodes(draw: st.DrawFn) -> Dice:
    sides = draw(st.sampled_from([FUDGE, 1, 2, 4, 6, 10, 20, 100]))
    count = draw(st.integers(0, 5))
    faces = (-1, 0, 1) if sides == FUDGE else tuple(range(1, sides + 1))

    def some_not_all(cond: Compare | AnyOf | None) -> bool:  # what the parser accepts
        return cond is None or (any(map(cond.test, faces)) and not all(map(cond.test, faces)))

    several = st.lists(conds, min_size=2, max_size=3).map(lambda cs: AnyOf(tuple(cs)))
    reroll = draw(st.none() | st.builds(Reroll, conds | several, st.booleans()))
    if reroll is not None and not some_not_all(reroll.cond):
        reroll = None
    modes = st.sampled_from(list(ExplodeMode))
    explode = draw(st.none() | st.builds(Explode, st.none() | conds, modes))
    if not some_not_all(Dice(count, sides, explode=explode).explode_cond):
        explode = None
    rules = st.builds(Keep, st.booleans(), st.booleans(), st.integers(0, count))
    keep = tuple(draw(st.lists(rules, max_size=2)))
    grows = explode is not None and Dice(count, sides, explode=explode).adds_dice
    if keep_problem(keep, count, grows=grows) is not None:
        keep = ()
    success = draw(st.none() | conds)
    if success is not None and not any(map(success.test, faces)):
        success = None
    failure = draw(st.none() | conds) if success is not None else None
    marks = draw(st.tuples(st.none() | conds, st.none() | conds))
    sort = draw(st.sampled_from([None, "a", "d"]))
    return Dice(
        count, sides, reroll=reroll, explode=explode, keep=keep, success=success,
        failure=failure, crit_success=marks[0], crit_failure=marks[1], sort=sort,
    )  # fmt: skip


def _arith(children: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    additive = st.tuples(st.sampled_from("+-"), children)
    multiplicative = st.tuples(st.sampled_from("*/"), children)
    return (
        st.builds(Neg, children)
        | st.builds(Arith, children, st.lists(additive, min_size=1, max_size=3).map(tuple))
        | st.builds(Arith, children, st.lists(multiplicative, min_size=1, max_size=3).map(tuple))
    )


@st.composite
def _group(draw: st.DrawFn, children: st.SearchStrategy[object]) -> Group:
    items = tuple(draw(st.lists(children, min_size=1, max_size=3)))
    if len(items) == 1 and isinstance(items[0], Dice):  # braces around one pool fold away
        items = (*items, Literal(1))
    rules = st.builds(Keep, st.booleans(), st.booleans(), st.integers(0, len(items)))
    keep = tuple(draw(st.lists(rules, max_size=2)))
    if keep_problem(keep, len(items)) is not None:
        keep = ()
    success = draw(st.none() | conds)
    failure = draw(st.none() | conds) if success is not None else None
    return Group(items, keep, success, failure)  # type: ignore[arg-type]


def _containers(children: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    one = st.builds(
        lambda n, a: Func(n, (a,)), st.sampled_from(["floor", "ceil", "round", "abs"]), children
    )
    many = st.builds(
        lambda n, a: Func(n, tuple(a)), st.sampled_from(["min", "max"]),
        st.lists(children, min_size=1, max_size=3),
    )  # fmt: skip
    return _arith(children) | _group(children) | one | many


nodes = st.recursive(
    st.builds(Literal, st.integers(0, 1000)) | dice_nodes(), _containers, max_leaves=8
)


@given(nodes)
def test_round_trip(node: object) -> None:
    assert isinstance(node, (Literal, Dice, Neg, Arith, Group, Func))
    text = format_expr(node)
    # Generous limits: the round trip is about notation, not about work.
    assert parse(text, Limits(dice=10**9)).root == node


@given(st.text(max_size=60))
def test_fuzz_random_text(text: str) -> None:
    try:
        parse(text)
    except RefereeError:
        pass


@given(st.text(alphabet="0123456789dDkhlrFo!<>=+-*/()% #%{},fcsa", max_size=80))
def test_fuzz_grammar_shaped_text(text: str) -> None:
    from referee import odds, roll, seeded

    try:
        parse(text)
    except RefereeError:
        return
    try:
        roll(text, rng=seeded(1))
        odds(text, Limits(odds_work=200_000))
    except RefereeError:
        pass


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("d6!7", "no face (1 to 6) can explode"),
        ("d6r0", "no face (1 to 6) can reroll"),
        ("d6>=7", "no face (1 to 6) can count as a success"),
        ("dF!2", "no face (-1 to 1) can explode"),
        ("4d6kh0", "keeps no dice"),
    ],
)
def test_conditions_that_can_never_match_are_refused(text: str, fragment: str) -> None:
    with pytest.raises(DiceSyntaxError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        parse(text)


@given(
    st.sampled_from(["=", "<", "<=", ">", ">="]),
    st.integers(-3, 25),
    st.lists(st.tuples(st.sampled_from(["=", "<", "<=", ">", ">="]), st.integers(-3, 25))),
    st.integers(-1, 20),
)
def test_counting_faces_that_match_agrees_with_testing_each(
    op: str, value: int, more: list[tuple[str, int]], sides: int
) -> None:
    from referee.ast import AnyOf, Compare, CompareOp

    one = Compare(CompareOp(op), value)
    several = AnyOf((one, *(Compare(CompareOp(o), v) for o, v in more)))
    lo, hi = (-1, 1) if sides <= 0 else (1, sides)
    for cond in (one, several):
        assert cond.count(lo, hi) == sum(1 for f in range(lo, hi + 1) if cond.test(f))


def test_limits_on_a_million_faces_are_counted_not_tested() -> None:
    from referee import DiceLimitError

    for text, words in (
        ("d1000000r<999999", "could roll 500,000 dice"),
        ("1000d1000000!>999999", "could roll 101,000 dice"),
        ("d1000000r>1", "could roll 1,000,000 dice"),
    ):
        with pytest.raises(DiceLimitError, match=words):
            parse(text)
    with pytest.raises(DiceSyntaxError, match="rerolls every face"):
        parse("d1000000r>0")
