"""Combat from the sheet in Chromium (issue 40, the room): the GM targets an NPC from a
player's character card ("Attack ▸ Orc Raider") and the log shows the exchange as one
entry, each step (attack, defense, damage, the calls) with its dice and odds; the
defense buttons (Dodge, Parry, Block) roll; a player's card has no target; SWN's card
form sets the attribute, the difficulty and the AC. Both pages at 1280 and 390 px, with
no sideways scroll and no serious axe-core violation; screenshots to ``test-artifacts/``."""

from __future__ import annotations

import re
from typing import Any

from browser import ON_ITS_LOOP, contexts, serious_violations
from referee.rooms.audit.verify import verify
from rooms_server import Server, Table
from test_rooms_browser import ARTIFACTS, _room_with_alice

ORC = b"""system = "gurps"
name = "Orc Raider"
swing = "1d+2"
thrust = "1d"
dodge = 8
hp = 13
dr = 2

[attributes]
ST = 13
DX = 11
IQ = 9
HT = 12

[skills]
Broadsword = 12
Shield = 11

[[attacks]]
name = "Broadsword"
usage = "Swung"
level = 12
damage = "1d+3 cut"
parry = "9"

[[attacks]]
name = "Shield"
usage = "Bash"
level = 11
damage = "1d cr"
block = "9"
"""

ALDO = b"""system = "gurps"
name = "Sir Aldo"
swing = "2d"
thrust = "1d+1"
dodge = 9
hp = 14

[attributes]
ST = 14
DX = 12
IQ = 10
HT = 12

[skills]
Broadsword = 15

[[attacks]]
name = "Broadsword"
usage = "Swung"
level = 15
damage = "2d+1 cut"
parry = "11"
"""


def _put(server: Server, room: str, token: str, name: str, body: bytes) -> None:
    with server.client(token) as c:
        r = c.put(
            f"/api/rooms/{room}/sheets/{name}",
            content=body,
            headers={"content-type": "application/toml"},
        )
    assert r.status_code == 201, r.text


def _last_roll(table: Table) -> dict[str, Any]:
    return [e for e in table.log("gm") if e["kind"] == "roll"][-1]


