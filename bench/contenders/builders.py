"""Element builders: htpy, dominate, turbohtml's E, fastcore.xml (FastHTML's FT).

Each builds the whole tree per call, in the style its documentation shows,
and serializes it to one str. Where a library has no doctype node the string
is prepended, as every other contender writes it too.
"""

from __future__ import annotations

from pages import DOCTYPE

from . import Contender

TABLE_HEADINGS = ("ID", "Name", "Email", "Role", "Status", "Last login", "")


def htpy_contender() -> Contender:
    """htpy"""
    import htpy as hp

    def render_products(title, rows):
        return str(
            hp.html(lang="en")[
                hp.head[hp.meta(charset="utf-8"), hp.title[title]],
                hp.body[
                    hp.main(class_="container")[
                        hp.h1(class_="title")[title],
                        hp.ul(class_="product-list")[
                            [
                                hp.li(
                                    class_="row featured" if r["featured"] else "row",
                                    data_id=r["id"],
                                )[
                                    hp.span(class_="name")[r["name"]],
                                    hp.span(class_="price")[r["price"]],
                                ]
                                for r in rows
                            ]
                        ],
                    ]
                ],
            ]
        )

    def render_admin(d):
        selected = d["selected_role"]
        return str(
            hp.html(lang="en")[
                hp.head[
                    hp.meta(charset="utf-8"),
                    hp.title[d["title"]],
                    hp.link(href="/static/admin.css", rel="stylesheet"),
                ],
                hp.body(class_="admin")[
                    hp.header(class_="topbar")[
                        hp.a(class_="brand", href="/admin")[d["site"]],
                        hp.span(class_="user")[d["user_name"]],
                        hp.a(class_="logout", href="/logout")["Log out"],
                    ],
                    hp.nav(class_="sidebar")[
                        hp.ul[
                            [
                                hp.li[
                                    hp.a(
                                        aria_current="page" if item["current"] else None,
                                        class_="nav-link",
                                        href=item["href"],
                                    )[item["label"]]
                                ]
                                for item in d["nav"]
                            ]
                        ]
                    ],
                    hp.main[
                        hp.h1["Users"],
                        hp.table(class_="users")[
                            hp.thead[hp.tr[[hp.th[h] for h in TABLE_HEADINGS]]],
                            hp.tbody[
                                [
                                    hp.tr(
                                        class_="active" if u["active"] else "inactive",
                                        data_id=u["id"],
                                    )[
                                        hp.td[u["id"]],
                                        hp.td[u["name"]],
                                        hp.td[hp.a(href=u["mailto"])[u["email"]]],
                                        hp.td[u["role"]],
                                        hp.td[hp.span(class_="status")[u["status"]]],
                                        hp.td[u["last_login"]],
                                        hp.td[hp.a(class_="edit", href=u["edit_url"])["Edit"]],
                                    ]
                                    for u in d["users"]
                                ]
                            ],
                        ],
                        hp.section(class_="new-user")[
                            hp.h2["Add a user"],
                            hp.form(action="/admin/users", method="post")[
                                hp.input(name="csrf_token", type="hidden", value=d["csrf_token"]),
                                hp.label(for_="name")["Name"],
                                hp.input(
                                    id="name",
                                    name="name",
                                    required=True,
                                    type="text",
                                    value=d["form_name"],
                                ),
                                hp.label(for_="email")["Email"],
                                hp.input(
                                    id="email",
                                    name="email",
                                    required=True,
                                    type="email",
                                    value=d["form_email"],
                                ),
                                hp.label(for_="role")["Role"],
                                hp.select(id="role", name="role")[
                                    [
                                        hp.option(
                                            selected=role["value"] == selected, value=role["value"]
                                        )[role["label"]]
                                        for role in d["roles"]
                                    ]
                                ],
                                hp.label[
                                    hp.input(checked=d["notify"], name="notify", type="checkbox"),
                                    "Send a welcome email",
                                ],
                                hp.label[
                                    hp.input(
                                        checked=d["make_admin"],
                                        disabled=not d["can_grant_admin"],
                                        name="admin",
                                        type="checkbox",
                                    ),
                                    "Administrator",
                                ],
                                hp.button(disabled=d["locked"], type="submit")["Create user"],
                            ],
                        ],
                    ],
                    hp.footer[hp.p[d["footer"]]],
                ],
            ]
        )

    return Contender("htpy", "htpy", render_products, render_admin)


