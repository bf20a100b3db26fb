"""Two servers' stores on one PostgreSQL (:mod:`referee.rooms.db.heads`): a server that
reads the other's entries moves on the heads it remembers (``Store.learned``), so its
next batch in that room is still one statement; a head moved on wrongly only costs a
miss, and the log stays gapless and chained whatever the order of the writes."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from referee.rooms.db.epochs import Epoch
from referee.rooms.db.store import Store
from referee.rooms.log import GENESIS, chain_link, digest
from rooms_server import fresh_db


@pytest.fixture
def db(postgres: str, tmp_path: Path) -> str:
    return fresh_db(postgres, tmp_path)


@pytest.fixture
async def pair(db: str) -> AsyncIterator[tuple[Store, Store]]:
    a, b = await Store.open(db), await Store.open(db)
    try:
        yield a, b
    finally:
        await a.close()
        await b.close()


def _roll(seq: int, epoch: Epoch) -> Mapping[str, Any]:
    return {"roller": "gm", "visibility": "public", "epoch": epoch.number, "command": "3d6"}


class Counted:
    """How many batches of a store went the transaction's way (not one statement)."""

    def __init__(self, store: Store) -> None:
        self.n = 0
        inner = store._append_many

        async def counting(*args: Any, **kwargs: Any) -> Any:
            self.n += 1
            return await inner(*args, **kwargs)

        store._append_many = counting  # type: ignore[method-assign]


async def _log(store: Store, room: str) -> list[dict[str, Any]]:
    return await store.entries(room, -1, 10_000)


async def test_a_server_that_reads_the_others_rolls_writes_next_in_one_statement(
    pair: tuple[Store, Store],
) -> None:
    a, b = pair
    room, *_ = await a.create_room("Heads", None)
    await b.append(room, "roll", _roll)  # b's first roll (writes the lock): b knows the head
    assert room in b.heads
    made = [await a.append(room, "roll", _roll) for _ in range(3)]  # a moves the room on
    assert b.heads[room].seq == made[0]["seq"]  # b's head is stale by three rolls
    b.learned(made)  # as b's news reader gives them
    assert b.heads[room].seq == made[-1]["seq"] + 1
    assert b.heads[room].chain == made[-1]["chain"]
    slow = Counted(b)
    again = await b.append(room, "roll", _roll)
    assert slow.n == 0 and again["seq"] == made[-1]["seq"] + 1  # one statement
    assert b.heads[room].seq == again["seq"] + 1


async def test_other_entries_and_gaps_forget_the_head(pair: tuple[Store, Store]) -> None:
    a, b = pair
    room, *_ = await a.create_room("Forget", None)
    await b.append(room, "roll", _roll)
    seq = b.heads[room].seq
    b.learned([{"room": room, "seq": seq + 1, "kind": "roll", "epoch": 1, "chain": "x"}])
    assert room not in b.heads  # a gap: an entry not seen
    await b.append(room, "roll", _roll)
    seq = b.heads[room].seq
    b.learned([{"room": room, "seq": seq, "kind": "epoch", "chain": "x"}])
    assert room not in b.heads  # not a roll: the room may have changed otherwise
    await b.append(room, "roll", _roll)
    seq = b.heads[room].seq
    b.learned([{"room": room, "seq": seq, "kind": "roll", "epoch": 2, "chain": "x"}])
    assert room not in b.heads  # a roll of another epoch
    await b.append(room, "roll", _roll)
    head = b.heads[room]
    b.learned([{"room": room, "seq": head.seq - 1, "kind": "epoch", "chain": "x"}])
    assert b.heads[room] == head  # old news: already counted


async def test_a_wrong_head_is_a_miss_and_the_log_stays_whole(pair: tuple[Store, Store]) -> None:
    a, b = pair
    room, *_ = await a.create_room("Wrong", None)
    await b.append(room, "roll", _roll)
    seq = b.heads[room].seq
    # b is told of a roll at its head that is not in the log (a wrong chain link)...
    b.learned([{"room": room, "seq": seq, "kind": "roll", "epoch": 1, "chain": "0" * 64}])
    assert b.heads[room].seq == seq + 1
    slow = Counted(b)
    got = await b.append(room, "roll", _roll)  # ...the statement misses, the batch retries
    assert slow.n == 1 and got["seq"] == seq
    assert b.heads[room].seq == seq + 1


async def test_two_stores_writing_one_room_at_random_keep_the_chain(
    pair: tuple[Store, Store],
) -> None:
    a, b = pair
    room, *_ = await a.create_room("Both", None)
    pick = random.Random(30)
    for _ in range(120):
        writer, reader = pick.sample([a, b], 2)
        made = await writer.append(room, "roll", _roll)
        if pick.random() < 0.8:  # most news arrives; some is late or lost
            reader.learned([made])
    log = await _log(a, room)
    assert [e["seq"] for e in log] == list(range(len(log)))
    link = GENESIS
    for entry in log:
        body = {k: v for k, v in entry.items() if k != "chain"}
        link = chain_link(link, digest(body))
        assert entry["chain"] == link
