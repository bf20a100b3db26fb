"""What a member may do in a room, decided here and only here (issue 53), after
Discourse's Guardian: one object that answers "may this member do this?" for every
front end. The service's operations (:mod:`.rolls`, :mod:`.sheets`, :mod:`.access`)
ask it; the HTTP routes, the live sockets and Discord ask nothing themselves.

The rules (contract v1.0-v1.3): the GM reveals, closes an epoch, declassifies,
removes members, rotates the invite and archives, and links a chat channel to the
room (:func:`.access.link_channel`: its GM token); only players send client seeds;
a sheet is read by its owner and the GM, and the GM's sheets are the GM's (a player
is answered as if they were not there); a fight event is the GM's, but for what a
player does with her own combatant (:meth:`Guardian.fight_event`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...fight import Fight
from ..db.epochs import Conflict
from ..db.store import Member
from ..errors import ApiError

__all__ = ["SPEND", "Guardian"]

SPEND = frozenset({"kind", "combatant", "values"})
"""The fields of a player's ``set`` that spends a Luck Point."""


@dataclass(frozen=True, slots=True)
class Guardian:
    """The answers for one member."""

    member: Member

    def ensure_gm(self, what: str) -> None:
        """Refuse (403) a player the GM's ``what`` (``reveals``: "only the GM reveals")."""
        if not self.member.is_gm:
            raise ApiError(403, f"only the GM {what}")

    def ensure_player(self, what: str) -> None:
        """Refuse (403) the GM a player's ``what`` ("only players send client seeds")."""
        if self.member.is_gm:
            raise ApiError(403, f"only players {what}")

    def sees_sheet(self, owner: str) -> bool:
        """Whether the member may know of a sheet that ``owner`` uploaded (contract
        v1.3: the GM's sheets are the GM's)."""
        return self.member.is_gm or owner != "gm"

    def ensure_reads_sheet(self, owner: str | None, sheet: str) -> None:
        """Refuse a sheet the member may not read: 404 for one not there or the GM's
        (to a player, as if it were not), 403 for another player's."""
        if owner is None or not self.sees_sheet(owner):
            raise ApiError(404, f"no sheet {sheet!r} in this room")
        if owner != self.member.id and not self.member.is_gm:
            raise ApiError(403, f"the sheet {sheet!r} is another member's")

    def fight_event(self, fight: Fight, ev: Mapping[str, Any], roll: int | None) -> None:
        """Refuse (403) a fight event the member may not make, before anything else is
        looked at: a player answers her own combatant's call with its own roll, ends
        her own turn, takes her own combatant's maneuver (on its turn: the fight's rules
        check that), and spends her own Luck Point
        (002); all else is the GM's. A player gets the same 403 for a call that is not
        hers and one that does not exist, so no answer tells of a hidden NPC's calls.

        Raises:
            Conflict: 403, as the fight's store reports it.
        """
        if self.member.is_gm:
            return
        kind = ev.get("kind")
        mine = {cid for cid, c in fight.combatants.items() if c.owner == self.member.id}
        cid = ev.get("combatant")
        if kind == "answer":
            call = next((c for c in fight.calls if c.id == ev.get("call")), None)
            if call is not None and call.combatant in mine:
                if roll is None:
                    raise Conflict(403, "a player answers a call with their roll of its command")
                return
        elif kind == "next" and fight.current in mine:
            return
        elif kind == "maneuver" and cid in mine:
            return  # on her own turn: the fight's rules check that (contract v1.4)
        elif kind == "defend" and cid in mine:  # issue 71 §1.9
            raise Conflict(
                403,
                "a player's defense comes from her defense call, answered by its own roll "
                "(contract v1.4), not from a roll she chose: the GM counts any other",
            )
        elif kind == "set" and isinstance(cid, str) and cid in mine and set(ev) <= SPEND:
            values = ev.get("values")
            if isinstance(values, Mapping) and set(values) == {"luck"}:
                new = values["luck"]
                if isinstance(new, int) and 0 <= new < fight.combatants[cid].value("luck"):
                    return  # a Luck Point spent (002), never gained
        raise Conflict(403, f"a player may not make this {kind} event: it is the GM's")
