"""Stars Without Number results to the JSON contract (fractions as ``"p/q"``).

Every check has one shape; attacks, aided checks, stabilizing and initiative
add their own fields. The simulator's summary (:func:`simulation_json`) is the
one JSON here with floats: it is an estimate, and it never rolls in a room.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from ..fmt import fraction, percent, readable, short_fraction
from ..systems import swn

__all__ = [
    "attack_json",
    "attack_odds_json",
    "damage_distribution_json",
    "check_json",
    "initiative_json",
    "odds_json",
    "simulation_json",
    "skill_odds_json",
]


def check_json(c: swn.Check, **extra: Any) -> dict[str, Any]:
    """The JSON contract of every SWN check. A check that needed no roll (its outcome
    was certain) has ``"rolled": false``, ``"dice": []`` and null ``natural`` and ``total``."""
    return {
        "system": "swn",
        "kind": c.kind.value,
        "label": c.label,
        "rolled": c.rolled,
        "dice": list(c.dice),
        "natural": c.natural if c.rolled else None,
        "modifiers": dict(c.modifiers),
        "total": c.total if c.rolled else None,
        "target": c.target,
        "success": c.success,
        "outcome": c.outcome,
        "odds": {"success": fraction(c.odds)},
        "assumed": list(c.assumed),
        **extra,
        "text": c.text,
    }


def odds_json(
    kind: str,
    p: Fraction,
    text: str,
    *,
    detail: str = "",
    assumed: Sequence[str] = (),
    **extra: Any,
) -> dict[str, Any]:
    """The odds of a roll, without rolling: the exact fraction in the JSON, and in the
    text the percentage with the fraction while it is short (:func:`referee.fmt.readable`),
    then ``detail`` and what was assumed."""
    data = {"system": "swn", "kind": kind, "odds": {"success": fraction(p)}, **extra}
    shown = f"{text}: {readable(p)}{detail}"
    shown += f"; assumed {', '.join(assumed)}" if assumed else ""
    return {**data, "assumed": list(assumed), "text": shown}


def skill_odds_json(
    o: swn.CheckOdds, helpers: int, assumed: Sequence[str], name: str = "Skill check"
) -> dict[str, Any]:
    """The odds of a skill check, with aid and without; ``name`` is what the text calls
    it (``Dex/Shoot check`` when read from a sheet)."""
    head, detail = f"{name} vs {o.target}", ""
    without = None if o.without_aid is None else fraction(o.without_aid)
    if o.without_aid is not None:
        head += f" with {helpers} helper{'s' if helpers > 1 else ''}"
        detail = f" (without aid {readable(o.without_aid)})"
    return odds_json("skill", o.success, head, detail=detail, target=o.target,
                     without_aid=without, assumed=assumed)  # fmt: skip


def attack_odds_json(
    o: swn.AttackOdds,
    assumed: Sequence[str],
    ac_given: bool,
    name: str = "Attack",
    hp: int | None = None,
) -> dict[str, Any]:
    """The odds of an attack: to hit, Shock on a miss, the damage distribution (a
    fraction in the text only while it is short; always in the JSON) and, with the
    target's HP now (``hp``), down and killed. ``name`` is what the text calls the
    attack (the weapon's name when read from a sheet)."""
    vs = f"AC {o.target}" + ("" if ac_given else " (assumed: no --ac given)")
    head = f"{name} vs {vs}: {percent(o.hit)} to hit"
    head += f", Shock on a miss {percent(o.shock)}" if o.shock else ""
    rest = [a for a in assumed if not a.startswith("AC ")]
    head += f"; assumed {', '.join(rest)}" if rest else ""
    odds = {"success": fraction(o.hit), "shock": fraction(o.shock)}
    lines = [
        f"  {v:>4} damage  {percent(p):>6}  {short_fraction(p) or ''}".rstrip()
        for v, p in o.distribution
    ]
    if hp is not None:
        odds |= {"down": fraction(o.down(hp)), "killed": fraction(o.killed(hp))}
        fate = (f"at {hp} HP: down (0 HP, mortally wounded) {percent(o.down(hp))}" if hp > 0
                else f"at 0 HP: killed (further damage, 003) {percent(o.killed(hp))}")  # fmt: skip
        lines.append("  " + fate)
    return {"system": "swn", "kind": "attack", "odds": odds,
            "damage_distribution": damage_distribution_json(o.distribution),
            "assumed": list(assumed), "text": "\n".join([head, *lines])}  # fmt: skip


def damage_distribution_json(dist: Sequence[tuple[int, Fraction]]) -> list[list[Any]]:
    """P(damage = value) for each value, Shock included."""
    return [[v, fraction(p)] for v, p in dist]


def attack_json(r: swn.Attack) -> dict[str, Any]:
    """An attack: the check, then the damage or Shock."""
    data = check_json(
        r.check, hit=r.hit, damage=r.damage, shock=r.shock, damage_dice=list(r.damage_dice),
        damage_distribution=damage_distribution_json(r.distribution),
    )  # fmt: skip
    return {**data, "text": r.text}


def initiative_json(order: Sequence[swn.InitiativeEntry]) -> dict[str, Any]:
    """Initiative for a combat: everyone's roll, highest first."""
    rows = [
        {"system": "swn", "kind": "initiative", "name": e.name, "pc": e.pc, "dice": [e.roll],
         "natural": e.roll, "modifiers": {"dex": e.modifier}, "total": e.total, "target": None,
         "success": None, "odds": {"success": None}, "tiebreak": e.tiebreak}
        for e in order
    ]  # fmt: skip
    text = "\n".join(
        f"{i}. {e.name}{' (PC)' if e.pc else ''}: {e.total} (d8 {e.roll} {e.modifier:+d} Dex)"
        for i, e in enumerate(order, 1)
    )
    outcome = f"{order[0].name} acts first" if order else "nobody"
    return {"system": "swn", "kind": "initiative", "order": rows, "outcome": outcome,
            "odds": {}, "text": text}  # fmt: skip


def simulation_json(sim: Any) -> dict[str, Any]:
    """The JSON contract of a simulation, with its text rendering under ``"text"``."""
    # here, not at the top: 108 ms of start-up otherwise (issue 53)
    from ..systems.swn.simulate import wilson

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
    data["text"] = _simulation_text(data)
    return data


def _pct(p: float, ci: list[float]) -> str:
    return f"{100 * p:5.1f}%  [{100 * ci[0]:.1f}–{100 * ci[1]:.1f}]"


def _simulation_text(d: dict[str, Any]) -> str:
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
