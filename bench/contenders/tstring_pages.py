"""The benchmark's pages as t-strings (PEP 750): CPython 3.14 and newer only.

Imported by tstrings.py on 3.14 (t-string literals are a SyntaxError
before it). Each library gets the t-strings its users write: markup's and
tdom's take nested t-strings for the rows; html-tstring wants quoted
attribute values and its html() around each row.
"""

from __future__ import annotations


def markup_pages(html, when):
    """markup.html(): `when()` picks a value per call, and decides at once
    outside @baked, so the same functions serve per call and baked."""

    def products(title, rows):
        return html(t"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head><body><main class="container"><h1 class="title">{title}</h1><ul class="product-list">{[html(t'<li class={when(r["featured"], "row featured", "row")} data-id={r["id"]}><span class="name">{r["name"]}</span><span class="price">{r["price"]}</span></li>') for r in rows]}</ul></main></body></html>""")

    def admin(d):
        return html(t"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{d["title"]}</title><link href="/static/admin.css" rel="stylesheet"></head><body class="admin"><header class="topbar"><a class="brand" href="/admin">{d["site"]}</a><span class="user">{d["user_name"]}</span><a class="logout" href="/logout">Log out</a></header><nav class="sidebar"><ul>{[html(t'<li><a aria-current={when(item["current"], "page")} class="nav-link" href={item["href"]}>{item["label"]}</a></li>') for item in d["nav"]]}</ul></nav><main><h1>Users</h1><table class="users"><thead><tr><th>ID</th><th>Name</th><th>Email</th><th>Role</th><th>Status</th><th>Last login</th><th></th></tr></thead><tbody>{[html(t'<tr class={when(u["active"], "active", "inactive")} data-id={u["id"]}><td>{u["id"]}</td><td>{u["name"]}</td><td><a href={u["mailto"]}>{u["email"]}</a></td><td>{u["role"]}</td><td><span class="status">{u["status"]}</span></td><td>{u["last_login"]}</td><td><a class="edit" href={u["edit_url"]}>Edit</a></td></tr>') for u in d["users"]]}</tbody></table><section class="new-user"><h2>Add a user</h2><form action="/admin/users" method="post"><input name="csrf_token" type="hidden" value={d["csrf_token"]}><label for="name">Name</label><input id="name" name="name" required type="text" value={d["form_name"]}><label for="email">Email</label><input id="email" name="email" required type="email" value={d["form_email"]}><label for="role">Role</label><select id="role" name="role">{[html(t'<option selected={role["value"] == d["selected_role"]} value={role["value"]}>{role["label"]}</option>') for role in d["roles"]]}</select><label><input checked={d["notify"]} name="notify" type="checkbox">Send a welcome email</label><label><input checked={d["make_admin"]} disabled={when(d["can_grant_admin"], False, True)} name="admin" type="checkbox">Administrator</label><button disabled={d["locked"]} type="submit">Create user</button></form></section></main><footer><p>{d["footer"]}</p></footer></body></html>""")

    return products, admin


