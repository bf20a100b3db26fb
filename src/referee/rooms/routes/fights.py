"""The fight at the table (contract v1.2, "The fight's state"), over HTTP. The rules are
the fight service's (:mod:`..service.fighting`, issue 72 §1); these read the request
and answer it.

* ``POST /api/rooms/{room}/fight`` takes ``{"event": {...}, "roll": seq or "call" or
  null, "visibility": null or the GM's choice, "why": text or null}`` and answers 201
  ``{"entries": [...]}`` (with ``"roll"`` and ``"damage"`` when made).
* ``GET /api/rooms/{room}/fight`` answers the fight as the caller may see it.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import FastAPI, Request
from pydantic import BaseModel, ConfigDict

from ..service import fighting
from .api import Caller, state
from .models import ERRORS

__all__ = ["install"]


class NewEvent(BaseModel):
    model_config = ConfigDict(extra="forbid")
    event: dict[str, Any]
    roll: int | Literal["call"] | None = None
    """A roll's seq, or ``"call"``: roll the answered call's command here, as its
    combatant, and answer with that roll (one request, one click)."""
    visibility: Literal["public", "gm", "blind"] | None = None
    """With ``"roll": "call"``, the GM's choice of how the roll is seen (public by
    default; a hidden combatant's is always ``gm``)."""
    why: str | None = None


def install(app: FastAPI) -> None:
    @app.post("/api/rooms/{room}/fight", status_code=201, responses=ERRORS)
    async def fight_event(room: str, body: NewEvent, member: Caller, request: Request) -> Any:
        return await fighting.event(
            state(request), room, member, body.event, body.roll, body.visibility, body.why
        )

    @app.get("/api/rooms/{room}/fight", responses=ERRORS)
    async def fight_state(room: str, member: Caller, request: Request) -> Any:
        return await fighting.seen(state(request), room, member)
