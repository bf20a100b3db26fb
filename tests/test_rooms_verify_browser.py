"""The page's Verify button on rolls with no player seed in their mix (contract v1.2):
it says plainly how many are not provable and names their rollers, as a warning, never
"passed"; a log where every roll had a player seed passes. Screenshots go to
``test-artifacts/``."""

from __future__ import annotations

import re
from typing import Any

from browser import ON_ITS_LOOP, contexts, serious_violations
from referee.rooms.audit.verify import verify
from rooms_server import Server
from test_rooms_browser import ARTIFACTS, _room_with_alice


@ON_ITS_LOOP
async def test_rolls_before_any_player_seed_are_a_warning_naming_the_rollers(
    server: Server, chromium: Any
) -> None:
    from playwright.async_api import expect

    ARTIFACTS.mkdir(exist_ok=True)
    made, alice, table = _room_with_alice(server, "Unseeded")
    table.tokens["alice"], table.ids["alice"] = alice["token"], alice["member"]
    # Epoch 1 locks at the GM's first roll, before any player sent a seed.
    for who, command in (("gm", "3d6"), ("gm", "1d20"), ("alice", "2d6")):
        assert table.roll(who, command).status_code == 201
    with table.client("gm") as c:
        closed = c.post(f"/api/rooms/{made['room']}/close", json={"declassify": False})
        assert closed.status_code == 201
    report = verify(table.export("gm"))  # the CLI's verifier says the same
    assert report.ok and report.unseeded == {"gm": 2, alice["member"]: 1}, report.text()
    async with contexts(chromium) as browser:
        for who, url in (("gm", made["url"]), ("player", alice["url"])):
            page = await (await browser.new_context()).new_page()
            await page.goto(url)
            await expect(page.locator("#log li[data-kind=roll]")).to_have_count(3)
            await expect(page.locator("#revealed-seeds")).to_contain_text("epoch 1 public")
            if who == "player":  # its own seed's entry scrolls the page: let it land first
                await expect(page.locator("#log li[data-kind=seed]")).to_have_count(1)
            await page.click("#verify")
            result = page.locator("#verify-result")
            await expect(result).to_contain_text(
                "warning: 3 rolls had no player seed in their mix and are not provable "
                "(by the GM 2, Alice 1)"
            )
            await expect(result).to_contain_text("3 rolls verified")
            await expect(result).not_to_contain_text("passed")
            await expect(result).to_have_class("warning")
            assert await serious_violations(page) == [], who
            shot = ARTIFACTS / f"{who}-verify-warning.png"
            await page.locator("#fairness").screenshot(path=str(shot))


@ON_ITS_LOOP
async def test_a_log_where_every_roll_had_a_player_seed_passes(
    server: Server, chromium: Any
) -> None:
    """The usual flow: the player's page is open and sends its seed before the first
    roll; every roll, the GM's and hers, is provable."""
    from playwright.async_api import expect

    async with contexts(chromium) as browser:
        made, alice, table = _room_with_alice(server, "Seeded")
        player = await (await browser.new_context()).new_page()
        await player.goto(alice["url"])
        await expect(player.locator("#seed-note")).to_contain_text("sent for epoch 1")
        assert table.roll("gm", "3d6").status_code == 201
        await player.fill("#command", "2d6")
        await player.press("#command", "Enter")
        await expect(player.locator("#log li[data-kind=roll]")).to_have_count(2)
        with table.client("gm") as c:
            closed = c.post(f"/api/rooms/{made['room']}/close", json={"declassify": True})
            assert closed.status_code == 201
        await expect(player.locator("#revealed-seeds")).to_contain_text("epoch 1 secret")
        await expect(player.locator("#mix-note")).to_have_text("")
        # its seed for epoch 2 (the page sends one by itself) scrolls the page: let it land
        await expect(player.locator("#log li[data-kind=seed]")).to_have_count(2)
        await player.click("#verify")
        result = player.locator("#verify-result")
        await expect(result).to_contain_text("passed: 2 rolls verified")
        await expect(result).not_to_contain_text(re.compile("warning|not provable"))
        await expect(result).to_have_class("passed")
