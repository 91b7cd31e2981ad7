"""markup itself: each page as one @baked call, @baked fragments, and the plain
h.* tree built and rendered per call."""

from __future__ import annotations

from . import Contender

TABLE_HEADINGS = ("ID", "Name", "Email", "Role", "Status", "Last login", "")


def _tree_renderers(h, render):
    """Pages as h.* trees, built from the data on every call."""

    def render_products(title, rows):
        return render(
            h.HtmlDocument(
                {"lang": "en"},
                h.Head(h.Meta({"charset": "utf-8"}), h.Title(title)),
                h.Body(
                    h.Main(
                        {"class": "container"},
                        h.H1({"class": "title"}, title),
                        h.Ul(
                            {"class": "product-list"},
                            [
                                h.Li(
                                    {
                                        "class": "row featured" if r["featured"] else "row",
                                        "data-id": r["id"],
                                    },
                                    h.Span({"class": "name"}, r["name"]),
                                    h.Span({"class": "price"}, r["price"]),
                                )
                                for r in rows
                            ],
                        ),
                    )
                ),
            )
        )

    def render_admin(d):
        selected = d["selected_role"]
        return render(
            h.HtmlDocument(
                {"lang": "en"},
                h.Head(
                    h.Meta({"charset": "utf-8"}),
                    h.Title(d["title"]),
                    h.Link({"href": "/static/admin.css", "rel": "stylesheet"}),
                ),
                h.Body(
                    {"class": "admin"},
                    h.Header(
                        {"class": "topbar"},
                        h.A({"class": "brand", "href": "/admin"}, d["site"]),
                        h.Span({"class": "user"}, d["user_name"]),
                        h.A({"class": "logout", "href": "/logout"}, "Log out"),
                    ),
                    h.Nav(
                        {"class": "sidebar"},
                        h.Ul(
                            [
                                h.Li(
                                    h.A(
                                        {
                                            "aria-current": "page" if item["current"] else None,
                                            "class": "nav-link",
                                            "href": item["href"],
                                        },
                                        item["label"],
                                    )
                                )
                                for item in d["nav"]
                            ]
                        ),
                    ),
                    h.Main(
                        h.H1("Users"),
                        h.Table(
                            {"class": "users"},
                            h.Thead(h.Tr([h.Th(heading) for heading in TABLE_HEADINGS])),
                            h.Tbody(
                                [
                                    h.Tr(
                                        {
                                            "class": "active" if u["active"] else "inactive",
                                            "data-id": u["id"],
                                        },
                                        h.Td(u["id"]),
                                        h.Td(u["name"]),
                                        h.Td(h.A({"href": u["mailto"]}, u["email"])),
                                        h.Td(u["role"]),
                                        h.Td(h.Span({"class": "status"}, u["status"])),
                                        h.Td(u["last_login"]),
                                        h.Td(h.A({"class": "edit", "href": u["edit_url"]}, "Edit")),
                                    )
                                    for u in d["users"]
                                ]
                            ),
                        ),
                        h.Section(
                            {"class": "new-user"},
                            h.H2("Add a user"),
                            h.Form(
                                {"action": "/admin/users", "method": "post"},
                                h.Input(
                                    {
                                        "name": "csrf_token",
                                        "type": "hidden",
                                        "value": d["csrf_token"],
                                    }
                                ),
                                h.Label({"for": "name"}, "Name"),
                                h.Input(
                                    {
                                        "id": "name",
                                        "name": "name",
                                        "required": True,
                                        "type": "text",
                                        "value": d["form_name"],
                                    }
                                ),
                                h.Label({"for": "email"}, "Email"),
                                h.Input(
                                    {
                                        "id": "email",
                                        "name": "email",
                                        "required": True,
                                        "type": "email",
                                        "value": d["form_email"],
                                    }
                                ),
                                h.Label({"for": "role"}, "Role"),
                                h.Select(
                                    {"id": "role", "name": "role"},
                                    [
                                        h.Option(
                                            {
                                                "selected": role["value"] == selected,
                                                "value": role["value"],
                                            },
                                            role["label"],
                                        )
                                        for role in d["roles"]
                                    ],
                                ),
                                h.Label(
                                    h.Input(
                                        {
                                            "checked": d["notify"],
                                            "name": "notify",
                                            "type": "checkbox",
                                        }
                                    ),
                                    "Send a welcome email",
                                ),
                                h.Label(
                                    h.Input(
                                        {
                                            "checked": d["make_admin"],
                                            "disabled": not d["can_grant_admin"],
                                            "name": "admin",
                                            "type": "checkbox",
                                        }
                                    ),
                                    "Administrator",
                                ),
                                h.Button(
                                    {"disabled": d["locked"], "type": "submit"}, "Create user"
                                ),
                            ),
                        ),
                    ),
                    h.Footer(h.P(d["footer"])),
                ),
            )
        )

    return render_products, render_admin


