"""The pages: home (create a room), join (by invite), enter (one-time link), the room.

The room page holds no entries: its script reads them from the live socket,
which sends only what :func:`.log.view` allows this member to see.

A browser that is refused (a spent or unknown one-time link, a session whose token no
longer works, a room that does not exist) gets a page that says so in words, with the
API's status, never the API's ``{"error": ...}``.
"""

from __future__ import annotations

import time
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from ..errors import ApiError
from ..routes.api import cookie_name, state
from ..service import authenticate

__all__ = ["install"]

HERE = Path(__file__).parent
templates = Jinja2Templates(directory=str(HERE / "templates"))


def _refused(request: Request, status: int, title: str, *lines: str) -> Response:
    """A page in the room pages' style saying why the browser cannot go on, with ``status``."""
    return templates.TemplateResponse(
        request, "refused.html", {"title": title, "lines": lines}, status_code=status
    )


def _no_room(request: Request) -> Response:
    """The page for a room id that names no room (404)."""
    return _refused(
        request,
        404,
        "No such room",
        "There is no room at this address. Check the link the GM sent you.",
    )


ICON = (
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
    b'<rect x="1" y="1" width="14" height="14" rx="3" fill="#4a3f8c"/>'
    b'<g fill="#fff"><circle cx="5" cy="5" r="1.5"/><circle cx="8" cy="8" r="1.5"/>'
    b'<circle cx="11" cy="11" r="1.5"/></g></svg>'
)
"""A three on a die, as SVG (``/favicon.ico``)."""


def install(app: FastAPI) -> None:
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> Response:
        """The pages' icon (a die), where browsers look for it first."""
        return Response(
            ICON, media_type="image/svg+xml", headers={"cache-control": "max-age=86400"}
        )

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def home(request: Request) -> Response:
        return templates.TemplateResponse(request, "home.html", {})

    @app.get("/rooms/{room}/join", response_class=HTMLResponse, include_in_schema=False)
    async def join_page(request: Request, room: str) -> Response:
        if await state(request).room(room) is None:
            return _no_room(request)
        return templates.TemplateResponse(request, "join.html", {"room": room})

    @app.get("/rooms/{room}/enter", name="enter", include_in_schema=False)
    async def enter(request: Request, room: str, code: str = "") -> Response:
        spent = await state(request).store.use_login(code, time.time())
        if spent is None or spent[0] != room:
            return _refused(
                request,
                403,
                "This link no longer opens the room",
                "This link has expired or was used already: a room link works once, "
                "for 10 minutes.",
                "Ask the GM for a new invite to come back to the table.",
            )
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
        token = request.cookies.get(cookie_name(room))
        try:
            member = await authenticate(st, room, token)
        except ApiError as exc:
            if exc.status == 404:
                return _no_room(request)
            if exc.status not in (401, 403):
                raise
            if token is None:
                return _refused(
                    request,
                    exc.status,
                    "You are not at this table",
                    "This browser is not signed in to this room.",
                    "Open the link you got on joining (it works once, for 10 minutes), "
                    "or ask the GM for a new invite.",
                )
            return _refused(
                request,
                exc.status,
                "Your session in this room has ended",
                "This browser's sign-in no longer works here: the GM may have removed "
                "you from the room.",
                "Ask the GM for a new invite to come back to the table.",
            )
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
                "archived": bool(row.get("archived")),
                "key": st.store.signer.fingerprint if st.store.signer else None,
            },
        )
