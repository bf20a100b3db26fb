"""The fight at the table in Chromium (issue 41, the room): the GM adds a player's
character and a hidden NPC from their sheets, starts the fight, applies a damage roll
from the log with one click, and answers the knockdown roll the rules call for; the
player sees only her character until the GM reveals the NPC, answers her own call with
one click and ends her turn. The log numbers its entries, names an NPC's rolls after
the NPC, shows what a command resolved to on demand, and links a revealed roll. The
phone layout (390 px) is three tabs over a roll bar fixed at the bottom. Both pages are
axe-clean at 1280 and 390 px in every tab, with no sideways scroll; the export verifies
with its fight replayed. Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import asyncio
from typing import Any

from browser import ON_ITS_LOOP, contexts, serious_violations
from referee.rooms.audit.verify import verify
from rooms_server import Server, Table
from test_rooms_browser import ARTIFACTS, _room_with_alice
from test_rooms_combat_browser import ALDO, ORC, _put

WIDE = "document.documentElement.scrollWidth - document.documentElement.clientWidth"


def _gurps_room(
    server: Server, name: str, system: str = "gurps"
) -> tuple[dict[str, Any], dict[str, Any], Table]:
    """A GURPS room (a fight needs the room's system; or ``system``'s), Alice joined:
    its making (the GM's page link), Alice's joining (her page link) and the table."""
    with server.client() as c:
        made = c.post("/api/rooms", json={"name": name, "system": system}).json()
        alice = c.post(
            f"/api/rooms/{made['room']}/members", json={"name": "Alice", "invite": made["invite"]}
        ).json()
    tokens, ids = (
        {"gm": made["token"], "alice": alice["token"]},
        {"gm": "gm", "alice": alice["member"]},
    )
    return made, alice, Table(server, made["room"], made["invite"], tokens, ids)


async def _box(locator: Any) -> dict[str, float]:
    """The element's box once it has one: the panels redraw while the log replays."""
    for _ in range(100):
        box = await locator.bounding_box()
        if box is not None:
            return dict(box)
        await asyncio.sleep(0.05)
    raise AssertionError(f"{locator} has no box")


async def _checked(page: Any, name: str) -> None:
    """At 1280 px, then 390 px in each tab: no sideways scroll, axe-clean, a screenshot."""
    await page.set_viewport_size({"width": 1280, "height": 900})
    await page.evaluate("window.scrollTo(0, 0)")
    await page.wait_for_timeout(100)
    assert await page.evaluate(WIDE) <= 0, (name, 1280)
    assert await serious_violations(page) == [], (name, 1280)
    await page.screenshot(path=str(ARTIFACTS / f"fight-{name}-1280.png"), full_page=False)
    await page.set_viewport_size({"width": 390, "height": 844})
    for tab in ("log", "characters", "fight"):
        await page.click(f"#tab-{tab}")
        await page.evaluate("window.scrollTo(0, 0)")
        await page.wait_for_timeout(100)
        assert await page.evaluate(WIDE) <= 0, (name, 390, tab)
        assert await serious_violations(page) == [], (name, 390, tab)
        await page.screenshot(path=str(ARTIFACTS / f"fight-{name}-390-{tab}.png"))
    await page.click("#tab-log")


@ON_ITS_LOOP
async def test_a_whole_fight_in_the_room(server: Server, chromium: Any) -> None:
    from playwright.async_api import expect

    ARTIFACTS.mkdir(exist_ok=True)
    made, alice, table = _gurps_room(server, "The fight")
    room = made["room"]
    _put(server, room, alice["token"], "aldo", ALDO)
    _put(server, room, made["token"], "orc", ORC)
    async with contexts(chromium) as browser:
        gm = await (await browser.new_context(viewport={"width": 1280, "height": 900})).new_page()
        player = await (
            await browser.new_context(viewport={"width": 390, "height": 844})
        ).new_page()
        await gm.goto(made["url"])
        await player.goto(alice["url"])

        # The phone: three tabs, the log first, and the roll bar fixed at the bottom.
        await expect(player.locator("#tabs")).to_be_visible()
        await expect(player.locator("#fight")).to_be_hidden()
        bar = await _box(player.locator("form#roll"))
        assert abs(bar["y"] + bar["height"] - 844) < 1, bar
        assert bar["height"] < 140, bar  # a bar, not half the screen
        # Her character is one tap away: its first skill button within the first screen.
        await player.click("#tab-characters")
        skill = player.locator("#sheets button.trait").first
        await expect(skill).to_be_visible()
        box = await _box(skill)
        assert box["y"] + box["height"] < 844 - bar["height"], box
        # The desktop: no tabs; the log beside the characters and the fight.
        await expect(gm.locator("#tabs")).to_be_hidden()
        log_box = await _box(gm.locator("#log-pane"))
        side_box = await _box(gm.locator("#side"))
        assert side_box["x"] >= log_box["x"] + log_box["width"] - 1

        # The GM adds the orc (hidden: the GM's own sheet) and Aldo (the player's).
        add = gm.locator("#fight-add")
        await expect(add).to_be_visible()
        await add.select_option("orc")
        await expect(gm.locator("#fight-add-hidden")).to_be_checked()
        await gm.click("#fight .add button")
        await expect(gm.locator("#fight li.combatant")).to_have_count(1)
        await gm.locator("#fight-add").select_option("aldo")
        await expect(gm.locator("#fight-add-hidden")).not_to_be_checked()
        await gm.click("#fight .add button")
        await expect(gm.locator("#fight li.combatant")).to_have_count(2)
        await player.click("#tab-fight")
        await expect(player.locator("#fight li.combatant")).to_have_count(1)  # not the orc
        await expect(player.locator("#fight li.combatant")).to_contain_text("Sir Aldo")
        await expect(player.locator("#fight")).not_to_contain_text("Orc Raider")

        await gm.click("#fight button:text('Start the fight')")
        await expect(gm.locator("#fight-turn")).to_contain_text("Round 1")
        await expect(player.locator("#fight-turn")).to_contain_text("Round 1")

        # A damage roll in the log, applied to the orc with one click: 10d cr does at
        # least 10 injury, a major wound to 13 HP, so the rules call for a knockdown roll.
        assert table.roll("gm", "gurps damage 10d cr").status_code == 201
        hit = [e for e in table.log("gm") if e["kind"] == "roll"][-1]
        # Through the orc's own DR from its sheet (contract v1.3), crushing x1 at the torso.
        dr = next(c for c in table.fight("gm")["combatants"] if c["name"] == "Orc Raider")
        injury = hit["result"]["basic_damage"] - dr["values"].get("dr", 0)
        # A roll that names no target goes nowhere until the GM says where (issue 65 §8).
        await gm.locator(f"#entry-{hit['seq']} button.apply").click()
        await expect(gm.locator("#fight-note")).to_contain_text("names no target")
        await gm.locator("#fight-target").select_option(label="Orc Raider")
        await gm.locator(f"#entry-{hit['seq']} button.apply").click()
        orc = gm.locator("#fight li.combatant", has_text="Orc Raider")  # its id names nothing
        await expect(orc).to_contain_text(f"{13 - injury}/13")
        call = gm.locator("#fight li.call", has_text="Orc Raider")
        await expect(call.first).to_contain_text("knockdown")
        await expect(player.locator("#fight li.call")).to_have_count(0)  # the orc's are hidden
        await call.first.locator("button.answer").click()
        await expect(gm.locator("#fight li.call", has_text="knockdown")).to_have_count(0)

        # The GM hurts Aldo by hand: 8 of 14 HP is a major wound; the call is hers.
        aldo = gm.locator("#fight li.combatant[data-combatant=aldo]")
        await aldo.locator("input[type=number]").fill("8")
        await aldo.locator("button:text('Damage')").click()
        await expect(aldo).to_contain_text("6/14")
        # The panel redrew: the keyboard's place is kept (the same button, focused).
        focused = "document.activeElement.closest('[data-combatant]')?.dataset.combatant"
        assert await gm.evaluate(focused) == "aldo"
        assert await gm.evaluate("document.activeElement.textContent") == "Damage"
        mine = player.locator("#fight li.call", has_text="Sir Aldo")
        await expect(mine).to_have_count(1)
        await mine.locator("button.answer").click()
        await expect(player.locator("#fight li.call")).to_have_count(0)
        answers = [e for e in table.log("gm") if e["kind"] == "roll"]
        assert answers[-1]["roller"] == alice["member"], answers[-1]  # her roll, her call

        # The GM reveals the orc: the player sees it now.
        await orc.locator("button:text('Reveal')").click()
        await expect(player.locator("#fight li.combatant")).to_have_count(2)
        await expect(player.locator("#fight")).to_contain_text("Orc Raider")

        # Whose turn: the GM moves on until it is Aldo's, then she ends it herself.
        for _ in range(3):
            if "Sir Aldo" in (await player.locator("#fight-turn").text_content() or ""):
                break
            await gm.click("#fight button:text('Next turn')")
            await gm.wait_for_timeout(300)
        await expect(player.locator("#fight-turn")).to_contain_text("Sir Aldo")
        before = await player.locator("#fight-turn").text_content()
        await player.click("#fight button:text('End my turn')")
        await expect(player.locator("#fight-turn")).not_to_have_text(before or "")

        # The log: numbered entries, an NPC's roll under the NPC's name, the resolved
        # command on demand, and a link to a revealed roll.
        await player.click("#tab-log")
        assert table.roll("gm", "@orc gurps check Broadsword").status_code == 201
        npc = [e for e in table.log("gm") if e["kind"] == "roll"][-1]
        item = player.locator(f"#entry-{npc['seq']}")
        await expect(item.locator(".seq")).to_have_text(f"#{npc['seq']}")
        await expect(item.locator(".roller")).to_have_text("Orc Raider: ")
        resolved = item.locator("details.resolved")
        await expect(resolved.locator("summary")).to_have_text("@orc gurps check Broadsword")
        await expect(resolved.locator("code")).to_be_hidden()
        await resolved.locator("summary").click()
        await expect(resolved.locator("code")).to_have_text(npc["resolved"])
        assert table.roll("gm", "3d6", "gm").status_code == 201
        secret = [e for e in table.log("gm") if e["kind"] == "roll"][-1]
        await gm.locator(f"#entry-{secret['seq']} button.reveal").click()
        link = player.locator("#log li[data-kind=reveal] a")
        await expect(link).to_have_attribute("href", f"#entry-{secret['seq']}")
        await link.click()
        assert await player.evaluate("location.hash") == f"#entry-{secret['seq']}"

        # The fight's entries are in the log, one line each.
        await expect(gm.locator("#log li[data-kind=change]").first).to_be_attached()
        await expect(gm.locator("#log")).to_contain_text("must roll")

        # Both pages at once, each in its renderer (issue 53: most of the test's time).
        async with asyncio.TaskGroup() as both:  # one failing cancels the other
            both.create_task(_checked(gm, "gm"))
            both.create_task(_checked(player, "player"))

    with table.client("gm") as c:
        text = c.get(f"/api/rooms/{room}/export").text
    report = verify([__import__("json").loads(line) for line in text.splitlines() if line])
    assert report.ok, report.problems
    assert report.fight_checked > 0, report


@ON_ITS_LOOP
async def test_the_upload_form_and_fair_dice_fold_away(server: Server, chromium: Any) -> None:
    """Issue 41: the upload form folds once used, and "Fair dice" is open on a first
    visit only; both stay folded on the next visit (the same browser)."""
    from playwright.async_api import FilePayload, expect

    made, alice, table = _room_with_alice(server, "Folding")
    async with contexts(chromium) as browser:
        ctx = await browser.new_context(viewport={"width": 390, "height": 844})
        page = await ctx.new_page()
        await page.goto(alice["url"])
        assert await page.locator("#fairness").get_attribute("open") is not None
        await page.click("#tab-characters")
        assert await page.locator("#upload-box").get_attribute("open") is not None
        sheet: FilePayload = {"name": "aldo.toml", "mimeType": "application/toml", "buffer": ALDO}
        await page.set_input_files("#sheet-file", files=[sheet])
        await page.click("#upload button[type=submit]")
        await expect(page.locator("#upload-note")).to_contain_text("Uploaded Sir Aldo")
        await expect(page.locator("#upload-box")).not_to_have_attribute("open", "")
        await page.reload()
        await expect(page.locator("#me")).to_be_attached()
        await page.wait_for_timeout(200)
        assert await page.locator("#fairness").get_attribute("open") is None
        assert await page.locator("#upload-box").get_attribute("open") is None
        # The GM's form stays open: she uploads one NPC after another (issue 65 §8).
        gm = await (await browser.new_context(viewport={"width": 1280, "height": 800})).new_page()
        await gm.goto(made["url"])  # on a desktop every pane shows: no tabs
        npc: FilePayload = {"name": "orc.toml", "mimeType": "application/toml", "buffer": ORC}
        await gm.set_input_files("#sheet-file", files=[npc])
        await gm.click("#upload button[type=submit]")
        await expect(gm.locator("#upload-note")).to_contain_text("Uploaded Orc Raider")
        await gm.wait_for_timeout(300)
        assert await gm.locator("#upload-box").get_attribute("open") is not None


def _roll_to_start(table: Table, by_call: Any) -> None:
    """The GM rolls the initiative calls until none is left: a tie-break that ties
    again calls for another (B363)."""
    for _ in range(40):
        calls = [c for c in table.fight("gm")["calls"]
                 if c["kind"] in ("initiative", "side initiative", "tiebreak")]  # fmt: skip
        if not calls:
            return
        by_call(table, "gm", calls[0]["call"]).raise_for_status()  # one, then look again
    raise AssertionError("the initiative rolls never ended")


@ON_ITS_LOOP
async def test_the_gms_fight_panel_as_a_trial_found_it(server: Server, chromium: Any) -> None:
    """Issue 71 §1.7, §1.9 and §1.10 on the GM's page: after Start with tie-break rolls
    waiting it says "Starting" with no second Start; then whose turn it is; the target
    for the log's rolls is kept across turns; the odds line of one turn is gone at the
    next; an open defense call is in the panel before Next, and Next says why it waits.
    In an SWN fight, the card on its turn has Total Defense, and its target list puts a
    foe still standing first, never the downed one."""
    from playwright.async_api import expect

    from test_room_fight import _attack, _by_call, _ok, _turn_to
    from test_room_fight_swn_referee import THUG, VEX

    made, _, table = _gurps_room(server, "The GM's panel")
    _put(server, made["room"], table.tokens["alice"], "aldo", ALDO)
    _put(server, made["room"], made["token"], "orc", ORC)
    _ok(table, "gm", {"kind": "add", "combatant": "aldo", "sheet": "aldo"})
    orcs = [_ok(table, "gm", {"kind": "add", "combatant": f"orc{n}", "sheet": "orc"})[0]
            ["combatant"] for n in (1, 2)]  # fmt: skip
    async with contexts(chromium) as browser:
        gm = await (await browser.new_context(viewport={"width": 1280, "height": 900})).new_page()
        await gm.goto(made["url"])
        turn = gm.locator("#fight-turn")
        await expect(gm.locator("#fight li.combatant")).to_have_count(3)
        await gm.click("#fight button:text('Start the fight')")
        # two orcs of one sheet tie (B363): their tie-break rolls wait, the fight starts
        await expect(turn).to_contain_text("Starting: ")
        await expect(gm.locator("#fight button:text('Start the fight')")).to_have_count(0)
        _roll_to_start(table, _by_call)
        fight = table.fight("gm")
        first = next(c["name"] for c in fight["combatants"] if c["combatant"] == fight["current"])
        await expect(turn).to_have_text(f"Round 1 · {first}'s turn")

        # the target for rolls from the log, kept across the next turn's redraw
        await gm.locator("#fight-target").select_option(label="Sir Aldo")
        await gm.locator("p.odds button").click()
        odds = gm.locator("#fight span.odds")
        await expect(odds).to_contain_text("(from round 1, at ")
        await gm.click("#fight button:text('Next turn')")
        await expect(turn).not_to_have_text(f"Round 1 · {first}'s turn")
        await expect(gm.locator("#fight-target")).to_have_value("aldo")
        await expect(odds).to_have_text("")  # the odds of another turn are not these

        # an orc's hit on Aldo opens his defense call: in the GM's panel; Next waits
        for _ in range(12):
            _turn_to(table, orcs[0])
            body = {"attacker": orcs[0], "target": "aldo", "weapon": "Broadsword"}
            assert _attack(table, "gm", body).status_code == 201
            if any(c["kind"] == "defense" for c in table.fight("gm")["calls"]):
                break
        else:
            raise AssertionError("the orc never hit")
        # (a critical hit before may have left Aldo a knockdown call: his defense's alone)
        call = gm.locator("#fight li.call", has_text="Sir Aldo").filter(has_text="defend against")
        await expect(call).to_contain_text("defend against")
        await expect(call.locator("button.answer").first).to_be_visible()
        await gm.click("#fight button:text('Next turn')")
        await expect(gm.locator("#fight-note")).to_contain_text("defense")
        await expect(call).to_have_count(1)  # still open: the turn waits (rules 6)

        # SWN: Total Defense on the card whose turn it is; a standing foe first
        made, alice, table = _gurps_room(server, "The GM's panel", "swn")
        _put(server, made["room"], table.tokens["alice"], "vex", VEX)
        _put(server, made["room"], made["token"], "thug", THUG)
        _ok(table, "gm", {"kind": "add", "combatant": "vex", "sheet": "vex"})
        for n in (1, 2):
            _ok(table, "gm", {"kind": "add", "combatant": f"thug{n}", "sheet": "thug"})
        _ok(table, "gm", {"kind": "start"})
        _roll_to_start(table, _by_call)
        _ok(table, "gm", {"kind": "damage", "combatant": "thug1", "amount": 6})  # down
        _turn_to(table, "vex")
        player = await (
            await browser.new_context(viewport={"width": 1280, "height": 900})
        ).new_page()
        await player.goto(alice["url"])
        vex = player.locator("#fight li.combatant[data-combatant=vex]")
        await expect(vex.locator("button:text('Total Defense')")).to_be_visible()
        foe = vex.locator("select[aria-label='Vex Ortega attacks']")
        await expect(foe).to_have_value("thug2")  # the standing thug, not the downed one
        assert await foe.locator("option").all_text_contents() == ["Street Thug"] * 2
        await vex.locator("button:text('Total Defense')").click()
        await expect(vex.locator("button:text('Total Defense')")).to_have_count(0)
        # §1.6: Bob's fallen Juno gets Alice's Stabilize, rolled as her Vex (the medic);
        # the fallen thug none (a player may not name the GM's sheet)
        with server.client() as c:
            bob = c.post(f"/api/rooms/{table.room}/members",
                         json={"name": "Bob", "invite": table.invite}).json()  # fmt: skip
        juno = VEX.replace(b'name = "Vex Ortega"', b'name = "Juno Reyes"')
        _put(server, table.room, bob["token"], "juno", juno)
        _ok(table, "gm", {"kind": "add", "combatant": "juno", "sheet": "juno"})
        _ok(table, "gm", {"kind": "damage", "combatant": "juno", "amount": 14})
        await expect(player.locator("button:text('Stabilize Juno Reyes')")).to_be_visible()
        await expect(player.locator("button:text('Stabilize Street Thug')")).to_have_count(0)
        await player.locator("button:text('Stabilize Juno Reyes')").click()
        for _ in range(100):
            stabilized = [e for e in table.log("gm") if e["kind"] == "roll"
                          and "stabilize" in e["command"]]  # fmt: skip
            if stabilized:
                break
            await asyncio.sleep(0.05)
        assert stabilized and stabilized[0]["command"] == "@vex swn stabilize --vs @juno"
        assert stabilized[0]["roller"] == table.ids["alice"], stabilized
        assert any((e.get("event") or {}).get("maneuver") == "total defense"
                   for e in table.log("gm") if e["kind"] == "change")  # fmt: skip
