"""A fight's button presses on Discord (issue 72 §4): what one press costs at the server,
through the gateway (``referee discord run``, the tests' gateway stand-in), beside a
``/roll 3d6`` interaction on the same bot, in one sitting.

A GURPS fight of Dai (her player, Alice) against an orc, both sturdy enough to last:
each turn, Alice's presses (her attack from the select, End turn, her defense when the
orc's attack reaches her) and the GM's (her NPC controls, the orc's attack); the GM's
``/fight next`` between them is not counted. Each press is timed from its dispatch to
the bot's answer (its ``POST .../callback`` to the REST stand-in), which includes the
work the press does before it answers: the fight service's rolls and writes, and the
channel's status and prompts posted to the stand-in. Target: p99 ≤ 50 ms.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from referee.rooms.db.store import sqlite_url

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from discord_standin import component, gateway_server, interaction, opts, stand_in, sub  # noqa: E402
from rooms_server import Server, make_table  # noqa: E402
from test_discord_fight import settle  # noqa: E402

TURNS = int(os.environ.get("TURNS", "60"))
GM, ALICE = "1400000000000000801", "1400000000000000802"
CHANNEL = "1500000000000000901"
DAI = (Path(__file__).resolve().parents[1] / "examples" / "sheets" / "dai.toml").read_bytes()
DAI = DAI.replace(b"dodge = 10", b"dodge = 10\nhp = 900")
ORC = b"""system = "gurps"
name = "Orc Raider"
hp = 900
dodge = 8
[attributes]
ST = 12
DX = 11
HT = 11
[skills]
Broadsword = 13
[[attacks]]
name = "Broadsword"
usage = "Swung"
level = 13
damage = "1d cut"
parry = "9"
"""


def _ids(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for row in message.get("components") or [] for i in row["components"]]


def main() -> None:
    print(f"== Discord: a fight's presses through the gateway, {TURNS} turns ==")
    with tempfile.TemporaryDirectory() as tmp, stand_in() as rest:
        db = sqlite_url(Path(tmp) / "fight.sqlite3")
        hosts = rest.base + "/attachments/"
        with gateway_server(db, rest, REFEREE_DISCORD_ATTACHMENT_HOSTS=hosts) as bot:
            table = make_table(Server(bot.base, ""))
            print(f"(the bot: pid {bot.pid})", flush=True)

            def ask(name: str, options: Any, user: str, **kw: Any) -> dict[str, Any]:
                got: dict[str, Any] = bot.send(
                    interaction(name, options, user=user, channel=CHANNEL, **kw)
                ).json()
                return got

            times: dict[str, list[float]] = {"roll": [], "attack": [], "end": [], "gm": [],
                                             "defense": []}  # fmt: skip

            def press(what: str, user: str, custom_id: str, values: Any = None,
                      message: Any = None) -> dict[str, Any]:  # fmt: skip
                sent = time.perf_counter()
                got: dict[str, Any] = bot.send(
                    component(custom_id, values, message=message, user=user, channel=CHANNEL)
                ).json()
                times[what].append(time.perf_counter() - sent)
                return got

            ask("referee", sub("link", room=table.room, token=table.tokens["gm"]), GM,
                permissions=str(1 << 4))  # fmt: skip
            for user, name, body in ((ALICE, "dai", DAI), (GM, "orc", ORC)):
                path = f"/attachments/{CHANNEL}/{name}.toml"
                rest.files[path] = body
                file = {"id": "9", "filename": f"{name}.toml", "size": len(body),
                        "url": rest.base + path}  # fmt: skip
                resolved = {"attachments": {"9": file}}
                ask("sheet", opts(file="9"), user, resolved=resolved)
            ask("fight", sub("add", sheet="@Dai-Blackthorn"), GM)
            ask("fight", sub("add", sheet="@Orc-Raider"), GM)
            ask("fight", sub("start"), GM)
            for _ in range(TURNS):
                settle(rest, 0.05)
                sent = time.perf_counter()
                ask("roll", opts(exprs="3d6"), ALICE)
                times["roll"].append(time.perf_counter() - sent)
                fight = table.fight("gm")
                for c in fight["calls"]:  # (the knockdown rolls and their like: not timed)
                    dismiss = {"event": {"kind": "dismiss", "call": c["call"]}}
                    with table.client("gm") as client:
                        client.post(f"/api/rooms/{table.room}/fight", json=dismiss)
                if fight["current"] == "Dai-Blackthorn":
                    posted = reversed(rest.posted(CHANNEL))
                    turn = next(m for m in posted if any(i["custom_id"].startswith("rf:end:")
                                                         for i in _ids(m)))  # fmt: skip
                    select = next(i for i in _ids(turn) if i["custom_id"].startswith("rf:att:"))
                    press(
                        "attack", ALICE, select["custom_id"], [select["options"][0]["value"]], turn
                    )
                    press("end", ALICE, "rf:end:Dai-Blackthorn", None, turn)
                    continue
                controls = press("gm", GM, "rf:gm")["data"]
                picks = [i for i in _ids(controls) if i["custom_id"].startswith("rf:att:")]
                if picks:
                    before = len(rest.posted(CHANNEL))
                    press("attack", GM, picks[0]["custom_id"], [picks[0]["options"][0]["value"]],
                          {**controls, "flags": 64})  # fmt: skip
                    settle(rest, 0.05)
                    for m in rest.posted(CHANNEL)[before:]:
                        found = [i for i in _ids(m) if i["custom_id"].startswith("rf:def:")]
                        if found:
                            press("defense", ALICE, found[0]["custom_id"], None, m)
                ask("fight", sub("next"), GM)
    every = [t for k, v in times.items() if k != "roll" for t in v]
    p99 = sorted(every)[max(0, int(0.99 * len(every)) - 1)]
    roll99 = sorted(times["roll"])[max(0, int(0.99 * len(times["roll"])) - 1)]
    print(f"{'press':<10} {'n':>5} {'p50':>9} {'p99':>9}")
    for what, got in times.items():
        if got:
            q = sorted(got)[max(0, int(0.99 * len(got)) - 1)]
            print(
                f"{what:<10} {len(got):>5} {statistics.median(got) * 1e3:>7.2f}ms {q * 1e3:>7.2f}ms"
            )
    print(
        f"every press: p99 {p99 * 1e3:.2f} ms ({p99 / roll99:.2f}x a /roll 3d6's p99); "
        f"target <= 50 ms  {'PASS' if p99 <= 0.05 else 'MISS'}"
    )


if __name__ == "__main__":
    main()
