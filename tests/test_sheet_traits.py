"""The traits the combat rules read from a sheet (issue 65 §2, issue 66 §1.3): HP, FP,
Basic Speed, DR, High and Low Pain Threshold, Injury Tolerance, from every format (GCS,
TOML, Foundry), in any case; the fight and the exchange given them; ``--hpt`` and
``--lpt``; and the pain threshold's exact odds against every roll enumerated.

Source: *GURPS Basic Set*, 4th edition, as ``COMBAT.md``, "Shock, major wounds,
knockdown (B419–B420)": High Pain Threshold (B59), no shock and +3 against knockdown;
Low Pain Threshold (B142), shock doubled to at most −8 and −4 against knockdown.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from fractions import Fraction
from math import prod
from pathlib import Path
from typing import Any, TypeVar

import pytest
from typer.testing import CliRunner

from referee import commands, fight, seeded
from referee.cli.app import app
from referee.commands.gurps_target import target_of
from referee.errors import RuleError, SheetError
from referee.fight.sheets import values_from
from referee.sheets import Sheet, read_sheet
from referee.systems.gurps.damage import read_damage
from referee.systems.gurps.exchange import Target, exchange
from referee.systems.gurps.exchange_odds import exchange_odds
from referee.systems.gurps.melee import AttackOptions, DefenseOptions
from referee.systems.gurps.pain import pain_odds

EXAMPLES = Path(__file__).parents[1] / "src" / "referee" / "examples" / "sheets"
GCS = Path(__file__).parent / "data" / "gcs"
T = TypeVar("T")


def _dai() -> dict[str, Any]:
    """The shipped example GCS file (version 5), parsed."""
    doc: dict[str, Any] = json.loads((EXAMPLES / "dai.gcs").read_bytes())
    return doc


def _with_traits(*items: dict[str, Any], key: str = "traits") -> bytes:
    """Dai's GCS file with ``items`` added to its first trait container."""
    doc = _dai()
    if key != "traits":  # a version 2 file keeps them under "advantages"
        doc[key] = doc.pop("traits")
    doc[key][0]["children"].extend(copy.deepcopy(list(items)))
    return json.dumps(doc).encode()


HPT = {"id": "tHighPainThresh01", "name": "High Pain Threshold", "reference": "B59"}
LPT = {"id": "tLowPainThresh001", "name": "low pain threshold", "reference": "B142"}


def _toml(*lines: str) -> Sheet:
    return read_sheet("\n".join(['system = "gurps"', 'name = "Orc"', *lines]).encode())


# ------------------------------------------------------------------------ GCS


def test_the_shipped_gcs_sheet_gives_hp_fp_and_basic_speed_and_no_pain_threshold() -> None:
    dai = read_sheet((EXAMPLES / "dai.gcs").read_bytes())
    assert (dai.hp, dai.fp, dai.basic_speed) == (10, 10, Fraction(7))
    assert not dai.hpt and not dai.lpt and dai.injury_tolerance == ()
    values = values_from(dai)
    assert values["hp_max"] == 10 and values["fp_max"] == 10 and values["speed"] == 700
    assert "hpt" not in values and "lpt" not in values


def test_a_gcs_trait_high_pain_threshold_is_read_in_any_case() -> None:
    sheet = read_sheet(_with_traits({**HPT, "name": "HIGH pain  Threshold"}))
    assert sheet.hpt and not sheet.lpt
    assert values_from(sheet)["hpt"] == 1 and target_of(sheet).hpt
    low = read_sheet(_with_traits(LPT))
    assert low.lpt and not low.hpt and values_from(low)["lpt"] == 1 and target_of(low).lpt


def test_a_version_2_gcs_file_reads_its_advantages() -> None:
    doc = json.loads((GCS / "Dai Blackthorn (version 2).gcs").read_bytes())
    doc["advantages"][0]["children"].append({"type": "advantage", **HPT})
    assert read_sheet(json.dumps(doc).encode()).hpt
    assert not read_sheet((GCS / "Dai Blackthorn (version 2).gcs").read_bytes()).hpt


