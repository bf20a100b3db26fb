"""The GURPS encounter simulator (issue 68 §1-§2): against the exact odds of the first
exchange (``gurps odds attack``), against the oracle that plays one fight at a time
through the exchange engine, its file errors, its seeding, a property test over random
combatants, and ``referee gurps simulate`` through typer's runner."""

from __future__ import annotations

import math
import statistics
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from conftest import cli_json
from referee import RuleError, commands, seeded
from referee.cli.app import app
from referee.cli.local import LOCAL
from referee.commands.gurps_simulate import load_encounter, sheet_stats, simulation_json
from referee.sheets import read_sheet
from referee.systems.gurps.exchange_odds import exchange_odds
from referee.systems.gurps.melee import AttackOptions, DefenseOptions
from referee.systems.gurps.sim_encounter import Encounter, encounter_from_data
from referee.systems.gurps.sim_oracle import DEAD, FLED, UNCONSCIOUS, options_for, run_once
from referee.systems.gurps.sim_oracle import target_of as oracle_target
from referee.systems.gurps.simulate import CHUNK, simulate
from referee.systems.swn.simulate import wilson

EXAMPLES = Path(__file__).parent.parent / "examples" / "gurps"
FIVE = ["duel", "party_vs_4_orcs", "mob_vs_knight", "archer_vs_orc", "ironclad_vs_5_orcs"]
runner = CliRunner()


def _enc(name: str) -> Encounter:
    return load_encounter(str(EXAMPLES / f"{name}.toml"))


def _within(k: int, n: int, p: float, z: float = 3.0) -> bool:
    """``k`` of ``n`` agrees with ``p`` within ``z`` standard errors."""
    se = math.sqrt(max(p * (1 - p), 1e-12) / n)
    return abs(k / n - p) <= z * se + 1e-9


@pytest.mark.parametrize(
    ("name", "ranged", "retreat"), [("duel", False, True), ("archer_vs_orc", True, False)]
)
def test_the_first_exchange_agrees_with_the_exact_odds(
    name: str, ranged: bool, retreat: bool
) -> None:
    enc = _enc(name)
    sim = simulate(enc, 60_000, seed=21)
    # the first combatant is the faster (B363), so it always makes the first attack
    assert list(sim.first) == [(0, 1)]
    n, hits, defended, injures, major = sim.first[(0, 1)]
    a, t = enc.fighters
    # the archer, 20 yards off, aims in round 1 while the orc closes by its Move (B364);
    # in round 2 she shoots with her Acc at the range left (B550): 15 yards, -5
    aim, yards = (1, a.distance - t.move) if ranged else (0, 0)
    assert (aim, yards) == ((1, 15) if ranged else (0, 0))
    o = exchange_odds(a.skill, a.damage, oracle_target(t, t.hp, False),
                      options_for(a, False, 0, aim, yards), "best",
                      DefenseOptions(retreat=retreat))  # fmt: skip
    assert n == sim.runs
    assert o.defense == "dodge"  # retreating, Dodge 7+3 ties Parry 9+1: Dodge first
    for k, p in ((hits, o.hit), (defended, o.defended), (injures, o.injures),
                 (major, o.major_wound)):  # fmt: skip
        assert _within(k, n, float(p)), (k / n, float(p))


def test_the_first_exchange_test_could_fail() -> None:
    """The same comparison against the odds without retreat is off by far more."""
    enc = _enc("duel")
    sim = simulate(enc, 60_000, seed=21)
    n, _, defended, _, _ = sim.first[(0, 1)]
    a, t = enc.fighters
    o = exchange_odds(a.skill, a.damage, oracle_target(t, t.hp, False), AttackOptions(
        random_location=True), "best", DefenseOptions())  # fmt: skip
    assert not _within(defended, n, float(o.defended))