def tdom_pages(html):
    """tdom: rows as a list of t-strings; str() renders the node."""

    def products(title, rows):
        return str(html(t"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head><body><main class="container"><h1 class="title">{title}</h1><ul class="product-list">{[t'<li class={"row featured" if r["featured"] else "row"} data-id={r["id"]}><span class="name">{r["name"]}</span><span class="price">{r["price"]}</span></li>' for r in rows]}</ul></main></body></html>"""))

    def admin(d):
        return str(html(t"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{d["title"]}</title><link href="/static/admin.css" rel="stylesheet"></head><body class="admin"><header class="topbar"><a class="brand" href="/admin">{d["site"]}</a><span class="user">{d["user_name"]}</span><a class="logout" href="/logout">Log out</a></header><nav class="sidebar"><ul>{[t'<li><a aria-current={"page" if item["current"] else None} class="nav-link" href={item["href"]}>{item["label"]}</a></li>' for item in d["nav"]]}</ul></nav><main><h1>Users</h1><table class="users"><thead><tr><th>ID</th><th>Name</th><th>Email</th><th>Role</th><th>Status</th><th>Last login</th><th></th></tr></thead><tbody>{[t'<tr class={"active" if u["active"] else "inactive"} data-id={u["id"]}><td>{u["id"]}</td><td>{u["name"]}</td><td><a href={u["mailto"]}>{u["email"]}</a></td><td>{u["role"]}</td><td><span class="status">{u["status"]}</span></td><td>{u["last_login"]}</td><td><a class="edit" href={u["edit_url"]}>Edit</a></td></tr>' for u in d["users"]]}</tbody></table><section class="new-user"><h2>Add a user</h2><form action="/admin/users" method="post"><input name="csrf_token" type="hidden" value={d["csrf_token"]}><label for="name">Name</label><input id="name" name="name" required type="text" value={d["form_name"]}><label for="email">Email</label><input id="email" name="email" required type="email" value={d["form_email"]}><label for="role">Role</label><select id="role" name="role">{[t'<option selected={role["value"] == d["selected_role"]} value={role["value"]}>{role["label"]}</option>' for role in d["roles"]]}</select><label><input checked={d["notify"]} name="notify" type="checkbox">Send a welcome email</label><label><input checked={d["make_admin"]} disabled={not d["can_grant_admin"]} name="admin" type="checkbox">Administrator</label><button disabled={d["locked"]} type="submit">Create user</button></form></section></main><footer><p>{d["footer"]}</p></footer></body></html>"""))

    return products, admin


def html_tstring_pages(render_html, html):
    """html-tstring: dynamic attribute values quoted, html() around each
    row, void elements self-closed as its parser requires."""

    def products(title, rows):
        return render_html(t"""<!doctype html><html lang="en"><head><meta charset="utf-8" /><title>{title}</title></head><body><main class="container"><h1 class="title">{title}</h1><ul class="product-list">{[html(t'<li class="{"row featured" if r["featured"] else "row"}" data-id="{r["id"]}"><span class="name">{r["name"]}</span><span class="price">{r["price"]}</span></li>') for r in rows]}</ul></main></body></html>""")

    def admin(d):
        return render_html(t"""<!doctype html><html lang="en"><head><meta charset="utf-8" /><title>{d["title"]}</title><link href="/static/admin.css" rel="stylesheet" /></head><body class="admin"><header class="topbar"><a class="brand" href="/admin">{d["site"]}</a><span class="user">{d["user_name"]}</span><a class="logout" href="/logout">Log out</a></header><nav class="sidebar"><ul>{[html(t'<li><a aria-current="{"page" if item["current"] else None}" class="nav-link" href="{item["href"]}">{item["label"]}</a></li>') for item in d["nav"]]}</ul></nav><main><h1>Users</h1><table class="users"><thead><tr><th>ID</th><th>Name</th><th>Email</th><th>Role</th><th>Status</th><th>Last login</th><th></th></tr></thead><tbody>{[html(t'<tr class="{"active" if u["active"] else "inactive"}" data-id="{u["id"]}"><td>{u["id"]}</td><td>{u["name"]}</td><td><a href="{u["mailto"]}">{u["email"]}</a></td><td>{u["role"]}</td><td><span class="status">{u["status"]}</span></td><td>{u["last_login"]}</td><td><a class="edit" href="{u["edit_url"]}">Edit</a></td></tr>') for u in d["users"]]}</tbody></table><section class="new-user"><h2>Add a user</h2><form action="/admin/users" method="post"><input name="csrf_token" type="hidden" value="{d["csrf_token"]}" /><label for="name">Name</label><input id="name" name="name" required type="text" value="{d["form_name"]}" /><label for="email">Email</label><input id="email" name="email" required type="email" value="{d["form_email"]}" /><label for="role">Role</label><select id="role" name="role">{[html(t'<option selected="{role["value"] == d["selected_role"]}" value="{role["value"]}">{role["label"]}</option>') for role in d["roles"]]}</select><label><input checked="{d["notify"]}" name="notify" type="checkbox" />Send a welcome email</label><label><input checked="{d["make_admin"]}" disabled="{not d["can_grant_admin"]}" name="admin" type="checkbox" />Administrator</label><button disabled="{d["locked"]}" type="submit">Create user</button></form></section></main><footer><p>{d["footer"]}</p></footer></body></html>""")

    return products, admin
