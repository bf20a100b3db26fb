"""Character sheets in the rooms' database (contract v1.1): the bytes beside the log,
one row per sheet name in a room, and the ``sheet`` entry that each upload appends.

Mixed into :class:`.store.Store`, which provides the engine, the writer lock and the
appending (:meth:`.appends.Appends._one`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from .epochs import Conflict, StoreParts
from .schema import sheets

if TYPE_CHECKING:
    from collections.abc import Mapping


__all__ = ["SheetRow", "SheetWrites"]


@dataclass(frozen=True, slots=True)
class SheetRow:
    """What a room knows of one sheet, without its bytes (what its ``sheet`` entry says)."""

    sheet: str
    """The name its uploader chose (``dai``)."""
    owner: str
    """The member it belongs to."""
    name: str
    """The character's name."""
    system: str
    sha256: str
    seq: int
    """The seq of the ``sheet`` entry that set it."""

    @classmethod
    def of_entry(cls, entry: Mapping[str, Any]) -> SheetRow:
        return cls(
            entry["sheet"],
            entry["owner"],
            entry["name"],
            entry["system"],
            entry["sha256"],
            entry["seq"],
        )

    def listed(self) -> dict[str, str]:
        """As ``GET /api/rooms/{room}/sheets`` lists it."""
        return {"sheet": self.sheet, "owner": self.owner, "name": self.name, "system": self.system}


_COLUMNS = (
    sheets.c.sheet,
    sheets.c.owner,
    sheets.c.name,
    sheets.c.system,
    sheets.c.sha256,
    sheets.c.seq,
)


class SheetWrites(StoreParts):
    """The store's sheets."""

    async def put_sheet(
        self, room: str, member: str, sheet: str, name: str, system: str, sha: str, body: bytes
    ) -> dict[str, Any]:
        """Store a sheet's bytes under ``sheet`` and append its ``sheet`` entry, in one
        transaction. A player may replace only their own sheets; the GM any (a sheet the
        GM replaces keeps its owner; a new one the GM uploads is the GM's: an NPC).

        Raises:
            Conflict: 403 for a player replacing another member's sheet.
        """
        async with self._writing(), self.engine.begin() as conn:
            await self._take(conn, room)  # the room's lock: one upload of a name at a time
            owner = await conn.scalar(
                sa.select(sheets.c.owner).where(sheets.c.room_id == room, sheets.c.sheet == sheet)
            )
            if owner is not None and owner != member and member != "gm":
                raise Conflict(403, f"the sheet {sheet!r} is another member's")
            fields = {
                "owner": owner or member,
                "sheet": sheet,
                "name": name,
                "system": system,
                "sha256": sha,
            }
            gm = {"visibility": "gm"} if (owner or member) == "gm" else {}
            # The GM's sheets are the GM's (contract v1.3): players get the entry redacted.
            entry = await self._one(conn, room, "sheet", {**fields, **gm})
            values = {**fields, "seq": entry["seq"], "body": body}
            if owner is None:
                await conn.execute(sa.insert(sheets).values(room_id=room, **values))
            else:
                await conn.execute(
                    sa.update(sheets)
                    .where(sheets.c.room_id == room, sheets.c.sheet == sheet)
                    .values(**values)
                )
        return entry

    async def sheets_of(self, room: str) -> list[SheetRow]:
        """Every sheet of ``room``, by name."""
        query = sa.select(*_COLUMNS).where(sheets.c.room_id == room).order_by(sheets.c.sheet)
        rows = await self._reading(_all, query)
        return [SheetRow(*row) for row in rows]

    async def sheet_body(self, room: str, sheet: str) -> tuple[SheetRow, bytes] | None:
        """One sheet and its bytes, or None."""
        query = sa.select(*_COLUMNS, sheets.c.body).where(
            sheets.c.room_id == room, sheets.c.sheet == sheet
        )
        row = await self._reading(_first, query)
        if row is None:
            return None
        return SheetRow(*row[:6]), bytes(row[6])


async def _all(conn: Any, query: sa.Select[Any]) -> list[sa.Row[Any]]:
    return list((await conn.execute(query)).all())


async def _first(conn: Any, query: sa.Select[Any]) -> sa.Row[Any] | None:
    row: sa.Row[Any] | None = (await conn.execute(query)).first()
    return row
