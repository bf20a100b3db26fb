"""GURPS injury and fatigue in a fight: HP, shock, major wounds, the HT rolls the
rules call for, FP, and the conditions they leave.

Sources: *GURPS Basic Set*, 4th edition. The rules texts referee works from have no
injury chapter (docs/reference/sources.md), so each function cites the Basic Set's
page: B419, "Shock" and "General Injury: Lost Hit Points"; B420, "Major Wounds" and
"Knockdown and Stunning"; B426, "Lost Fatigue Points"; B59, "High Pain Threshold";
B16-B17 for the values a sheet may leave out. Every function is pure: it takes a
:class:`~.model.Combatant` and gives the next one and the rolls now called for, as
``(kind, command, why)``.
"""

from __future__ import annotations

from collections.abc import Collection

from ..systems.gurps.locations import read_location
from ..systems.gurps.wounds import StunRecovery, SurviveCritical, shock, wound_effects
from .model import Combatant

__all__ = [
    "TRACKED",
    "answer",
    "defaults",
    "end_turn",
    "fatigue",
    "injure",
    "shock_now",
    "shock_on_own_turn",
    "shown",
    "start_turn",
]

TRACKED = (
    "hp", "hp_max", "fp", "fp_max", "ht", "will", "dx", "speed", "hpt", "lpt", "shock", "shock_new",
    "male", "gm_defends",
)  # fmt: skip
"""GURPS values (``gm_defends`` 1: the GM rolls this NPC's defenses by hand rather than
the server, issue 49): HP and FP with their maxima; HT, Will and DX; Basic Speed in
hundredths; ``hpt`` 1 for High Pain Threshold, ``lpt`` 1 for Low Pain Threshold; the shock
penalty now, and
``shock_new`` 1 while it is from this turn or the last (it ends with the next turn);
``male`` 1 for a male humanoid (a groin hit's major wound is at −5 to knockdown, B399)."""

CallSpec = tuple[str, str, str]
"""A call before it has a number: ``(kind, command, why)``."""

DOWN = frozenset({"dead", "unconscious"})
"""Conditions under which a combatant rolls nothing more."""


def defaults(values: dict[str, int]) -> dict[str, int]:
    """Fill what a combatant's values leave out: HP from ST, FP from HT, Will from IQ
    (B16), Basic Speed (DX + HT) / 4 (B17), and 10 for a missing attribute; the
    current HP and FP start at their maxima.

    >>> d = defaults({"dx": 12, "ht": 11, "st": 10})
    >>> d["hp"], d["fp"], d["speed"], d["will"]
    (10, 11, 575, 10)
    """
    v = dict(values)
    for name in ("st", "dx", "iq", "ht"):
        v.setdefault(name, 10)
    v.setdefault("hp_max", v["st"])
    v.setdefault("fp_max", v["ht"])
    v.setdefault("will", v["iq"])
    v.setdefault("speed", (v["dx"] + v["ht"]) * 25)
    v.setdefault("hp", v["hp_max"])
    v.setdefault("fp", v["fp_max"])
    for name in ("hpt", "lpt", "shock", "shock_new"):
        v.setdefault(name, 0)
    for name in ("st", "iq"):
        del v[name]
    return v


def _ht(c: Combatant, mod: int, label: str) -> str:
    return _check(c.value("ht"), mod, f"HT ({label})")


def _check(level: int, mod: int, label: str) -> str:
    shown = f" {mod:+d}" if mod else ""
    return f"gurps check {level}{shown} --label '{label}'"