def _baked_renderers(h, render, baked):
    """Pages as @baked templates: fragments for the repeated parts, one for the page."""

    @baked
    def product_row(cls, rid, name, price):
        return h.Li(
            {"class": cls, "data-id": rid},
            h.Span({"class": "name"}, name),
            h.Span({"class": "price"}, price),
        )

    @baked
    def product_page(title, rows):
        return h.HtmlDocument(
            {"lang": "en"},
            h.Head(h.Meta({"charset": "utf-8"}), h.Title(title)),
            h.Body(
                h.Main(
                    {"class": "container"},
                    h.H1({"class": "title"}, title),
                    h.Ul({"class": "product-list"}, rows),
                )
            ),
        )

    def render_products(title, rows):
        return render(
            product_page(
                title,
                [
                    product_row(
                        "row featured" if r["featured"] else "row", r["id"], r["name"], r["price"]
                    )
                    for r in rows
                ],
            )
        )

    @baked
    def nav_item(current, href, label):
        return h.Li(h.A({"aria-current": current, "class": "nav-link", "href": href}, label))

    @baked
    def user_row(cls, uid, name, mailto, email, role, status, last_login, edit_url):
        return h.Tr(
            {"class": cls, "data-id": uid},
            h.Td(uid),
            h.Td(name),
            h.Td(h.A({"href": mailto}, email)),
            h.Td(role),
            h.Td(h.Span({"class": "status"}, status)),
            h.Td(last_login),
            h.Td(h.A({"class": "edit", "href": edit_url}, "Edit")),
        )

    @baked
    def role_option(selected, value, label):
        return h.Option({"selected": selected, "value": value}, label)

    @baked
    def admin_page(
        title, site, user_name, nav, users, csrf_token, form_name, form_email, options,
        notify, make_admin, admin_disabled, locked, footer,
    ):  # fmt: skip
        return h.HtmlDocument(
            {"lang": "en"},
            h.Head(
                h.Meta({"charset": "utf-8"}),
                h.Title(title),
                h.Link({"href": "/static/admin.css", "rel": "stylesheet"}),
            ),
            h.Body(
                {"class": "admin"},
                h.Header(
                    {"class": "topbar"},
                    h.A({"class": "brand", "href": "/admin"}, site),
                    h.Span({"class": "user"}, user_name),
                    h.A({"class": "logout", "href": "/logout"}, "Log out"),
                ),
                h.Nav({"class": "sidebar"}, h.Ul(nav)),
                h.Main(
                    h.H1("Users"),
                    h.Table(
                        {"class": "users"},
                        h.Thead(h.Tr([h.Th(heading) for heading in TABLE_HEADINGS])),
                        h.Tbody(users),
                    ),
                    h.Section(
                        {"class": "new-user"},
                        h.H2("Add a user"),
                        h.Form(
                            {"action": "/admin/users", "method": "post"},
                            h.Input({"name": "csrf_token", "type": "hidden", "value": csrf_token}),
                            h.Label({"for": "name"}, "Name"),
                            h.Input(
                                {
                                    "id": "name",
                                    "name": "name",
                                    "required": True,
                                    "type": "text",
                                    "value": form_name,
                                }
                            ),
                            h.Label({"for": "email"}, "Email"),
                            h.Input(
                                {
                                    "id": "email",
                                    "name": "email",
                                    "required": True,
                                    "type": "email",
                                    "value": form_email,
                                }
                            ),
                            h.Label({"for": "role"}, "Role"),
                            h.Select({"id": "role", "name": "role"}, options),
                            h.Label(
                                h.Input({"checked": notify, "name": "notify", "type": "checkbox"}),
                                "Send a welcome email",
                            ),
                            h.Label(
                                h.Input(
                                    {
                                        "checked": make_admin,
                                        "disabled": admin_disabled,
                                        "name": "admin",
                                        "type": "checkbox",
                                    }
                                ),
                                "Administrator",
                            ),
                            h.Button({"disabled": locked, "type": "submit"}, "Create user"),
                        ),
                    ),
                ),
                h.Footer(h.P(footer)),
            ),
        )

    def render_admin(d):
        selected = d["selected_role"]
        return render(
            admin_page(
                d["title"],
                d["site"],
                d["user_name"],
                [
                    nav_item("page" if item["current"] else None, item["href"], item["label"])
                    for item in d["nav"]
                ],
                [
                    user_row(
                        "active" if u["active"] else "inactive",
                        u["id"],
                        u["name"],
                        u["mailto"],
                        u["email"],
                        u["role"],
                        u["status"],
                        u["last_login"],
                        u["edit_url"],
                    )
                    for u in d["users"]
                ],
                d["csrf_token"],
                d["form_name"],
                d["form_email"],
                [
                    role_option(role["value"] == selected, role["value"], role["label"])
                    for role in d["roles"]
                ],
                d["notify"],
                d["make_admin"],
                not d["can_grant_admin"],
                d["locked"],
                d["footer"],
            )
        )

    return render_products, render_admin


