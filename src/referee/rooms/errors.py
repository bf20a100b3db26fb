"""The rooms' one error type: what the API answers with ``{"error": message}``."""

from __future__ import annotations

from starlette.types import Send

__all__ = ["ApiError", "send_json"]


class ApiError(Exception):
    """An error the API answers with ``{"error": message}`` and ``status``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


async def send_json(
    send: Send, status: int, body: bytes, headers: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    """Answer straight from ASGI with a JSON ``body`` (a refusal before any route, or
    a path served without the router)."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
