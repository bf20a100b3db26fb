"""Characters at the table in a real browser (issue 27): a player uploads a GCS file and
clicks a skill; the GM uploads an NPC and rolls as it, blind, and the player's page,
socket, log and export show only the redacted entry. Screenshots at 1280 and 390 px go
to ``test-artifacts/``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from browser import ON_ITS_LOOP, contexts
from referee.rooms.audit.verify import verify
from rooms_server import Server, Table
from test_rooms_browser import ARTIFACTS, _room_with_alice

DAI_GCS = Path(__file__).parent / "data" / "gcs" / "Dai Blackthorn.gcs"
ORC = Path(__file__).parent / "data" / "sheets" / "orc-guard.toml"


def _log(table: Table, who: str) -> list[dict[str, Any]]:
    return table.log(who)


@ON_ITS_LOOP
async def test_characters_at_the_table(server: Server, chromium: Any) -> None:
    from playwright.async_api import expect

    ARTIFACTS.mkdir(exist_ok=True)
    async with contexts(chromium) as browser:
        made, alice, table = _room_with_alice(server, "Characters")
        table.tokens["alice"], table.ids["alice"] = alice["token"], alice["member"]
        gm = await (await browser.new_context()).new_page()
        player = await (await browser.new_context()).new_page()
        frames: list[str] = []
        player.on("websocket", lambda ws: ws.on("framereceived", lambda p: frames.append(str(p))))
        await gm.goto(made["url"])
        await player.goto(alice["url"])

        # The player uploads her GCS file from the page, then clicks a skill with -2.
        await player.set_input_files("#sheet-file", str(DAI_GCS))
        await player.fill("#sheet-name", "dai")
        await player.click("#upload button[type=submit]")
        await expect(player.locator("#upload-note")).to_contain_text("Uploaded Dai Blackthorn")
        stealth = player.locator(".sheet[data-sheet=dai] button.trait", has_text="Stealth")
        await expect(stealth).to_contain_text("16")
        await expect(stealth).to_contain_text("98.1%")
        await player.fill("#click-mod", "-2")
        await stealth.click()
        await expect(player.locator("#click-mod")).to_have_value("")  # for one click only
        await expect(gm.locator("#log li[data-kind=roll]")).to_have_count(1)
        roll = [e for e in _log(table, "gm") if e["kind"] == "roll"][-1]
        assert roll["roller"] == alice["member"] and roll["sheet"] == "dai"
        assert roll["command"] == '@dai gurps check "Stealth" -2'
        assert roll["resolved"] == "gurps check 16 -2 --label Stealth"  # the file's level
        # Everyone sees it, as dice, a colour and a chart of its odds.
        for page in (gm, player):
            item = page.locator(f"#log li[data-seq='{roll['seq']}']")
            await expect(item).to_contain_text("Stealth 16-2 = 14")
            await expect(item.locator(".die")).to_have_count(3)
            await expect(item.locator(".chart .seg.marked")).to_have_count(1)
        # The player sees only her own sheet; the GM sees it too, with "roll as".
        await expect(gm.locator(".sheet[data-sheet=dai]")).to_have_count(1)
        await expect(gm.locator("#roll-as option[value=dai]")).to_have_count(1)

        # The GM uploads an NPC and rolls as it, blind.
        await gm.set_input_files("#sheet-file", str(ORC))
        await gm.click("#upload button[type=submit]")
        await expect(gm.locator("#upload-note")).to_contain_text("as @orc-guard")
        await gm.select_option("#visibility", "blind")
        await gm.locator(".sheet[data-sheet=orc-guard] button.trait", has_text="Broadsword").click()
        await expect(gm.locator("#log li[data-kind=roll]")).to_have_count(2)
        secret = [e for e in _log(table, "gm") if e["kind"] == "roll"][-1]
        assert secret["visibility"] == "blind" and secret["sheet"] == "orc-guard"
        assert secret["resolved"] == "gurps check 14 --label Broadsword"
        await expect(player.locator(f"#log li[data-seq='{secret['seq']}']")).to_contain_text(
            "a secret roll"
        )
        await expect(player.locator(".sheet[data-sheet=orc-guard]")).to_have_count(0)
        # Nothing of the NPC's roll reached the player: page, socket, log, export.
        text = await player.locator("body").inner_text()
        seen = "\n".join([text, *frames])
        assert "Broadsword" not in seen and "--label" in seen  # her own roll is there
        for got in (_log(table, "alice"), table.export("alice")):
            entry = next(e for e in got if e["seq"] == secret["seq"])
            assert entry.get("redacted") is True and "resolved" not in entry
            assert "sheet" not in entry
        # Her GET of the NPC, and a roll as it, are refused: to her the GM's sheet is not
        # there at all (contract v1.3, "The GM's sheets are the GM's").
        url = f"{server.base}/api/rooms/{made['room']}"
        assert (await player.request.get(f"{url}/sheets/orc-guard")).status == 404
        as_npc = await player.request.post(
            f"{url}/rolls", data={"command": "@orc-guard 3d6", "visibility": "public"}
        )
        assert as_npc.status == 422 and "orc-guard" not in (await as_npc.json())["error"][-30:]

        # The page fits a phone and a desktop, with the character panel.
        for width in (1280, 390):
            for who, page in (("gm", gm), ("player", player)):
                await page.set_viewport_size({"width": width, "height": 900})
                wide = await page.evaluate(
                    "document.documentElement.scrollWidth - document.documentElement.clientWidth"
                )
                assert wide <= 0, (who, width, wide)
                path = ARTIFACTS / f"characters-{who}-{width}.png"
                await page.screenshot(path=str(path), full_page=True)

    # The export verifies, sheet rolls and all, once the GM reveals the seeds.
    with table.client("gm") as c:
        assert c.post(f"/api/rooms/{made['room']}/close", json={"declassify": True}).status_code
    report = verify(table.export("gm"))
    assert report.ok, report.text()
    assert report.epochs[1].verified == 2
