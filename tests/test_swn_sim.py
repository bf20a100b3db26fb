"""The SWN encounter simulator: against exact one-round odds, against the plain-loop
oracle, and its file errors; and ``referee swn ...`` through typer's runner."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from conftest import cli_json
from referee import RuleError, seeded
from referee.cli.app import app
from referee.systems import swn
from referee.systems.swn.encounter import encounter_from_data, load_encounter
from referee.systems.swn.oracle import run_once
from referee.systems.swn.simulate import simulate, wilson

EXAMPLES = Path(__file__).parent.parent / "examples" / "swn"
runner = CliRunner()


def _two_prop_ok(k1: int, n1: int, k2: int, n2: int, z: float = 4.0) -> bool:
    """Two proportions agree within ``z`` standard errors (z = 4: p ~ 6e-5 per check)."""
    p = (k1 + k2) / (n1 + n2)
    se = math.sqrt(max(p * (1 - p), 1e-12) * (1 / n1 + 1 / n2))
    return abs(k1 / n1 - k2 / n2) <= z * se + 1e-12


def _dummy(hp: int = 1) -> dict[str, Any]:
    """A PC shooting at a target that cannot hurt it: the fight's first round is exact."""
    return {
        "sides": {"hero": {"target": "weakest"}},
        "combatants": [
            {"name": "Hero", "side": "hero", "pc": True, "hp": 10, "ac": 10, "attack_bonus": 2,
             "dex": 14, "damage": "1d6", "shock": "1/12"},
            {"name": "Dummy", "side": "dummy", "hp": hp, "ac": 13, "damage": "1d4",
             "attack_bonus": -50},
        ],
    }  # fmt: skip


def test_simulator_matches_exact_one_round_odds() -> None:
    enc = encounter_from_data(_dummy(hp=3))
    sim = simulate(enc, 200_000, seed=11)
    # The fight ends in round 1 exactly when the hero's first attack deals >= 3.
    bonus = swn.attack_modifier(2, 0, 1)
    dist = swn.damage_distribution(enc.combatants[0].weapon, bonus, 13, 1)
    p = sum((q for v, q in dist if v >= 3), start=0 * dist[0][1])
    lo, hi = wilson(sim.rounds[1], sim.runs, z=4.0)
    assert lo <= float(p) <= hi
    assert sim.wins == (sim.runs, 0) and sim.survived[0] == sim.runs


def test_simulator_is_reproducible_and_seed_dependent() -> None:
    enc = load_encounter(EXAMPLES / "warrior_vs_3_thugs.toml")
    a, b, c = (simulate(enc, 5_000, seed=s) for s in (3, 3, 4))
    assert a == b and a.wins != c.wins
    assert simulate(enc, 3, seed=-7).runs == 3  # any integer seeds it


@pytest.mark.parametrize(
    "name",
    [
        "warrior_vs_3_thugs",
        "warrior_vs_4_thugs",
        "thug_vs_new_hero",
        "medic_team",
        "three_way_brawl",
    ],
)
def test_simulator_agrees_with_the_plain_loop_oracle(name: str) -> None:
    enc = load_encounter(EXAMPLES / f"{name}.toml")
    n_oracle = 3_000
    rng = seeded(f"oracle-{name}")
    outs = [run_once(enc, rng) for _ in range(n_oracle)]
    sim = simulate(enc, 60_000, seed=7)
    for s in range(len(enc.sides)):
        k = sum(o.winner == s for o in outs)
        assert _two_prop_ok(sim.wins[s], sim.runs, k, n_oracle), (enc.sides[s].name, k)
    for i, c in enumerate(enc.combatants):
        alive = sum(o.conditions[i] is not swn.Condition.DEAD for o in outs)
        assert _two_prop_ok(sim.survived[i], sim.runs, alive, n_oracle), c.name
        mortal = sum(o.mortally_wounded[i] for o in outs)
        assert _two_prop_ok(sim.mortally_wounded[i], sim.runs, mortal, n_oracle), c.name
        fled = sum(o.fled[i] for o in outs)
        assert _two_prop_ok(sim.fled[i], sim.runs, fled, n_oracle), c.name
    mean = sum(o.rounds for o in outs) / n_oracle
    var = sum((o.rounds - mean) ** 2 for o in outs) / n_oracle
    assert abs(mean - sim.mean_rounds) <= 4 * math.sqrt(var / n_oracle) + 1e-9


