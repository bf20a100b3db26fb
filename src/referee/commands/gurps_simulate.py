"""``gurps simulate``: fight a GURPS encounter many times (:mod:`referee.systems.gurps.
simulate`), its combatants read from their sheets.

What a sheet gives a combatant: HP (the sheet's, else ST, B16), HT, Will (else IQ),
Basic Speed (the sheet's, else (DX + HT) / 4, B17), the weapon named or the best (the
highest P(hit) × mean damage), whether it is ranged (a weapon with an Accuracy), its
Acc and Shots (B269-B270), and what ``gurps
attack`` reads of a target (:func:`.gurps_target.target_of`: Dodge, best Parry and
Block, DR, High or Low Pain Threshold). Encounter and sheet files are read on the
command line only.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .. import examples
from ..errors import CommandError, RuleError, SheetError
from ..sheets import Kind, Sheet, find_attack, read_sheet
from .gurps_target import target_of
from .registry import command
from .result import BUILTIN, Plan, Reply, resources_of

if TYPE_CHECKING:
    from ..rng import RandomSource
    from ..systems.gurps.sim_encounter import Encounter
    from ..systems.gurps.simulate import Simulation

__all__ = [
    "ENCOUNTER_HELP",
    "encounter_from_text",
    "load_encounter",
    "sheet_stats",
    "simulation_json",
]

GURPS_ENCOUNTERS = examples.GURPS_ENCOUNTERS
ENCOUNTER_HELP = (
    "A GURPS encounter TOML file, or a shipped one: example:duel.toml, "
    "example:party_vs_4_orcs.toml, example:mob_vs_knight.toml, example:archer_vs_orc.toml, "
    "example:ironclad_vs_5_orcs.toml."
)
MAX_FILE = 1_000_000


def sheet_stats(sheet: Sheet, weapon: str | None, ht: int | None = None) -> dict[str, Any]:
    """The simulator's numbers for a combatant from its sheet (see the module); ``ht``
    for a sheet that gives none (a room's fight tracks one for every combatant).

    Raises:
        RuleError: not a GURPS sheet, no attack it can roll, no HT or HP.
    """
    from ..systems.gurps.damage import read_damage
    from ..systems.gurps.sim_encounter import danger

    if sheet.system != "gurps":
        raise RuleError(f"{sheet.name!r} is a {sheet.system} sheet, not a GURPS one")
    attrs = {t.name: t.level for t in sheet.of_kind(Kind.ATTRIBUTE)}
    if weapon is not None:
        chosen = [find_attack(sheet, weapon)]
    else:
        chosen = [a for a in sheet.attacks if a.level is not None and _rollable(a.damage)]
        chosen.sort(key=lambda a: -danger(a.level or 0, read_damage(a.damage).expression))
    if not chosen or chosen[0].level is None:
        raise RuleError(f"{sheet.name!r} has no attack with a level and a damage to roll")
    attack = chosen[0]
    hp = sheet.hp if sheet.hp is not None else attrs.get("ST")
    ht = attrs.get("HT", ht)
    if hp is None or ht is None:
        raise RuleError(f"{sheet.name!r} gives no HP (nor ST) or no HT")
    speed = sheet.basic_speed
    if speed is None:
        speed = Fraction(attrs.get("DX", ht) + ht, 4)
    target = target_of(sheet)
    shots = {"shots": attack.shots} if attack.acc is not None and attack.shots else {}
    return shots | {
        "name": sheet.name, "hp": hp, "ht": ht, "basic_speed": speed, "skill": attack.level,
        "damage": read_damage(attack.damage), "weapon": attack.full_name,
        "ranged": attack.acc is not None, "acc": attack.acc,
        "will": attrs.get("Will", attrs.get("IQ", 10)), "dodge": target.dodge,
        "parry": target.parry,
        "block": target.block, "fencing": target.fencing, "dr": target.dr,
        "dr_at": target.dr_at, "hpt": target.hpt, "lpt": target.lpt,
    }  # fmt: skip


def _rollable(damage: str) -> bool:
    from ..systems.gurps.damage import read_damage

    try:
        read_damage(damage)
    except RuleError:
        return False
    return True


def _read(path: Path, what: str) -> bytes:
    try:
        if path.stat().st_size > MAX_FILE:
            raise RuleError(f"{path}: the {what} is over {MAX_FILE:,} bytes")
        return path.read_bytes()
    except OSError as exc:
        raise RuleError(f"cannot read the {what} {str(path)!r}: {exc.strerror or exc}") from None


def load_encounter(name: str) -> Encounter:
    """The encounter in the file ``name`` (or the shipped ``example:NAME``), each
    combatant's ``sheet`` read relative to it (or ``example:NAME`` among the sheets).

    Raises:
        RuleError: a file missing or malformed; the message names file, line and field.
    """
    from ..systems.gurps.sim_encounter import encounter_from_data

    path = Path(examples.path(name, GURPS_ENCOUNTERS) if examples.is_example(name) else name)
    text = _read(path, "encounter").decode("utf-8", errors="replace")
    data = encounter_toml(text, str(path))

    def sheets(ref: str, weapon: str | None) -> Mapping[str, Any]:
        if examples.is_example(ref):
            file = examples.path(ref, examples.SHEETS)
        else:
            file = Path(ref) if Path(ref).is_absolute() else path.parent / ref
        try:
            return sheet_stats(read_sheet(_read(file, "sheet")), weapon)
        except SheetError as exc:
            raise RuleError(f"{ref}: {exc}") from None

    return encounter_from_data(data, text, str(path), sheets)


def encounter_toml(text: str, where: str) -> dict[str, Any]:
    """An encounter's TOML, read within the bounds of every file a user sends
    (:mod:`referee.untrusted`: size, nesting, entries, key parts).

    Raises:
        RuleError: over a bound, or not TOML; naming ``where`` and the line.
    """
    from ..untrusted import UntrustedFileError, load_toml

    try:
        return load_toml(text, "an encounter")
    except UntrustedFileError as exc:
        raise RuleError(f"{where}: {exc}") from None


def encounter_from_text(text: str, where: str) -> Encounter:
    """The encounter in ``text`` (a file sent in a chat, named ``where``): its sheets
    are the shipped ones only (``example:NAME``) or the numbers given inline, as no file
    is read here.

    Raises:
        RuleError: malformed TOML or encounter; a sheet that is not an example.
    """
    from ..systems.gurps.sim_encounter import encounter_from_data

    data = encounter_toml(text, where)

    def sheets(ref: str, weapon: str | None) -> Mapping[str, Any]:
        if not examples.is_example(ref):
            raise RuleError(f"{ref}: only example: sheets here, or the numbers inline")
        try:
            file = examples.path(ref, examples.SHEETS)
            return sheet_stats(read_sheet(_read(file, "sheet")), weapon)
        except SheetError as exc:
            raise RuleError(f"{ref}: {exc}") from None

    return encounter_from_data(data, text, where, sheets)


@command(
    "gurps simulate",
    rolls=False,
    examples=["gurps simulate example:party_vs_4_orcs.toml -n 10000 --seed 1"],
)
def simulate(
    ctx: typer.Context,
    path: Annotated[str, typer.Argument(help=ENCOUNTER_HELP)],
    runs: Annotated[int, typer.Option("-n", "--runs", help="Fights to simulate.")] = 100_000,
    seed: Annotated[int | None, typer.Option("--seed", help="Seed for a reproducible run.")] = None,
) -> Plan:
    """Fight a GURPS encounter many times: win odds per side, rounds, and per combatant
    the chance to end unconscious, dead, fled or crippled, HP left and injury dealt.

    Every figure comes with a 95% confidence interval (Wilson for probabilities).
    Without --seed a seed is drawn and reported, so any run can be repeated.

    Each [[combatants]] table names a sheet (or gives hp, ht, skill, damage... inline),
    a side, and optionally: count, weapon, distance (yards from its foes), move,
    ranged, acc, shots ("1(2)": reload turns, B269), and its tactics: target, aim,
    aim_turns, retreat, all_out_attack, all_out_defense, flee. The file format and
    every rule the simulator plays are in docs/systems/gurps-simulate.md.
    """
    # here, not at the top: numpy's start-up otherwise (issue 53)
    from ..systems.gurps.simulate import simulate as run_sim

    resources = resources_of(ctx)
    if resources.encounter is BUILTIN.encounter:
        raise CommandError(
            f"cannot read {path!r}: encounter files are read only on the command line",
            "gurps simulate",
        )
    enc = load_encounter(path)

    def go(rng: RandomSource) -> Reply:
        with resources.progress(runs) as tick:
            sim = run_sim(enc, runs, seed=seed, progress=tick)
        data = simulation_json(sim)
        return Reply(data, data["text"])

    return go


def simulation_json(sim: Simulation) -> dict[str, Any]:
    """The JSON contract of a GURPS simulation (docs/reference/json.md), with its text
    under ``"text"``. Its figures are floats: they are estimates."""
    from ..systems.swn.simulate import wilson

    n, enc = sim.runs, sim.encounter

    def share(k: int) -> dict[str, Any]:
        return {"p": k / n, "ci95": list(wilson(k, n))}

    fighters: dict[str, Any] = {}
    for i, f in enumerate(enc.fighters):
        hp = sim.mean_ci(sim.hp_sum[i], sim.hp_sq[i])
        dealt = sim.mean_ci(sim.dealt_sum[i], sim.dealt_sq[i])
        fighters[f.name] = {
            "side": f.side, "weapon": f.weapon,
            "unconscious": share(sim.unconscious[i]), "dead": share(sim.dead[i]),
            "fled": share(sim.fled[i]),
            "crippled": {limb: share(k) for limb, k in sorted(sim.crippled[i].items())},
            "hp_left": {"mean": hp[0], "ci95": list(hp[1:])},
            "injury_dealt": {"mean": dealt[0], "ci95": list(dealt[1:])},
        }  # fmt: skip
    most = {}
    for s in enc.sides:
        foes = [(sim.dealt_sum[i], f.name) for i, f in enumerate(enc.fighters) if f.side != s]
        most[s] = max(foes)[1]
    quartiles: dict[str, Any] = {}
    for name, q in (("p25", 0.25), ("p50", 0.5), ("p75", 0.75)):
        quartiles[name] = sim.quantile(q)
        quartiles[f"{name}_ci95"] = list(sim.quantile_ci95(q))
    data: dict[str, Any] = {
        "system": "gurps",
        "kind": "simulate",
        "encounter": enc.name,
        "runs": n,
        "seed": sim.seed,
        "sides": {s: share(sim.wins[k]) for k, s in enumerate(enc.sides)},
        "draw": {**share(sim.draws), "max_rounds": enc.max_rounds},
        "rounds": {
            "mean": sim.mean_rounds,
            "mean_ci95": list(sim.rounds_ci()),
            **quartiles,
            "max": max(r for r, c in enumerate(sim.rounds) if c),
        },  # fmt: skip
        "combatants": fighters,
        "most_injury": most,
    }
    data["text"] = _text(data)
    return data


def _pct(s: dict[str, Any]) -> str:
    return f"{100 * s['p']:5.1f}% [{100 * s['ci95'][0]:.1f}–{100 * s['ci95'][1]:.1f}]"


def _text(d: dict[str, Any]) -> str:
    lines = [
        f"{d['encounter']}: {d['runs']:,} fights, seed {d['seed']} (95% intervals in brackets)"
    ]
    lines.append("win:")
    for name, s in d["sides"].items():
        lines.append(f"  {name:<22} {_pct(s)}")
    if d["draw"]["p"]:
        lines.append(f"  {'draw (' + str(d['draw']['max_rounds']) + ' rounds)':<22} "
                     f"{_pct(d['draw'])}")  # fmt: skip
    r = d["rounds"]
    lo, hi = r["mean_ci95"]

    def q(name: str) -> str:
        return f"{r[name]} [{r[name + '_ci95'][0]}–{r[name + '_ci95'][1]}]"

    lines.append(f"rounds: mean {r['mean']:.2f} [{lo:.2f}–{hi:.2f}], median {q('p50')}, "
                 f"quartiles {q('p25')} and {q('p75')}, max {r['max']}")  # fmt: skip
    lines.append("combatants (unconscious, dead, fled; HP left; injury dealt):")
    for name, c in d["combatants"].items():
        hp, dealt = c["hp_left"]["mean"], c["injury_dealt"]["mean"]
        row = (f"  {name:<14} out {_pct(c['unconscious'])}  dead {_pct(c['dead'])}"
               f"  HP {hp:.1f}  dealt {dealt:.1f}")  # fmt: skip
        if c["fled"]["p"]:
            row += f"  fled {100 * c['fled']['p']:.1f}%"
        if c["crippled"]:
            worst = max(c["crippled"].items(), key=lambda item: item[1]["p"])
            total = sum(x["p"] for x in c["crippled"].values())
            row += f"  crippled {100 * total:.1f}% (most often the {worst[0]})"
        lines.append(row)
    lines.append("the enemy who deals each side the most injury: " + "; ".join(
        f"{side}: {name}" for side, name in d["most_injury"].items()))  # fmt: skip
    return "\n".join(lines)
