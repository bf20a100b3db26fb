"""``/gurps simulate`` and ``/swn simulate`` (issue 68 §4): an encounter file attached,
fought many times (at most :data:`..service.odds.MAX_RUNS`), in a worker thread; the
answer is ephemeral, the asker's alone, and nothing is rolled in any room (the fights
draw from the server's own secure source). An encounter's sheets are the shipped ones
(``example:NAME``) or numbers inline: no file is read on the server."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..service.odds import MAX_RUNS
from .calls import Call, Done, Refusal
from .replies import note
from .slash import option_values
from .slash import shown_value as _shown

if TYPE_CHECKING:
    from .interactions import Discord

__all__ = ["MAX_ENCOUNTER", "asks_simulation", "simulate"]

MAX_ENCOUNTER = 256 * 1024
"""An attached encounter's largest file (256 KiB)."""
RUNS = 10_000
"""The fights when ``runs`` is not given."""
MAX_ROUNDS = 200
"""The most rounds an encounter's fights may last here (its ``max_rounds``): with
:data:`MAX_RUNS` and at most 64 combatants, the bound on one request's work."""


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
    """The attachment checked (its host, its size) and ``runs`` bounded before any byte
    is fetched; then the encounter read and fought in a worker thread."""
    given = {o.get("name"): o.get("value") for o in option_values(call.data)}
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
    if not bot.rest.allowed(found["url"]):
        raise Refusal("the file is not on Discord's attachment hosts")
    body = await bot.rest.attachment(found["url"], MAX_ENCOUNTER)
    text = body.decode("utf-8", errors="replace")
    where = str(found.get("filename") or "encounter.toml")[:100]
    system = call.data["name"]
    reply: str = await asyncio.to_thread(_fight, system, text, where, runs)
    return Done(note(f"```\n{reply[:1980]}\n```"))


def _fight(system: str, text: str, where: str, runs: int) -> str:
    """The simulation's text (as the CLI prints it)."""
    import tomllib

    from ...errors import RuleError

    def bounded(rounds: int) -> None:
        if rounds > MAX_ROUNDS:
            raise RuleError(f"{where}: max_rounds {rounds}: at most {MAX_ROUNDS} here")

    if system == "gurps":
        from ...commands.gurps_simulate import encounter_from_text, simulation_json
        from ...systems.gurps.simulate import simulate as run

        enc = encounter_from_text(text, where)
        bounded(enc.max_rounds)
        return str(simulation_json(run(enc, runs))["text"])
    from ...render.swn import simulation_json as swn_json
    from ...systems.swn.encounter import encounter_from_data
    from ...systems.swn.simulate import simulate as swn_run

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleError(f"{where}: not valid TOML: {exc}") from None
    senc = encounter_from_data(data, text, where)
    bounded(senc.max_rounds)
    return str(swn_json(swn_run(senc, runs))["text"])