def _agree(enc: Encounter, fights: int, seed: int) -> None:
    rng = seeded(seed)
    outs = [run_once(enc, rng) for _ in range(fights)]
    sim = simulate(enc, 40_000, seed=seed)
    z = 2.576  # 99%
    for s in range(len(enc.sides)):
        k = sum(o.winner == s for o in outs)
        lo, hi = wilson(k, fights, z)
        slo, shi = wilson(sim.wins[s], sim.runs, z)
        assert lo <= shi and slo <= hi, (enc.sides[s], k / fights, sim.wins[s] / sim.runs)
    rounds = [o.rounds for o in outs]
    half = z * statistics.stdev(rounds) / math.sqrt(fights)
    mean = statistics.mean(rounds)
    slo, shi = sim.rounds_ci(z)
    assert mean - half <= shi and slo <= mean + half, (mean, sim.mean_rounds)


def test_the_simulator_agrees_with_the_oracle_on_ranged_vs_melee() -> None:
    _agree(_enc("archer_vs_orc"), 400, 4)


@pytest.mark.slow
@pytest.mark.parametrize("name", FIVE)
def test_the_simulator_agrees_with_the_oracle(name: str) -> None:
    fights = 300 if name == "party_vs_4_orcs" else 800
    _agree(_enc(name), fights, 7)


def test_seeded_runs_are_reproducible_across_batches() -> None:
    enc = _enc("mob_vs_knight")
    a, b, c = (simulate(enc, CHUNK + 500, seed=s) for s in (3, 3, 4))
    assert a == b and a.wins != c.wins
    assert sum(a.wins) + a.draws == a.runs == sum(a.rounds)


def test_a_seed_is_drawn_and_reported() -> None:
    enc = _enc("duel")
    a = simulate(enc, 50)
    assert a == simulate(enc, 50, seed=a.seed)


def test_the_oracle_is_seeded() -> None:
    enc = _enc("party_vs_4_orcs")
    assert run_once(enc, seeded(5)) == run_once(enc, seeded(5))


def test_tactics_change_the_fight() -> None:
    """Fleeing when reeling: the orcs flee, and none dies or falls in the same fight."""
    sim = simulate(_enc("party_vs_4_orcs"), 5_000, seed=2)
    orcs = [i for i, f in enumerate(sim.encounter.fighters) if f.side == "orcs"]
    assert all(sim.fled[i] > 0 for i in orcs)
    assert all(sim.fled[i] + sim.dead[i] + sim.unconscious[i] <= sim.runs for i in orcs)
    pcs = [i for i, f in enumerate(sim.encounter.fighters) if f.side != "orcs"]
    assert all(sim.fled[i] == 0 for i in pcs)


def _fighter(draw: Any, side: str, name: str) -> dict[str, Any]:
    dice = draw(st.integers(1, 3))
    adds = draw(st.integers(-3, 3))
    kind = draw(st.sampled_from(["cr", "cut", "imp", "pi", "pi+", "burn"]))
    defense = {k: draw(st.integers(3, 14)) for k in ("dodge", "parry", "block")
               if draw(st.booleans())}  # fmt: skip
    return {
        "name": name, "side": side, "hp": draw(st.integers(1, 25)), "ht": draw(st.integers(5, 15)),
        "basic_speed": draw(st.floats(3, 8)), "skill": draw(st.integers(3, 20)),
        "damage": f"{dice}d{adds:+d} {kind}" if adds else f"{dice}d {kind}",
        "ranged": draw(st.booleans()), "dr": draw(st.integers(0, 8)),
        "hpt": draw(st.booleans()), "target": draw(st.sampled_from(["first", "weakest",
                                                                    "dangerous"])),
        "aim": draw(st.sampled_from(["random", "torso", "skull", "arm"])),
        "retreat": draw(st.booleans()),
        "all_out_attack": draw(st.sampled_from(["never", "defenseless"])),
        "all_out_defense": draw(st.sampled_from(["never", "reeling"])),
        "flee": draw(st.sampled_from(["never", "reeling"])), **defense,
    }  # fmt: skip