def test_a_disabled_gcs_trait_or_container_is_not_read() -> None:
    assert not read_sheet(_with_traits({**HPT, "disabled": True})).hpt
    box = {"id": "Tbox0000000000000", "name": "Off", "disabled": True, "children": [HPT]}
    assert not read_sheet(_with_traits(box)).hpt
    box_on = {**box, "disabled": False}
    assert read_sheet(_with_traits(box_on)).hpt


def test_a_gcs_sheet_with_both_pain_thresholds_reads_neither_and_says_why() -> None:
    sheet = read_sheet(_with_traits(HPT, LPT))
    assert not sheet.hpt and not sheet.lpt
    assert any("High and Low Pain Threshold" in n for n in sheet.notes)


def test_gcs_injury_tolerance_is_recorded_by_its_enabled_modifiers() -> None:
    # Janos Telkozep (GCS's own sample) has Injury Tolerance with Unliving enabled only
    janos = read_sheet((GCS / "Janos Telkozep.gcs").read_bytes())
    assert janos.injury_tolerance == ("unliving",)
    mods = [
        {"id": "m1", "name": "Diffuse"},
        {"id": "m2", "name": "Homogenous", "disabled": True},
        {"id": "m3", "name": "No Blood"},
    ]
    it = {"id": "tInjuryTolerance1", "name": "Injury Tolerance", "modifiers": mods}
    assert read_sheet(_with_traits(it)).injury_tolerance == ("diffuse",)
    named = {"id": "tInjuryTolerance2", "name": "Injury Tolerance (Homogeneous)"}
    assert read_sheet(_with_traits(named)).injury_tolerance == ("homogenous",)


def test_gcs_pools_are_found_by_any_case_of_their_id_or_name() -> None:
    doc = _dai()
    for entry in doc["attributes"]:
        if entry["attr_id"] == "hp":
            entry["attr_id"] = "HP"
            entry["calc"]["value"] = 17
        if entry["attr_id"] == "basic_speed":
            entry["calc"]["value"] = 6.75
    for spec in doc["settings"]["attributes"]:
        if spec["id"] == "fp":
            spec["id"], spec["name"] = "stamina", "Fatigue Points"
    for entry in doc["attributes"]:
        if entry["attr_id"] == "fp":
            entry["attr_id"] = "stamina"
            entry["calc"]["value"] = 13
    sheet = read_sheet(json.dumps(doc).encode())
    assert (sheet.hp, sheet.fp, sheet.basic_speed) == (17, 13, Fraction(27, 4))
    assert values_from(sheet)["speed"] == 675


@pytest.mark.parametrize("path", sorted(GCS.glob("*.gcs")), ids=lambda p: p.stem)
def test_every_gcs_fixture_gives_its_saved_pools(path: Path) -> None:
    doc = json.loads(path.read_text())
    saved = {a["attr_id"]: a.get("calc", {}).get("value") for a in doc.get("attributes", [])}
    sheet = read_sheet(path.read_bytes())
    assert sheet.hp == saved["hp"] and sheet.fp == saved["fp"]
    assert sheet.basic_speed == Fraction(saved["basic_speed"])


# ----------------------------------------------------------------------- TOML


@pytest.mark.parametrize(
    "line",
    ["HP = 14", "hp = 14", "Hp = 14", '"Hit Points" = 14', "[attributes]\nST = 13\nHP = 14"],
)
def test_a_toml_sheets_hp_is_read_as_it_writes_it(line: str) -> None:
    sheet = _toml(line)
    assert sheet.hp == 14
    assert values_from(sheet)["hp_max"] == 14  # not 13 from ST (issue 65 §2)
    assert all(t.name != "HP" for t in sheet.traits)


