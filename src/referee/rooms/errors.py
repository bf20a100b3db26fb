"""The rooms' one error type: what the API answers with ``{"error": message}``."""

from __future__ import annotations

__all__ = ["ApiError"]


class ApiError(Exception):
    """An error the API answers with ``{"error": message}`` and ``status``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
