"""Template engines: Jinja2 and MiniJinja (one template text), Mako.

Templates are compiled once, at load; each call renders with the data passed
in. Jinja2 runs with autoescape=True and is the reference the other outputs
are compared with until markup is importable.
"""

from __future__ import annotations

from . import Contender

# Items are read with subscripts (r["name"]): in Jinja2 that is one getitem,
# where r.name first tries getattr on the dict. It is the faster spelling.
PRODUCTS_JINJA = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title></head>'
    '<body><main class="container"><h1 class="title">{{ title }}</h1><ul class="product-list">'
    "{% for r in rows %}"
    '<li class="row{% if r["featured"] %} featured{% endif %}" data-id="{{ r["id"] }}">'
    '<span class="name">{{ r["name"] }}</span><span class="price">{{ r["price"] }}</span></li>'
    "{% endfor %}"
    "</ul></main></body></html>"
)

ADMIN_JINJA = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title>'
    '<link href="/static/admin.css" rel="stylesheet"></head><body class="admin">'
    '<header class="topbar"><a class="brand" href="/admin">{{ site }}</a>'
    '<span class="user">{{ user_name }}</span><a class="logout" href="/logout">Log out</a></header>'
    '<nav class="sidebar"><ul>'
    "{% for item in nav %}"
    '<li><a{% if item["current"] %} aria-current="page"{% endif %} class="nav-link" href="{{ item["href"] }}">'
    '{{ item["label"] }}</a></li>'
    "{% endfor %}"
    "</ul></nav><main><h1>Users</h1>"
    '<table class="users"><thead><tr><th>ID</th><th>Name</th><th>Email</th><th>Role</th><th>Status</th>'
    "<th>Last login</th><th></th></tr></thead><tbody>"
    "{% for u in users %}"
    '<tr class="{% if u["active"] %}active{% else %}inactive{% endif %}" data-id="{{ u["id"] }}">'
    '<td>{{ u["id"] }}</td><td>{{ u["name"] }}</td><td><a href="{{ u["mailto"] }}">{{ u["email"] }}</a></td>'
    '<td>{{ u["role"] }}</td><td><span class="status">{{ u["status"] }}</span></td>'
    '<td>{{ u["last_login"] }}</td><td><a class="edit" href="{{ u["edit_url"] }}">Edit</a></td></tr>'
    "{% endfor %}"
    "</tbody></table>"
    '<section class="new-user"><h2>Add a user</h2><form action="/admin/users" method="post">'
    '<input name="csrf_token" type="hidden" value="{{ csrf_token }}">'
    '<label for="name">Name</label><input id="name" name="name" required type="text" value="{{ form_name }}">'
    '<label for="email">Email</label><input id="email" name="email" required type="email" value="{{ form_email }}">'
    '<label for="role">Role</label><select id="role" name="role">'
    "{% for role in roles %}"
    '<option{% if role["value"] == selected_role %} selected{% endif %} value="{{ role["value"] }}">'
    '{{ role["label"] }}</option>'
    "{% endfor %}"
    "</select>"
    '<label><input{% if notify %} checked{% endif %} name="notify" type="checkbox">Send a welcome email</label>'
    "<label><input{% if make_admin %} checked{% endif %}{% if not can_grant_admin %} disabled{% endif %}"
    ' name="admin" type="checkbox">Administrator</label>'
    '<button{% if locked %} disabled{% endif %} type="submit">Create user</button></form></section></main>'
    "<footer><p>{{ footer }}</p></footer></body></html>"
)


def jinja2_contender() -> Contender:
    """Jinja2"""
    import jinja2

    env = jinja2.Environment(autoescape=True)
    products = env.from_string(PRODUCTS_JINJA)
    admin = env.from_string(ADMIN_JINJA)

    def render_products(title, rows):
        return products.render(title=title, rows=rows)

    def render_admin(data):
        return admin.render(data)

    return Contender("Jinja2 (compiled, autoescape)", "jinja2", render_products, render_admin)