async def _fits_and_is_clean(pages: dict[str, Any], name: str) -> None:
    """Each page at 1280 and 390 px: no sideways scroll, axe-clean, a screenshot."""
    for width in (1280, 390):
        for who, page in pages.items():
            await page.set_viewport_size({"width": width, "height": 900})
            await page.wait_for_timeout(100)
            wide = await page.evaluate(
                "document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            assert wide <= 0, (who, width, wide)
            assert await serious_violations(page) == [], (who, width)
            path = ARTIFACTS / f"{name}-{who}-{width}.png"
            await page.screenshot(path=str(path), full_page=True)


@ON_ITS_LOOP
async def test_the_gm_attacks_an_npc_from_a_players_card(server: Server, chromium: Any) -> None:
    from playwright.async_api import expect

    ARTIFACTS.mkdir(exist_ok=True)
    made, alice, table = _room_with_alice(server, "Fight night")
    table.tokens["alice"], table.ids["alice"] = alice["token"], alice["member"]
    _put(server, made["room"], alice["token"], "aldo", ALDO)  # her character
    _put(server, made["room"], made["token"], "orc", ORC)  # the GM's NPC
    async with contexts(chromium) as browser:
        gm = await (await browser.new_context(viewport={"width": 1280, "height": 900})).new_page()
        player = await (await browser.new_context()).new_page()
        await gm.goto(made["url"])
        await player.goto(alice["url"])
        rolls = gm.locator("#log li[data-kind=roll]")

        # The card: each weapon with its skill, damage and parry, Attack and Damage.
        aldo = gm.locator("section.sheet[data-sheet=aldo]")
        sword = aldo.locator("li.weapon", has_text="Broadsword (Swung)")
        await expect(sword).to_contain_text("skill 15 · 2d+1 cut · parry 11")
        attack = sword.get_by_role("button", name=re.compile("^Attack with Broadsword"))
        await expect(attack).to_have_text(re.compile(r"^Attack\s*95\.4%$"))
        await expect(sword.get_by_role("button", name=re.compile("^Roll Damage"))).to_be_visible()

        # The GM targets the orc: the button says so, and one click is the exchange.
        await aldo.get_by_label("Attack ▸ target").select_option("orc")
        await expect(attack).to_contain_text("Attack ▸ Orc Raider")
        await expect(aldo.get_by_label("Their defense")).to_be_visible()
        await attack.click()
        await expect(rolls).to_have_count(1)
        first = _last_roll(table)
        assert first["command"] == '@aldo gurps attack "Broadsword (Swung)" --vs @orc'
        assert first["result"]["kind"] == "exchange"
        item = gm.locator(f"#log li[data-seq='{first['seq']}']")
        steps = item.locator("ol.steps > li")
        await expect(steps.first).to_contain_text("Attack: ")
        await expect(steps.first).to_contain_text("Broadsword (Swung) on Orc Raider 15: rolled")
        await expect(steps.first).to_contain_text("95.4% to succeed")
        await expect(steps.first.locator(".die")).to_have_count(3)
        await expect(item.locator(".text")).to_contain_text("to injure")
        if first["result"]["defense"] is not None:  # the attack hit: the orc's best defense
            await expect(steps.nth(1)).to_contain_text("Defense: ")
            await expect(steps.nth(1)).to_contain_text("Orc Raider's Parry 9: rolled")
            await expect(steps.nth(1)).to_contain_text("37.5% to succeed")

        # No defense: attack until one hits, then its damage through DR, with odds.
        await aldo.get_by_label("Their defense").select_option("none")
        hit: dict[str, Any] | None = None
        for n in range(2, 14):
            await attack.click()
            await expect(rolls).to_have_count(n)
            entry = _last_roll(table)
            assert entry["command"].endswith("--vs @orc --defense none"), entry["command"]
            if entry["result"]["damage"] is not None:
                hit = entry
                break
        assert hit is not None, "twelve attacks at 95.4% and none hit"
        item = gm.locator(f"#log li[data-seq='{hit['seq']}']")
        damage = item.locator("ol.steps > li", has_text="Damage: ")
        await expect(damage).to_contain_text("hits the torso; 2d+1 cut vs DR 2")
        await expect(damage).to_contain_text("100.0% to penetrate: rolled")
        await expect(damage.locator(".die")).to_have_count(2)
        injury = hit["result"]["damage"]["injury"]
        await expect(damage).to_contain_text(f"injury {injury} (Orc Raider 13 → {13 - injury} HP)")
        for call in hit["result"]["calls"]:
            await expect(item.locator("ol.steps > li.calls", has_text=call[:40])).to_have_count(1)
        # The resolved command carries the target's numbers, and names no sheet.
        resolved = hit["resolved"]
        assert "@" not in resolved and "--vs" not in resolved
        for part in ("--target-name 'Orc Raider'", "--hp 13", "--dr 2", "--dodge 8"):
            assert part in resolved, (part, resolved)
        # The player sees the public exchange step by step too.
        await expect(
            player.locator(f"#log li[data-seq='{hit['seq']}'] ol.steps > li")
        ).not_to_have_count(0)

        # The defenses as buttons, on the orc's card: Dodge, the best Parry, Block.
        orc = gm.locator("section.sheet[data-sheet=orc]")
        defenses = orc.get_by_role("list", name="Orc Raider: defenses")
        for name, level, text in (
            ("Dodge", "8", "Dodge 8: rolled"),
            ("Parry", "9", "Parry (Broadsword (Swung)) 9: rolled"),
            ("Block", "9", "Block (Shield (Bash)) 9: rolled"),
        ):
            button = defenses.get_by_role("button", name=re.compile(f"^Roll {name} as Orc Raider"))
            await expect(button).to_contain_text(level)
            count = await rolls.count()
            await button.click()
            await expect(rolls).to_have_count(count + 1)
            await expect(rolls.last).to_contain_text(text)
            assert _last_roll(table)["command"] == f"@orc gurps check {name}"
        # A weapon's own Parry, with the modifier field.
        await gm.fill("#click-mod", "-1")
        count = await rolls.count()
        await sword.get_by_role("button", name=re.compile("^Parry with Broadsword")).click()
        await expect(rolls).to_have_count(count + 1)
        await expect(rolls.last).to_contain_text("Parry (Broadsword (Swung)) 11-1 = 10")

        # The player's card: no target (only the GM may name another sheet); a lone
        # attack, deceptive and aimed, from her card's options.
        mine = player.locator("section.sheet[data-sheet=aldo]")
        await expect(mine).to_be_visible()
        await expect(mine.get_by_label("Attack ▸ target")).to_have_count(0)
        await expect(player.locator("section.sheet[data-sheet=orc]")).to_have_count(0)
        await mine.get_by_label("Deceptive attack").fill("1")
        # (a swung broadsword cuts: the vitals are out of its reach, B399; an arm is not)
        await mine.get_by_label("Aim at").select_option("arm")
        count = await rolls.count()
        await mine.get_by_role("button", name=re.compile("^Attack with Broadsword")).click()
        await expect(rolls).to_have_count(count + 1)
        lone = _last_roll(table)
        assert lone["roller"] == alice["member"]
        assert lone["command"] == (
            '@aldo gurps attack "Broadsword (Swung)" --deceptive 1 --location arm'
        )
        assert lone["result"]["kind"] == "attack"

        await _fits_and_is_clean({"gm": gm, "player": player}, "combat")

    with table.client("gm") as c:
        assert c.post(f"/api/rooms/{made['room']}/close", json={"declassify": True}).status_code
    report = verify(table.export("gm"))
    assert report.ok, report.text()


VEX = b"""system = "swn"
name = "Vex Ortega"
level = 3

[attributes]
str = 10
dex = 16
con = 12
int = 14
wis = 9
cha = 11

[skills]
shoot = 1
notice = { level = 0, attribute = "wis" }

[combat]
attack_bonus = 1
ac = 15
hp = 14

[[weapons]]
name = "Laser Rifle"
damage = "1d10"
skill = "shoot"
attribute = "dex"
shock = "2/15"
"""

JUNO = b"""system = "swn"
name = "Juno Reyes"
level = 2

[attributes]
str = 13
dex = 7
con = 14
int = 18
wis = 15
cha = 8

[combat]
ac = 13
hp = 9
"""


@ON_ITS_LOOP
async def test_swn_card_sets_attribute_difficulty_and_ac(server: Server, chromium: Any) -> None:
    from playwright.async_api import expect

    ARTIFACTS.mkdir(exist_ok=True)
    with server.client() as c:
        made = c.post("/api/rooms", json={"name": "Spike drive", "system": "swn"}).json()
    table = Table(server, made["room"], made["invite"], {"gm": made["token"]}, {"gm": "gm"})
    _put(server, made["room"], made["token"], "vex", VEX)
    _put(server, made["room"], made["token"], "juno", JUNO)
    async with contexts(chromium) as browser:
        gm = await (await browser.new_context(viewport={"width": 1280, "height": 900})).new_page()
        await gm.goto(made["url"])
        rolls = gm.locator("#log li[data-kind=roll]")
        vex = gm.locator("section.sheet[data-sheet=vex]")
        rifle = vex.locator("li.weapon", has_text="Laser Rifle")
        await expect(rifle).to_contain_text("skill shoot (Dex) · 1d10 · Shock 2/15")
        # A skill the sheet names an attribute for says so; one it does not, asks.
        skills = vex.get_by_role("list", name="Vex Ortega: skill")
        usual = skills.get_by_role("button", name=re.compile(r"^Roll Wis.notice"))  # no "/"
        await expect(usual).to_be_visible()
        shoot = skills.get_by_role("button", name=re.compile("^Roll shoot"))
        await shoot.click()
        await expect(gm.locator("#error")).to_contain_text("Dex/Shoot (+2)")
        await expect(rolls).to_have_count(0)

        # The card's form: attribute, difficulty, AC; then a check and an attack.
        await vex.get_by_label("Attribute for skill checks").select_option("Dex")
        await vex.get_by_label("Difficulty of checks").fill("9")
        await vex.get_by_label("Target's AC").fill("12")
        await gm.fill("#click-mod", "1")
        await shoot.click()
        await expect(rolls).to_have_count(1)
        check = _last_roll(table)
        assert check["command"] == '@vex swn check "Dex/shoot" --difficulty 9 --mod 1'
        await expect(rolls.last).to_contain_text(re.compile(r"[≥<] 9:"))
        attack = rifle.get_by_role("button", name=re.compile("^Attack with Laser Rifle"))
        await attack.click()
        await expect(rolls).to_have_count(2)
        assert _last_roll(table)["command"] == '@vex swn attack "Laser Rifle" --ac 12'
        await expect(rolls.last).to_contain_text(re.compile(r"[≥<] 12:"))
        # The GM's target: its sheet gives AC and HP; the form's AC still counts.
        await vex.get_by_label("Target's AC").fill("")
        await vex.get_by_label("Attack ▸ target").select_option("juno")
        await expect(attack).to_contain_text("Attack ▸ Juno Reyes")
        await attack.click()
        await expect(rolls).to_have_count(3)
        aimed = _last_roll(table)
        assert aimed["command"] == '@vex swn attack "Laser Rifle" --vs @juno'
        assert "@" not in aimed["resolved"] and "--ac 13" in aimed["resolved"], aimed["resolved"]
        await _fits_and_is_clean({"gm": gm}, "combat-swn")
