"""The odds of the fight from here in Chromium (issue 68 §4): the GM's Fight panel has
the button and shows its headline (each side's chance, the mean rounds); Alice's page
has no such button, and her log gains nothing from the GM's asking."""

from __future__ import annotations

from typing import Any

from browser import ON_ITS_LOOP, contexts
from rooms_server import Server
from test_room_fight import _ok
from test_rooms_combat_browser import ALDO, ORC, _put
from test_rooms_fight_browser import _gurps_room


@ON_ITS_LOOP
async def test_the_gm_sees_the_odds_and_alice_no_button(server: Server, chromium: Any) -> None:
    from playwright.async_api import expect

    made, alice, table = _gurps_room(server, "The odds")
    _put(server, made["room"], alice["token"], "aldo", ALDO)
    _put(server, made["room"], made["token"], "orc", ORC)
    _ok(table, "gm", {"kind": "add", "combatant": "aldo", "sheet": "aldo"})
    _ok(table, "gm", {"kind": "add", "sheet": "orc", "hidden": True})
    _ok(table, "gm", {"kind": "start"})
    before = table.log("alice")
    async with contexts(chromium) as browser:
        gm = await (await browser.new_context(viewport={"width": 1280, "height": 900})).new_page()
        player = await (
            await browser.new_context(viewport={"width": 1280, "height": 900})
        ).new_page()
        await gm.goto(made["url"])
        await player.goto(alice["url"])
        await expect(player.locator("#fight li.combatant")).to_have_count(1)
        await expect(player.locator("#fight button.odds")).to_have_count(0)
        ask = gm.locator("#fight button.odds")
        await expect(ask).to_have_text("Odds of this fight from here")
        await ask.click()
        await expect(gm.locator("#fight span.odds")).to_contain_text("rounds on average")
        await expect(gm.locator("#fight span.odds")).to_contain_text("PCs ")
        await expect(player.locator("#fight")).not_to_contain_text("rounds on average")
    # Her page sent its client seed on opening; nothing else came
    assert [e for e in table.log("alice") if e["kind"] != "seed"] == before
