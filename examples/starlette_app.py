"""A Starlette app whose pages are built with markup.

Run it with:  uvicorn examples.starlette_app:app --reload

Pages go out through markup.starlette's MarkupResponse: rendered once, as
UTF-8 bytes straight into the response. The long catalog page goes out
with MarkupStreamingResponse: its rows come from a generator, each chunk is
sent as soon as it is rendered, and the rows are never all in memory.
"""

from dataclasses import dataclass
from typing import Iterable, Optional, Union

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from markup import Element, SafeString, baked, classes, h
from markup.starlette import MarkupResponse, MarkupStreamingResponse


@dataclass(frozen=True)
class Product:
    id: int
    name: str
    price: float
    in_stock: bool = True


PRODUCTS = [
    Product(1, "Green tea", 4.5),
    Product(2, "Tea & <cake>", 7.25),
    Product(3, "Crème brûlée", 6.0, in_stock=False),
]


# The layout is baked: its static HTML is built once, a call only fills the
# title and the content.
@baked
def layout(title: str, content: Union[Element, SafeString]) -> Element:
    return h.HtmlDocument(
        h.Head(h.Meta(charset="utf-8"), h.Title(title)),
        h.Body(
            h.Header(h.Nav(h.A({"href": "/"}, "Shop"), " ", h.A({"href": "/catalog"}, "Catalog"))),
            h.Main(content),
        ),
    )


# Components are plain functions that return elements.
def product_card(product: Product) -> Element:
    return h.Li(
        {"data-id": product.id},
        classes("product", sold_out=not product.in_stock),
        h.A({"href": f"/products/{product.id}"}, product.name),
        " ",
        h.Span({"class": "price"}, f"{product.price:.2f} €"),
    )


def product_list(products: Iterable[Product]) -> Element:
    return h.Ul({"class": "products"}, [product_card(p) for p in products])


def find_product(product_id: int) -> Optional[Product]:
    return next((p for p in PRODUCTS if p.id == product_id), None)


def index_page() -> SafeString:
    return layout("Shop", h.Section(h.H1("Our teas"), product_list(PRODUCTS)))


def product_page(product: Product) -> SafeString:
    stock = "In stock" if product.in_stock else "Sold out"
    return layout(product.name, h.Article(h.H1(product.name), h.P(stock)))


def not_found_page(product_id: int) -> SafeString:
    return layout("Not found", h.P(f"There is no product {product_id}."))


def catalog_page(copies: int = 2000) -> Element:
    # A tree, not a @baked call (which renders at once): its generator child
    # is taken row by row while the response streams.
    rows = (product_card(PRODUCTS[i % len(PRODUCTS)]) for i in range(copies))
    return h.HtmlDocument(
        h.Head(h.Meta(charset="utf-8"), h.Title("Catalog")),
        h.Body(h.Main(h.Ul({"class": "products"}, rows))),
    )


async def index(request: Request) -> Response:
    return MarkupResponse(index_page())


async def product_detail(request: Request) -> Response:
    product_id: int = request.path_params["product_id"]
    product = find_product(product_id)
    if product is None:
        return MarkupResponse(not_found_page(product_id), status_code=404)
    return MarkupResponse(product_page(product))


async def catalog(request: Request) -> Response:
    return MarkupStreamingResponse(catalog_page(), chunk_size=16 * 1024)


app = Starlette(
    routes=[
        Route("/", index),
        Route("/products/{product_id:int}", product_detail),
        Route("/catalog", catalog),
    ]
)
