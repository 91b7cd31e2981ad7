"""Flask views that return markup trees.

    from markup.flask import init_app, stream

    app = Flask(__name__)
    init_app(app)

    @app.get("/")
    def index():
        return h.Main(h.H1("Shop"))          # or (element, 404), (element, 200, headers)

    @app.get("/catalog")
    def catalog():
        return stream(h.Table(rows()))        # chunks go out as they are rendered

Importing this module imports Flask; ``import markup`` alone does not.
"""

from typing import Any

from flask import Flask, Response, stream_with_context

from ._core import Comment, Element, iter_render, render_bytes

__all__ = ["init_app", "stream"]


def _as_body(rv: Any) -> Any:
    if isinstance(rv, (Element, Comment)):
        return render_bytes(rv)
    if isinstance(rv, tuple) and rv and isinstance(rv[0], (Element, Comment)):
        return (render_bytes(rv[0]),) + rv[1:]
    return rv


def init_app(app: Flask) -> Flask:
    """Lets the app's views return an element or a Comment (alone, or first
    in a (body, status), (body, headers) or (body, status, headers) tuple):
    it is rendered to UTF-8 and sent as text/html. Everything else a view
    returns is left to Flask. Returns the app."""
    make_response = app.make_response

    def make_markup_response(rv: Any) -> Response:
        return make_response(_as_body(rv))

    app.make_response = make_markup_response  # type: ignore[method-assign]
    return app


def stream(node: Any, *, chunk_size: int = 65536, status: int = 200) -> Response:
    """A streamed text/html response of iter_render(node). Generator and
    callable children run while the response is sent, inside the request's
    context (stream_with_context), so they may use ``request`` and ``g``."""
    return Response(
        stream_with_context(iter_render(node, chunk_size=chunk_size)),
        status=status,
        mimetype="text/html",
    )
