"""The odds of the fight from here (issue 68 §4): ``POST /api/rooms/{room}/fight/odds``,
the GM's alone.

Body: ``{"n": fights (1-20,000, default 10,000), "seed": null or an integer}``. The
answer is 200: the simulator's own JSON (``gurps simulate --json`` or ``swn simulate
--json``, docs/reference/json.md) with ``"from"``, where the fights started. A player
gets 403 before anything is read. Nothing is logged or sent on the sockets
(:mod:`..service.odds`).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from pydantic import BaseModel, ConfigDict, StrictInt

from ..service.odds import fight_odds
from .api import Caller, state
from .models import ERRORS

__all__ = ["install"]


class OddsAsked(BaseModel):
    model_config = ConfigDict(extra="forbid")
    n: StrictInt = 10_000
    seed: StrictInt | None = None


def install(app: FastAPI) -> None:
    @app.post("/api/rooms/{room}/fight/odds", responses=ERRORS)
    async def odds(room: str, body: OddsAsked, member: Caller, request: Request) -> Any:
        """The GM's odds of the fight from its state now (nothing logged, nothing sent)."""
        return await fight_odds(state(request), room, member, body.n, body.seed)
