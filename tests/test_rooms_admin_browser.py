"""The GM's controls on the page (issue 28): remove a member, a new invite link, archive;
each asks first, and the player's page shows what happened."""

from __future__ import annotations

from typing import Any

from browser import ON_ITS_LOOP, contexts
from rooms_server import Server
from test_rooms_browser import ARTIFACTS, _room_with_alice


@ON_ITS_LOOP
async def test_the_gm_runs_the_room_from_the_page(server: Server, chromium: Any) -> None:
    from playwright.async_api import expect

    ARTIFACTS.mkdir(exist_ok=True)
    async with contexts(chromium) as browser:
        made, alice, table = _room_with_alice(server, "Run the room")
        with server.client() as c:
            bob = c.post(
                f"/api/rooms/{made['room']}/members", json={"name": "Bob", "invite": made["invite"]}
            ).json()
        gm = await (await browser.new_context()).new_page()
        player = await (await browser.new_context()).new_page()
        asked: list[str] = []

        async def accept(dialog: object) -> None:
            asked.append(dialog.message)  # type: ignore[attr-defined]
            await dialog.accept()  # type: ignore[attr-defined]

        gm.on("dialog", accept)
        await gm.goto(made["url"])
        await player.goto(bob["url"])
        await gm.click("#admin summary")
        # Remove Alice: the page asks first; everyone's log says so.
        await gm.get_by_role("button", name="Remove Alice from the room").click()
        await expect(gm.locator("#log li[data-kind=leave]")).to_have_count(1)
        await expect(player.locator("#log li[data-kind=leave]")).to_contain_text(
            "Alice was removed"
        )
        await expect(gm.locator("#member-admin li")).to_have_count(1)  # Bob
        assert "Remove Alice?" in asked[0]
        with server.client(alice["token"]) as c:
            assert c.get(f"/api/rooms/{made['room']}/log").status_code == 401
        # A new invite link replaces the old one.
        await gm.click("#new-invite")
        await expect(gm.locator("#admin-note")).to_contain_text("New invite link made")
        link = await gm.locator("#invite").input_value()
        assert made["invite"] not in link and "/join#invite=" in link
        # Archive: the player's page says so, and its form is off.
        await gm.click("#archive-room")
        await expect(player.locator("#archived")).to_be_visible()
        await expect(player.locator("#roll button[type=submit]")).to_be_disabled()
        assert len(asked) == 3
        assert table.roll("gm", "3d6").status_code == 409
        await gm.screenshot(path=str(ARTIFACTS / "gm-admin.png"), full_page=True)
