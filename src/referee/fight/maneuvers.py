"""GURPS maneuvers in a fight, and what the fight's state does to the rolls it takes
(contract v1.4, "the fight referees"): a maneuver is taken on the combatant's own turn,
one a turn, and it, the combatant's posture, shock and stun change its attack and its
defenses as the rules say.

Sources: *GURPS Basic Set*, 4th edition: B363, "Sequence of Turns" (one maneuver a
turn, chosen on one's own turn); B364-B366, "Maneuvers" and the maneuvers table (All-Out
Attack: no active defense until one's next turn; All-Out Defense (Increased Defense):
+2 to one active defense; Move and Attack: −4 to a melee attack, at most 9, and no
parry; Aim: the weapon's Acc on the next attack; Do Nothing); B419 (COMBAT.md, "Shock":
−1 per HP of injury to DX and IQ and the skills based on them, on the next turn, at
most −4; not to active defenses); B420, "Knockdown and Stunning" (stunned: no action
but a defense, at −4); B551, "Posture" (prone or crawling: −4 to a melee attack and −3
to defend; kneeling or sitting: −2 to both; crouching: −2 to attack). These apply from
the fight's rules 5 (:data:`.events.RULES`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import RuleError
from .gurps import shock_now
from .model import Combatant, Fight

__all__ = [
    "MANEUVERS",
    "MANEUVER_RULES",
    "POSTURES",
    "attack_modifiers",
    "aim_turns",
    "attack_refusal",
    "defense_modifiers",
    "defenses_allowed",
    "maneuver",
    "move_and_attack_cap",
    "new_turn",
    "tracker_modifiers",
    "typed_modifiers",
]

MANEUVER_RULES = 5
"""The first rules (:data:`.events.RULES`) under which maneuvers are the fight's."""

MANEUVERS: dict[str, int] = {
    "attack": 1,
    "all-out attack": 1,
    "all-out defense": 0,
    "move and attack": 1,
    "aim": 0,
    "change posture": 0,
    "do nothing": 0,
    "move": 0,
    "feint": 0,
    "evaluate": 0,
    "ready": 0,
    "concentrate": 0,
    "wait": 0,
    "total defense": 0,
}
"""Each maneuver (B364-B366) and the attacks it allows (All-Out Attack (Double): 2);
``total defense`` is SWN's (``003``)."""

SWN_MANEUVERS = ("attack", "total defense")
"""What the fight takes as an SWN combatant's turn (``003``, "Combat"): an attack, its
Main Action, or Total Defense, which spends it (+2 AC and no Shock until its next turn;
referee takes it on the combatant's own turn, as the fight's turns go)."""

POSTURES: dict[str, tuple[int, int]] = {
    "standing": (0, 0),
    "crouching": (-2, 0),
    "kneeling": (-2, -2),
    "sitting": (-2, -2),
    "crawling": (-4, -3),
    "prone": (-4, -3),
}
"""Each posture's modifier to a melee attack and to active defenses (B551)."""

_KEPT = frozenset(MANEUVERS) | {"all-out defense (dodge)", "all-out defense (parry)",
                                "all-out defense (block)", "all-out attack (double)",
                                "retreated"}  # fmt: skip
"""The conditions a maneuver leaves, until the combatant's next turn begins."""


