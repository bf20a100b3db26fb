"""Discord (issue 50, §3): attachments that climb out of their host's prefix or trickle,
a removed member's ``/sheet``, replays after a restart or on another server, and
payloads Discord would never send."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from discord_standin import Bot, Signer, StandIn, another_server, interaction, opts, sub
from rooms_server import LOOPBACK_TLS, Server, fresh_db, make_table

GM, BOB = "1400000000000000701", "1400000000000000703"
CAN_MANAGE = str(1 << 4)


def dai() -> bytes:
    import referee.examples

    return (Path(referee.examples.__file__).parent / "sheets" / "dai.toml").read_bytes()


def attach(bot: Bot, url: str, size: Any, channel: str, user: str = GM) -> str:
    resolved = {"attachments": {"9": {"id": "9", "filename": "dai.toml", "size": size,
                                      "url": url}}}  # fmt: skip
    got = bot.ask("sheet", opts(file="9"), user=user, channel=channel, resolved=resolved)
    assert got["type"] == 4 and got["data"]["flags"] == 64, got
    content: str = got["data"]["content"]
    return content


def test_dot_segments_do_not_climb_out_of_the_prefix(bot: Bot, rest: StandIn) -> None:
    rest.files["/secret.txt"] = dai()  # outside /attachments/: never to be fetched
    channel = "1500000000000000701"
    for climb in ("..", "%2e%2e", "%2E%2e", ".%2e", "%252e%252e", "..%2f..", "x/../.."):
        before = list(rest.gets)
        url = f"{rest.base}/attachments/{climb}/secret.txt"
        said = attach(bot, url, 100, channel)
        assert "not on Discord's attachment hosts" in said, (climb, said)
        assert rest.gets == before, (climb, rest.gets[len(before) :])


@pytest.mark.alone  # timed: the answer within 2.5 s
def test_a_download_has_a_deadline_for_the_whole_file(
    discord_db: str, rest: StandIn, bot: Bot
) -> None:
    """A file trickled a byte at a time: refused once the download takes longer than
    REFEREE_DISCORD_ATTACHMENT_SECONDS (10 by default), whatever each read takes."""
    from referee.rooms.discord.rest import ATTACHMENT_SECONDS, Rest, RestError

    assert ATTACHMENT_SECONDS == 10
    rest.files["/attachments/4/slow.toml"] = dai()
    rest.trickled.add("/attachments/4/slow.toml")
    url = rest.base + "/attachments/4/slow.toml"

    async def fetch() -> None:
        client = Rest(attachment_hosts=[rest.base + "/attachments/"], attachment_seconds=0.5)
        try:
            await client.attachment(url, 2**20)
        finally:
            await client.close()

    started = time.monotonic()
    with pytest.raises(RestError, match="within 0.5 seconds"):
        asyncio.run(fetch())
    assert time.monotonic() - started < 3
    with another_server(discord_db, rest, transport=bot.transport,
                        REFEREE_DISCORD_ATTACHMENT_HOSTS=rest.base + "/attachments/",
                        REFEREE_DISCORD_ATTACHMENT_SECONDS="1") as quick:  # fmt: skip
        started = time.monotonic()
        said = attach(quick, url, 100, "1500000000000000702")
        assert "could not be fetched within 1 second" in said, said
        assert time.monotonic() - started < 2.5


def test_a_removed_members_sheet_is_refused_before_its_download(bot: Bot, rest: StandIn) -> None:
    channel = "1500000000000000703"
    table = make_table(Server(bot.base, ""))
    got = bot.ask("referee", sub("link", room=table.room, token=table.tokens["gm"]), user=GM,
                  channel=channel, permissions=CAN_MANAGE)  # fmt: skip
    assert "rolls into room" in got["data"]["content"], got
    bot.ask("roll", opts(exprs="3d6"), user=BOB, username="bobby", channel=channel)
    bob = next(x["member"] for x in table.log("gm") if x["kind"] == "join" and x["name"] == "Bobby")
    with table.client("gm") as c:
        assert c.delete(f"/api/rooms/{table.room}/members/{bob}").status_code in (200, 201)
    rest.files["/attachments/5/bob.toml"] = dai()
    said = attach(bot, rest.base + "/attachments/5/bob.toml", 100, channel, user=BOB)
    assert "no longer a member" in said, said
    assert "/attachments/5/bob.toml" not in rest.gets


def _raw(signer: Signer, payload: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
    body = json.dumps(payload).encode()
    return body, signer.headers(body)


def _post(base: str, body: bytes, headers: dict[str, str]) -> httpx.Response:
    with httpx.Client(base_url=base, timeout=30, verify=LOOPBACK_TLS) as c:
        return c.post("/discord/interactions", content=body, headers=headers)


def test_a_replay_is_refused_after_a_restart(db_url: str, rest: StandIn, http_bot: Bot) -> None:
    signer = Signer()
    body, headers = _raw(
        signer, interaction("roll", opts(exprs="3d6"), channel="1500000000000000704")
    )
    with another_server(db_url, rest, signer) as first:
        assert _post(first.base, body, headers).status_code == 200
    with another_server(db_url, rest, signer) as restarted:
        r = _post(restarted.base, body, headers)
        assert r.status_code == 401 and "replayed" in r.json()["error"], r.text
        fresh, its = _raw(
            signer, interaction("roll", opts(exprs="3d6"), channel="1500000000000000704")
        )
        assert _post(restarted.base, fresh, its).status_code == 200  # a new one is taken


def test_a_replay_to_another_server_is_refused(
    postgres: str, tmp_path: Path, rest: StandIn
) -> None:
    """Two servers on one PostgreSQL database (one SQLite file has one server)."""
    db_url = fresh_db(postgres, tmp_path)
    signer = Signer()
    body, headers = _raw(
        signer, interaction("roll", opts(exprs="3d6"), channel="1500000000000000705")
    )
    with another_server(db_url, rest, signer) as one, another_server(db_url, rest, signer) as two:
        assert _post(one.base, body, headers).status_code == 200
        r = _post(two.base, body, headers)
        assert r.status_code == 401 and "replayed" in r.json()["error"], r.text


@pytest.mark.parametrize(
    ("name", "options", "why"),
    [
        ("roll", [{"name": "exprs", "type": 3, "value": None}],
         "option 'exprs' of /roll is null: it takes text"),
        ("roll", [{"name": "exprs", "type": 3, "value": ["3d6"]}],
         "option 'exprs' of /roll is a list: it takes text"),
        ("roll", opts(exprs="3d6", visibility="gm"),
         "option 'visibility' of /roll is 'gm': it is one of public, secret, blind"),
        ("gurps", sub("check", words="14", odds="yes"),
         "option 'odds' of /gurps check is 'yes': it is True or False"),
        ("gurps", sub("reaction", modifier="2"),
         "option 'modifier' of /gurps reaction is '2': it takes a whole number"),
    ],
)  # fmt: skip
def test_payloads_discord_would_not_send_name_the_option(
    bot: Bot, name: str, options: Any, why: str
) -> None:
    got = bot.ask(name, options, channel="1500000000000000706")
    assert got["type"] == 4 and got["data"]["flags"] == 64, got
    assert got["data"]["content"] == f"⚠ {why}", got


def test_an_attachment_size_that_is_not_a_number(bot: Bot, rest: StandIn) -> None:
    rest.files["/attachments/6/dai.toml"] = dai()
    url = rest.base + "/attachments/6/dai.toml"
    said = attach(bot, url, "12", "1500000000000000707")
    assert said == "⚠ the attachment's size is '12': not a number of bytes", said
    got = bot.ask("sheet", opts(file=9), channel="1500000000000000707")
    assert got["data"]["content"] == "⚠ option 'file' is 9: it is an attachment's id", got
