"""The GM's token on the pages: the home page folds it away after *Create the room*,
with a copy button; the room page shows a new one when asked (after a warning that
the old one stops), copies it, and hides it. The old token is refused at once; the
GM's page goes on, live, and rolls."""

from __future__ import annotations

from typing import Any

from browser import ON_ITS_LOOP, contexts
from rooms_server import Server
from test_rooms_browser import ARTIFACTS

CLIPBOARD = ["clipboard-read", "clipboard-write"]


@ON_ITS_LOOP
async def test_the_gm_shows_copies_and_rotates_her_token(server: Server, chromium: Any) -> None:
    from playwright.async_api import expect

    ARTIFACTS.mkdir(exist_ok=True)
    async with contexts(chromium) as browser:
        gm = await (await browser.new_context(permissions=CLIPBOARD)).new_page()
        asked: list[str] = []

        async def accept(dialog: Any) -> None:
            asked.append(dialog.message)
            await dialog.accept()

        gm.on("dialog", accept)
        # Create the room: the token is there, folded away until asked for.
        await gm.goto(server.base + "/")
        await gm.fill("input[name=name]", "Token table")
        await gm.click("#create button[type=submit]")
        await expect(gm.locator("#made")).to_be_visible()
        value = gm.locator("#gm-token-value")
        await expect(value).to_be_hidden()
        await gm.click("#token-box summary")
        await expect(value).to_be_visible()
        first = await value.input_value()
        await gm.click("#copy-token")
        await expect(gm.locator("#token-note")).to_have_text("Copied.")
        assert await gm.evaluate("navigator.clipboard.readText()") == first
        room = (await gm.locator("#invite").input_value()).split("/rooms/")[1].split("/")[0]
        with server.client(first) as c:
            assert c.get(f"/api/rooms/{room}/log").status_code == 200
        # The room page: no token shown until asked; asking warns, then makes a new one.
        await gm.click("#open")
        await expect(gm.locator("#log li[data-kind=room]")).to_have_count(1)
        await gm.click("#admin summary")
        await expect(gm.locator("#token-box")).to_be_hidden()
        await gm.click("#gm-token")
        box = gm.locator("#token-box")
        await expect(box).to_be_visible()
        await expect(box).to_contain_text("keep it secret")
        new = await gm.locator("#gm-token-value").input_value()
        assert new and new != first
        assert len(asked) == 1 and "the old one stops working at once" in asked[0]
        assert "Discord" in asked[0]
        await gm.click("#copy-token")
        assert await gm.evaluate("navigator.clipboard.readText()") == new
        await gm.screenshot(path=str(ARTIFACTS / "gm-token.png"), full_page=True)
        with server.client(first) as c:
            assert c.get(f"/api/rooms/{room}/log").status_code == 401
        with server.client(new) as c:
            assert c.get(f"/api/rooms/{room}/log").status_code == 200
            rolled = c.post(f"/api/rooms/{room}/rolls", json={"command": "2d6"})
            assert rolled.status_code == 201
        # The page goes on: its socket came back (the roll above reaches it), the log
        # says the token changed, and the GM rolls from it.
        await expect(gm.locator("#log li[data-kind=token]")).to_contain_text("new GM token")
        await expect(gm.locator("#log li[data-kind=roll]")).to_have_count(1)
        await gm.fill("#command", "3d6")
        await gm.press("#command", "Enter")
        await expect(gm.locator("#log li[data-kind=roll]")).to_have_count(2)
        await expect(gm.locator("#ended")).to_be_hidden()
        # Hide: the token leaves the page; Show again makes another.
        await gm.click("#hide-token")
        await expect(box).to_be_hidden()
        assert await gm.locator("#gm-token-value").input_value() == ""
        await gm.click("#gm-token")
        await expect(gm.locator("#gm-token-value")).not_to_have_value("")  # its answer came
        again = await gm.locator("#gm-token-value").input_value()
        assert again not in ("", new) and len(asked) == 2
        with server.client(new) as c:
            assert c.get(f"/api/rooms/{room}/log").status_code == 401
