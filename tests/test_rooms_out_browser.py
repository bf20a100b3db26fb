"""Pages for those who are out (finding 6), in a real browser: a removed player, a spent
one-time link and an archived room each get a page that says what happened, with no
control left that could only fail; and revealed seeds fit a 390 px phone.
Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from browser import ON_ITS_LOOP, contexts, serious_violations
from rooms_server import Server
from test_rooms_browser import ARTIFACTS, _room_with_alice

if TYPE_CHECKING:
    from playwright.async_api import ViewportSize

LIVE_CONTROLS = """() => Array.from(document.querySelectorAll(
    "main button, main input, main select, main textarea, main a[href^='/api/']"))
  .filter((n) => !n.disabled && n.checkVisibility())
  .map((n) => n.id || n.className || n.textContent.trim() || n.tagName)"""
"""The page's controls a member could still use: enabled and visible."""

WRITES = (
    "#new-invite",
    "#archive-room",
    "#close-epoch",
    "button.reveal",
    "#member-admin button",
    "#command",
    "#visibility",
    "#roll button[type=submit]",
    "#send-seed",
    "#upload button[type=submit]",
)
"""Every control of the room page that writes to the room."""


async def _usable(page: Any, selectors: tuple[str, ...]) -> list[str]:
    """The ``selectors`` that match an enabled, visible control on ``page``."""
    return [
        s
        for s in selectors
        if await page.evaluate(
            "(s) => Array.from(document.querySelectorAll(s))"
            ".some((n) => !n.disabled && n.checkVisibility())",
            s,
        )
    ]


def _human_page(text: str) -> None:
    """An HTML page in the room page's style, with no raw JSON error."""
    assert '{"error"' not in text and "unknown token" not in text, text
    assert "<h1>" in text and "/static/room.css" in text, text


@ON_ITS_LOOP
async def test_a_removed_player_is_told_and_every_control_goes(
    server: Server, chromium: Any
) -> None:
    """The GM removes Alice: her open page says so at once (the socket's 4401) and
    leaves her nothing to press; a reload gives a page, not ``{"error": ...}``."""
    from playwright.async_api import expect

    ARTIFACTS.mkdir(exist_ok=True)
    async with contexts(chromium) as browser:
        made, alice, table = _room_with_alice(server, "Removal")
        player = await (await browser.new_context()).new_page()
        await player.goto(alice["url"])
        await expect(player.locator("#seed-note")).to_contain_text("sent for epoch 1")
        assert await player.evaluate(LIVE_CONTROLS)  # she could roll, until now
        with table.client("gm") as c:
            gone = c.delete(f"/api/rooms/{made['room']}/members/{alice['member']}")
            assert gone.status_code == 201, gone.text
        ended = player.locator("#ended")
        await expect(ended).to_be_visible()
        await expect(ended).to_contain_text("You were removed from this room by the GM")
        await expect(player.locator("#room")).to_have_class(re.compile(r"\bended\b"))
        assert await player.evaluate(LIVE_CONTROLS) == []
        assert await serious_violations(player) == []
        await player.screenshot(path=str(ARTIFACTS / "player-removed.png"), full_page=True)

        # A reload with the dead cookie: a page that says what happened.
        response = await player.reload()
        assert response is not None and response.status == 401
        assert response.headers["content-type"].startswith("text/html")
        _human_page(await player.content())
        await expect(player.locator("h1")).to_contain_text("session")
        await expect(player.locator("main")).to_contain_text("Ask the GM for a new invite")
        assert await serious_violations(player) == []
        await player.screenshot(path=str(ARTIFACTS / "player-removed-reload.png"))


