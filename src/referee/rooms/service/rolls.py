"""Rolling in a room, and what the epoch's seeds allow: a roll (as a sheet, ``@NAME``,
:func:`..rolling.tracked.made_as_sheet`), a reveal, a client seed, closing an epoch and
declassifying one. Each front end calls these; what a member may do is
:class:`.guardian.Guardian`'s."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...rng import RecordingSource
from ...stream import HmacStream
from ..audit.verify import engine
from ..db.store import Epoch, Member
from ..errors import ApiError
from ..log import outcome
from ..rolling.reading import room_limits
from ..rolling.tracked import made_as_sheet
from ..state import State
from .access import conflicts, writable
from .guardian import Guardian

if TYPE_CHECKING:
    from ...commands import Plan

__all__ = [
    "SEED",
    "VISIBILITIES",
    "add_seed",
    "close_epoch",
    "declassify",
    "normalise",
    "reveal_roll",
    "roll_entry",
    "roll_maker",
]

SEED = re.compile(r"[\x20-\x7e]{16,128}")
"""A client seed: 16 to 128 printable ASCII characters."""

VISIBILITIES = ("public", "gm", "blind")


def normalise(command: str) -> str:
    return " ".join(command.split())


def roll_maker(
    member: Member,
    read: tuple[str, Plan],
    visibility: str,
    as_sheet: tuple[str, str | None] | None = None,
    call: str | None = None,
    tracker: list[str] | None = None,
    bare: bool = False,
) -> Callable[[int, Epoch], dict[str, Any]]:
    """The function that rolls a command :func:`..rolling.reading.read_command` read,
    once its seq and epoch are known, on the epoch's stream for its visibility, and
    makes the fields of its ``roll`` entry. The plan keeps the room's caps. A roll that
    fails once its dice are drawn (it reaches the cap, say) is logged as a refused
    roll, its seq used up (:func:`..log.outcome`): its answer is a 201 like any roll's,
    so the status never tells of dice the log does not hold. It never raises.

    A roll made as a sheet gives ``as_sheet``: ``(the command as typed, the sheet's
    name)``; the plan is then its ``resolved`` command's, and the entry has both.
    A roll the server makes to answer a fight's call names it (``call``, contract
    v1.4: "a call is answered by its own roll").
    """
    shown, plan = read
    version = engine()

    def make(seq: int, epoch: Epoch) -> dict[str, Any]:
        assert epoch.mix is not None
        stream = HmacStream(
            epoch.seed(visibility), member.room, epoch.number, seq, member.id, epoch.mix
        )
        recorder = RecordingSource(stream)
        # Once a die is drawn the roll is logged, refused or not (contract v1.2):
        # never an error that would tell the roller of dice the log does not hold.
        result, text, refused = outcome(plan, recorder)
        fields = {
            "roller": member.id,
            "visibility": visibility,
            "epoch": epoch.number,
            "command": shown if as_sheet is None else as_sheet[0],
            "draws": [[n, v] for n, v in recorder.draws],
            "result": result,
            "text": text,
            "engine": version,
        }
        if refused is not None:
            fields["refused"] = refused
        if as_sheet is not None:  # a sheet's name; None for a roll naming only a target
            fields["resolved"] = shown
            if as_sheet[1] is not None:
                fields["sheet"] = as_sheet[1]
        if call is not None:
            fields["call"] = call
        if tracker is not None:  # the fight's modifiers on it, named (contract v1.4)
            fields["tracker"] = tracker
        if bare:  # the GM asked for it without the fight's modifiers (contract v1.5)
            fields["bare"] = True
        return fields

    return make


async def roll_entry(
    st: State,
    room: str,
    member: Member,
    command: str,
    visibility: str = "public",
    *,
    call_sheet: str | None = None,
    call: str | None = None,
    tracker: list[str] | None = None,
    bare: bool = False,
    typed: bool = True,
) -> dict[str, Any]:
    """Roll ``command`` in ``room`` as ``member`` and log it: the new entry, as the log
    holds it (every front end shows it through :func:`..log.view`).

    A roll made as a combatant's sheet while its fight is under way takes the fight's
    modifiers and names them in ``tracker`` (issue 72 §3), unless the caller gives
    ``tracker`` (the Fight panel's attack, which put them on itself) or asks for a
    ``bare`` roll: the GM's alone, logged with ``"bare": true`` (contract v1.5). The
    server's own rolls whose commands carry the state already (a defense call's
    choice, checked by ``referee verify`` through its call) pass ``typed=False``.

    The sheet it is made as, and what that changes, are
    :func:`..rolling.tracked.made_as_sheet`'s (``call_sheet``: a fight call's; ``call``:
    the id of the call this roll is made to answer, logged with it, contract v1.4;
    ``tracker``: the modifiers the fight's state put on it, named: ``["shock -3"]``)."""
    await writable(st, room)
    if visibility not in VISIBILITIES:
        raise ApiError(422, f"a roll is public, gm or blind, not {visibility[:20]!r}")
    command = normalise(command)
    if len(command) > st.limits.command:
        raise ApiError(422, f"the command is over {st.limits.command:,} characters")
    if not command:
        raise ApiError(422, "the command is empty: type a roll such as 3d6+2")
    if bare and not member.is_gm:
        raise ApiError(403, "only the GM asks for a bare roll in a fight (contract v1.5)")
    made_as, command, visibility, state = await made_as_sheet(
        st, room, member, command, visibility, call_sheet, room_limits(st.limits.draws),
        tracked=typed and tracker is None and not bare,
    )  # fmt: skip
    read = await st.plans.read(command, st.limits.draws, st.limits.read_seconds)
    make = roll_maker(member, read, visibility, made_as, call,
                      tracker if tracker is not None else state, bare)  # fmt: skip
    entry = await st.append(room, "roll", make)
    st.charge(member, len(entry["draws"]) / st.limits.draws_per_request)
    return entry


