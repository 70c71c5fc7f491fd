"""The page at ``/``; its script and style sheet are the files of :data:`STATIC`, which ``create_app`` mounts at
``/static`` (a router cannot carry a mounted app)."""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

STATIC = resources.files("awale_apps.web") / "static"

router = APIRouter()


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
async def page() -> HTMLResponse:
    return HTMLResponse((STATIC / "index.html").read_text(encoding="utf-8"))
