"""Hand-written f-strings: the baseline a careful developer writes without a library.

Two flavours that differ only in the escape function: html.escape (the
standard library; writes &quot; and &#x27;) and markupsafe.escape (the
spelling Jinja2 writes). Every value that came from the data is escaped,
ints included (str first), as a template engine would.
"""

from __future__ import annotations

from . import Contender

_CURRENT = ' aria-current="page"'


def _renderers(escape):
    def render_products(title, rows):
        t = escape(title)
        items = "".join(
            [
                f'<li class="{"row featured" if r["featured"] else "row"}" data-id="{r["id"]}">'
                f'<span class="name">{escape(r["name"])}</span>'
                f'<span class="price">{escape(r["price"])}</span></li>'
                for r in rows
            ]
        )
        return (
            f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{t}</title></head>'
            f'<body><main class="container"><h1 class="title">{t}</h1><ul class="product-list">'
            f"{items}</ul></main></body></html>"
        )

    def render_admin(d):
        nav = "".join(
            [
                f'<li><a{_CURRENT if item["current"] else ""} class="nav-link" href="{escape(item["href"])}">'
                f'{escape(item["label"])}</a></li>'
                for item in d["nav"]
            ]
        )
        users = "".join(
            [
                f'<tr class="{"active" if u["active"] else "inactive"}" data-id="{u["id"]}">'
                f'<td>{u["id"]}</td><td>{escape(u["name"])}</td>'
                f'<td><a href="{escape(u["mailto"])}">{escape(u["email"])}</a></td>'
                f'<td>{escape(u["role"])}</td><td><span class="status">{escape(u["status"])}</span></td>'
                f'<td>{escape(u["last_login"])}</td>'
                f'<td><a class="edit" href="{escape(u["edit_url"])}">Edit</a></td></tr>'
                for u in d["users"]
            ]
        )
        selected = d["selected_role"]
        options = "".join(
            [
                f'<option{" selected" if role["value"] == selected else ""} value="{escape(role["value"])}">'
                f'{escape(role["label"])}</option>'
                for role in d["roles"]
            ]
        )
        return (
            f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(d["title"])}</title>'
            '<link href="/static/admin.css" rel="stylesheet"></head><body class="admin">'
            f'<header class="topbar"><a class="brand" href="/admin">{escape(d["site"])}</a>'
            f'<span class="user">{escape(d["user_name"])}</span><a class="logout" href="/logout">Log out</a></header>'
            f'<nav class="sidebar"><ul>{nav}</ul></nav><main><h1>Users</h1>'
            '<table class="users"><thead><tr><th>ID</th><th>Name</th><th>Email</th><th>Role</th><th>Status</th>'
            f"<th>Last login</th><th></th></tr></thead><tbody>{users}</tbody></table>"
            '<section class="new-user"><h2>Add a user</h2><form action="/admin/users" method="post">'
            f'<input name="csrf_token" type="hidden" value="{escape(d["csrf_token"])}">'
            '<label for="name">Name</label>'
            f'<input id="name" name="name" required type="text" value="{escape(d["form_name"])}">'
            '<label for="email">Email</label>'
            f'<input id="email" name="email" required type="email" value="{escape(d["form_email"])}">'
            f'<label for="role">Role</label><select id="role" name="role">{options}</select>'
            f'<label><input{" checked" if d["notify"] else ""} name="notify" type="checkbox">'
            "Send a welcome email</label>"
            f'<label><input{" checked" if d["make_admin"] else ""}{"" if d["can_grant_admin"] else " disabled"}'
            ' name="admin" type="checkbox">Administrator</label>'
            f'<button{" disabled" if d["locked"] else ""} type="submit">Create user</button></form></section></main>'
            f'<footer><p>{escape(d["footer"])}</p></footer></body></html>'
        )

    return render_products, render_admin


def html_escape_contender() -> Contender:
    """f-strings + html.escape"""
    import html

    products, admin = _renderers(html.escape)
    return Contender("f-strings + html.escape", "python", products, admin, ("entities",))


def markupsafe_contender() -> Contender:
    """f-strings + markupsafe.escape"""
    from markupsafe import escape

    products, admin = _renderers(escape)
    return Contender("f-strings + markupsafe.escape", "markupsafe", products, admin)


FACTORIES = (html_escape_contender, markupsafe_contender)