async def reveal_roll(
    st: State, room: str, member: Member, seq: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The GM reveals the secret roll ``seq``: ``(the reveal entry, the roll's entry)``.

    Raises:
        ApiError: 409 for an archived room or a roll revealed already, 403 for a
            player, 422 for a seq that is no secret roll.
    """
    await writable(st, room)
    Guardian(member).ensure_gm("reveals")
    target = await st.store.entry(room, seq)
    if target is None or target["kind"] != "roll" or target["visibility"] == "public":
        raise ApiError(422, f"seq {seq} is not a secret roll")
    if seq in await st.revealed(room):
        raise ApiError(409, f"seq {seq} is revealed already")
    return await st.append(room, "reveal", {"of": seq}), target


async def add_seed(st: State, room: str, member: Member, seed: str) -> list[dict[str, Any]]:
    """A player's client seed for the next epoch (contract v1.2): the entries it made,
    an automatic close and a new epoch perhaps first, each published.

    Raises:
        ApiError: 409 archived, 403 for the GM, 422 for a malformed seed.
    """
    await writable(st, room)
    Guardian(member).ensure_player("send client seeds")
    if not SEED.fullmatch(seed):
        raise ApiError(422, "a client seed is 16 to 128 printable ASCII characters")
    made = await conflicts(st.store.add_seed(room, member.id, seed))
    for entry in made:
        st.published(room, entry)
    return made


async def close_epoch(
    st: State, room: str, member: Member, declassify_seed: bool
) -> list[dict[str, Any]]:
    """The GM closes the epoch (and, asked, declassifies its secret seed)."""
    await writable(st, room)
    Guardian(member).ensure_gm("closes an epoch")
    made = await st.store.close_epoch(room, declassify_seed)
    for entry in made:
        st.published(room, entry)
    return made


async def declassify(st: State, room: str, member: Member, epoch: int) -> dict[str, Any]:
    """The GM publishes a closed epoch's secret seed."""
    await writable(st, room)
    Guardian(member).ensure_gm("declassifies")
    entry = await conflicts(st.store.declassify(room, epoch))
    st.published(room, entry)
    return entry