def test_medics_save_some_of_their_fallen() -> None:
    enc = load_encounter(EXAMPLES / "medic_team.toml")
    sim = simulate(enc, 20_000, seed=1)
    pcs = [i for i, c in enumerate(enc.combatants) if c.pc]
    assert any(sim.saved[i] > 0 for i in pcs)
    assert all(sim.saved[i] <= sim.mortally_wounded[i] for i in range(len(enc.combatants)))


def test_an_encounter_that_cannot_end_is_capped_and_reported() -> None:
    enc = load_encounter(EXAMPLES / "stalemate.toml")
    sim = simulate(enc, 1_000, seed=1)
    assert sim.capped == 1_000 and sim.wins == (0, 0) and sim.quantile(0.5) == enc.max_rounds
    res = runner.invoke(app, ["swn", "simulate", str(EXAMPLES / "stalemate.toml"), "-n", "500"])
    assert res.exit_code == 0 and "every run hit the round cap of 20" in res.output


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[combatants]]\nname='A'\nside='a'\nhp=-3\n", r"line 4, field 'hp': hp -3 is negative"),
        ("[[combatants]]\nname='A'\nside='a'\nhp=3\ndex=19\n", r"line 5, field 'dex': dex sc"),
        ("[[combatants]]\nname='A'\nside='a'\nhp=3\n\n[[combatants]]\nname='B'\nside='b'\nhp=2\n"
         "colour='red'\n", r"line 10, field 'colour': unknown field"),
        ("[[combatants]]\nname='A'\nside='a'\nhp=3\n", r"field 'side': .*at least two sides"),
        ("[[combatants]]\nname='A'\nside='a'\nhp=3\n[[combatants]]\nname='B'\nside='b'\nhp=2\n"
         "damage='2x6'\n", r"line 9, field 'damage'"),
        ("name = \n", r"not valid TOML"),
        ("[[combatants]]\nname='A'\nside='a'\nhp=3\n[[combatants]]\nname='B'\nside='b'\nhp=2\n"
         "shock='lots'\n", r"line 9, field 'shock': cannot read shock"),
        ("[sides.a]\ntarget='nearest'\n[[combatants]]\nname='A'\nside='a'\nhp=3\n[[combatants]]\n"
         "name='B'\nside='b'\nhp=2\n", r"line 2, field 'target'"),
        ("[[combatants]]\nname='A'\nside='a'\nhp=3\nskill=7\n", r"line 5, field 'skill'"),
    ],
)  # fmt: skip
def test_malformed_encounters_name_line_and_field(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(RuleError, match=message):
        load_encounter(path)
    res = runner.invoke(app, ["swn", "simulate", str(path), "-n", "10"])
    assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1


# --- CLI -----------------------------------------------------------------------------


def _json(*args: str) -> dict[str, Any]:
    return cli_json("swn", *args)


CONTRACT = {"system", "kind", "dice", "natural", "modifiers", "total", "target", "success",
            "odds", "text"}  # fmt: skip


@pytest.mark.parametrize(
    ("args", "kind"),
    [
        (["save", "physical", "--level", "3", "--str", "14", "--con", "10"], "save"),
        (["check", "--skill", "1", "--int", "14", "--difficulty", "hard", "--helpers", "2"],
         "skill"),
        (["attack", "--attack-bonus", "1", "--skill", "1", "--dex", "14", "--ac", "13",
          "--damage", "1d8", "--shock", "2/15"], "attack"),
        (["stabilize", "--rounds", "2", "--tools", "medkit", "--skill", "1", "--int", "12"],
         "stabilize"),
        (["morale", "8"], "morale"),
        (["oppose", "2", "1"], "oppose"),
    ],
)  # fmt: skip
def test_check_contracts(args: list[str], kind: str) -> None:
    data = _json(*args, "--seed", "1")
    assert set(data) >= CONTRACT and data["kind"] == kind and data["system"] == "swn"
    assert data["total"] == data["natural"] + sum(data["modifiers"].values())
    assert data["natural"] == sum(data["dice"])
    p, q = data["odds"]["success"].split("/")
    assert 0 <= int(p) <= int(q)
    assert data == _json(*args, "--seed", "1")


def test_attack_contract_adds_hit_damage_shock() -> None:
    data = _json("attack", "--ac", "13", "--damage", "1d8", "--shock", "2/15", "--seed", "3")
    assert {"hit", "damage", "shock"} <= set(data)
    assert data["hit"] == data["success"]


def test_odds_commands() -> None:
    assert _json("odds", "save", "physical", "--level", "1")["odds"]["success"] == "3/10"
    assert _json("odds", "morale", "8")["odds"]["success"] == "13/18"
    data = _json("odds", "check", "--difficulty", "8", "--helpers", "1")
    assert data["odds"]["success"] == "35/72" and data["without_aid"] == "5/12"
    data = _json("odds", "attack", "--ac", "11", "--damage", "1d4", "--shock", "1/15")
    assert data["odds"]["success"] == "1/2" and ["1", "5/8"] != data["damage_distribution"][0]
    assert data["damage_distribution"][0] == [1, "5/8"]


def test_simulate_contract() -> None:
    path = str(EXAMPLES / "warrior_vs_3_thugs.toml")
    data = _json("simulate", path, "-n", "2000", "--seed", "5")
    assert data["runs"] == 2000 and data["seed"] == 5
    assert set(data["sides"]) == {"hero", "thugs"}
    assert math.isclose(sum(s["win"] for s in data["sides"].values()) + data["capped"]["p"], 1)
    for s in data["sides"].values():
        assert s["ci95"][0] <= s["win"] <= s["ci95"][1]
    warrior = data["combatants"]["Warrior"]
    assert {"survival", "ci95", "mortally_wounded"} <= set(warrior)
    assert {"mean", "p50", "p90", "max"} <= set(data["rounds"])
    assert data["rounds"]["p50"] <= data["rounds"]["p90"] <= data["rounds"]["max"]


def test_initiative_command(tmp_path: Path) -> None:
    path = tmp_path / "party.toml"
    path.write_text("[[combatants]]\nname='Ana'\npc=true\ndex=14\n[[combatants]]\nname='Guard'\n"
                    "count=2\ndex_mod=-1\n")  # fmt: skip
    data = _json("initiative", str(path), "--seed", "2")
    assert [r["name"] for r in data["order"]].count("Guard 1") == 1 and len(data["order"]) == 3
    totals = [r["total"] for r in data["order"]]
    assert totals == sorted(totals, reverse=True)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["save", "physical", "--str", "19"], "str score 19 is outside 3-18"),
        (["save", "physical", "--dex", "14"], "dex does not apply to a physical save"),
        (["stabilize", "--tools", "duct-tape"], "unknown tool 'duct-tape'"),
        (["check", "--mod", "3"], "situational modifier +3 is beyond ±2"),
        (["check", "--difficulty", "tricky"], "unknown difficulty 'tricky'"),
        (["attack", "--damage", "1x"], "1x"),
        (["attack", "--shock", "x"], "cannot read shock 'x'"),
        (["simulate", "/nonexistent.toml"], "cannot read '/nonexistent.toml'"),
        (["simulate", str(EXAMPLES / "stalemate.toml"), "-n", "0"], "runs 0 must be from 1"),
        (["initiative", str(EXAMPLES / "stalemate.toml"), "--seed", "x"], ""),
    ],
)
def test_bad_input_is_one_line_exit_2(args: list[str], message: str) -> None:
    res = runner.invoke(app, ["swn", *args])
    assert res.exit_code == 2, res.output
    assert message in res.output and "Traceback" not in res.output


def test_every_example_loads() -> None:
    for path in sorted(EXAMPLES.glob("*.toml")):
        assert swn.load_party(path)
        if path.stem != "party":
            assert load_encounter(path).combatants
