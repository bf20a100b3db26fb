"""The rooms in a real browser (Debian's Chromium, driven by Playwright): a GM page and
a player page side by side, live rolls, a secret roll that never reaches the player,
and its reveal. Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from browser import ON_ITS_LOOP, contexts, serious_violations
from referee.rooms.audit.verify import read_export, verify
from rooms_server import Server, Table

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


def _room_with_alice(server: Server, name: str) -> tuple[dict[str, Any], dict[str, Any], Table]:
    """A new room made through the API, Alice joined: the room's answer (with the GM's
    one-time page link), Alice's (with hers), and the GM's table for API rolls."""
    with server.client() as c:
        made = c.post("/api/rooms", json={"name": name, "system": None}).json()
        alice = c.post(
            f"/api/rooms/{made['room']}/members", json={"name": "Alice", "invite": made["invite"]}
        ).json()
    return (
        made,
        alice,
        Table(server, made["room"], made["invite"], {"gm": made["token"]}, {"gm": "gm"}),
    )


@ON_ITS_LOOP
async def test_a_table_in_two_browsers(server: Server, chromium: Any) -> None:
    from playwright.async_api import expect

    ARTIFACTS.mkdir(exist_ok=True)
    async with contexts(chromium) as browser:
        gm_ctx = await browser.new_context()
        player_ctx = await browser.new_context()
        gm = await gm_ctx.new_page()
        player = await player_ctx.new_page()

        # The GM creates the room on the home page and opens it.
        await gm.goto(server.base + "/")
        await gm.fill("input[name=name]", "Friday at the table")
        await gm.click("button[type=submit]")
        await expect(gm.locator("#made")).to_be_visible()
        invite = await gm.locator("#invite").input_value()
        assert "/join#invite=" in invite
        await gm.click("#open")
        await expect(gm.locator("h1")).to_have_text("Friday at the table")

        # The player follows the invite, types a name and is in; every frame is kept.
        frames: list[str] = []

        def on_socket(ws: Any) -> None:
            ws.on("framereceived", lambda payload: frames.append(str(payload)))

        player.on("websocket", on_socket)
        await player.goto(invite)
        await player.fill("input[name=name]", "Alice")
        await player.click("button[type=submit]")
        await expect(player.locator("h1")).to_have_text("Friday at the table")
        # The page sends its own seed at once: wait for it, whenever it lands.
        await expect(player.locator("#seed-note")).to_contain_text("sent for epoch 1")
        await expect(player.locator("#log li")).to_have_count(4)
        kinds = await player.locator("#log li").evaluate_all(
            "items => items.map(i => i.dataset.kind)"
        )
        assert kinds == ["room", "epoch", "join", "seed"]
        await expect(player.locator("#me")).to_have_text("Alice")

        # A public roll by the GM appears live on the player's page.
        await gm.fill("input[name=command]", "3d6+2")
        await gm.press("input[name=command]", "Enter")
        public = player.locator("#log li[data-kind=roll]").last
        await expect(public).to_contain_text("3d6+2 = [")
        await expect(public.locator(".badge")).to_have_text("public")

        # A secret GM roll reaches the player as a badge only.
        await gm.select_option("select[name=visibility]", "gm")
        await gm.fill("input[name=command]", "gurps check 14-4")
        await gm.press("input[name=command]", "Enter")
        secret_gm = gm.locator("#log li[data-kind=roll]").last
        await expect(secret_gm).to_contain_text("to succeed")
        seq = await secret_gm.get_attribute("data-seq")
        secret_text = await secret_gm.locator(".text").inner_text()
        secret_player = player.locator(f"#log li[data-seq='{seq}']")
        await expect(secret_player).to_contain_text("a secret roll")
        await expect(secret_player.locator(".badge")).to_have_text("GM only")
        await gm.screenshot(path=str(ARTIFACTS / "gm-secret-roll.png"), full_page=True)
        await player.screenshot(path=str(ARTIFACTS / "player-sees-a-badge.png"), full_page=True)
        html = await player.content()
        assert secret_text not in html and "14-4 = 10" not in html
        mine = [json.loads(f) for f in frames if json.loads(f).get("seq") == int(seq or -1)]
        assert mine and all(f.get("redacted") is True for f in mine)
        assert all(set(f) == {
            "room", "seq", "kind", "time", "roller", "visibility", "digest", "chain", "redacted"
        } for f in mine)  # fmt: skip
        assert not any(secret_text in f for f in frames)

        # The GM reveals it: the player sees it whole, live.
        await secret_gm.locator("button.reveal").click()
        await expect(secret_player).to_contain_text(secret_text)
        await expect(secret_player.locator(".badge")).to_have_text("revealed")
        await player.screenshot(path=str(ARTIFACTS / "player-after-reveal.png"), full_page=True)

        # The player's own roll shows on the GM's page.
        await player.fill("input[name=command]", "fudge roll Good")
        await player.press("input[name=command]", "Enter")
        await expect(gm.locator("#log li[data-kind=roll]").last).to_contain_text("Good")


@ON_ITS_LOOP
async def test_verify_in_the_browser_passes_and_catches_tampering(
    server: Server, chromium: Any
) -> None:
    from playwright.async_api import expect

    async with contexts(chromium) as browser:
        gm = await (await browser.new_context()).new_page()
        player = await (await browser.new_context()).new_page()
        made, alice, table = _room_with_alice(server, "Verify night")
        await gm.goto(made["url"])
        await player.goto(alice["url"])
        # The page makes the player's seed (16 random bytes, as hex) and shows it.
        await expect(player.locator("#my-seed")).to_have_text(re.compile("^[0-9a-f]{32}$"))
        await player.click("#send-seed")
        await expect(player.locator("#seed-note")).to_contain_text("sent for epoch 1")
        # Rolls in every visibility, by the API's GM and the browser's player.
        assert table.roll("gm", "3d6+1").status_code == 201
        assert table.roll("gm", "gurps check 12", "gm").status_code == 201
        await player.fill("input[name=command]", "2d10!>=9")
        await player.press("input[name=command]", "Enter")
        await expect(player.locator("#mix")).not_to_have_text("not locked yet")
        # The player's roll is logged (in epoch 1) before the GM closes the epoch.
        await expect(player.locator("#log li[data-kind=roll]")).to_have_count(3)
        await expect(gm.locator("#log li[data-kind=roll]")).to_have_count(3)
        # The GM closes the epoch from the page, revealing the secret seed too.
        await gm.check("#declassify")
        await gm.click("#close-epoch")
        await expect(gm.locator("#epoch-number")).to_have_text("2")
        await expect(player.locator("#revealed-seeds")).to_contain_text("epoch 1 secret")
        await expect(player.locator("#epoch-number")).to_have_text("2")
        await player.click("#verify")
        result = player.locator("#verify-result")
        await expect(result).to_contain_text("passed: 2 rolls verified")
        await expect(result).to_contain_text("1 hidden from you")
        await player.screenshot(path=str(ARTIFACTS / "player-verify-passed.png"), full_page=True)
        # The log downloaded from the page verifies with the CLI's checker, with the same counts.
        async with player.expect_download() as waiting:
            await player.click("#export")
        download = await waiting.value
        assert download.suggested_filename == f"room-{table.room}.jsonl"
        saved = ARTIFACTS / download.suggested_filename
        await download.save_as(saved)
        report = verify(read_export(saved))
        assert report.ok, report.text()
        assert sum(e.verified for e in report.epochs.values()) == 2
        assert sum(e.redacted for e in report.epochs.values()) == 1
        # Tamper with the page's own copy of a roll's dice: Verify fails.
        await player.evaluate(
            "() => { const e = window.refereeEntries.find("
            "x => x && x.kind === 'roll' && !x.redacted);"
            " e.draws[0][1] = e.draws[0][1] % e.draws[0][0] + 1; }"
        )
        await player.click("#verify")
        await expect(result).to_contain_text("FAILED")
        await player.screenshot(path=str(ARTIFACTS / "player-verify-failed.png"), full_page=True)


@ON_ITS_LOOP
async def test_a_room_page_refuses_to_be_framed(server: Server, chromium: Any) -> None:
    """Issue 27: a hostile site cannot frame the GM's page (its Reveal and Close
    buttons): the page of another origin that frames it gets nothing of it."""

    from rooms_server import make_table

    table = make_table(server)
    async with contexts(chromium) as browser:
        page = await browser.new_page()
        refused: list[str] = []
        page.on("console", lambda msg: refused.append(msg.text))
        # The framing page comes from another origin (about:blank), as a hostile site would.
        room = f"{server.base}/rooms/{table.room}"
        await page.set_content(f'<iframe id="f" src="{room}" width="600" height="400"></iframe>')
        await page.wait_for_timeout(1500)
        inner = page.frames[1]
        assert inner.url != room or await inner.locator("h1").count() == 0
        assert any("frame-ancestors" in text for text in refused), refused
        # The page itself still works at the top level, under its own policy.
        top = await browser.new_page()
        errors: list[str] = []
        top.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        await top.goto(server.base + "/")
        await top.wait_for_load_state("networkidle")
        assert await top.locator("form").count() >= 1
        assert not [e for e in errors if "Content Security Policy" in e], errors


@ON_ITS_LOOP
async def test_a_player_who_presses_nothing_is_in_the_first_lock(
    server: Server, chromium: Any
) -> None:
    """Issue 27 (in part): fair by default, the arrow keys, each failure kept beside its
    command, and a page that fits a 390 px phone."""
    from playwright.async_api import expect

    ARTIFACTS.mkdir(exist_ok=True)
    async with contexts(chromium) as browser:
        player = await (
            await browser.new_context(viewport={"width": 390, "height": 844})
        ).new_page()
        made, alice, table = _room_with_alice(server, "Fair by default")
        await player.goto(alice["url"])
        # The page sends its seed by itself: the player presses nothing.
        await expect(player.locator("#seed-note")).to_contain_text("sent for epoch 1")
        assert table.roll("gm", "3d6").status_code == 201  # the first roll locks epoch 1
        with table.client("gm") as gm:
            log = gm.get(f"/api/rooms/{made['room']}/log").json()["entries"]
        lock = next(e for e in log if e["kind"] == "lock")
        assert alice["member"] in lock["seeds"], lock
        await expect(player.locator("#mix-note")).to_have_text("")

        # The arrow keys recall what was typed; each failure stays beside its command.
        box = player.locator("input[name=command]")
        for command in ("3d6", "gurps check 2", "4dF"):
            await box.fill(command)
            await box.press("Enter")
            if command.startswith("gurps"):  # refused: it stays, with its error below
                await expect(player.locator("#failed li")).to_have_count(1)
            else:
                await expect(box).to_have_value("")  # rolled: the box is empty again
        await expect(player.locator("#failed li")).to_have_count(1)
        await expect(player.locator("#failed li")).to_contain_text("gurps check 2")
        await expect(player.locator("#failed li")).to_contain_text("below 3")
        await box.press("ArrowUp")
        await expect(box).to_have_value("4dF")
        await box.press("ArrowUp")
        await expect(box).to_have_value("gurps check 2")
        await box.press("ArrowDown")
        await box.press("ArrowDown")
        await expect(box).to_have_value("")

        # Nothing scrolls sideways at 390 px (nor at 1280).
        for width in (390, 1280):
            await player.set_viewport_size({"width": width, "height": 844})
            wide = await player.evaluate(
                "document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            assert wide <= 0, (width, wide)
            await player.screenshot(path=str(ARTIFACTS / f"room-{width}.png"), full_page=True)


@ON_ITS_LOOP
async def test_the_pages_have_no_serious_accessibility_violations(
    server: Server, chromium: Any
) -> None:
    """Issue 27: axe-core (axe-playwright-python) finds no serious or critical violation
    on the home, join and room pages, the GM's and a player's (with a character's card),
    wide and narrow."""
    from playwright.async_api import expect

    async with contexts(chromium) as browser:
        made, alice, table = _room_with_alice(server, "Access")
        assert table.roll("gm", "3d6").status_code == 201
        assert table.roll("gm", "gurps check 12", "gm").status_code == 201
        with server.client(alice["token"]) as c:  # a character card on both pages
            sheet = Path(__file__).parent / "data" / "gcs" / "Dai Blackthorn.gcs"
            put = c.put(f"/api/rooms/{made['room']}/sheets/dai", content=sheet.read_bytes())
            assert put.status_code == 201, put.text
        found: dict[str, list[str]] = {}
        pages = (
            ("home", server.base + "/"),
            ("join", f"{server.base}/rooms/{made['room']}/join"),
            ("gm", made["url"]),  # a one-time link: one context a member, both widths
            ("player", alice["url"]),
        )
        for name, url in pages:
            ctx = await browser.new_context()
            page = await ctx.new_page()
            await page.goto(url)
            if name in ("gm", "player"):
                await expect(page.locator("#log li[data-kind=roll]")).to_have_count(2)
                await expect(page.locator(".sheet[data-sheet=dai] button.trait")).not_to_have_count(
                    0
                )
            for width in (1280, 390):
                await page.set_viewport_size({"width": width, "height": 844})
                bad = await serious_violations(page)
                if bad:
                    found[f"{name} at {width}"] = bad
            await ctx.close()
    assert not found, found


@ON_ITS_LOOP
async def test_rolls_show_their_dice_and_outcome(server: Server, chromium: Any) -> None:
    """Issue 27: each die's face (4dF as + / − / blank), dropped dice marked, the outcome
    as a colour, a chart of the exact odds; a redacted roll shows none of it."""
    from playwright.async_api import expect

    async with contexts(chromium) as browser:
        made, alice, table = _room_with_alice(server, "Dice")
        rolls = {
            "3d6": table.roll("gm", "3d6").json(),
            "4dF": table.roll("gm", "4dF").json(),
            "4d6kh3": table.roll("gm", "4d6kh3").json(),
            "check": table.roll("gm", "gurps check 12").json(),
            "secret": table.roll("gm", "gurps check 14", "gm").json(),
            "contest": table.roll("gm", "gurps contest 12 10").json(),
            "fudge": table.roll("gm", "fudge roll Good --vs Great").json(),
        }
        page = await (await browser.new_context()).new_page()
        await page.goto(alice["url"])
        item = {k: page.locator(f"#log li[data-seq='{v['seq']}']") for k, v in rolls.items()}
        await expect(item["3d6"].locator(".die")).to_have_count(3)
        faces = await item["3d6"].locator(".die").all_inner_texts()
        assert [int(f) for f in faces] == [d["value"] for d in rolls["3d6"]["result"]["dice"]]
        fudge = await item["4dF"].locator(".die").all_text_contents()
        assert len(fudge) == 4 and set(fudge) <= {"+", "−", " "}
        signs = {1: "+", -1: "−", 0: " "}
        assert fudge == [signs[d["value"]] for d in rolls["4dF"]["result"]["dice"]]
        await expect(item["4d6kh3"].locator(".die.dropped")).to_have_count(1)
        check = rolls["check"]["result"]
        expected = ("critical-" if check["critical"] else "") + (
            "success" if check["success"] else "failure"
        )
        await expect(item["check"]).to_have_attribute("data-outcome", expected)
        # A chart of each roll's exact odds, its result marked: a contest as one bar of
        # each side's chance and a tie; a Fudge roll's distribution as columns.
        await expect(item["check"].locator(".chart.bar .seg.marked")).to_have_count(1)
        await expect(item["contest"].locator(".chart.bar .seg")).to_have_count(3)
        winner = rolls["contest"]["result"]["winner"]
        marked = {1: "side1", 2: "side2"}.get(winner, "tie")
        await expect(item["contest"].locator(f".seg.{marked}.marked")).to_have_count(1)
        columns = len(rolls["fudge"]["result"]["odds"]["distribution"])
        await expect(item["fudge"].locator(".chart.columns .col")).to_have_count(columns)
        await expect(item["fudge"].locator(".col.marked")).to_have_count(1)
        await expect(item["secret"].locator(".chart")).to_have_count(0)
        await expect(item["secret"].locator(".die")).to_have_count(0)
        assert await item["secret"].get_attribute("data-outcome") is None
        await expect(item["3d6"].locator(".dice")).to_have_attribute("aria-hidden", "true")
        await page.screenshot(path=str(ARTIFACTS / "player-dice.png"), full_page=True)


@ON_ITS_LOOP
async def test_the_page_says_who_is_at_the_table(server: Server, chromium: Any) -> None:
    """Issue 27: the members, from the log, and who has the room open now."""
    from playwright.async_api import expect

    async with contexts(chromium) as browser:
        with server.client() as c:
            made = c.post("/api/rooms", json={"name": "Who", "system": None}).json()
            for name in ("Alice", "Bob <b>"):
                joined = c.post(
                    f"/api/rooms/{made['room']}/members",
                    json={"name": name, "invite": made["invite"]},
                )
                assert joined.status_code == 201
        page = await (await browser.new_context()).new_page()
        await page.goto(made["url"])
        await expect(page.locator("#members")).to_have_text("the GM (here now), Alice, Bob <b>")
        assert await page.locator("#members b").count() == 0  # a name is text, never HTML
        # Carol joins and opens the room: the GM's page says so at its next look (every
        # 15 s, and a second after anyone joins).
        carol_page = await (await browser.new_context()).new_page()
        with server.client() as c:
            joining = {"name": "Carol", "invite": made["invite"]}
            carol = c.post(f"/api/rooms/{made['room']}/members", json=joining).json()
        await carol_page.goto(carol["url"])
        await expect(page.locator("#members")).to_have_text(
            "the GM (here now), Alice, Bob <b>, Carol (here now)", timeout=30_000
        )
