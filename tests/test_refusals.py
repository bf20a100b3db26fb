"""Issue 39 (2): a roll's answer never depends on dice the log does not hold.

The room's roll path is read (:func:`referee.rooms.routes.api.read_command`, before any
seq or draw) and then made (:func:`referee.rooms.routes.api.roll_maker`, on the epoch's
stream). A refusal may come only from the first, from the command alone; once a
die is drawn the roll is logged, refused or not. These tests drive both with many
server seeds, as many epochs of many rooms would, and check that the answer's
status and error text are the same for every seed.
"""

from __future__ import annotations

import secrets
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee import roll, seeded
from referee.bounds import largest, value_range, zero_divisor
from referee.parser import parse
from referee.rooms.db.store import Epoch, Member
from referee.rooms.errors import ApiError
from referee.rooms.log import check_digestible
from referee.rooms.rolling.reading import read_command
from referee.rooms.service import roll_maker

PLAYER = Member("room42", "p:alice", "Alice")

TRICKY = [
    "1d20*1000000000*1000000000",  # the review's preview: its total passes 2**53
    "1d2*1000000000*5000000",  # the blind roll whose status told the die
    "1d1000000*1d1000000*1d1000000",
    "10/(1d2-1)",  # a division by zero that depends on the die
    "roll floor(1d6/(1d3-2))",
    "33d6r<6 # try 0",  # rerolls that may pass the room's 200 dice, or not
    "1d6!",
    "{1d6*100000000,1d6*100000000}kh1*10000",
    "gurps check 14-4",
    "gurps damage 2d+1 --type cut --dr 3",
    "gurps reaction --mod 2",
    "fudge roll Good --vs Great",
    "swn save physical --level 2",
    "swn attack --bonus 2 --ac 13 --damage 1d8+1",
    "3d6+2",
]


def answer(command: str, server_seed: bytes, visibility: str = "public") -> tuple[int, str]:
    """What the route answers for ``command`` in an epoch of ``server_seed``: the
    status and the error text (empty for a 201), as :func:`.api.roll` makes them."""
    try:
        read = read_command(" ".join(command.split()))
    except ApiError as exc:
        return exc.status, str(exc)
    make = roll_maker(PLAYER, read, visibility)
    epoch = Epoch(1, server_seed, server_seed[::-1], "0" * 64)
    fields = make(7, epoch)  # never raises: a refusal after drawing is logged
    check_digestible(fields, "entry")
    if "refused" in fields:
        assert fields["result"] == {"refused": fields["refused"]}
        assert fields["draws"], "a logged refusal drew dice"
    return 201, ""


@pytest.mark.parametrize("command", TRICKY)
@pytest.mark.parametrize("visibility", ["public", "gm", "blind"])
def test_the_answer_is_the_same_for_every_seed(command: str, visibility: str) -> None:
    answers = {answer(command, secrets.token_bytes(32), visibility) for _ in range(40)}
    assert len(answers) == 1, answers


def test_the_previewed_roll_is_refused_before_any_draw() -> None:
    status, text = answer("1d20*1000000000*1000000000", b"\x00" * 32)
    assert status == 422 and "could reach 20,000,000,000,000,000,000" in text
    # The blind roll of the review: refused whatever the die, from the expression.
    assert answer("1d2*1000000000*5000000", b"\x01" * 32, "blind")[0] == 422


def test_a_refusal_after_drawing_is_logged_and_names_no_value() -> None:
    read = read_command("33d6r<6 # try 0")
    make = roll_maker(PLAYER, read, "blind")
    refused = [
        fields
        for fields in (
            make(7, Epoch(1, b"p" * 32, secrets.token_bytes(32), "0" * 64)) for _ in range(60)
        )  # fmt: skip
        if "refused" in fields
    ]
    assert refused, "33d6r<6 passes the room's 200 dice about half the time"
    for fields in refused:
        assert fields["refused"] == (
            "a command here may draw at most 200 dice; this one draws more"
        )
        assert len(fields["draws"]) == 200  # every draw made is in the entry
        assert fields["text"] == "refused: " + fields["refused"]


# --------------------------------------------------------------- the bounds


EXPRESSIONS = st.sampled_from(
    [
        "3d6",
        "4d6kh3-2",
        "2d6*3-1d4",
        "{4d6,3d8}kh1",
        "{2d6,1d20}>8",
        "4dF+1",
        "1d6!-3",
        "2d6!!",
        "3d6!p",
        "10d10>=8f1",
        "-(2d6)*-(1d4)",
        "max(1d6,1d8)*2",
        "abs(1d6-1d8)",
        "floor(2d6/3)",
        "round(1d20/3)*2",
        "20/1d4",
        "(2d6-12)/3",
        "{1d6,2d6,3d6}kl2",
    ]
)


@settings(max_examples=300)
@given(EXPRESSIONS, st.integers(0, 2**32))
def test_every_roll_falls_within_its_bounds(expr: str, seed: int) -> None:
    root = parse(expr).root
    bounds = value_range(root)
    assert bounds is not None
    total = roll(expr, rng=seeded(seed)).total
    assert bounds[0] <= Fraction(total) <= bounds[1], (expr, total, bounds)
    top = largest(root)
    assert top is not None and abs(total) <= top


def test_zero_divisors_are_found_from_the_expression() -> None:
    assert zero_divisor(parse("10/(1d2-1)").root) is not None
    assert zero_divisor(parse("10/4dF").root) is not None
    assert zero_divisor(parse("10/1d6").root) is None
    assert zero_divisor(parse("1d6/{1d6,2d6}kh1").root) is None


def test_the_bounds_are_tight_for_plain_pools() -> None:
    cases: dict[str, Any] = {"3d6": (3, 18), "4d6kh3": (3, 18), "4dF": (-4, 4), "2d6-7": (-5, 5)}
    for expr, (lo, hi) in cases.items():
        assert value_range(parse(expr).root) == (lo, hi), expr


def test_every_rolling_help_example_answers_alike_for_every_seed() -> None:
    """Every rolling command's help examples (the pinned set), as a room reads and
    rolls them, blind: one status and one error text over many server seeds."""
    from pinned import examples

    lines = examples()
    assert len(lines) > 30
    for line in lines:
        answers = {answer(line, secrets.token_bytes(32), "blind") for _ in range(8)}
        assert len(answers) == 1, (line, answers)
