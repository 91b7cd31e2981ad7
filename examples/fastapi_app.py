"""A FastAPI app whose routes return markup trees.

Run it with:  uvicorn examples.fastapi_app:app --reload

Routes declare response_class=MarkupResponse and return elements (FastAPI
would otherwise send JSON); response_model=None, because FastAPI cannot
build a response model from the Element annotation. The live page streams with aiter_render: its
parts come from async functions and an async generator, each awaited where
it stands while the chunks before it are already on their way.
"""

import asyncio
from typing import AsyncIterator, Union

from fastapi import FastAPI

from markup import Element, h
from markup.fastapi import MarkupResponse, MarkupStreamingResponse

app = FastAPI()

STOCK = {"green-tea": 12, "black-tea": 0, "crème-brûlée": 3}


def page(title: str, *content: object) -> Element:
    return h.HtmlDocument(
        h.Head(h.Meta(charset="utf-8"), h.Title(title)),
        h.Body(h.H1(title), h.Main(content)),
    )


@app.get("/", response_class=MarkupResponse, response_model=None)
def index() -> Element:
    items = [h.Li(h.A({"href": f"/items/{name}"}, name)) for name in STOCK]
    return page("Shop", h.Ul(items))


@app.get("/items/{name}", response_class=MarkupResponse, response_model=None)
def item(name: str) -> Union[Element, MarkupResponse]:
    count = STOCK.get(name)
    if count is None:  # a response of its own, for its status
        return MarkupResponse(page("Not found", h.P(f"No item {name}.")), status_code=404)
    return page(name, h.P(f"{count} in stock" if count else "Sold out"))


async def greeting() -> Element:
    await asyncio.sleep(0)  # a database or an API call, say
    return h.P("Stock levels, as they come in:")


async def levels() -> AsyncIterator[Element]:
    for name, count in STOCK.items():
        await asyncio.sleep(0)
        yield h.Li(f"{name}: {count}")


def live_page() -> Element:
    return page("Live", greeting, h.Ul(levels()))


@app.get("/live")
async def live() -> MarkupStreamingResponse:
    return MarkupStreamingResponse(live_page())