def minijinja_contender() -> Contender:
    """MiniJinja"""
    import minijinja

    # MiniJinja's HTML escaper writes &quot; &#x27; and escapes / as &#x2f;.
    env = minijinja.Environment(
        templates={"products.html": PRODUCTS_JINJA, "admin.html": ADMIN_JINJA},
        auto_escape_callback=lambda name: True,
    )
    render_template = env.render_template

    def render_products(title, rows):
        return render_template("products.html", title=title, rows=rows)

    def render_admin(data):
        return render_template("admin.html", **data)

    return Contender(
        "MiniJinja (autoescape)", "minijinja", render_products, render_admin, ("entities",)
    )


# Mako: a line ending in a backslash is joined to the next one, so the output
# has no newlines; `% for` lines are control lines and write nothing.
PRODUCTS_MAKO = r"""\
<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>\
<body><main class="container"><h1 class="title">${title}</h1><ul class="product-list">\
% for r in rows:
<li class="row${" featured" if r["featured"] else ""}" data-id="${r["id"]}">\
<span class="name">${r["name"]}</span><span class="price">${r["price"]}</span></li>\
% endfor
</ul></main></body></html>"""

ADMIN_MAKO = r"""\
<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>\
<link href="/static/admin.css" rel="stylesheet"></head><body class="admin">\
<header class="topbar"><a class="brand" href="/admin">${site}</a>\
<span class="user">${user_name}</span><a class="logout" href="/logout">Log out</a></header>\
<nav class="sidebar"><ul>\
% for item in nav:
<li><a${' aria-current="page"' if item["current"] else "" | n} class="nav-link" href="${item["href"]}">\
${item["label"]}</a></li>\
% endfor
</ul></nav><main><h1>Users</h1>\
<table class="users"><thead><tr><th>ID</th><th>Name</th><th>Email</th><th>Role</th><th>Status</th>\
<th>Last login</th><th></th></tr></thead><tbody>\
% for u in users:
<tr class="${"active" if u["active"] else "inactive"}" data-id="${u["id"]}">\
<td>${u["id"]}</td><td>${u["name"]}</td><td><a href="${u["mailto"]}">${u["email"]}</a></td>\
<td>${u["role"]}</td><td><span class="status">${u["status"]}</span></td>\
<td>${u["last_login"]}</td><td><a class="edit" href="${u["edit_url"]}">Edit</a></td></tr>\
% endfor
</tbody></table>\
<section class="new-user"><h2>Add a user</h2><form action="/admin/users" method="post">\
<input name="csrf_token" type="hidden" value="${csrf_token}">\
<label for="name">Name</label><input id="name" name="name" required type="text" value="${form_name}">\
<label for="email">Email</label><input id="email" name="email" required type="email" value="${form_email}">\
<label for="role">Role</label><select id="role" name="role">\
% for role in roles:
<option${" selected" if role["value"] == selected_role else "" | n} value="${role["value"]}">${role["label"]}</option>\
% endfor
</select>\
<label><input${" checked" if notify else "" | n} name="notify" type="checkbox">Send a welcome email</label>\
<label><input${" checked" if make_admin else "" | n}${"" if can_grant_admin else " disabled" | n}\
 name="admin" type="checkbox">Administrator</label>\
<button${" disabled" if locked else "" | n} type="submit">Create user</button></form></section></main>\
<footer><p>${footer}</p></footer></body></html>"""


def mako_contender() -> Contender:
    """Mako"""
    from mako.template import Template

    # default_filters=["h"]: every ${} goes through markupsafe's escape;
    # `| n` turns it off for the fixed attribute snippets above.
    products = Template(PRODUCTS_MAKO, default_filters=["h"])
    admin = Template(ADMIN_MAKO, default_filters=["h"])

    def render_products(title, rows):
        return products.render(title=title, rows=rows)

    def render_admin(data):
        return admin.render(**data)

    return Contender("Mako (h filter)", "mako", render_products, render_admin)


FACTORIES = (jinja2_contender, mako_contender, minijinja_contender)
