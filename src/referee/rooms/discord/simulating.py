"""``/gurps simulate`` and ``/swn simulate`` (issue 68 §4): an encounter file attached,
fought many times (at most :data:`..service.odds.MAX_RUNS`); the answer is ephemeral,
the asker's alone, and nothing is rolled in any room (the fights draw from the
server's own secure source). An encounter's sheets are the shipped ones
(``example:NAME``) or numbers inline: no file is read on the server.

The attachment is checked before a byte is fetched (its host, its size, that it is
text: :func:`.attachments.refuse_unless_text`), read within the bounds of every file a
user sends, and fought in a process of its own (:mod:`.fight`), at most
:data:`AT_ONCE` at a time: Ctrl-C, or :data:`FIGHT_SECONDS`, kills it at once, and
the asker is told their simulation was abandoned."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..service.odds import MAX_RUNS
from .attachments import refuse_unless_text
from .calls import Call, Done, Refusal
from .fight import MAX_ROUNDS
from .replies import note
from .slash import option_values
from .slash import shown_value as _shown

if TYPE_CHECKING:
    from .interactions import Discord

__all__ = ["AT_ONCE", "MAX_ENCOUNTER", "MAX_ROUNDS", "asks_simulation", "simulate"]

log = logging.getLogger(__name__)

MAX_ENCOUNTER = 256 * 1024
"""An attached encounter's largest file (256 KiB)."""
RUNS = 10_000
"""The fights when ``runs`` is not given."""
OPTIONS = frozenset({"file", "runs"})
"""The options a simulation takes: any other (``seed``, say) is refused."""
AT_ONCE = 2
"""Simulations fought at once by one bot; the others wait their turn."""
FIGHT_SECONDS = 300.0
"""The longest one simulation may take (its process is killed then)."""
ABANDONED = (
    "⚠ The bot was stopped while your simulation ran: it was abandoned, and nothing "
    "came of it. Send it again when the bot is back."
)


def asks_simulation(data: Mapping[str, Any]) -> bool:
    """Whether an interaction is ``/gurps simulate`` or ``/swn simulate``."""
    options = list(data.get("options") or ())
    return (
        data.get("name") in ("gurps", "swn")
        and len(options) == 1
        and options[0].get("type") == 1
        and options[0].get("name") == "simulate"
    )


async def simulate(bot: Discord, call: Call) -> Done:
    """The options and the attachment checked (its host, its size, its type) and
    ``runs`` bounded before any byte is fetched; then the encounter read and fought
    in a process of its own."""
    given = {o.get("name"): o.get("value") for o in option_values(call.data)}
    unknown = sorted(str(k)[:40] for k in given if k not in OPTIONS)
    if unknown:
        raise Refusal(
            f"/{call.data['name']} simulate takes no option {unknown[0]!r}: "
            "only file and runs (the fights' seed is drawn on the server)"
        )
    runs = given.get("runs", RUNS)
    if not isinstance(runs, int) or isinstance(runs, bool) or not 1 <= runs <= MAX_RUNS:
        raise Refusal(f"runs {_shown(runs)} must be from 1 to {MAX_RUNS:,}")
    attachment_id = given.get("file")
    attachments = (call.data.get("resolved") or {}).get("attachments") or {}
    found = attachments.get(attachment_id) if isinstance(attachments, dict) else None
    if not isinstance(found, dict) or not isinstance(found.get("url"), str):
        raise Refusal("attach the encounter file: file:(an encounter .toml)")
    size = found.get("size")
    if not isinstance(size, int) or isinstance(size, bool) or not 0 <= size <= MAX_ENCOUNTER:
        raise Refusal("an encounter file is 256 KiB at most")
    refuse_unless_text(found)
    if not bot.rest.allowed(found["url"]):
        raise Refusal("the file is not on Discord's attachment hosts")
    body = await bot.rest.attachment(found["url"], MAX_ENCOUNTER)
    where = str(found.get("filename") or "encounter.toml")[:100]
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise Refusal(f"{where} is not UTF-8 text: an encounter is a TOML file") from None
    async with bot.fights:
        said = await _fought(bot, call, str(call.data["name"]), text, where, runs)
    if "error" in said:
        log.warning("referee discord: refused %s's encounter %r: %s", call.name, where,
                    said["error"][:300])  # fmt: skip
        raise Refusal(str(said["error"]))
    return Done(note(f"```\n{str(said['text'])[:1980]}\n```"))


async def _fought(
    bot: Discord, call: Call, system: str, text: str, where: str, runs: int
) -> dict[str, Any]:
    """What the fight's process said; it is killed if this is cancelled (Ctrl-C), and
    the asker told, or if it outlasts :data:`FIGHT_SECONDS`."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "referee.rooms.discord.fight",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    asked = json.dumps({"system": system, "text": text, "where": where, "runs": runs})
    try:
        async with asyncio.timeout(FIGHT_SECONDS):
            out, err = await process.communicate(asked.encode())
    except TimeoutError:
        raise Refusal(f"the simulation took over {FIGHT_SECONDS:g} s: ask for fewer runs") from None
    except asyncio.CancelledError:
        _kill(process)
        try:  # a deferred answer is waiting: say what became of it
            async with asyncio.timeout(2):
                await bot.rest.edit_original(call.application, call.token, note(ABANDONED))
        except Exception as exc:  # noqa: BLE001 - the bot is stopping: logged, no more
            log.warning("referee discord: could not tell %s their simulation stopped: %s",
                        call.name, exc)  # fmt: skip
        log.warning("referee discord: stopped %s's simulation of %r", call.name, where)
        raise
    finally:
        _kill(process)
    try:
        said: dict[str, Any] = json.loads(out[: 1024 * 1024])
    except ValueError:
        last = err.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
        log.warning("referee discord: a simulation failed: %s", last[0][:300])
        raise Refusal("the simulation failed (an internal error, logged on the server)") from None
    return said


def _kill(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        try:
            process.kill()
        except ProcessLookupError:
            pass
