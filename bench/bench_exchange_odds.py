"""Issue 52 §3: the exact odds of each step of a GURPS exchange (``gurps odds attack``
with a target), for a GCS fixture's weapon against another fixture, cold: each call
starts with referee's odds caches cleared. Target: within 50 ms each. Issue 73 §2
adds a Rapid Strike (B370: two attacks, the odds of either and both).

The issue names no reference library (none computes a GURPS exchange's odds); the
ratio printed is the time against that 50 ms budget."""

from __future__ import annotations

from pathlib import Path

from _timing import best_of, fmt, row, verdict
from referee import commands
from referee.sheets import read_sheet

GCS = Path(__file__).resolve().parent.parent / "tests" / "data" / "gcs"
BUDGET = 0.050
CASES: tuple[tuple[str, str, str, list[str]], ...] = (
    ("C31R07.gcs", "Talons (Slash)", "Master Ninja.gcs", []),
    ("C31R07.gcs", "Hooves (Trample)", "Janos Telkozep.gcs", ["--random-location"]),
    ("Master Ninja.gcs", "Natural Attacks (Punch)", "Sora.gcs", ["--location", "skull"]),
    (
        "Master Ninja.gcs",
        "Star Shuriken (Thrown)",
        "Sora.gcs",
        ["--thrown-small", "--rof", "10", "--recoil", "2", "--random-location"],
    ),
    ("C31R07.gcs", "Talons (Slash)", "Master Ninja.gcs", ["--rapid"]),
)


def clear() -> None:
    from referee.odds import _odds_or_refusal
    from referee.pools import _die_cached
    from referee.systems.gurps.allout import feint_odds
    from referee.systems.gurps.damage import _dice_adds
    from referee.systems.gurps.exchange_odds import _blow_joint, _blow_ways, _odds, _split, _steady
    from referee.systems.gurps.locations import cripples, location_odds, location_wounding
    from referee.systems.gurps.odds_steps import table_odds as _table_odds
    from referee.systems.gurps.odds_steps import ways as _ways
    from referee.systems.gurps.rapid import _volley, _ways3

    for cache in (_odds, _steady, _split, _blow_ways, _blow_joint, _table_odds, _ways,
                  location_odds, location_wounding, cripples, _dice_adds, _odds_or_refusal,
                  _die_cached, feint_odds, _volley, _ways3):  # fmt: skip
        cache.cache_clear()


def main() -> None:
    print("== gurps odds attack: each step's exact odds, GCS fixture vs fixture, cold ==")
    row("case", "odds", "budget", "ratio", "target")
    for attacker, weapon, target, extra in CASES:
        mine = read_sheet((GCS / attacker).read_bytes())
        theirs = {"foe": read_sheet((GCS / target).read_bytes())}
        sheets = commands.with_sheet(mine, others=theirs)  # as a room names --vs @foe
        args = ["gurps", "odds", "attack", weapon, "--vs", "foe", *extra]
        got = commands.run(args, resources=sheets)
        assert got.data["kind"] == "odds" and "injury" in got.data["odds"], got.text

        def once(args: list[str] = args, sheets: commands.Resources = sheets) -> None:
            commands.run(args, resources=sheets)

        (took,) = best_of((once, clear))
        name = f"{weapon} vs {target.removesuffix('.gcs')} {' '.join(extra)}".strip()
        row(name[:40], fmt(took), fmt(BUDGET), f"{BUDGET / took:.1f}x", verdict(BUDGET / took, 1))
    print("(ratio = 50 ms / time; >= 1 means within 50 ms)")


if __name__ == "__main__":
    main()