def test_a_toml_sheet_gives_fp_basic_speed_and_the_pain_thresholds() -> None:
    sheet = _toml(
        "FP = 12",
        '"Basic Speed" = 5.75',
        'advantages = ["high PAIN threshold", "Injury Tolerance (Unliving)", "Luck"]',
        "[attributes]",
        "DX = 12",
    )
    assert (sheet.fp, sheet.basic_speed, sheet.hpt, sheet.lpt) == (12, Fraction(23, 4), True, False)
    assert sheet.injury_tolerance == ("unliving",)
    values = values_from(sheet)
    assert (values["fp_max"], values["speed"], values["hpt"]) == (12, 575, 1)
    low = _toml("[Disadvantages]", '"Low Pain Threshold" = true', '"Bad Temper" = false')
    assert low.lpt and not low.hpt
    assert not _toml("[advantages]", '"High Pain Threshold" = false').hpt


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["HP = 14", "hp = 15"], "given twice"),
        (["hp = 14", "[attributes]", "HP = 15"], "given twice"),
        (["basic_speed = 5.333"], "to the hundredth"),
        (["basic_speed = 'fast'"], "should be a number"),
        (["fp = 0"], "outside 1 to 10000"),
        (['advantages = ["HPT"]', 'disadvantages = ["Low Pain Threshold"]'], "exclude each other"),
        (["advantages = 3"], "list of names"),
        (["[advantages]", "HPT = 1"], "true or false"),
        (["Colour = 1"], "unknown key"),
    ],
)
def test_a_bad_toml_trait_is_refused_naming_its_key(lines: list[str], message: str) -> None:
    with pytest.raises(SheetError, match=message):
        _toml(*lines)


def test_the_shipped_toml_sheet_reads_as_before() -> None:
    dai = read_sheet((EXAMPLES / "dai.toml").read_bytes())
    assert dai.hp is None and dai.fp is None and not dai.hpt
    assert {t.name for t in dai.traits} >= {"ST", "DX", "Stealth", "Dodge"}


# -------------------------------------------------------------------- Foundry


def test_a_foundry_actor_gives_its_maximum_hp_to_the_fight() -> None:
    actor = {
        "name": "Vex",
        "type": "character",
        "system": {
            "level": {"value": 3},
            "health": {"value": 9, "max": 14},
            "stats": {k: {"base": 10} for k in ("str", "dex", "con", "int", "wis", "cha")},
        },
        "items": [],
    }
    sheet = read_sheet(json.dumps(actor).encode())
    assert sheet.hp == 14 and values_from(sheet)["hp_max"] == 14


# ----------------------------------------------- the exchange and the command line


def _run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, list(args))
    return res.exit_code, res.output


def _json(*args: str) -> dict[str, Any]:
    code, out = _run(*args, "--json")
    assert code == 0, out
    data: dict[str, Any] = json.loads(out)
    return data


def test_a_gcs_target_with_high_pain_threshold_takes_no_shock(tmp_path: Path) -> None:
    """The issue's command: shock 4 before; 0 now, and HT+3 against knockdown."""
    that = tmp_path / "that.gcs"
    that.write_bytes(_with_traits(HPT))
    line = ["gurps", "attack", "20", "--damage", "2d+2 cr", "--defense", "none", "--seed", "3"]
    plain = _json(*line, "--vs", str(EXAMPLES / "dai.gcs"))
    assert plain["damage"]["shock"] == 4 and plain["pain_threshold"] is None
    tough = _json(*line, "--vs", str(that))
    assert tough["damage"]["injury"] == plain["damage"]["injury"] == 6
    assert tough["damage"]["shock"] == 0 and tough["pain_threshold"] == "high"
    assert "HT at +3 against knockdown" in tough["calls"][0]
    assert "High Pain Threshold (B59)" in tough["text"]
    typed = _json(*line, "--vs", str(EXAMPLES / "dai.gcs"), "--hpt")
    assert typed["damage"] == tough["damage"] and typed["calls"] == tough["calls"]


