"""Issue 40 in Chromium: the GM's attack on an NPC from the character card ("Attack ▸
Orc"), one log entry with each step (attack, defense, damage) and its odds, the
defense buttons, at 1280 and 390 px, axe-clean."""

from __future__ import annotations

from typing import Any

from referee.rooms.verify import verify
from rooms_server import Server, Table
from test_room_combat import ORC_WITH_DR
from test_room_sheets import DAI_TOML
from test_rooms_browser import ARGS, ARTIFACTS, CHROMIUM
from test_rooms_out_browser import _axe_clean


def _put(server: Server, room: str, token: str, name: str, body: bytes) -> None:
    with server.client(token) as c:
        r = c.put(
            f"/api/rooms/{room}/sheets/{name}",
            content=body,
            headers={"content-type": "application/toml"},
        )
    assert r.status_code == 201, r.text


async def _fits(page: Any) -> bool:
    return bool(
        await page.evaluate(
            "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
        )
    )


async def test_the_gm_attacks_an_npc_from_the_card(server: Server) -> None:
    from playwright.async_api import async_playwright, expect

    with server.client() as c:
        made = c.post("/api/rooms", json={"name": "Fight night", "system": "gurps"}).json()
    room, token = made["room"], made["token"]
    _put(server, room, token, "dai", DAI_TOML.read_bytes())
    _put(server, room, token, "orc", ORC_WITH_DR)
    table = Table(server, room, made["invite"], {"gm": token}, {"gm": "gm"})
    ARTIFACTS.mkdir(exist_ok=True)
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        page = await (await browser.new_context(viewport={"width": 1280, "height": 900})).new_page()
        await page.goto(made["url"])
        dai = page.locator("section.sheet[data-sheet=dai]")
        await expect(dai).to_be_visible()
        # The GM picks the target on Dai's card, then clicks Attack on a weapon.
        await dai.get_by_label("Attack ▸").select_option("orc")
        rolls = page.locator("#log li[data-kind=roll]")
        for n in range(1, 4):  # a few exchanges: hits and misses alike show their steps
            await dai.get_by_role("button", name="Roll Attack: Knife (Swung)").click()
            await expect(rolls).to_have_count(n)
            steps = rolls.last.locator("ol.steps li")
            await expect(steps.first).to_contain_text("Knife (Swung) on Orc 17")
            await expect(rolls.last).to_contain_text("to injure")
        # The defense buttons: Dodge (a trait) and a weapon's Parry.
        await dai.get_by_role("button", name="Roll Dodge").click()
        await expect(rolls).to_have_count(4)
        await dai.get_by_role("button", name="Roll Parry: Knife (Swung)").click()
        await expect(rolls).to_have_count(5)
        await expect(rolls.last).to_contain_text("Parry (Knife (Swung)) 10")
        assert await _axe_clean(page) == []
        await page.screenshot(path=str(ARTIFACTS / "gm-exchange-1280.png"), full_page=True)
        await page.set_viewport_size({"width": 390, "height": 844})
        await page.wait_for_timeout(200)
        assert await _fits(page), "the page scrolls sideways at 390 px"
        await page.screenshot(path=str(ARTIFACTS / "gm-exchange-390.png"), full_page=True)
        await browser.close()
    log = [e for e in table.log("gm") if e["kind"] == "roll"]
    exchanges = [e for e in log if e["result"].get("kind") == "exchange"]
    assert len(exchanges) == 3
    for e in exchanges:
        assert e["command"].endswith("--vs @orc") and "@" not in e["resolved"]
        assert "--target-name Orc" in e["resolved"] and "--hp 12" in e["resolved"]
    with server.client(token) as c:
        assert c.post(f"/api/rooms/{room}/close", json={"declassify": True}).status_code == 201
    report = verify(table.export("gm"))
    assert report.ok, report.text()
