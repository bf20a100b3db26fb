"""``POST /api/rooms/{room}/fight/attack``: an attack in the fight, in one request. The
rules are the fight service's (:func:`..service.fighting.attack`, issue 72 §1); this
reads the request and answers it.

Body: ``{"attacker": id, "target": id, "weapon": text, "location": text or null,
"maneuver": "attack" | "all-out attack" | "all-out attack (double)" | "move and attack",
"visibility": null or the GM's choice}``. The answer is 201 ``{"rolls": [...],
"entries": [...]}``.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import FastAPI, Request
from pydantic import BaseModel, ConfigDict, Field

from ..service import fighting
from .api import Caller, state
from .models import ERRORS

__all__ = ["install"]


class NewAttack(BaseModel):
    model_config = ConfigDict(extra="forbid")
    attacker: str = Field(max_length=40)
    target: str = Field(max_length=40)
    weapon: str = Field(min_length=1, max_length=80)
    location: str | None = Field(default=None, max_length=20)
    maneuver: Literal["attack", "all-out attack", "all-out attack (double)", "move and attack"] = (
        "attack"
    )
    visibility: Literal["public", "gm"] | None = None


def install(app: FastAPI) -> None:
    @app.post("/api/rooms/{room}/fight/attack", status_code=201, responses=ERRORS)
    async def attack(room: str, body: NewAttack, member: Caller, request: Request) -> Any:
        return await fighting.attack(
            state(request), room, member, body.attacker, body.target, body.weapon,
            body.location, body.maneuver, body.visibility,
        )  # fmt: skip
