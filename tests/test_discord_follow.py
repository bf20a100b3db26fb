"""The bot follows a fight changed elsewhere (the page) without losing a change: a
change that lands while the channel is being refreshed for an earlier one gets a
refresh of its own, read after it; changes that come together share one. A clean clone's
``make test`` failed so on 2026-11-29: the GM's attack from the page landed during the
refresh for her ``/fight next``, and Dai's defense prompt never reached the channel."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from discord_standin import TOKEN

ROOM, CHANNEL = "r-follow", "1500000000000000871"


async def _bot(tmp_path: Path) -> Any:
    from referee.rooms.db.store import Store, sqlite_url
    from referee.rooms.discord.config import DiscordConfig
    from referee.rooms.discord.interactions import Discord
    from referee.rooms.state import State

    store = await Store.open(sqlite_url(tmp_path / "rooms.sqlite3"))
    return store, Discord(State(store), DiscordConfig("", TOKEN, "http://127.0.0.1:9"))


async def _followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, during: int) -> list[int]:
    """Each refresh the bot makes, as the number of changes made before it read the
    fight; ``during`` more changes land in the middle of the first refresh."""
    from referee.rooms.discord import fightroom

    store, bot = await _bot(tmp_path)
    changes, reads = [0], []

    async def refresh(_bot: Any, channel: str, room: str) -> None:
        assert (channel, room) == (CHANNEL, ROOM)
        reads.append(changes[0])  # what this refresh read
        await asyncio.sleep(0.05)  # its posts to Discord
        if len(reads) == 1:
            for _ in range(during):  # a change lands after the read
                changes[0] += 1
                bot._fight_changed(ROOM)

    monkeypatch.setattr(fightroom, "refresh", refresh)
    try:
        bot.fight_desk.of(CHANNEL, ROOM)
        bot.fight_desk.of("1500000000000000872", "another room")
        for _ in range(3):  # three changes together: one refresh
            changes[0] += 1
            bot._fight_changed(ROOM)
        for _ in range(100):
            await asyncio.sleep(fightroom.COALESCE / 4)
            desk = bot.fight_desk.desks[CHANNEL]
            if desk.following is not None and desk.following.done():
                break
        assert bot.fight_desk.desks["1500000000000000872"].following is None
    finally:
        await bot.close()
        await store.close()
    return reads


@pytest.mark.parametrize("during", [0, 1, 2])
def test_a_change_during_a_refresh_gets_one_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, during: int
) -> None:
    """Three changes together are read by one refresh; changes that land while it runs
    (after its read) are read by one more, after them; none is left unread."""
    reads = asyncio.run(_followed(tmp_path, monkeypatch, during))
    assert reads == ([3] if during == 0 else [3, 3 + during]), reads
