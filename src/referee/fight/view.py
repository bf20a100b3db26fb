"""A fight as a member may see it, and its conditions as shown.

Players see every combatant but the hidden ones (the GM's NPCs until revealed), and
only the calls of the combatants they see, a GM's NPC's without its command; the GM
sees all (contract v1.2, "The fight's state": hidden combatants are kept from players
as secret rolls are). The
order keeps a hidden combatant's id, as its ``turn`` entry does, with no name.
"""

from __future__ import annotations

from typing import Any

from . import gurps, npcs
from .model import Combatant, Fight

__all__ = ["shown", "visible"]


def shown(fight: Fight, c: Combatant) -> list[str]:
    """``c``'s conditions for display: GURPS adds those its values give (reeling,
    very tired, shock); SWN adds the rounds a mortally wounded one has been down."""
    if fight.system == "gurps":
        return gurps.shown(c)
    out = sorted(c.conditions)
    if "dead" in c.conditions:  # dead is all there is to say (issue 65 §8)
        return ["dead"]
    if "mortally wounded" in c.conditions:
        out.append(f"down {c.value('rounds_down')} of 6 rounds")
    return out


def visible(fight: Fight, member: str) -> dict[str, Any]:
    """The fight as JSON for ``member`` (``gm`` sees everything)."""
    seen = {cid: c for cid, c in fight.combatants.items() if member == "gm" or not c.hidden}
    return {
        "system": fight.system,
        **fight.turn_json(),
        "combatants": [
            {
                **c.json(),
                "shown": shown(fight, c),
                "out": cid in fight.removed,
                "down": fight.out_of_action(cid),
            }
            for cid, c in seen.items()
        ],
        "calls": [_call(x.json(), seen[x.combatant], member) for x in fight.calls
                  if x.combatant in seen],
    }  # fmt: skip


def _call(call: dict[str, Any], c: Combatant, member: str) -> dict[str, Any]:
    """A call as ``member`` sees it: a GM's NPC's with no command for a player (its
    target is the NPC's HT or Will: :mod:`.npcs`)."""
    if member != "gm" and npcs.plays(c):
        del call["command"]
    return call