def dominate_contender() -> Contender:
    """dominate"""
    from dominate import tags as t
    from dominate.util import text

    # dominate writes &quot; in attributes, leaves ' (and " in text) raw,
    # and writes boolean attributes as checked="checked". It drops an
    # attribute whose value == False, so data-id=0 vanishes: ids go in as str.
    normalizations = ("entities", "quotes", "bool-attrs")

    def render_products(title, rows):
        doc = t.html(lang="en")
        with doc:
            with t.head():
                t.meta(charset="utf-8")
                t.title(title)
            with t.body():
                with t.main(cls="container"):
                    t.h1(title, cls="title")
                    with t.ul(cls="product-list"):
                        for r in rows:
                            with t.li(
                                cls="row featured" if r["featured"] else "row", data_id=str(r["id"])
                            ):
                                t.span(r["name"], cls="name")
                                t.span(r["price"], cls="price")
        return DOCTYPE + doc.render(pretty=False)

    def render_admin(d):
        selected = d["selected_role"]
        doc = t.html(lang="en")
        with doc:
            with t.head():
                t.meta(charset="utf-8")
                t.title(d["title"])
                t.link(href="/static/admin.css", rel="stylesheet")
            with t.body(cls="admin"):
                with t.header(cls="topbar"):
                    t.a(d["site"], cls="brand", href="/admin")
                    t.span(d["user_name"], cls="user")
                    t.a("Log out", cls="logout", href="/logout")
                with t.nav(cls="sidebar"), t.ul():
                    for item in d["nav"]:
                        with t.li():
                            t.a(
                                item["label"],
                                aria_current="page" if item["current"] else None,
                                cls="nav-link",
                                href=item["href"],
                            )
                with t.main():
                    t.h1("Users")
                    with t.table(cls="users"):
                        with t.thead(), t.tr():
                            for heading in TABLE_HEADINGS:
                                t.th(heading)
                        with t.tbody():
                            for u in d["users"]:
                                with t.tr(
                                    cls="active" if u["active"] else "inactive",
                                    data_id=str(u["id"]),
                                ):
                                    t.td(u["id"])
                                    t.td(u["name"])
                                    with t.td():
                                        t.a(u["email"], href=u["mailto"])
                                    t.td(u["role"])
                                    with t.td():
                                        t.span(u["status"], cls="status")
                                    t.td(u["last_login"])
                                    with t.td():
                                        t.a("Edit", cls="edit", href=u["edit_url"])
                    with t.section(cls="new-user"):
                        t.h2("Add a user")
                        with t.form(action="/admin/users", method="post"):
                            t.input_(name="csrf_token", type="hidden", value=d["csrf_token"])
                            t.label("Name", fr="name")
                            t.input_(
                                id="name",
                                name="name",
                                required=True,
                                type="text",
                                value=d["form_name"],
                            )
                            t.label("Email", fr="email")
                            t.input_(
                                id="email",
                                name="email",
                                required=True,
                                type="email",
                                value=d["form_email"],
                            )
                            t.label("Role", fr="role")
                            with t.select(id="role", name="role"):
                                for role in d["roles"]:
                                    t.option(
                                        role["label"],
                                        selected=role["value"] == selected,
                                        value=role["value"],
                                    )
                            with t.label():
                                t.input_(checked=d["notify"], name="notify", type="checkbox")
                                text("Send a welcome email")
                            with t.label():
                                t.input_(
                                    checked=d["make_admin"],
                                    disabled=not d["can_grant_admin"],
                                    name="admin",
                                    type="checkbox",
                                )
                                text("Administrator")
                            t.button("Create user", disabled=d["locked"], type="submit")
                with t.footer():
                    t.p(d["footer"])
        return DOCTYPE + doc.render(pretty=False)

    return Contender("dominate", "dominate", render_products, render_admin, normalizations)