def _one_call_renderers(h, render, baked, when, fstrings=False):
    """Each page as one @baked template over the page's data: the loops,
    fields and conditions of the tree version, run in C. With `fstrings`,
    ids, links and prices are written as f-strings over the row's fields
    (as a template writes "/users/{{ u.id }}"), not read ready-made."""

    @baked
    def products_page(title, rows):
        return h.HtmlDocument(
            {"lang": "en"},
            h.Head(h.Meta({"charset": "utf-8"}), h.Title(title)),
            h.Body(
                h.Main(
                    {"class": "container"},
                    h.H1({"class": "title"}, title),
                    h.Ul(
                        {"class": "product-list"},
                        [
                            h.Li(
                                {
                                    "class": when(r["featured"], "row featured", "row"),
                                    "data-id": f"{r['id']}" if fstrings else r["id"],
                                },
                                h.Span({"class": "name"}, r["name"]),
                                h.Span(
                                    {"class": "price"}, f"{r['price']}" if fstrings else r["price"]
                                ),
                            )
                            for r in rows
                        ],
                    ),
                )
            ),
        )

    @baked
    def admin_page(d):
        return h.HtmlDocument(
            {"lang": "en"},
            h.Head(
                h.Meta({"charset": "utf-8"}),
                h.Title(d["title"]),
                h.Link({"href": "/static/admin.css", "rel": "stylesheet"}),
            ),
            h.Body(
                {"class": "admin"},
                h.Header(
                    {"class": "topbar"},
                    h.A({"class": "brand", "href": "/admin"}, d["site"]),
                    h.Span({"class": "user"}, d["user_name"]),
                    h.A({"class": "logout", "href": "/logout"}, "Log out"),
                ),
                h.Nav(
                    {"class": "sidebar"},
                    h.Ul(
                        [
                            h.Li(
                                h.A(
                                    {
                                        "aria-current": when(item["current"], "page"),
                                        "class": "nav-link",
                                        "href": item["href"],
                                    },
                                    item["label"],
                                )
                            )
                            for item in d["nav"]
                        ]
                    ),
                ),
                h.Main(
                    h.H1("Users"),
                    h.Table(
                        {"class": "users"},
                        h.Thead(h.Tr([h.Th(heading) for heading in TABLE_HEADINGS])),
                        h.Tbody(
                            [
                                h.Tr(
                                    {
                                        "class": when(u["active"], "active", "inactive"),
                                        "data-id": f"{u['id']}" if fstrings else u["id"],
                                    },
                                    h.Td(u["id"]),
                                    h.Td(u["name"]),
                                    h.Td(
                                        h.A(
                                            {
                                                "href": f"mailto:{u['email']}"
                                                if fstrings
                                                else u["mailto"]
                                            },
                                            u["email"],
                                        )
                                    ),
                                    h.Td(u["role"]),
                                    h.Td(h.Span({"class": "status"}, u["status"])),
                                    h.Td(u["last_login"]),
                                    h.Td(
                                        h.A(
                                            {
                                                "class": "edit",
                                                "href": f"/users/{u['id']}"
                                                if fstrings
                                                else u["edit_url"],
                                            },
                                            "Edit",
                                        )
                                    ),
                                )
                                for u in d["users"]
                            ]
                        ),
                    ),
                    h.Section(
                        {"class": "new-user"},
                        h.H2("Add a user"),
                        h.Form(
                            {"action": "/admin/users", "method": "post"},
                            h.Input(
                                {"name": "csrf_token", "type": "hidden", "value": d["csrf_token"]}
                            ),
                            h.Label({"for": "name"}, "Name"),
                            h.Input(
                                {
                                    "id": "name",
                                    "name": "name",
                                    "required": True,
                                    "type": "text",
                                    "value": d["form_name"],
                                }
                            ),
                            h.Label({"for": "email"}, "Email"),
                            h.Input(
                                {
                                    "id": "email",
                                    "name": "email",
                                    "required": True,
                                    "type": "email",
                                    "value": d["form_email"],
                                }
                            ),
                            h.Label({"for": "role"}, "Role"),
                            h.Select(
                                {"id": "role", "name": "role"},
                                [
                                    h.Option(
                                        {
                                            "selected": role["value"] == d["selected_role"],
                                            "value": role["value"],
                                        },
                                        role["label"],
                                    )
                                    for role in d["roles"]
                                ],
                            ),
                            h.Label(
                                h.Input(
                                    {"checked": d["notify"], "name": "notify", "type": "checkbox"}
                                ),
                                "Send a welcome email",
                            ),
                            h.Label(
                                h.Input(
                                    {
                                        "checked": d["make_admin"],
                                        "disabled": when(d["can_grant_admin"], False, True),
                                        "name": "admin",
                                        "type": "checkbox",
                                    }
                                ),
                                "Administrator",
                            ),
                            h.Button({"disabled": d["locked"], "type": "submit"}, "Create user"),
                        ),
                    ),
                ),
                h.Footer(h.P(d["footer"])),
            ),
        )

    return products_page, admin_page