@ON_ITS_LOOP
async def test_a_refused_call_ends_the_session_on_the_page(server: Server, chromium: Any) -> None:
    """The socket may stay open (or miss the ``leave`` entry): the first call that gets
    401 switches the page over at once, as the socket's 4401 does."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout
    from playwright.async_api import expect

    async with contexts(chromium) as browser:
        made, alice, table = _room_with_alice(server, "Deaf socket")
        player = await (await browser.new_context()).new_page()

        def deaf(ws: Any) -> None:  # forwards entries, but no leave and no close
            server_side = ws.connect_to_server()
            server_side.on_message(lambda m: None if '"kind":"leave"' in str(m) else ws.send(m))
            server_side.on_close(lambda code, reason: None)

        await player.route_web_socket(re.compile(r".*/live.*"), deaf)
        await player.goto(alice["url"])
        await expect(player.locator("#seed-note")).to_contain_text("sent for epoch 1")
        with table.client("gm") as c:
            gone = c.delete(f"/api/rooms/{made['room']}/members/{alice['member']}")
            assert gone.status_code == 201
        try:  # the page's own calls (its presence, each 15 s) may meet the 401 first
            await player.fill("#command", "3d6", timeout=5000)
            await player.press("#command", "Enter", timeout=5000)
        except PlaywrightTimeout:
            assert await player.locator("#ended").count() == 1  # ended by that call
        await expect(player.locator("#ended")).to_contain_text(
            "Your session in this room has ended"
        )
        assert "unknown token" not in await player.locator("main").inner_text()
        assert await player.evaluate(LIVE_CONTROLS) == []


@ON_ITS_LOOP
async def test_a_spent_or_unknown_link_gets_a_page_that_says_so(
    server: Server, chromium: Any
) -> None:
    from playwright.async_api import expect

    async with contexts(chromium) as browser:
        made, alice, _ = _room_with_alice(server, "Spent")
        first = await (await browser.new_context()).new_page()
        await first.goto(alice["url"])
        await expect(first.locator("h1")).to_have_text("Spent")
        again = await (await browser.new_context()).new_page()
        for url in (alice["url"], alice["url"].split("code=")[0] + "code=nonsense"):
            response = await again.goto(url)
            assert response is not None and response.status == 403
            assert response.headers["content-type"].startswith("text/html")
            _human_page(await again.content())
            main = again.locator("main")
            await expect(main).to_contain_text("expired or was used already")
            await expect(main).to_contain_text("Ask the GM for a new invite")
        assert await serious_violations(again) == []
        await again.set_viewport_size({"width": 390, "height": 844})
        assert await again.evaluate(
            "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
        )
        await again.screenshot(path=str(ARTIFACTS / "link-spent.png"))
        # A room that does not exist: a page too.
        response = await again.goto(f"{server.base}/rooms/nosuchroom")
        assert response is not None and response.status == 404
        _human_page(await again.content())


@ON_ITS_LOOP
async def test_an_archived_room_offers_no_write_to_anyone(server: Server, chromium: Any) -> None:
    """Archive from the GM's page: both pages say it is read only and drop every write
    control, live; and on load, once reopened."""
    from playwright.async_api import expect

    ARTIFACTS.mkdir(exist_ok=True)
    async with contexts(chromium) as browser:
        made, alice, table = _room_with_alice(server, "Archive")
        with server.client() as c:
            bob = c.post(
                f"/api/rooms/{made['room']}/members", json={"name": "Bob", "invite": made["invite"]}
            ).json()
        assert table.roll("gm", "gurps check 12", "gm").status_code == 201  # a Reveal button
        gm = await (await browser.new_context()).new_page()
        player = await (await browser.new_context()).new_page()
        gm.on("dialog", lambda dialog: dialog.accept())
        await gm.goto(made["url"])
        await player.goto(alice["url"])
        await gm.click("#admin summary")
        await expect(gm.locator("button.reveal")).to_be_visible()
        await expect(gm.locator("#member-admin button")).to_have_count(2)
        assert await _usable(gm, WRITES) == [w for w in WRITES if w != "#send-seed"]
        await gm.click("#archive-room")
        for page in (gm, player):
            await expect(page.locator("#archived")).to_be_visible()
            await expect(page.locator("#log li[data-kind=archive]")).to_have_count(1)
            assert await _usable(page, WRITES) == []
        await expect(gm.locator("#archived")).to_contain_text("read only")
        await gm.screenshot(path=str(ARTIFACTS / "gm-archived.png"), full_page=True)

        # Reopened (Bob's first visit; the GM's reload): read only from the start.
        await gm.reload()
        late = await (await browser.new_context()).new_page()
        await late.goto(bob["url"])
        for page in (gm, late):
            await expect(page.locator("#archived")).to_be_visible()
            await expect(page.locator("#log li[data-kind=archive]")).to_have_count(1)
            await expect(page.locator("#log li[data-kind=roll]")).to_have_count(1)
            assert await _usable(page, WRITES) == []
            await expect(page.locator("#verify")).to_be_enabled()  # reading still works
        await expect(gm.locator("#admin")).to_be_hidden()  # nothing left to run
        assert await serious_violations(gm) == []


@ON_ITS_LOOP
async def test_revealed_seeds_fit_a_phone(server: Server, chromium: Any) -> None:
    """At 390 px, the long hex seeds the GM's close reveals wrap: no sideways scroll."""
    from playwright.async_api import expect

    ARTIFACTS.mkdir(exist_ok=True)
    async with contexts(chromium) as browser:
        made, alice, table = _room_with_alice(server, "Phone")
        phone: ViewportSize = {"width": 390, "height": 844}
        gm = await (await browser.new_context(viewport=phone)).new_page()
        player = await (await browser.new_context(viewport=phone)).new_page()
        await gm.goto(made["url"])
        await player.goto(alice["url"])
        await expect(player.locator("#seed-note")).to_contain_text("sent for epoch 1")
        assert table.roll("gm", "3d6").status_code == 201
        assert table.roll("gm", "gurps check 12", "gm").status_code == 201
        await expect(gm.locator("#log li[data-kind=roll]")).to_have_count(2)
        await gm.check("#declassify")
        await gm.click("#close-epoch")
        for page in (gm, player):
            await expect(page.locator("#revealed-seeds")).to_contain_text("epoch 1 secret")
            await expect(page.locator("#epoch-number")).to_have_text("2")
            width = await page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, width
        await gm.screenshot(path=str(ARTIFACTS / "gm-seeds-390.png"), full_page=True)
        await player.click("#verify")
        await expect(player.locator("#verify-result")).not_to_have_text("checking…")
        assert await player.evaluate("document.documentElement.scrollWidth") <= 390