def injure(
    c: Combatant,
    injury: int,
    location: str | None = None,
    damage_type: str = "cr",
    effect: str = "normal",
) -> tuple[Combatant, list[CallSpec]]:
    """``injury`` HP lost in one blow (after DR and wounding), hit at ``location`` (read
    as the commands read it: any case, ``head`` for the skull; an unknown one is
    refused).

    Source: the same rules as the exchange, through
    :func:`referee.systems.gurps.wounds.wound_effects`: B421, a limb or extremity's
    injury stops at its crippling threshold, and crippling it (a condition,
    ``crippled hand``) is a major wound; B399, an eye hit for over HP/10 blinds it
    (``blinded eye``); B419, "Shock": −1 to DX and IQ per HP lost (per full HP/10 with
    20 HP or more), at most −4, on the next turn only (this option: it lasts to the
    end of the victim's next turn); High Pain Threshold (``hpt``, B59) ignores it; Low
    Pain Threshold (``lpt``, B142) doubles it, to at most −8. B420, "Major Wounds" and
    "Knockdown and Stunning": a major wound calls for an HT roll against knockdown and
    stunning, as does a hit to the skull, eye, face or vitals enough to cause shock;
    the location's −10 (skull, eye) or −5 (face, vitals, a ``male``'s groin) only on a
    major wound; +3 with High Pain Threshold, −4 with Low Pain Threshold (B142: "−4
    to all HT rolls to avoid knockdown and stunning"; this option leaves the roll to
    recover from stun as it is). B419, "Lost Hit Points": at each −1×HP, −2×HP,
    −3×HP and −4×HP crossed, an HT roll to live; at −5×HP, dead at once; at −10×HP,
    the body is destroyed too (``destroyed``). (At 0 HP or
    below, the roll each turn to stay conscious is called when the victim's turn
    begins: :func:`start_turn`.) ``damage_type`` is the blow's (a damage event's
    ``type`` from rules 5, :data:`.exchange.TOXIC_RULES`): toxic damage at the skull or
    eye calls no −10 knockdown (B399: "none of these effects apply to toxic damage");
    an ``amount`` event carries none (crushing), so there it is the GM's to adjust, as
    is a male's crushing groin hit's doubled shock.

    Raises:
        RuleError: an unknown location.
    """
    loc = read_location(location or "torso")
    if injury <= 0 or "destroyed" in c.conditions:
        return c, []
    if "dead" in c.conditions:  # a body hacked on to -10×HP is destroyed (B419)
        after = c.value("hp") - injury
        gone = after <= -10 * max(c.value("hp_max"), 1)
        return _with(c.with_values(hp=after), add={"destroyed"} if gone else ()), []
    hp, most = c.value("hp"), max(c.value("hp_max"), 1)
    w = wound_effects(
        injury,
        loc,
        most,
        damage_type=damage_type,
        hpt=bool(c.value("hpt")),
        lpt=bool(c.value("lpt")),
        male=bool(c.value("male")),
        major_effect=effect in ("major", "half_dr_up_major") and injury > 0,
        double_shock=effect == "double_shock" and injury > 0,
    )
    after = hp - w.injury
    out = c.with_values(hp=after)
    if not c.value("hpt"):
        doubled = effect == "double_shock" and injury > 0  # B556 row 8
        taken = shock(w.injury, most, lpt=bool(c.value("lpt")), doubled=doubled,
                      before=c.value("shock"))  # fmt: skip
        out = out.with_values(shock=taken, shock_new=1)
    marks = {f"crippled {w.crippled}"} if w.crippled else set()
    if w.blinded:
        marks.add("blinded eye")
    out = _with(out, add=marks)
    calls: list[CallSpec] = []
    if after <= -5 * most:
        return _with(out, add={"dead", "destroyed"} if after <= -10 * most else {"dead"}), []
    if w.knockdown is not None and not (c.conditions & DOWN):
        calls.append(
            (
                "knockdown",
                _ht(c, w.knockdown, "knockdown"),
                f"{w.why}: HT against knockdown and stunning (B420); on a failure stunned "
                "and prone, by 5 or more or a critical failure unconscious",
            )
        )
    for k in range(1, 5):
        if after <= -k * most < hp:
            calls.append(
                ("survive", _ht(c, 0, f"survive -{k}xHP"), f"at -{k}×HP: HT or die (B419)")
            )
    return out, calls


def fatigue(c: Combatant, lost: int) -> tuple[Combatant, list[CallSpec]]:
    """``lost`` FP lost (a negative number: FP regained).

    Source: B426, "Lost Fatigue Points": below 0 FP each FP lost also costs 1 HP; at
    −1×FP the combatant falls unconscious (and FP cannot go lower: the rest comes off
    HP); back above 0 FP, a collapse ends.
    """
    fp, most = c.value("fp"), max(c.value("fp_max"), 1)
    if lost < 0:
        after = min(fp - lost, most)
        out = c.with_values(fp=after)
        return (_with(out, drop={"collapsed"}) if after > 0 else out), []
    after = max(fp - lost, -most)
    hp_cost = max(0, -(fp - lost)) - max(0, -fp)  # each FP lost below 0
    out = c.with_values(fp=after, hp=c.value("hp") - hp_cost)
    calls: list[CallSpec] = []
    if after <= -most:
        out = _with(out, add={"unconscious"})
    for k in range(1, 5):
        if out.value("hp") <= -k * c.value("hp_max") < c.value("hp"):
            calls.append(("survive", _ht(c, 0, f"survive -{k}xHP"), f"at -{k}×HP (B419)"))
    return out, calls


def shock_on_own_turn(before: Combatant, after: Combatant) -> Combatant:
    """``after`` (``before`` hurt on its own turn) with the shock it took then kept for
    its next turn: B419, "a shock penalty ... applies only on your next turn", so a
    wound taken during one's own turn leaves this turn's rolls alone (``shock_later``:
    the part of ``shock`` not yet in effect, set only when there is one; from rules 6)."""
    more = after.value("shock") - before.value("shock")
    if more <= 0:
        return after
    return after.with_values(
        shock_later=min(after.value("shock"), before.value("shock_later") + more)
    )


