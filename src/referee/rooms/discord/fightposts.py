"""The fight's Discord messages (issue 72 §2), pure functions of the fight as the fight
service shows it: the status message, a turn's prompt, a call's prompt, and a used
prompt's components disabled. Discord's limits hold: 5 rows of at most 5 buttons, 25
options a select (a turn of more attacks is paged), 100-character ``custom_id``s and
values, 80-character labels."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..service.fighting.turns import Turn

__all__ = ["PAGE", "call_message", "disabled", "status_message", "turn_message"]

ACTION_ROW, BUTTON, SELECT = 1, 2, 3
PRIMARY, SECONDARY, SUCCESS, DANGER = 1, 2, 3, 4
PAGE = 25
"""Options a select holds (Discord's limit); a fight of more attacks pages them."""


def _state(c: dict[str, Any], pc: bool) -> str:
    """A combatant's state as players see it: a player's character's HP exactly; an
    NPC's as its foes see it (no number of the GM's)."""
    v = c.get("values") or {}
    shown = [x for x in c.get("shown") or c.get("conditions") or []]
    if "hp" in v and "hp_max" in v and pc:
        hp = f"HP {v['hp']}/{v['hp_max']}"
    elif "hp" in v and v.get("hp_max"):
        ratio = v["hp"] / v["hp_max"]
        hp = "unhurt" if ratio >= 1 else "hurt" if ratio > 0.5 else "badly hurt"
    else:
        hp = ""
    return ", ".join(x for x in [hp, *shown] if x)


def status_message(public: dict[str, Any], whole: dict[str, Any]) -> dict[str, Any]:
    """The fight's one status message: the round, whose turn, each combatant as players
    see it (a hidden one as "a hidden combatant"), and the GM's button when an NPC of
    hers acts or has a roll to make."""
    names = {c["combatant"]: c["name"] for c in public["combatants"]}
    lines = []
    current = public.get("current")
    if not public.get("round"):
        waiting = sum(
            1 for c in public["calls"] if "initiative" in c["kind"] or c["kind"] == "tiebreak"
        )
        lines.append(f"**Fight** · starting: {waiting} initiative roll(s) to make"
                     if waiting else "**Fight** · not started")  # fmt: skip
    else:
        whose = names.get(current or "", "a hidden combatant")
        lines.append(f"**Fight** · round {public['round']} · {whose}'s turn")
    for cid in [*public.get("order", []), *[c for c in names if c not in public.get("order", [])]]:
        c = next((x for x in public["combatants"] if x["combatant"] == cid), None)
        mark = "▶ " if cid == current else "• "
        if c is None:
            lines.append(f"{mark}a hidden combatant")
            continue
        state = _state(c, bool(c.get("pc")))
        lines.append(f"{mark}{c['name']}" + (f" — {state}" if state else ""))
    gm_owned = {c["combatant"] for c in whole["combatants"] if c["owner"] == "gm"}
    gm_turn = whole.get("current") in gm_owned and whole.get("round")
    gm_calls = [c for c in whole["calls"] if c["combatant"] in gm_owned]
    components = []
    if gm_turn or gm_calls:
        label = "GM: the NPCs' turn and rolls" if gm_turn else "GM: the NPCs' rolls"
        components = [row([button(label, "rf:gm", SECONDARY)])]
    return {"content": "\n".join(lines)[:2000], "components": components,
            "allowed_mentions": {"parse": []}}  # fmt: skip


def button(
    label: str, custom_id: str, style: int = PRIMARY, disabled: bool = False
) -> dict[str, Any]:
    return {"type": BUTTON, "style": style, "label": label[:80], "custom_id": custom_id[:100],
            "disabled": disabled}  # fmt: skip


def row(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": ACTION_ROW, "components": items[:5]}


def _pct(odds: Fraction | str | None) -> str:
    if odds is None:
        return ""
    return f" · {float(Fraction(str(odds))):.1%}"


def turn_message(turn: Turn, user: str | None, page: int = 0) -> dict[str, Any]:
    """A turn's prompt: the attacks (a select of weapon → foe, each with its level and
    odds to hit; paged by 25), the other maneuvers, and End turn."""
    c = turn.combatant
    who = f"<@{user}>" if user else c.name
    rows: list[dict[str, Any]] = []
    fits = [a for a in turn.attacks if len(f"{a.target}|{a.weapon}") <= 100]
    shown = fits[page * PAGE : (page + 1) * PAGE]
    if shown:
        options = []
        for a in shown:
            level = f"skill {a.level}" if a.level is not None else ""
            options.append({
                "label": f"{a.weapon} → {a.target_name}"[:100],
                "value": f"{a.target}|{a.weapon}",
                "description": (level + _pct(a.odds) + (" to hit" if a.odds is not None else ""))
                .strip(" ·")[:100] or "attack",
            })  # fmt: skip
        select = {"type": SELECT, "custom_id": f"rf:att:{c.id}:{page}",
                  "placeholder": "Attack: a weapon at a foe", "options": options}  # fmt: skip
        rows.append(row([select]))
    if len(fits) > (page + 1) * PAGE:
        rows.append(row([button("More foes…", f"rf:pg:{c.id}:{page + 1}", SECONDARY)]))
    if turn.maneuvers:
        options = [{"label": label[:100], "value": str(i)} for i, label in turn.maneuvers[:PAGE]]
        rows.append(row([{"type": SELECT, "custom_id": f"rf:man:{c.id}",
                           "placeholder": "Another maneuver (its attack follows)",
                           "options": options}]))  # fmt: skip
    rows.append(row([button("End turn", f"rf:end:{c.id}", SECONDARY)]))
    return {"content": f"{who}: {c.name}'s turn.", "components": rows[:5],
            "allowed_mentions": {"users": [user] if user else []}}  # fmt: skip


def call_message(call: dict[str, Any], who: dict[str, Any], user: str | None) -> dict[str, Any]:
    """A call's prompt for a player's character: one button a defense choice (its level
    and exact odds), or the call's one roll."""
    mention = f"<@{user}>" if user else who["name"]
    choices = call.get("choices") or []
    if choices:
        buttons = [
            button(f"{str(ch['label']).split(':')[0]}{_pct(ch.get('odds'))}",
                    f"rf:def:{call['call']}:{i}", PRIMARY if i == 0 else SECONDARY)
            for i, ch in enumerate(choices[:15])
        ]  # fmt: skip
    else:
        what = call["command"].split("--label")[-1].strip("' ")
        buttons = [button(f"Roll: {what}"[:80], f"rf:call:{call['call']}")]
    rows = [row(buttons[i : i + 5]) for i in range(0, len(buttons), 5)][:5]
    text = f"{mention}: {who['name']}, {call['why']}."
    return {"content": text[:2000], "components": rows,
            "allowed_mentions": {"users": [user] if user else []}}  # fmt: skip


def disabled(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A message's components, every one disabled (a used prompt)."""
    out = []
    for row in components or []:
        items = [{**item, "disabled": True} for item in row.get("components") or []]
        out.append({**row, "components": items})
    return out