@st.composite
def encounters(draw: Any) -> dict[str, Any]:
    count = draw(st.integers(2, 4))
    fighters = [_fighter(draw, "ab"[min(i, 1)] if i < 2 else draw(st.sampled_from("ab")),
                         f"F{i}") for i in range(count)]  # fmt: skip
    return {"max_rounds": draw(st.integers(1, 30)), "combatants": fighters}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=encounters(), seed=st.integers(0, 2**32))
def test_random_combatants_never_crash_nor_leave_0_1(data: dict[str, Any], seed: int) -> None:
    enc = encounter_from_data(data)
    sim = simulate(enc, 300, seed=seed)
    found = simulation_json(sim)

    def shares(value: Any) -> list[float]:
        if isinstance(value, dict):
            own = [value["p"], *value["ci95"]] if "p" in value else []
            return own + [x for v in value.values() for x in shares(v)]
        return []

    ps = shares(found)
    assert ps and all(0.0 <= p <= 1.0 for p in ps)
    assert sum(sim.wins) + sim.draws == sim.runs
    out = run_once(enc, seeded(seed))
    assert set(out.conditions) <= {0, UNCONSCIOUS, DEAD, FLED}


def _sheet_text(f: dict[str, Any]) -> str:
    """A GURPS TOML sheet with ``f``'s numbers (B16-B17 attributes, one attack)."""
    lines = ['system = "gurps"', f'name = "{f["name"]}"', f"hp = {f['hp']}",
             f"basic_speed = {round(f['basic_speed'] * 4) / 4}", f"dr = {f['dr']}"]  # fmt: skip
    if "dodge" in f:
        lines.append(f"dodge = {f['dodge']}")
    if f["hpt"]:
        lines.append('advantages = ["High Pain Threshold"]')
    lines += ["[attributes]", f"HT = {f['ht']}", "ST = 10", "DX = 10", "[[attacks]]",
              'name = "Weapon"', f"level = {f['skill']}", f'damage = "{f["damage"]}"']  # fmt: skip
    lines += [f'{k} = "{f[k]}"' for k in ("parry", "block") if k in f]
    if f["ranged"]:
        lines.append("acc = 3")
    return "\n".join(lines) + "\n"


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=encounters(), seed=st.integers(0, 2**32))
def test_random_sheets_never_crash_nor_leave_0_1(data: dict[str, Any], seed: int) -> None:
    texts = {f["name"]: _sheet_text(f) for f in data["combatants"]}
    stats = ("hp", "ht", "basic_speed", "skill", "damage", "ranged", "dodge", "parry",
             "block", "dr", "hpt")  # fmt: skip
    entries = [{"sheet": f["name"], **{k: v for k, v in f.items() if k not in stats}}
               for f in data["combatants"]]  # fmt: skip
    enc = encounter_from_data(
        {**data, "combatants": entries}, sheets=lambda ref, weapon: sheet_stats(
            read_sheet(texts[ref].encode()), weapon)
    )  # fmt: skip
    for f, entry in zip(enc.fighters, data["combatants"], strict=True):
        assert (f.hp, f.ht, f.skill, f.dr, f.ranged) == (entry["hp"], entry["ht"],
                                                          entry["skill"], entry["dr"],
                                                          entry["ranged"])  # fmt: skip
    sim = simulate(enc, 200, seed=seed)
    assert sum(sim.wins) + sim.draws == sim.runs
    found = simulation_json(sim)
    ps = [x for side in found["sides"].values() for x in (side["p"], *side["ci95"])]
    assert all(0.0 <= p <= 1.0 for p in ps)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[combatants]]\nname='A'\nside='a'\nhp=10\nht=10\nskill=12\nspeed=3\n",
         "line 7, field 'speed': unknown field"),
        ("[[combatants]]\nname='A'\nside='a'\nhp=10\nht=10\nskill=12\n",
         "at least two sides"),
        ("[[combatants]]\nname='A'\nside='a'\nhp=10\nskill=12\n",
         "field 'ht': required"),
        ("[[combatants]]\nname='A'\nside='a'\nhp=10\nht=10\nskill=12\ntarget='nearest'\n",
         "line 7, field 'target': 'nearest' is not one of first, weakest, dangerous"),
        ("[[combatants]]\nname='A'\nside='a'\nhp=10\nht=10\nskill=12\ndamage='1d cr'\n"
         "aim='eye'\n", "field 'aim'"),
        ("[[combatants]]\nname='A'\nside='a'\nhp=10\nht=10\nskill=12\ndamage='1d zap'\n",
         "cannot roll the damage"),
        ("[[combatants]]\nside='a'\nsheet='nowhere.toml'\n", "cannot read the sheet"),
        ("max_rounds = 0\n", "max_rounds"),
    ],
)  # fmt: skip
def test_malformed_encounters_name_line_and_field(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RuleError, match=message.replace("(", r"\(")) as err:
        load_encounter(str(path))
    assert str(path) in str(err.value)