def shock_now(c: Combatant) -> int:
    """The shock penalty in effect now (B419): less what ``c`` took on its own turn."""
    return max(0, c.value("shock") - c.value("shock_later"))


def start_turn(c: Combatant) -> tuple[Combatant, list[CallSpec]]:
    """The combatant's turn begins: this is the "next turn" its shock applies to.

    Source: B419, "Lost Hit Points": at 0 HP or below, an HT roll each turn to stay
    conscious, at −1 per full multiple of HP below zero (taking Do Nothing spares the
    roll: the GM dismisses the call); B426: at 0 FP or below, a Will roll before any
    maneuver but Do Nothing, or collapse.
    """
    out = c.with_values(shock_new=0) if c.value("shock_new") else c
    if c.value("shock_later"):  # taken on its last turn: in effect from now (B419)
        out = out.with_values(shock_later=0)
    if c.conditions & (DOWN | {"mortally wounded"}):
        return out, []
    calls: list[CallSpec] = []
    hp, most = c.value("hp"), max(c.value("hp_max"), 1)
    if hp <= 0:
        mod = -((-hp) // most)
        calls.append(
            ("conscious", _ht(c, mod, "stay conscious"), "at 0 HP or less: HT each turn (B419)")
        )
    if c.value("fp") <= 0 and "collapsed" not in c.conditions:
        calls.append(
            (
                "collapse",
                _check(c.value("will"), 0, "Will (collapse)"),
                "at 0 FP or less: Will before any maneuver but Do Nothing (B426)",
            )
        )
    return out, calls


def end_turn(
    c: Combatant, stun: StunRecovery = StunRecovery.PLAIN
) -> tuple[Combatant, list[CallSpec]]:
    """The combatant's turn ends: shock from before this turn ends with it (B419), and
    a stunned combatant rolls HT to recover (B420, "Knockdown and Stunning"). Whether
    High or Low Pain Threshold changes that roll is ``stun``'s reading
    (:class:`~referee.systems.gurps.wounds.StunRecovery`): by default it does not,
    as B59 and B142 name the rolls to *avoid* knockdown and stunning only."""
    out = c
    if c.value("shock") and not c.value("shock_new"):
        out = out.with_values(shock=0)
    if "stunned" in c.conditions and not (c.conditions & DOWN):
        mod = stun.modifier(bool(c.value("hpt")), bool(c.value("lpt")))
        return out, [("stun", _ht(c, mod, "recover from stun"), "stunned: HT to recover (B420)")]
    return out, []


def answer(
    c: Combatant,
    kind: str,
    success: bool,
    margin: int,
    critical: bool,
    survive: SurviveCritical = SurviveCritical.DEAD,
) -> Combatant:
    """What a called roll's result does. ``margin`` is the effective skill less the
    roll, as ``gurps check`` gives it: −5 is a failure by 5.

    Source: B420: a failed knockdown roll leaves the combatant stunned and prone, a
    failure by 5 or more or a critical failure unconscious; a successful roll against
    stun ends it. B419: a failed roll to stay conscious, unconscious; a failed roll to
    live at −N×HP, dead, but a failure by 1 or 2 leaves the combatant dying, not dead
    (B419's note; B423, "Mortal Wounds"); a critical failure by 1 or 2 kills under the
    default reading, ``survive`` (:class:`~referee.systems.gurps.wounds.SurviveCritical`).
    B426: a failed Will roll at 0 FP or below, collapsed until FP are above 0.
    """
    if success:
        return _with(c, drop={"stunned"}) if kind == "stun" else c
    if kind == "knockdown":
        if margin <= -5 or critical:
            return _with(c, add={"unconscious", "prone"}, drop={"stunned"})
        return _with(c, add={"stunned", "prone"})
    if kind == "conscious":
        return _with(c, add={"unconscious", "prone"}, drop={"stunned"})
    if kind == "survive":
        if not survive.dies(margin, critical):
            return _with(c, add={"mortally wounded", "unconscious", "prone"})
        return _with(c, add={"dead"})
    if kind == "collapse":
        return _with(c, add={"collapsed"})
    return c


def shown(c: Combatant) -> list[str]:
    """Its conditions with those its values give (B419: under 1/3 HP, reeling, half
    Move and Dodge; B426: under 1/3 FP, very tired; shock −N), for display."""
    out = sorted(c.conditions)
    if "dead" in c.conditions:  # dead is all there is to say (issue 65 §8)
        return [x for x in out if x in ("dead", "destroyed")]
    if 3 * c.value("hp") < c.value("hp_max"):
        out.append("reeling")
    if 3 * c.value("fp") < c.value("fp_max"):
        out.append("very tired")
    if c.value("shock"):
        out.append(f"shock -{c.value('shock')}")
    return out


def _with(c: Combatant, add: Collection[str] = (), drop: Collection[str] = ()) -> Combatant:
    return c.with_conditions((c.conditions - set(drop)) | set(add))