def maneuver(fight: Fight, ev: Mapping[str, Any]) -> Combatant:
    """The combatant after its ``maneuver`` event: taken on its own turn (B363), one a
    turn (in SWN, ``003``, "Combat": an attack is the round's Main Action, one a
    turn), not while stunned but Do Nothing (B420); an attack (``"attack": true``)
    spends one of the attacks its maneuver allows; ``posture`` with Change Posture
    (B364, B551); ``defense`` the one that All-Out Defense raises (B366: dodge, parry
    or block); ``double`` All-Out Attack (Double), two attacks (B365).

    Raises:
        RuleError: out of turn (naming whose turn it is), a second maneuver in a turn,
            an unknown maneuver or posture, an attack the maneuver does not allow.
    """
    if fight.system not in ("gurps", "swn"):
        raise RuleError("maneuvers are GURPS's (B363-B366), and SWN's attack (003)")
    c = fight.combatant(ev["combatant"])
    name = str(ev["maneuver"]).lower()
    if (fight.system == "swn") != (name in SWN_MANEUVERS) and name != "attack":
        raise RuleError(
            "in SWN the fight takes an attack or Total Defense (003); in GURPS, B364-B366's"
        )
    if name not in MANEUVERS:
        raise RuleError(f"no maneuver {ev['maneuver']!r}: one of " + ", ".join(MANEUVERS))
    if not fight.round or fight.current is None:
        raise RuleError("the fight has not started: a maneuver is taken on one's turn")
    if fight.current != c.id:
        who = fight.combatants.get(fight.current)
        whose = who.name if who is not None and not who.hidden else "another combatant"
        raise RuleError(f"it is {whose}'s turn: {c.name} takes a maneuver on its own turn (B363)")
    if fight.out_of_action(c.id):
        raise RuleError(f"{c.name} is out of the fight")
    if "stunned" in c.conditions and name != "do nothing":
        raise RuleError(
            f"{c.name} is stunned: no action but Do Nothing, and a defense at -4 (B420)"
        )
    attack = bool(ev.get("attack"))
    if c.value("acted"):
        taken = next((m for m in MANEUVERS if m in c.conditions), "a maneuver")
        if not attack or taken != name:
            raise RuleError(f"{c.name} took {taken} this turn: one maneuver a turn (B363)")
        if c.value("attacks") <= 0:
            raise RuleError(f"{c.name}'s {taken} allows no more attacks this turn (B365)")
        return c.with_values(attacks=c.value("attacks") - 1)
    allowed = MANEUVERS[name] * (2 if name == "all-out attack" and ev.get("double") else 1)
    if attack and not allowed:
        raise RuleError(f"{name} allows no attack (B364-B366)")
    conditions = set(c.conditions - _KEPT) | {name}
    if name == "all-out attack" and ev.get("double"):
        conditions.add("all-out attack (double)")  # two attacks, neither at +4 (B365)
    if name == "all-out defense":
        raised = str(ev.get("defense") or "dodge").lower()
        if raised not in ("dodge", "parry", "block"):
            raise RuleError(f"All-Out Defense raises dodge, parry or block, not {raised!r}")
        conditions.add(f"all-out defense ({raised})")
    posture = ev.get("posture")
    if posture is not None:
        if name != "change posture":
            raise RuleError("a posture is taken with Change Posture (B364)")
        if posture not in POSTURES:
            raise RuleError(f"no posture {posture!r}: one of " + ", ".join(POSTURES))
        conditions -= set(POSTURES)
        if posture != "standing":
            conditions.add(posture)
    out = c.with_values(acted=1, attacks=allowed - (1 if attack else 0))
    if name == "aim":  # turns of Aim in a row (B364: +1 for a 2nd, +2 for a 3rd or more)
        out = out.with_values(aiming=min(3, c.value("aiming") + 1))
    return out.with_conditions(frozenset(conditions))


def new_turn(c: Combatant) -> Combatant:
    """The combatant's turn begins: the maneuver it took last turn, and its retreat,
    end (B364: a maneuver's defenses last until one's next turn; B377: one retreat a
    turn)."""
    aimed = "aim" in c.conditions  # Aim last turn: its bonus waits for this one (B364)
    if not (c.conditions & _KEPT) and not c.value("acted") and not c.value("attacks"):
        return c if aimed or not c.value("aiming") else c.with_values(aiming=0)
    out = c.with_values(acted=0, attacks=0, aiming=c.value("aiming") if aimed else 0)
    return out.with_conditions(frozenset(c.conditions - _KEPT))


