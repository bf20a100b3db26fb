"""The pages: home (create a room), join (by invite), enter (one-time link), the room.

The room page holds no entries: its script reads them from the live socket,
which sends only what :func:`.log.view` allows this member to see.
"""

from __future__ import annotations

import time
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from .api import authenticate, cookie_name, state
from .errors import ApiError

__all__ = ["install"]

HERE = Path(__file__).parent
templates = Jinja2Templates(directory=str(HERE / "templates"))


def install(app: FastAPI) -> None:
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def home(request: Request) -> Response:
        return templates.TemplateResponse(request, "home.html", {})

    @app.get("/rooms/{room}/join", response_class=HTMLResponse, include_in_schema=False)
    async def join_page(request: Request, room: str) -> Response:
        if await state(request).room(room) is None:
            raise ApiError(404, f"no room {room!r}")
        return templates.TemplateResponse(request, "join.html", {"room": room})

    @app.get("/rooms/{room}/enter", name="enter", include_in_schema=False)
    async def enter(request: Request, room: str, code: str = "") -> Response:
        spent = await state(request).store.use_login(code, time.time())
        if spent is None or spent[0] != room:
            raise ApiError(403, "this link is spent, too old or not for this room")
        response = RedirectResponse(f"/rooms/{room}", status_code=303)
        response.set_cookie(
            cookie_name(room),
            spent[1],
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
            path="/",
        )
        return response

    @app.get("/rooms/{room}", response_class=HTMLResponse, include_in_schema=False)
    async def room_page(request: Request, room: str) -> Response:
        st = state(request)
        member = await authenticate(st, room, request.cookies.get(cookie_name(room)))
        row = await st.room(room)
        assert row is not None
        return templates.TemplateResponse(
            request,
            "room.html",
            {
                "room": room,
                "name": row["name"],
                "member": member.id,
                "you": member.name,
                "gm": member.is_gm,
            },
        )
