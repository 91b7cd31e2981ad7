"""A Flask app whose pages are built with markup.

Run it with:  flask --app examples/flask_app.py run --debug

markup.flask's init_app() lets views return elements and @baked pages:
they go out as UTF-8 bytes, text/html, with no template files. The notes
feed is streamed with markup.flask.stream().
"""

from dataclasses import dataclass
from typing import Iterator, List, Optional, Tuple, Union

from flask import Flask, Response, request

from markup import Element, SafeString, baked, h
from markup.flask import init_app, stream


@dataclass(frozen=True)
class Note:
    id: int
    title: str
    body: str


NOTES = [
    Note(1, "Shopping", "Tea, milk & <biscuits>"),
    Note(2, "Ideas", "A page built with h.*, not a template"),
]

app = init_app(Flask(__name__))


# The layout is baked: its static HTML is built once, a call only fills the
# title and the content.
@baked
def layout(title: str, content: Union[Element, SafeString]) -> Element:
    return h.HtmlDocument(
        h.Head(h.Meta(charset="utf-8"), h.Title(title)),
        h.Body(h.H1(h.A({"href": "/"}, "Notes")), h.Main(content)),
    )


# Components are plain functions that return elements.
def note_link(note: Note) -> Element:
    return h.Li(h.A({"href": f"/notes/{note.id}"}, note.title))


def search_form(query: str) -> Element:
    return h.Form(
        {"method": "get", "action": "/"},
        h.Input(type="search", name="q", value=query, placeholder="Search notes"),
        h.Button({"type": "submit"}, "Search"),
    )


def matching(query: str) -> List[Note]:
    q = query.casefold()
    return [n for n in NOTES if q in n.title.casefold() or q in n.body.casefold()]


def find_note(note_id: int) -> Optional[Note]:
    return next((n for n in NOTES if n.id == note_id), None)


@app.get("/")
def index() -> SafeString:
    query = request.args.get("q", "")
    notes = matching(query)
    results = h.Ul([note_link(n) for n in notes]) if notes else h.P("No notes match.")
    return layout("Notes", h.Section(search_form(query), results))


@app.get("/notes/<int:note_id>")
def note_detail(note_id: int) -> Union[SafeString, Tuple[SafeString, int]]:
    note = find_note(note_id)
    if note is None:
        return layout("Not found", h.P(f"There is no note {note_id}.")), 404
    return layout(note.title, h.Article(h.H2(note.title), h.P(note.body)))


def all_notes(copies: int) -> Iterator[Element]:
    for i in range(copies):
        note = NOTES[i % len(NOTES)]
        yield h.Article(h.H2(note.title), h.P(note.body))


@app.get("/feed")
def feed() -> Response:
    # Taken note by note while the response is sent.
    return stream(h.Main(all_notes(int(request.args.get("n", "1000")))))