def aim_turns(c: Combatant) -> int:
    """The turns of Aim in a row that ``c``'s attack this turn follows (B364): its
    ranged attack takes the weapon's Acc, +1 after a second turn, +2 after a third."""
    return c.value("aiming")


def _posture(c: Combatant) -> tuple[str, tuple[int, int]] | None:
    for name in ("prone", "crawling", "kneeling", "sitting", "crouching"):
        if name in c.conditions:
            return name, POSTURES[name]
    return None


def attack_refusal(c: Combatant) -> str | None:
    """Why ``c`` cannot attack now, or None: stunned (B420), or a maneuver this turn
    that allows no more attacks (B364-B366)."""
    if "stunned" in c.conditions:
        return f"{c.name} is stunned: no action but a defense at -4 (B420)"
    if c.value("acted") and c.value("attacks") <= 0:
        taken = next((m for m in MANEUVERS if m in c.conditions), "a maneuver")
        return f"{c.name} took {taken} this turn and has no attack left (B363-B366)"
    return None


def attack_modifiers(
    c: Combatant, maneuver: str = "attack", *, ranged: bool = False
) -> list[tuple[str, int]]:
    """The modifiers the fight's state puts on ``c``'s attack, each named: shock (B419,
    −1 per HP, at most −4, or −8 with Low Pain Threshold, to DX-based skills), posture
    (B551, melee only), Move and Attack's −4 (B365; its cap of 9 is
    :func:`move_and_attack_cap`'s), All-Out Attack (Determined)'s +4, or +1 ranged
    (B365)."""
    mods: list[tuple[str, int]] = []
    if shock_now(c):  # not what it took on its own turn (B419, rules 6)
        mods.append(("shock", -shock_now(c)))
    posture = _posture(c)
    if posture is not None and not ranged and posture[1][0]:
        mods.append((posture[0], posture[1][0]))
    if maneuver == "move and attack":
        mods.append(("move and attack", -2 if ranged else -4))
    if maneuver == "all-out attack":
        mods.append(("all-out attack", 1 if ranged else 4))
    return mods


def defenses_allowed(c: Combatant) -> tuple[str, ...]:
    """The active defenses ``c`` may make now: none after All-Out Attack until its next
    turn (B365); Dodge or Block after Move and Attack (B366, no parry)."""
    if "all-out attack" in c.conditions:
        return ()
    if "move and attack" in c.conditions:
        return ("dodge", "block")
    return ("dodge", "parry", "block")


def defense_modifiers(c: Combatant, defense: str) -> list[tuple[str, int]]:
    """The modifiers the fight's state puts on ``c``'s ``defense``, each named: stunned
    −4 (B420), posture (B551), All-Out Defense (Increased Defense) +2 to the defense it
    raised (B366). Shock does not touch active defenses (B419: DX and IQ and their
    skills); reeling's halved Dodge and repeated parries are the defense roll's own
    options (``--reeling``, ``--parried``)."""
    mods: list[tuple[str, int]] = []
    if "stunned" in c.conditions:
        mods.append(("stunned", -4))
    posture = _posture(c)
    if posture is not None and posture[1][1]:
        mods.append((posture[0], posture[1][1]))
    if f"all-out defense ({defense})" in c.conditions:
        mods.append(("all-out defense", 2))
    return mods


