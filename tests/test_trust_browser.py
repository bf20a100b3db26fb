"""Issue 39 (1) end to end in Chromium: the new-GM trial's evening, fair with nobody
doing anything for it. The GM rolls in secret before anyone is there; two players
join later, one after the other's first roll; everyone rolls from the page. Every
player's roll is mixed with that player's own seed (contract v1.2's automatic
rollover, and the page sending its seed when an epoch lacks it)."""

from __future__ import annotations

from typing import Any

from browser import ON_ITS_LOOP, contexts
from referee.rooms.audit.verify import verify
from rooms_server import Server, Table
from test_trust import each_players_roll_holds_their_seed


async def _join(browser: Any, base: str, room: str, invite: str, name: str) -> Any:
    from playwright.async_api import expect

    page = await (await browser.new_context()).new_page()
    await page.goto(f"{base}/rooms/{room}/join#invite={invite}")
    await page.fill("input[name=name]", name)
    await page.click("button[type=submit]")
    await expect(page.locator("#me")).to_have_text(name)
    return page


async def _roll(page: Any, command: str, visibility: str = "public") -> None:
    from playwright.async_api import expect

    # This page's own roll, by its command (the commands here are all distinct): other
    # pages' rolls may reach this log at any moment, so a plain count would race.
    mine = page.locator("#log li[data-kind=roll]", has_text=command)
    before = await mine.count()
    await page.select_option("select[name=visibility]", visibility)
    await page.fill("input[name=command]", command)
    await page.press("input[name=command]", "Enter")
    await expect(mine).to_have_count(before + 1)


@ON_ITS_LOOP
async def test_the_trial_evening_is_fair_in_the_browser(server: Server, chromium: Any) -> None:
    from playwright.async_api import expect

    with server.client() as c:
        made = c.post("/api/rooms", json={"name": "Trial night", "system": "gurps"}).json()
    room = made["room"]
    table = Table(server, room, made["invite"], {"gm": made["token"]}, {"gm": "gm"})
    async with contexts(chromium) as browser:
        gm = await (await browser.new_context()).new_page()
        await gm.goto(made["url"])
        await expect(gm.locator("h1")).to_have_text("Trial night")
        # The GM's secret roll for an NPC, before anyone is there: epoch 1 locks unseeded.
        await _roll(gm, "gurps check 12 --label Orc", "gm")

        alice = await _join(browser, server.base, room, made["invite"], "Alice")
        # Her page sends its seed; the epoch was locked, so the server rolls over.
        await expect(alice.locator("#seed-note")).to_have_text("sent for epoch 2")
        await expect(alice.locator("#log")).to_contain_text("the server closed epoch 1")
        await _roll(alice, "3d6")
        await _roll(gm, "1d20", "blind")

        bob = await _join(browser, server.base, room, made["invite"], "Bob")
        await expect(bob.locator("#seed-note")).to_have_text("sent for epoch 3")
        # Epoch 3 lacks Alice's seed: her page sends one for it, by itself.
        await expect(alice.locator("#seed-note")).to_have_text("sent for epoch 3")
        await expect(gm.locator("#log li[data-kind=seed]")).to_have_count(3)
        await _roll(bob, "gurps check 10")
        await _roll(alice, "4dF")
        await _roll(gm, "2d6")
        await _roll(bob, "1d6")
        # The pages settle: no page sends another seed once its epoch's lock holds it.
        await alice.wait_for_timeout(500)
    entries = table.export("gm")
    assert each_players_roll_holds_their_seed(entries) == 4
    assert len([e for e in entries if e["kind"] == "seed"]) == 3
    closes = [(e["epoch"], e.get("by")) for e in entries if e["kind"] == "close"]
    assert closes == [(1, "server"), (2, "server")]
    report = verify(entries)
    assert report.ok, report.text()
    # Only the GM's roll before anyone joined lacks a player seed.
    assert report.unseeded == {"gm": 1}
