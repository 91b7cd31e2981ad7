"""Starlette responses that render markup trees.

    from markup.starlette import MarkupResponse, MarkupStreamingResponse

    async def index(request):
        return MarkupResponse(page(...))            # rendered once, UTF-8 bytes

    async def catalog(request):
        return MarkupStreamingResponse(h.Table(rows_from_the_database()))

Importing this module imports Starlette; ``import markup`` alone does not.
The same classes serve FastAPI (see markup.fastapi).
"""

from typing import Any, Mapping, Optional

from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.responses import HTMLResponse, StreamingResponse

from ._core import render_bytes
from ._stream import aiter_render

__all__ = ["MarkupResponse", "MarkupStreamingResponse"]


class MarkupResponse(HTMLResponse):
    """An HTML response whose content is an element, a @baked result, a
    SafeString or anything else render() takes, rendered to UTF-8 bytes
    once (bytes are sent as they are). ``text/html; charset=utf-8``."""

    def render(self, content: Any) -> bytes:
        if content is None:
            return b""
        if isinstance(content, bytes):
            return content
        return render_bytes(content)


class MarkupStreamingResponse(StreamingResponse):
    """Streams a tree with aiter_render(): each chunk goes out as soon as it
    is rendered, generator children are taken item by item, and awaitable
    and async-iterable children are awaited where they stand. The rendering
    itself, with the generators and callables it takes, runs in Starlette's
    threadpool, as Starlette runs a synchronous iterator, so a slow query in
    a generator does not hold up the event loop."""

    def __init__(
        self,
        content: Any,
        status_code: int = 200,
        headers: Optional[Mapping[str, str]] = None,
        media_type: Optional[str] = "text/html",
        background: Optional[BackgroundTask] = None,
        *,
        chunk_size: int = 65536,
    ) -> None:
        super().__init__(
            aiter_render(content, chunk_size=chunk_size, run_sync=run_in_threadpool),
            status_code=status_code,
            headers=headers,
            media_type=media_type,
            background=background,
        )