def move_and_attack_cap(level: int, mods: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Move and Attack's cap (B365): a melee attack's effective skill is at most 9. The
    modifier that brings ``level`` with ``mods`` down to 9, named, or none."""
    over = level + sum(m for _, m in mods) - 9
    return [("move and attack: at most 9", -over)] if over > 0 else []


def tracker_modifiers(c: Combatant, level: int, ranged: bool = False) -> list[tuple[str, int]]:
    """The modifiers the fight's tracker puts on ``c``'s attack at skill ``level``, once
    its maneuver is taken (the one in its conditions, else Attack): those of
    :func:`attack_modifiers` less All-Out Attack (Determined)'s +4, which the roll takes
    as its own option (``--all-out``), and Move and Attack's cap of 9 (B365). A room's
    attack roll adds these, names each in its ``tracker`` field, and ``referee verify``
    recomputes them from the fight as the log stands before the roll. A ranged attack
    (``ranged``) takes no posture penalty and Move and Attack's −2 (B365, B551); its Aim
    is the roll's own option (``--aim``, the turns in :func:`aim_turns`)."""
    taken = next((m for m in MANEUVERS if m in c.conditions), "attack")
    mods = [m for m in attack_modifiers(c, taken, ranged=ranged) if m[0] != "all-out attack"]
    if taken == "move and attack" and not ranged:  # the cap is a melee attack's (B365)
        mods += move_and_attack_cap(level, mods)
    return mods


UNSHOCKED = frozenset({"ST", "HT", "Will", "Per", "HP", "FP"})
"""The traits a shock penalty leaves alone (B419: "DX and IQ, and skills based on them";
not ST, HT, Will or Per, nor resistance rolls)."""


def rolling_as(fight: Fight, sheet: str, words: Sequence[str]) -> Combatant | None:
    """The combatant a roll made as ``sheet`` is made for, its resolved command
    ``words``, when the fight is under way: the one combatant of that sheet; when
    several share it (Orc 1 ... Orc 3 from one sheet), for ``gurps defend`` the first
    with a defense call open, else the one whose turn it is, else the first added.
    None: no combatant in the fight has it. The server and ``referee verify`` both
    read a roll's state through this, so that they take the same combatant's."""
    mine = [x for x in fight.combatants.values() if x.sheet == sheet and x.id not in fight.removed]
    if len(mine) <= 1:
        return mine[0] if mine else None
    ids = {x.id for x in mine}
    if list(words[:2]) == ["gurps", "defend"]:
        calling = [k.combatant for k in fight.calls if k.kind == "defense" and k.combatant in ids]
        if calling:
            return fight.combatants[calling[0]]
    if fight.current in ids:
        return fight.combatants[fight.current]
    return mine[0]


def typed_modifiers(fight: Fight, c: Combatant, words: Sequence[str]) -> list[tuple[str, int]]:
    """The fight's modifiers on a roll made as ``c``'s sheet while its fight is under
    way (issue 72 §3; contract v1.5, "typed rolls in a fight carry its state"), its
    resolved command ``words`` (``gurps check 15 --label DX``), each named:

    - ``gurps attack LEVEL``: :func:`tracker_modifiers`, as the Fight panel's attack;
    - ``gurps defend KIND``: :func:`defense_modifiers` (stunned −4, posture, All-Out
      Defense's +2, B420, B551, B366), as a defense call's choices;
    - ``gurps check``: shock (B419), on ``c``'s own turn, to a check of DX, IQ or a
      skill. *Option, documented*: referee's sheets do not keep a GURPS skill's base
      attribute, so every skill is taken as DX- or IQ-based (most are); the attributes
      ST, HT, Will and Per and the rolls named after them (``HT (knockdown)``) take
      none. A GM who rolls a Per-, Will- or HT-based skill of a shocked combatant asks
      for a bare roll.

    None in a fight not under way or of another system (SWN's own state goes into its
    attack by the Fight panel)."""
    if fight.system != "gurps" or not fight.round or c.id in fight.removed:
        return []
    head = list(words[:2])
    if head == ["gurps", "attack"] and len(words) > 2:
        try:
            level = int(words[2])
        except ValueError:
            return []
        return tracker_modifiers(c, level, "--ranged" in words)
    if head == ["gurps", "defend"] and len(words) > 2 and words[2] in ("dodge", "parry", "block"):
        return defense_modifiers(c, words[2])
    if head == ["gurps", "check"] and "--label" in words[:-1]:
        trait = words[words.index("--label") + 1].split(":")[0].split(" (")[0].strip()
        if trait in UNSHOCKED or fight.current != c.id or not shock_now(c):
            return []
        return [("shock", -shock_now(c))]
    return []
