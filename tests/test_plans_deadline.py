"""A command's reading is timed by its thread's CPU time, not the clock (CI's busy
hour): a reading that waits (here it sleeps, as a niced thread waits behind other
processes) is not refused for it; one that computes past the budget is, and its
command from then on; one still unread after WALL times the budget is refused too."""

from __future__ import annotations

import asyncio
import time

import pytest

from referee.commands import Plan
from referee.rooms.errors import ApiError
from referee.rooms.rolling.plans import WALL, Plans
from referee.rooms.rolling.reading import read_command


def _waits(command: str, most: int) -> tuple[str, Plan]:
    time.sleep(0.3)  # the clock runs; the thread's CPU time does not
    return read_command("3d6", most)


def _computes(command: str, most: int) -> tuple[str, Plan]:
    end = time.thread_time() + 0.3
    while time.thread_time() < end:
        pass
    return read_command("3d6", most)


def _hangs(command: str, most: int) -> tuple[str, Plan]:
    time.sleep(WALL * 0.1 + 0.5)
    return read_command("3d6", most)


@pytest.mark.alone  # timed: CPU time against a budget, beside no other worker
def test_the_budget_is_cpu_time_not_the_clock() -> None:
    read_command("3d6", 100)  # warm: the engine's imports are a first reading's CPU time

    async def main() -> None:
        assert (await Plans(reader=_waits).read("3d6", 100, 0.1))[0]
        computes = Plans(reader=_computes)
        for _ in range(2):  # refused, then refused at once as a known slow command
            with pytest.raises(ApiError, match="took over 0.1 s"):
                await computes.read("3d6", 100, 0.1)
        with pytest.raises(ApiError, match="took over 0.1 s"):
            await Plans(reader=_hangs).read("3d6", 100, 0.1)

    asyncio.run(main())
