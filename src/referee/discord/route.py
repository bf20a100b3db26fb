"""The route: ``POST /discord/interactions`` in the rooms' app (``referee serve``)."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import Response

from ..rooms.errors import ApiError

__all__ = ["PATH", "install"]

PATH = "/discord/interactions"


def install(app: FastAPI) -> None:
    @app.post(PATH, include_in_schema=False)
    async def interactions(request: Request) -> Response:
        import orjson

        bot = getattr(request.app.state, "discord", None)
        if bot is None:
            raise ApiError(
                404, "Discord is not set up on this server (set REFEREE_DISCORD_PUBLIC_KEY)"
            )
        body = await request.body()
        status, payload = await bot.handle(
            body,
            request.headers.get("x-signature-ed25519"),
            request.headers.get("x-signature-timestamp"),
            str(request.base_url),
        )
        return Response(orjson.dumps(payload), status_code=status, media_type="application/json")