def test_every_example_loads_from_its_sheets() -> None:
    for name in FIVE:
        enc = load_encounter(f"example:{name}.toml")
        assert enc == _enc(name)
    aldric = _enc("duel").fighters[0]
    assert (aldric.hp, aldric.ht, aldric.skill, aldric.damage.expression, aldric.parry,
            aldric.block, aldric.dr, aldric.hpt) == (13, 12, 15, "2d", 11, 11, 4, True)  # fmt: skip
    assert _enc("archer_vs_orc").fighters[0].ranged


def test_the_command_reports_json_with_intervals() -> None:
    data = cli_json("gurps", "simulate", "example:party_vs_4_orcs.toml", "-n", "2000",
                    "--seed", "5")  # fmt: skip
    assert (data["system"], data["kind"], data["runs"], data["seed"]) == ("gurps", "simulate",
                                                                          2000, 5)  # fmt: skip
    wins = sum(s["p"] for s in data["sides"].values()) + data["draw"]["p"]
    assert math.isclose(wins, 1)
    for s in data["sides"].values():
        assert s["ci95"][0] <= s["p"] <= s["ci95"][1]
    r = data["rounds"]
    assert r["p25"] <= r["p50"] <= r["p75"] <= r["max"]
    for q in ("p25", "p50", "p75"):
        assert r[f"{q}_ci95"][0] <= r[q] <= r[f"{q}_ci95"][1]
    assert r["mean_ci95"][0] <= r["mean"] <= r["mean_ci95"][1]
    knight = data["combatants"]["Sir Aldric"]
    assert {"unconscious", "dead", "fled", "crippled", "hp_left", "injury_dealt"} <= set(knight)
    assert set(data["most_injury"]) == {"adventurers", "orcs"}
    assert data["most_injury"]["orcs"] in {"Sir Aldric", "Wren", "Dai Blackthorn"}


def test_the_command_draws_a_seed_and_reports_it() -> None:
    res = runner.invoke(app, ["gurps", "simulate", "example:duel.toml", "-n", "100"])
    assert res.exit_code == 0, res.output
    seed = int(res.output.split("seed ")[1].split(" ")[0])
    again = runner.invoke(app, ["gurps", "simulate", "example:duel.toml", "-n", "100",
                                "--seed", str(seed)])  # fmt: skip
    assert again.output == res.output


def test_a_room_may_not_read_encounter_files() -> None:
    with pytest.raises(commands.CommandError, match="read only on the command line"):
        commands.run("gurps simulate example:duel.toml -n 10", seeded(1))
    assert commands.run("gurps simulate example:duel.toml -n 10 --seed 1", seeded(1),
                        resources=LOCAL).data["runs"] == 10  # fmt: skip


def test_an_unknown_example_lists_them() -> None:
    res = runner.invoke(app, ["gurps", "simulate", "example:nothing.toml"])
    assert res.exit_code == 2 and "example:duel.toml" in res.output
