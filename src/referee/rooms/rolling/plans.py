"""Rolling commands already read, and the reading of new ones off the event loop."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import ApiError
from .reading import read_command

if TYPE_CHECKING:
    from ...commands import Plan

__all__ = ["Plans"]


class Plans:
    """Rolling commands already read, by their text: ``(normalised command, plan)``.

    Reading a command (the command layer's parser, then a dry run on a seeded source
    that refuses an oversized roll before any lock is taken) costs far more than
    rolling it, and a table rolls the same few commands again and again. A plan is
    a pure function of its random source, so one plan serves every roll of its
    command. Commands that fail to read are not kept: they fail again, the same way.
    """

    SLOW = (
        "this command took over {:g} s to read (its exact odds): a room refuses it, "
        "so that one roll never holds up the table; try fewer or smaller dice"
    )

    def __init__(
        self,
        most: int = 4096,
        readers: int = 2,
        reader: Callable[[str, int], tuple[str, Plan]] | None = None,
    ) -> None:
        self.most = most
        self.reader = reader
        """How a command is read (:func:`.reading.read_command`, a rolling one, unless
        another is given: the Discord front end reads odds with :func:`.reading.read_odds`)."""
        self._plans: OrderedDict[tuple[str, int], tuple[str, Plan]] = OrderedDict()
        self._slow: OrderedDict[str, None] = OrderedDict()
        """Commands whose reading passed the deadline: refused at once from then on."""
        self._readers = asyncio.Semaphore(readers)
        """Worker threads reading new commands at once, at most: slow ones never pile up."""

    async def read(self, command: str, most_draws: int, seconds: float) -> tuple[str, Plan]:
        """The plan of ``command``: kept, or read (:func:`.api.read_command`: parsed, its
        exact odds computed, a dry run) in a worker thread, never on the event loop.
        A reading that takes over ``seconds`` of its thread's CPU time is refused (422),
        and so is its command from then on; so is one still unread after
        :data:`WALL` × ``seconds`` on the clock. CPU time, not the clock, decides, so
        that a busy machine (its reader thread is niced, and other processes run
        first) never refuses a cheap command: 300 new ``roll 1d6`` at once, each read
        in a millisecond, were refused under load when the clock decided. The
        thread holds one of the readers' places until it ends, so slow commands wait
        for each other, never the loop or the rolls of commands already read. (The
        engine's budgets end every reading; this bounds the wait.)

        Raises:
            ApiError: 422 for a bad command, or one slower to read than ``seconds``.
        """
        found = self.get(command, most_draws)
        if found is not None:
            return found
        if command in self._slow:
            raise ApiError(422, self.SLOW.format(seconds))

        await self._readers.acquire()
        work = asyncio.get_running_loop().run_in_executor(
            None, _at_low_priority, self.reader or read_command, command, most_draws
        )
        work.add_done_callback(self._read_done)
        try:
            read, cpu = await asyncio.wait_for(asyncio.shield(work), WALL * seconds)
        except TimeoutError:
            cpu = float("inf")
        if cpu > seconds:
            self._slow[command] = None
            if len(self._slow) > self.most:
                self._slow.popitem(last=False)
            raise ApiError(422, self.SLOW.format(seconds))
        self.put(command, most_draws, read)
        return read

    def _read_done(self, work: asyncio.Future[tuple[tuple[str, Plan], float]]) -> None:
        self._readers.release()
        if not work.cancelled():
            work.exception()  # retrieved: a late refusal is not "never retrieved"

    def get(self, command: str, most_draws: int) -> tuple[str, Plan] | None:
        key = (command, most_draws)
        found = self._plans.get(key)
        if found is not None:
            self._plans.move_to_end(key)
        return found

    def put(self, command: str, most_draws: int, read: tuple[str, Plan]) -> None:
        self._plans[(command, most_draws)] = read
        if len(self._plans) > self.most:
            self._plans.popitem(last=False)


def _at_low_priority(
    read: Callable[[str, int], tuple[str, Plan]], command: str, most_draws: int
) -> tuple[tuple[str, Plan], float]:
    """Read a command in this worker thread at a lower CPU priority than the event
    loop's (Linux nices one thread by its id), so that the rolls of commands already
    read come first; elsewhere, at the thread's priority. With the reading's CPU time
    in this thread, in seconds."""
    try:
        tid = threading.get_native_id()
        if os.getpriority(os.PRIO_PROCESS, tid) < READER_NICE:
            os.setpriority(os.PRIO_PROCESS, tid, READER_NICE)
    except (AttributeError, OSError):  # not Linux, or not allowed: read all the same
        pass
    began = time.thread_time()
    return read(command, most_draws), time.thread_time() - began


READER_NICE = 10
"""The niceness of a thread that reads commands (the loop's stays at the process's)."""
WALL = 10
"""A reading still unread after this many times its CPU budget, on the clock, is
refused all the same: the wait is bounded even on a machine that starves it."""
