"""One simulation for ``/gurps simulate`` or ``/swn simulate``, in a process of its own
(``python -m referee.rooms.discord.fight``), so that the bot can stop it at once: on
Ctrl-C, or past its time, the process is killed, where a worker thread would have held
the bot's exit until its fights were done (86.8 s for one, before).

It reads one JSON object on standard input (``system``, ``text``, ``where``, ``runs``)
and writes one on standard output: ``{"text": ...}``, the simulation as the CLI prints
it, or ``{"error": ...}``, why the encounter was refused. The encounter is read
within the bounds of every file a user sends (:mod:`referee.untrusted`).
"""

from __future__ import annotations

import json
import sys
from typing import Any

__all__ = ["MAX_ROUNDS", "fight", "main"]

MAX_ROUNDS = 200
"""The most rounds an encounter's fights may last here (its ``max_rounds``): with
:data:`..service.odds.MAX_RUNS` and at most 64 combatants, the bound on one request's
work."""


def fight(system: str, text: str, where: str, runs: int) -> str:
    """The simulation's text (as the CLI prints it).

    Raises:
        RefereeError: the encounter refused (a bound, its TOML, its fields).
    """
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
    from ...systems.swn.encounter import encounter_from_data, encounter_toml
    from ...systems.swn.simulate import simulate as swn_run

    senc = encounter_from_data(encounter_toml(text, where), text, where)
    bounded(senc.max_rounds)
    return str(swn_json(swn_run(senc, runs))["text"])


def main() -> None:
    from ...errors import RefereeError

    asked: dict[str, Any] = json.loads(sys.stdin.buffer.read(1024 * 1024))
    try:
        said = {"text": fight(asked["system"], asked["text"], asked["where"], asked["runs"])}
    except RefereeError as exc:
        said = {"error": str(exc)}
    sys.stdout.write(json.dumps(said))


if __name__ == "__main__":
    main()