def turbohtml_contender() -> Contender:
    """turbohtml"""
    from turbohtml import E, Formatter, Html

    # MINIMAL escapes & < > (and " in attributes) only, and writes U+00A0 as
    # itself rather than &nbsp;. Boolean attributes come out as checked="".
    config = Html(formatter=Formatter.MINIMAL)
    normalizations = ("entities", "quotes", "bool-attrs")
    # Tag factories looked up once: E.li builds a new factory per attribute access.
    html, head, meta, title_, body, main, h1, ul, li, span = (
        E.html,
        E.head,
        E.meta,
        E.title,
        E.body,
        E.main,
        E.h1,
        E.ul,
        E.li,
        E.span,
    )
    link, header, a, nav, h2, table, thead, tbody, tr, th, td = (
        E.link,
        E.header,
        E.a,
        E.nav,
        E.h2,
        E.table,
        E.thead,
        E.tbody,
        E.tr,
        E.th,
        E.td,
    )
    section, form, input_, label, select, option, button, footer, p = (
        E.section,
        E.form,
        E.input,
        E.label,
        E.select,
        E.option,
        E.button,
        E.footer,
        E.p,
    )

    def render_products(title, rows):
        page = html(
            {"lang": "en"},
            head(meta({"charset": "utf-8"}), title_(title)),
            body(
                main(
                    {"class": "container"},
                    h1({"class": "title"}, title),
                    ul(
                        {"class": "product-list"},
                        *[
                            li(
                                {
                                    "class": "row featured" if r["featured"] else "row",
                                    "data-id": str(r["id"]),
                                },
                                span({"class": "name"}, r["name"]),
                                span({"class": "price"}, r["price"]),
                            )
                            for r in rows
                        ],
                    ),
                )
            ),
        )
        return DOCTYPE + page.serialize(config)

    def render_admin(d):
        selected = d["selected_role"]
        admin_box = {}
        if d["make_admin"]:
            admin_box["checked"] = None
        if not d["can_grant_admin"]:
            admin_box["disabled"] = None
        admin_box["name"] = "admin"
        admin_box["type"] = "checkbox"
        notify_box = {"checked": None} if d["notify"] else {}
        notify_box["name"] = "notify"
        notify_box["type"] = "checkbox"
        page = html(
            {"lang": "en"},
            head(
                meta({"charset": "utf-8"}),
                title_(d["title"]),
                link({"href": "/static/admin.css", "rel": "stylesheet"}),
            ),
            body(
                {"class": "admin"},
                header(
                    {"class": "topbar"},
                    a({"class": "brand", "href": "/admin"}, d["site"]),
                    span({"class": "user"}, d["user_name"]),
                    a({"class": "logout", "href": "/logout"}, "Log out"),
                ),
                nav(
                    {"class": "sidebar"},
                    ul(
                        *[
                            li(
                                a(
                                    {
                                        "aria-current": "page",
                                        "class": "nav-link",
                                        "href": item["href"],
                                    }
                                    if item["current"]
                                    else {"class": "nav-link", "href": item["href"]},
                                    item["label"],
                                )
                            )
                            for item in d["nav"]
                        ]
                    ),
                ),
                main(
                    h1("Users"),
                    table(
                        {"class": "users"},
                        thead(tr(*[th(h) for h in TABLE_HEADINGS])),
                        tbody(
                            *[
                                tr(
                                    {
                                        "class": "active" if u["active"] else "inactive",
                                        "data-id": str(u["id"]),
                                    },
                                    td(str(u["id"])),
                                    td(u["name"]),
                                    td(a({"href": u["mailto"]}, u["email"])),
                                    td(u["role"]),
                                    td(span({"class": "status"}, u["status"])),
                                    td(u["last_login"]),
                                    td(a({"class": "edit", "href": u["edit_url"]}, "Edit")),
                                )
                                for u in d["users"]
                            ]
                        ),
                    ),
                    section(
                        {"class": "new-user"},
                        h2("Add a user"),
                        form(
                            {"action": "/admin/users", "method": "post"},
                            input_(
                                {"name": "csrf_token", "type": "hidden", "value": d["csrf_token"]}
                            ),
                            label({"for": "name"}, "Name"),
                            input_(
                                {
                                    "id": "name",
                                    "name": "name",
                                    "required": None,
                                    "type": "text",
                                    "value": d["form_name"],
                                }
                            ),
                            label({"for": "email"}, "Email"),
                            input_(
                                {
                                    "id": "email",
                                    "name": "email",
                                    "required": None,
                                    "type": "email",
                                    "value": d["form_email"],
                                }
                            ),
                            label({"for": "role"}, "Role"),
                            select(
                                {"id": "role", "name": "role"},
                                *[
                                    option(
                                        {"selected": None, "value": role["value"]}
                                        if role["value"] == selected
                                        else {"value": role["value"]},
                                        role["label"],
                                    )
                                    for role in d["roles"]
                                ],
                            ),
                            label(input_(notify_box), "Send a welcome email"),
                            label(input_(admin_box), "Administrator"),
                            button(
                                {"disabled": None, "type": "submit"}
                                if d["locked"]
                                else {"type": "submit"},
                                "Create user",
                            ),
                        ),
                    ),
                ),
                footer(p(d["footer"])),
            ),
        )
        return DOCTYPE + page.serialize(config)

    return Contender(
        "turbohtml (E builder)", "turbohtml", render_products, render_admin, normalizations
    )


