"""The error every part of the API raises for a request it refuses."""

from __future__ import annotations


class ApiError(Exception):
    """A request the API refuses: answered with ``status``, ``{"error": message}`` and ``headers`` (e.g.
    ``Retry-After`` on a 429 or 503)."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers
