"""FastAPI routes that return markup trees.

    from markup.fastapi import MarkupResponse, MarkupStreamingResponse

    @app.get("/", response_class=MarkupResponse)
    def index():
        return h.Main(h.H1("Shop"))

    @app.get("/catalog")
    async def catalog():
        return MarkupStreamingResponse(h.Table(rows()))

FastAPI passes a route's return value through its jsonable_encoder before
the response class sees it. Importing this module registers Element and
Comment there as their HTML (a SafeString), so a route may return them.
FastAPI cannot build a response model from the Element type: a route
annotated ``-> Element`` needs ``response_model=None``.
"""

from fastapi.encoders import ENCODERS_BY_TYPE

from ._core import Comment, Element, render
from .starlette import MarkupResponse, MarkupStreamingResponse

__all__ = ["MarkupResponse", "MarkupStreamingResponse"]

ENCODERS_BY_TYPE.setdefault(Element, render)
ENCODERS_BY_TYPE.setdefault(Comment, render)