def test_low_pain_threshold_doubles_shock_to_at_most_8_and_gives_minus_4() -> None:
    line = ["gurps", "attack", "20", "--damage", "2d+2 cr", "--defense", "none", "--hp", "10"]
    for seed in range(6):
        plain = _json(*line, "--seed", str(seed))
        low = _json(*line, "--seed", str(seed), "--lpt")
        if plain["damage"] is None:
            continue
        assert low["damage"]["shock"] == min(2 * plain["damage"]["injury"], 8)
        assert low["pain_threshold"] == "low" and "Low Pain Threshold (B142)" in low["text"]
        major = 2 * plain["damage"]["injury"] > 10  # a major wound calls the roll (B420)
        assert any("HT at -4 against knockdown" in c for c in low["calls"]) == major


def test_a_resolved_attack_on_a_sheet_with_high_pain_threshold_names_hpt() -> None:
    tough = read_sheet(_with_traits(HPT))
    dai = read_sheet((EXAMPLES / "dai.toml").read_bytes())
    line = "gurps attack 'Knife (Swung)' --vs @tough --defense none"
    resolved = commands.resolve(line, dai, others={"@tough": tough})
    assert "--hpt" in resolved and "@" not in resolved
    res = commands.with_sheet(dai, others={"@tough": tough})
    for seed in range(4):
        assert commands.run(line, seeded(seed), resources=res).data == (
            commands.run(resolved, seeded(seed)).data
        )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--hpt", "--lpt"], "exclude each other"),
        (["--vs", str(EXAMPLES / "dai.gcs"), "--hpt", "--lpt"], "exclude each other"),
    ],
)
def test_both_pain_thresholds_are_refused_in_words(args: list[str], message: str) -> None:
    for odds in ([], ["odds"]):
        code, out = _run("gurps", *odds, "attack", "14", "--damage", "2d", "--dodge", "8", *args)
        assert code == 2 and message in out and "Traceback" not in out


def test_an_lpt_given_against_a_sheets_hpt_is_refused(tmp_path: Path) -> None:
    that = tmp_path / "that.gcs"
    that.write_bytes(_with_traits(HPT))
    code, out = _run("gurps", "attack", "14", "--damage", "2d", "--vs", str(that), "--lpt")
    assert code == 2 and "sheet has High Pain Threshold" in out and "Traceback" not in out


