"""A blog's front page, written twice: as the Jinja2 template a Flask or
Pelican site would have (TEMPLATE), and as one `@baked` markup function
written the way a Jinja2 user thinks: `and`/`or`/`not` as all_of/any_of/
not_, `loop.length` and `loop.nextitem`, Jinja2's `default`, a literal
`required=True`, a category object that renders through its own __str__,
a method called per call for the date. tests/python/test_examples.py
checks that both give the same DOM for several sets of data.

    python examples/blog.py      # prints the page
"""

import datetime
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from markup import Element, all_of, any_of, baked, classes, default, h, looped, not_, when


class Category:
    """A category as a static site generator models it: printed by name."""

    def __init__(self, name: str, slug: str) -> None:
        self.name = name
        self.slug = slug

    def __str__(self) -> str:
        return self.name

    @property
    def url(self) -> str:
        return f"/category/{self.slug}/"


@dataclass
class Post:
    title: str
    slug: str
    date: datetime.date
    category: Category
    summary: str
    tags: List[str] = field(default_factory=list)
    draft: bool = False
    author: Optional[Dict[str, Any]] = None

    @property
    def url(self) -> str:
        return f"/{self.date:%Y}/{self.slug}/"


TEMPLATE = """\
<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>{{ site.name }}{% if page > 1 %} - page {{ page }}{% endif %}</title>
</head>
<body>
  <header>
    <h1><a href="/">{{ site.name }}</a></h1>
    {% if user and user.is_admin %}<a class="admin" href="/admin/">Admin</a>{% endif %}
  </header>
  <main>
    {% for post in posts %}
    <article class="{{ loop.cycle('odd', 'even') }}{% if loop.first %} first{% endif %}">
      <h2><a href="{{ post.url }}">{{ post.title }}</a></h2>
      <p class="meta">
        {{ post.date.strftime("%d %b %Y") }} in
        <a href="{{ post.category.url }}">{{ post.category }}</a>
        by {{ post.author.name|default("anonymous") }}
        ({{ loop.index }} of {{ loop.length }})
      </p>
      {% if post.draft or not post.tags %}<p class="note">Draft or untagged</p>{% endif %}
      <p>{{ post.summary }}</p>
      <ul class="tags">{% for tag in post.tags %}<li>{{ tag }}</li>{% endfor %}</ul>
      {% if loop.nextitem %}
      <a class="next" href="{{ loop.nextitem.url }}">Next: {{ loop.nextitem.title }}</a>
      {% endif %}
    </article>
    {% else %}
    <p>No posts yet.</p>
    {% endfor %}
  </main>
  <form action="/search"><input name="q" required><button>Search</button></form>
  <footer>{{ site.footer or "Written by its authors" }}</footer>
</body>
</html>
"""


# Fields are read as Jinja2 reads them (`user.is_admin` on a dict, `.name`
# of an author that may be None), so the rows are typed as Any.
@baked
def front_page(site: Dict[str, str], user: Any, posts: Sequence[Any], page: int) -> Element:
    return h.HtmlDocument(
        {"lang": "en"},
        h.Head(
            h.Meta(charset="utf-8"),
            h.Title(site["name"], when(page > 1, f" - page {page}")),
        ),
        h.Body(
            h.Header(
                h.H1(h.A({"href": "/"}, site["name"])),
                when(
                    all_of(user, user.is_admin), h.A({"class": "admin", "href": "/admin/"}, "Admin")
                ),
            ),
            h.Main(
                when(
                    posts,
                    [
                        h.Article(
                            classes(loop.cycle("odd", "even"), {"first": loop.first}),
                            h.H2(h.A({"href": post.url}, post.title)),
                            h.P(
                                {"class": "meta"},
                                post.date.strftime("%d %b %Y"),
                                " in ",
                                h.A({"href": post.category.url}, post.category),
                                " by ",
                                default(post.author.name, "anonymous"),
                                " (",
                                loop.index,
                                " of ",
                                loop.length,
                                ")",
                            ),
                            when(
                                any_of(post.draft, not_(post.tags)),
                                h.P({"class": "note"}, "Draft or untagged"),
                            ),
                            h.P(post.summary),
                            h.Ul({"class": "tags"}, [h.Li(tag) for tag in post.tags]),
                            when(
                                loop.nextitem,
                                h.A(
                                    {"class": "next", "href": loop.nextitem.url},
                                    "Next: ",
                                    loop.nextitem.title,
                                ),
                            ),
                        )
                        for post, loop in looped(posts)
                    ],
                    h.P("No posts yet."),
                ),
            ),
            h.Form(
                {"action": "/search"},
                h.Input(name="q", required=True),
                h.Button("Search"),
            ),
            h.Footer(any_of(site["footer"], "Written by its authors")),
        ),
    )


SITE = {"name": "Tea & Code", "footer": ""}
TEA = Category("Tea", "tea")
CODE = Category("Code <C>", "code")
POSTS = [
    Post(
        "Brewing <green> tea",
        "green-tea",
        datetime.date(2026, 11, 2),
        TEA,
        "Cooler water & a shorter steep.",
        ["tea", "how-to"],
        author={"name": "Kim"},
    ),
    Post("Drafts & notes", "notes", datetime.date(2026, 11, 9), CODE, "Unfinished.", draft=True),
    Post("Loops in C", "loops", datetime.date(2026, 11, 20), CODE, "Fast ones.", ["c"]),
]


if __name__ == "__main__":
    print(front_page(SITE, {"is_admin": True}, POSTS, 1))