def one_call_contender() -> Contender:
    """markup @baked (one call)"""
    from markup import baked, h, render, when

    products, admin = _one_call_renderers(h, render, baked, when)
    return Contender("markup @baked (one call)", "markup-html", products, admin)


def fstring_contender() -> Contender:
    """markup @baked (one call, f-strings)"""
    from markup import baked, h, render, when

    products, admin = _one_call_renderers(h, render, baked, when, fstrings=True)
    return Contender("markup @baked (one call, f-strings)", "markup-html", products, admin)


def baked_contender() -> Contender:
    """markup @baked"""
    from markup import baked, h, render

    products, admin = _baked_renderers(h, render, baked)
    return Contender("markup @baked", "markup-html", products, admin)


def tree_contender() -> Contender:
    """markup h.* tree"""
    from markup import h, render

    products, admin = _tree_renderers(h, render)
    return Contender("markup h.* tree (per call)", "markup-html", products, admin)


def jinja_contender() -> Contender:
    """markup.jinja"""
    import markup.jinja

    from .templates import ADMIN_JINJA, PRODUCTS_JINJA

    # The products and admin pages' own Jinja2 templates, unchanged.
    env = markup.jinja.Environment(autoescape=True)
    products = env.from_string(PRODUCTS_JINJA)
    admin = env.from_string(ADMIN_JINJA)
    for template in (products, admin):
        if not template.markup_native:
            raise RuntimeError(f"markup.jinja fell back to Jinja2: {template.markup_reason}")

    def render_products(title, rows):
        return products.render(title=title, rows=rows)

    def render_admin(data):
        return admin.render(data)

    return Contender("markup.jinja", "markup-html", render_products, render_admin)


FACTORIES = (
    one_call_contender,
    fstring_contender,
    baked_contender,
    tree_contender,
    jinja_contender,
)