def test_a_bad_toml_sheet_given_to_vs_is_refused_in_words(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('system = "gurps"\nHP = 14\nhp = 15\n')
    code, out = _run("gurps", "attack", "14", "--damage", "2d", "--vs", str(bad))
    assert code == 2 and "given twice" in out and "Traceback" not in out


def test_the_odds_name_the_threshold_with_the_shock_and_knockdown_odds() -> None:
    args = ["gurps", "odds", "attack", "20", "--damage", "2d+2 cr", "--defense", "none"]
    high = _json(*args, "--hp", "10", "--hpt")
    assert high["pain_threshold"] == "high" and high["odds"]["shock"] == [[0, "1/1"]]
    assert [m for m, _ in high["odds"]["knockdown_at"]] == [3]
    assert Fraction(high["odds"]["knockdown_at"][0][1]) == Fraction(high["odds"]["knockdown"])
    assert "High Pain Threshold (B59): shock 0 100.0%" in high["text"]
    low = _json(*args, "--hp", "10", "--lpt")
    assert max(n for n, _ in low["odds"]["shock"]) == 8 and "HT-4" in low["text"]
    plain = _json(*args, "--hp", "10")
    assert plain["pain_threshold"] is None and "shock" not in plain["odds"]


# ------------------------------------------- the odds against every roll enumerated


class _Path:
    """A random source that draws the faces of ``prefix``, then the lowest face, and
    records each draw's ``n``: one path through every roll an exchange may make."""

    def __init__(self, prefix: list[int]) -> None:
        self.prefix = prefix
        self.ns: list[int] = []

    def randbelow(self, n: int) -> int:
        value = self.prefix[len(self.ns)] if len(self.ns) < len(self.prefix) else 0
        self.ns.append(n)
        return value


def _every_path(run: Callable[[_Path], T]) -> Iterator[tuple[T, Fraction]]:
    """Every sequence of draws ``run`` can make, each once, with its chance."""
    prefix: list[int] = []
    while True:
        source = _Path(prefix)
        result = run(source)
        drawn = prefix + [0] * (len(source.ns) - len(prefix))
        yield result, Fraction(1, prod(source.ns))
        i = len(drawn) - 1
        while i >= 0 and drawn[i] + 1 == source.ns[i]:
            i -= 1
        if i < 0:
            return
        prefix = [*drawn[:i], drawn[i] + 1]


CASES = [  # (skill, damage, target, options, defense)
    (10, "1d+3 cr", Target("Orc", hp=10, hpt=True), AttackOptions(), "none"),
    (10, "1d+3 cr", Target("Orc", hp=10, lpt=True), AttackOptions(), "none"),
    (11, "1d+1 cut", Target("Orc", hp=8, lpt=True, dr=1), AttackOptions(location="skull"), "none"),
    (9, "1d+2 cr", Target("Orc", hp=6, hpt=True), AttackOptions(location="face"), "none"),
    pytest.param(  # 26,000 paths: a defense roll after each hit
        (8, "1d cr", Target("Orc", hp=7, lpt=True, dodge=9), AttackOptions(location="arm"),
         "dodge"),
        marks=pytest.mark.slow,
    ),
    pytest.param(  # 13,000 paths: a location roll after each hit
        (5, "1d+1 imp", Target("Orc", hp=9, lpt=True),
         AttackOptions(random_location=True, criticals=False), "none"),
        marks=pytest.mark.slow,
    ),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[str(i) for i in range(len(CASES))])
def test_the_pain_odds_are_those_of_every_exchange_enumerated(
    case: tuple[int, str, Target, AttackOptions, str],
) -> None:
    skill, text, target, options, defense = case
    damage = read_damage(text)
    shock: dict[int, Fraction] = {}
    knockdown: dict[int, Fraction] = {}

    def run(source: _Path) -> Any:
        return exchange(skill, damage, target, options=options, defense=defense, rng=source)

    for x, p in _every_path(run):
        w = None if x.hurt is None else x.hurt.wound
        hurt = w.shock if w is not None else 0
        shock[hurt] = shock.get(hurt, Fraction(0)) + p
        if w is not None and w.injury and w.knockdown is not None:
            knockdown[w.knockdown] = knockdown.get(w.knockdown, Fraction(0)) + p
    exact = pain_odds(skill, damage, target, options, defense, DefenseOptions())
    assert dict(exact.shock) == {k: v for k, v in shock.items() if v}
    assert dict(exact.knockdown) == knockdown
    steps = exchange_odds(skill, damage, target, options, defense)
    assert sum(knockdown.values(), Fraction(0)) == steps.knockdown
    if target.hpt:
        assert set(shock) == {0} and all(m >= 3 - 10 for m in knockdown)
    else:
        assert max(shock) <= 8


def test_the_fight_takes_the_sheets_pain_threshold() -> None:
    """A fight's combatant added from a GCS sheet with High Pain Threshold takes no
    shock from a blow that would give 4 (B59)."""
    values = values_from(read_sheet(_with_traits(HPT)))
    f = fight.begin("gurps")
    f = fight.step(f, {"kind": "add", "combatant": "dai", "values": values}).fight
    f = fight.step(f, {"kind": "damage", "combatant": "dai", "amount": 4}).fight
    dai = f.combatants["dai"]
    assert dai.value("hp") == 6 and dai.value("shock") == 0 and dai.value("hpt") == 1


def test_hpt_alone_names_a_target_so_the_exchange_asks_for_its_defense() -> None:
    with pytest.raises(RuleError, match="no active defense"):
        commands.run("gurps attack 14 --damage 2d --hpt", seeded(1))
