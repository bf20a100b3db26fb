"""``referee swn simulate FILE``: the encounter simulator's command (rendering only)."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from .cli_common import JsonOpt, emit, fail
from .errors import RefereeError

PROGRESS_FROM = 200_000
"""Runs from this many up show a progress bar (on a terminal, on standard error)."""


def simulate_cmd(
    path: Annotated[str, typer.Argument(help="An encounter TOML file (see examples/swn/).")],
    runs: Annotated[int, typer.Option("-n", "--runs", help="Encounters to simulate.")] = 100_000,
    seed: Annotated[int | None, typer.Option("--seed", help="Seed for a reproducible run.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Fight an encounter many times: win odds per side, survival per combatant, rounds.

    Every figure comes with a 95% confidence interval (Wilson for
    probabilities). Without --seed a seed is drawn and reported, so any run can
    be repeated.
    """
    from .systems.swn.encounter import load_encounter
    from .systems.swn.simulate import simulate

    try:
        enc = load_encounter(path)
        if runs >= PROGRESS_FROM and sys.stderr.isatty():
            from rich.progress import Progress

            with Progress(transient=True, console=_stderr()) as bar:
                task = bar.add_task("simulating", total=runs)
                sim = simulate(
                    enc, runs, seed=seed, progress=lambda d: bar.update(task, completed=d)
                )
        else:
            sim = simulate(enc, runs, seed=seed)
    except RefereeError as exc:
        fail(exc)
    emit(simulation_json(sim), as_json)


def _stderr() -> Any:
    from rich.console import Console

    return Console(stderr=True)


def simulation_json(sim: Any) -> dict[str, Any]:
    """The JSON contract of a simulation, with its text rendering under ``"text"``."""
    from .systems.swn.simulate import wilson

    n, enc = sim.runs, sim.encounter
    sides = {
        s.name: {"win": sim.wins[i] / n, "ci95": list(wilson(sim.wins[i], n))}
        for i, s in enumerate(enc.sides)
    }
    fighters = {}
    for i, c in enumerate(enc.combatants):
        fighters[c.name] = {
            "side": c.side,
            "pc": c.pc,
            "survival": sim.survived[i] / n,
            "ci95": list(wilson(sim.survived[i], n)),
            "mortally_wounded": sim.mortally_wounded[i] / n,
            "mortally_wounded_ci95": list(wilson(sim.mortally_wounded[i], n)),
            "saved": sim.saved[i] / n,
            "saved_ci95": list(wilson(sim.saved[i], n)),
            "fled": sim.fled[i] / n,
            "fled_ci95": list(wilson(sim.fled[i], n)),
        }
    rounds = {
        "mean": sim.mean_rounds,
        "mean_ci95": list(sim.rounds_ci95),
        "p50": sim.quantile(0.5),
        "p50_ci95": list(sim.quantile_ci95(0.5)),
        "p90": sim.quantile(0.9),
        "p90_ci95": list(sim.quantile_ci95(0.9)),
        "max": max(r for r, c in enumerate(sim.rounds) if c),
    }
    data: dict[str, Any] = {
        "system": "swn",
        "kind": "simulate",
        "encounter": enc.name,
        "runs": n,
        "seed": sim.seed,
        "sides": sides,
        "capped": {
            "p": sim.capped / n,
            "ci95": list(wilson(sim.capped, n)),
            "max_rounds": enc.max_rounds,
        },  # fmt: skip
        "combatants": fighters,
        "rounds": rounds,
    }
    data["text"] = _text(data)
    return data


def _pct(p: float, ci: list[float]) -> str:
    return f"{100 * p:5.1f}%  [{100 * ci[0]:.1f}–{100 * ci[1]:.1f}]"


def _text(d: dict[str, Any]) -> str:
    lines = [f"{d['encounter']}: {d['runs']:,} runs, seed {d['seed']} (95% intervals in brackets)"]
    lines.append("win:")
    for name, s in d["sides"].items():
        lines.append(f"  {name:<24} {_pct(s['win'], s['ci95'])}")
    cap = d["capped"]
    if cap["p"]:
        lines.append(f"  {'no winner (round cap ' + str(cap['max_rounds']) + ')':<24} "
                     f"{_pct(cap['p'], cap['ci95'])}")  # fmt: skip
    lines.append("survival:")
    for name, c in d["combatants"].items():
        row = f"  {name:<24} {_pct(c['survival'], c['ci95'])}"
        if c["pc"]:
            row += (f"   mortally wounded {_pct(c['mortally_wounded'], c['mortally_wounded_ci95'])}"
                    f", saved {_pct(c['saved'], c['saved_ci95'])}")  # fmt: skip
        elif c["fled"]:
            row += f"   fled {100 * c['fled']:.1f}%"
        lines.append(row)
    r = d["rounds"]
    lines.append(
        f"rounds: mean {r['mean']:.2f} [{r['mean_ci95'][0]:.2f}–{r['mean_ci95'][1]:.2f}], "
        f"median {r['p50']} [{r['p50_ci95'][0]}–{r['p50_ci95'][1]}], "
        f"90% {r['p90']} [{r['p90_ci95'][0]}–{r['p90_ci95'][1]}], max {r['max']}"
    )
    if cap["p"] == 1:
        lines.append(f"note: every run hit the round cap of {cap['max_rounds']}: "
                     "these sides cannot finish each other")  # fmt: skip
    return "\n".join(lines)
