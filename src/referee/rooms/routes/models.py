"""The rooms' API models: what each call takes and what it answers, as the OpenAPI
schema (``/api/openapi.json``) describes them to clients and to the fuzzer."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ERRORS",
    "Close",
    "Declassify",
    "Entry",
    "Error",
    "Health",
    "Joined",
    "Log",
    "MAX_SEQ",
    "NewMember",
    "NewRoll",
    "NewRoom",
    "NewSeed",
    "Reveal",
    "RoomCreated",
    "ServerKey",
]


class NewRoom(BaseModel):
    name: str = Field(min_length=1, max_length=100)
    system: Literal["gurps", "fudge", "swn"] | None = None


class NewMember(BaseModel):
    name: str = Field(min_length=1, max_length=100)
    invite: str = Field(min_length=1, max_length=200)


class NewRoll(BaseModel):
    command: str = Field(max_length=100_000)
    visibility: Literal["public", "gm", "blind"] = "public"
    bare: bool = False
    """The GM's roll without the fight's modifiers (contract v1.5; logged ``"bare"``)."""


MAX_SEQ = 2**53 - 1
"""The largest seq or epoch a call may name (a JSON-safe integer; the database's fit)."""


class Reveal(BaseModel):
    seq: int = Field(ge=0, le=MAX_SEQ)


class NewSeed(BaseModel):
    seed: str = Field(max_length=10_000)


class Close(BaseModel):
    declassify: bool = False


class Declassify(BaseModel):
    epoch: int = Field(ge=1, le=MAX_SEQ)


class Error(BaseModel):
    """Every error's body (the rooms' contract, docs/reference/rooms-contract.md)."""

    error: str


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": Error, "description": what}
    for code, what in {
        400: "malformed JSON or parameters",
        401: "a missing or unknown token",
        403: "a call this member may not make, or a token or invite of another room",
        404: "an unknown room",
        405: "a method the path does not take",
        409: "a second client seed in one epoch, or a second reveal or declassify",
        413: "a body over 64 KiB",
        422: "a bad command, seed, seq or epoch",
        429: "too many requests",
    }.items()
}
"""The error answers, declared for every operation."""


class Health(BaseModel):
    ok: bool


class ServerKey(BaseModel):
    """The server's own key, which signs the log's heads (contract v1.5)."""

    algorithm: Literal["ed25519"]
    key: str
    """The 32-byte public key, as hex."""
    fingerprint: str
    """sha256 of the public key's bytes, as hex: what ``referee verify --key`` takes."""


class RoomCreated(BaseModel):
    room: str
    member: Literal["gm"]
    token: str
    invite: str
    url: str
    """A one-time link (10 minutes) that opens the room page as the GM."""


class Joined(BaseModel):
    member: str
    token: str
    url: str


class Entry(BaseModel):
    """A log entry as the caller may see it: the common fields, and those of its kind."""

    model_config = ConfigDict(extra="allow")

    room: str
    seq: int
    kind: Literal[
        "room",
        "join",
        "epoch",
        "seed",
        "lock",
        "roll",
        "reveal",
        "close",
        "declassify",
        "sheet",
        "leave",
        "invite",
        "archive",
        "token",
        "combatant",
        "change",
        "turn",
        "head",
    ]
    time: str
    digest: str
    chain: str


class Log(BaseModel):
    entries: list[Entry]