def fastcore_contender() -> Contender:
    """fastcore.xml"""
    from fastcore.xml import (
        H1,
        H2,
        A,
        Body,
        Button,
        Footer,
        Form,
        Head,
        Header,
        Html,
        Input,
        Label,
        Li,
        Link,
        Main,
        Meta,
        Nav,
        Option,
        P,
        Section,
        Select,
        Span,
        Table,
        Tbody,
        Td,
        Th,
        Thead,
        Title,
        Tr,
        Ul,
        to_xml,
    )

    # to_xml(indent=False) writes no whitespace; text keeps ' and " raw, and
    # an attribute value holding " is written in single quotes.
    normalizations = ("attr-quotes", "quotes")

    def render_products(title, rows):
        page = Html(
            Head(Meta(charset="utf-8"), Title(title)),
            Body(
                Main(
                    H1(title, cls="title"),
                    Ul(
                        *[
                            Li(
                                Span(r["name"], cls="name"),
                                Span(r["price"], cls="price"),
                                cls="row featured" if r["featured"] else "row",
                                data_id=r["id"],
                            )
                            for r in rows
                        ],
                        cls="product-list",
                    ),
                    cls="container",
                )
            ),
            lang="en",
        )
        return to_xml(page, indent=False)

    def render_admin(d):
        selected = d["selected_role"]
        page = Html(
            Head(
                Meta(charset="utf-8"),
                Title(d["title"]),
                Link(href="/static/admin.css", rel="stylesheet"),
            ),
            Body(
                Header(
                    A(d["site"], cls="brand", href="/admin"),
                    Span(d["user_name"], cls="user"),
                    A("Log out", cls="logout", href="/logout"),
                    cls="topbar",
                ),
                Nav(
                    Ul(
                        *[
                            Li(
                                A(
                                    item["label"],
                                    aria_current="page" if item["current"] else None,
                                    cls="nav-link",
                                    href=item["href"],
                                )
                            )
                            for item in d["nav"]
                        ]
                    ),
                    cls="sidebar",
                ),
                Main(
                    H1("Users"),
                    Table(
                        Thead(Tr(*[Th(h) for h in TABLE_HEADINGS])),
                        Tbody(
                            *[
                                Tr(
                                    Td(u["id"]),
                                    Td(u["name"]),
                                    Td(A(u["email"], href=u["mailto"])),
                                    Td(u["role"]),
                                    Td(Span(u["status"], cls="status")),
                                    Td(u["last_login"]),
                                    Td(A("Edit", cls="edit", href=u["edit_url"])),
                                    cls="active" if u["active"] else "inactive",
                                    data_id=u["id"],
                                )
                                for u in d["users"]
                            ]
                        ),
                        cls="users",
                    ),
                    Section(
                        H2("Add a user"),
                        Form(
                            Input(name="csrf_token", type="hidden", value=d["csrf_token"]),
                            Label("Name", fr="name"),
                            Input(
                                id="name",
                                name="name",
                                required=True,
                                type="text",
                                value=d["form_name"],
                            ),
                            Label("Email", fr="email"),
                            Input(
                                id="email",
                                name="email",
                                required=True,
                                type="email",
                                value=d["form_email"],
                            ),
                            Label("Role", fr="role"),
                            Select(
                                *[
                                    Option(
                                        role["label"],
                                        selected=role["value"] == selected,
                                        value=role["value"],
                                    )
                                    for role in d["roles"]
                                ],
                                id="role",
                                name="role",
                            ),
                            Label(
                                Input(checked=d["notify"], name="notify", type="checkbox"),
                                "Send a welcome email",
                            ),
                            Label(
                                Input(
                                    checked=d["make_admin"],
                                    disabled=not d["can_grant_admin"],
                                    name="admin",
                                    type="checkbox",
                                ),
                                "Administrator",
                            ),
                            Button("Create user", disabled=d["locked"], type="submit"),
                            action="/admin/users",
                            method="post",
                        ),
                        cls="new-user",
                    ),
                ),
                Footer(P(d["footer"])),
                cls="admin",
            ),
            lang="en",
        )
        return to_xml(page, indent=False)

    return Contender(
        "fastcore.xml (FastHTML FT)", "fastcore", render_products, render_admin, normalizations
    )


FACTORIES = (htpy_contender, dominate_contender, turbohtml_contender, fastcore_contender)
