"""markup.jinja: Jinja2 templates rendered on markup's engine give plain
Jinja2's output, byte for byte, and its exceptions.

Every check renders the same source through a plain jinja2.Environment
and through markup.jinja.Environment with the same settings."""

import re
import traceback

import jinja2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markupsafe import Markup

import markup.jinja as mj

import conftest


class Html:
    def __html__(self):
        return "<b>html</b>"


class Text:
    def __str__(self):
        return "<i>text & more</i>"


class User:
    def __init__(self, name, admin):
        self.name = name
        self.is_admin = admin

    def greet(self, other="you"):
        return f"hi {other}"


def pair(source, templates=None, **settings):
    """The same template in plain Jinja2 and in markup.jinja."""
    loader = jinja2.DictLoader(templates or {})
    plain = jinja2.Environment(loader=loader, **settings).from_string(source)
    ours = mj.Environment(loader=loader, **settings).from_string(source)
    return plain, ours


def outcome(template, context):
    try:
        # an object's repr names its address, which differs between runs
        return ("ok", re.sub(r"(?i) at 0x[0-9a-f]+", " at 0x", template.render(**context)))
    except Exception as exc:  # compared by type and message
        return ("raised", type(exc), str(exc))


def same(source, context, templates=None, native=True, **settings):
    plain, ours = pair(source, templates, **settings)
    if native:
        assert ours.markup_native, ours.markup_reason
    expected = outcome(plain, context)
    assert outcome(ours, context) == expected
    return expected


CONTEXT = {
    "title": "<Tom & 'Jerry'>",
    "n": 7,
    "price": 12.5,
    "none": None,
    "yes": True,
    "items": [{"name": "a<b", "id": 1, "ok": True}, {"name": "c&d", "id": 2, "ok": False}],
    "pairs": {"x": 1, "y": "<2>"},
    "user": User('O"Brien', True),
    "safe": Markup("<em>trusted</em>"),
    "html": Html(),
    "text": Text(),
    "empty": [],
    "gen": (i for i in ()),
    "tree": [
        {"name": "a<", "kids": [{"name": "b", "kids": [{"name": "c&", "kids": []}]}]},
        {"name": "b", "kids": []},
        {"name": "d", "kids": [{"name": "e", "kids": []}, {"name": "f", "kids": []}]},
    ],
}


@pytest.mark.parametrize(
    "source",
    [
        "<p>{{ title }}</p>",
        "{{ n }} {{ price }} {{ none }} {{ yes }} {{ safe }} {{ html }} {{ text }} {{ items }}",
        "{{ missing }}|{{ user.name }}|{{ user['name'] }}|{{ pairs.x }}|{{ pairs['y'] }}",
        "{{ pairs.items }}{{ items[0].name }}{{ items[1]['id'] }}{{ user.nope }}",
        "{% if user.is_admin and not none %}A{% elif n > 3 %}B{% else %}C{% endif %}",
        "{% if none or n == 7 %}yes{% endif %}{% if not (none or yes) %}no{% endif %}",
        "{% for i in items %}{{ loop.index }}/{{ loop.length }}:{{ i.name }}"
        "{% if loop.first %}F{% endif %}{% if loop.last %}L{% endif %}"
        "({{ loop.revindex }},{{ loop.revindex0 }},{{ loop.index0 }},{{ loop.depth }}){% endfor %}",
        "{% for i in items %}{{ loop.cycle('odd', 'even') }}{{ loop.previtem.id }}"
        "{{ loop.nextitem.id }}{% endfor %}",
        "{% for k, v in pairs.items() %}{{ k }}={{ v }};{% else %}none{% endfor %}",
        "{% for i in empty %}x{% else %}empty{% endfor %}",
        # filtered loops: loop.* counts and else asks about the items let through
        "{% for i in items if i.id > 1 %}{{ loop.index }}/{{ loop.length }}:{{ i.name }}"
        "{% if not loop.last %},{% endif %}{{ loop.revindex }}{{ loop.cycle('a', 'b') }}"
        "{% else %}none{% endfor %}",
        "{% for i in items if i.id > 99 %}{{ loop.index }}{% else %}none{% endfor %}",
        # recursive loops: each level a run of the loop's program, its depth counted
        "<ul>{% for i in tree recursive %}<li class='{{ title }}'>{{ loop.depth }}.{{ loop.index }}"
        "/{{ loop.length }} {{ i.name }}{% set seen = loop.depth0 %}{{ seen }}"
        "{% if i.kids %}<ul>{{ loop(i.kids) }}</ul>{% endif %}{{ loop.cycle('a', 'b') }}"
        "</li>{% else %}<li>none</li>{% endfor %}</ul>",
        "{% for i in tree if i.name != 'b' recursive %}{{ i.name }}{{ loop.index }}"
        "({{ loop(i.kids)|upper }}){% endfor %}",
        "{% for a in [1, 2] %}{% for i in tree recursive %}{{ a }}{{ i.name }}"
        "{{ loop.previtem.name }}{{ loop(i.kids) }}{% endfor %}{% endfor %}",
        "{% for i in tree recursive %}{{ loop(missing) }}{% endfor %}",
        # the else reads the enclosing loop's i, at every level
        "{% for i in [7] %}{% for i in [[], [[]]] recursive %}<{{ loop(i) }}>"
        "{% else %}[{{ i }}]{% endfor %}{% endfor %}",
        # the items are the targets, as Jinja2's filter yields them: [1, 2] as (1, 2)
        "{% for a, b in [[1, 2], [3, 4], [5, 6]] if a > 1 %}{{ loop.previtem }}{{ a }}"
        "{% endfor %}",
        "{% for k, v in pairs.items() if v != 'Y' %}{{ loop.index0 }}{{ k }}={{ v }}"
        "{{ loop.previtem }}{% else %}-{% endfor %}",
        "{% for a in range(3) %}{% for i in items if i.id != a %}{{ a }}{{ loop.index }}"
        "{{ loop.changed(i.ok) }}{% endfor %}{% endfor %}",
        "{% for i in range(3) %}{% for j in range(i) %}{{ i }}{{ j }}{{ loop.index }}"
        "{% endfor %}{{ loop.index }}{% endfor %}",
        "{{ title|upper }} {{ items|length }} {{ none|default('d') }}"
        " {{ items|map(attribute='name')|join(', ') }}",
        "{{ title|truncate(9) }} {{ title|replace('&', 'and') }} {{ items|selectattr('ok')|list }}",
        "{{ n is odd }} {{ n is divisibleby 7 }} {{ missing is defined }} {{ title ~ n }}",
        "{{ n + 1 }} {{ n - price }} {{ n * 2 }} {{ n / 2 }} {{ n // 2 }} {{ n % 3 }}"
        " {{ n ** 2 }} {{ -n }}",
        "{{ 'a' in title }} {{ 'a' not in title }} {{ [1, n] }} {{ (1, 'x') }} {{ {'k': n} }}",
        "{{ user.greet() }} {{ user.greet(other=title) }} {{ 'yes' if yes else 'no' }}"
        " {{ 'x' if none }}",
        "{% set x = n * 2 %}{{ x }}{% set title = 'new' %}{{ title }}",
        "{{ '<lit>' }}{{ 1 + 2 }}{{ none is none }}",
        # {% set outer = loop %}: the outer loop's fields from inside another
        "{% for row in [items, empty, items] %}{{ outer }}{% set outer = loop %}"
        "{% for i in row %}[{{ outer.index }}.{{ loop.index }}{{ outer.last }}"
        "{{ outer.cycle('<', '>') }}{{ outer.changed(i.id) }}]{% endfor %}{% endfor %}",
        # a macro defined in a loop's body sees the loop's targets there
        "{% for i in items %}{% macro cell(c='d') %}<td class='{{ c }}'>{{ i.name }}"
        "{{ title }}</td>{% endmacro %}{{ cell() }}{{ cell(i.id) }}{% endfor %}{{ cell }}",
        "{% macro m() %}top{% endmacro %}{% for k, v in pairs.items() %}{% macro m() %}"
        "{{ k }}={{ v }}{% endmacro %}{% for j in [1] %}{% endfor %}{{ m() }}{% endfor %}{{ m() }}",
        # *args and **kwargs, in Python's order, to calls and filters
        "{{ user.greet(*[title]) }}{{ user.greet(**{'other': n}) }}{{ items|join(*[', '])|e }}"
        "{{ pairs|dictsort(**{'by': 'value'}) }}{{ range(*[1, 4])|list }}{{ user.greet(*n) }}",
        # chained comparisons: the first false result (or the last) is the value
        "{{ 1 < n < 10 }}{{ 1 < n > price }}{{ 0 <= n == 7 != none }}{% if 'T' in title != n %}"
        "y{% endif %}{{ 3 < n < missing }}{{ n < 3 < missing }}",
        "{% for i in gen %}{{ i }}{% endfor %}",
        "{% macro card(t, cls='c', n=t ~ '!') %}<div class='{{ cls }}'>{{ t }}{{ n }}"
        "{% set local = t|upper %}{{ local }}{{ title }}</div>{% endmacro %}"
        "{% for i in items %}{{ card(i.name) }}{{ card(t=i.id, cls=loop.index) }}{% endfor %}"
        "{{ card(title, 'x', 0) }}{{ local }}",
        # varargs and kwargs: what is given past the parameters, in order
        "{% macro m(a, b='<b>') %}{{ a }}{{ b }}{{ varargs }}{{ kwargs }}"
        "{% for v in varargs %}[{{ v }}]{% endfor %}{{ kwargs|dictsort }}{% endmacro %}"
        "{{ m(1) }}{{ m(title, 2, n, '<x>', k=price, j=title) }}{{ m(b=3, a=n, z=1) }}",
        "{% macro tag(name) %}<{{ name }}{% for k, v in kwargs|dictsort %} {{ k }}='{{ v }}'"
        "{% endfor %}>{{ varargs|join(', ') }}</{{ name }}>{% endmacro %}"
        "{% for i in items %}{{ tag('li', i.name, i.id, cls=loop.index, title=title) }}"
        "{% endfor %}",
    ],
)
@pytest.mark.parametrize("autoescape", [True, False])
def test_same_output(source, autoescape):
    same(source, CONTEXT, autoescape=autoescape)


@pytest.mark.parametrize(
    "undefined",
    [jinja2.Undefined, jinja2.StrictUndefined, jinja2.ChainableUndefined, jinja2.DebugUndefined],
)
@pytest.mark.parametrize(
    "source",
    [
        "{{ missing }}",
        "{{ missing.attr }}",
        "{{ user.nope }}",
        "{{ missing['k'] }}",
        "{% if missing %}y{% else %}n{% endif %}",
        "{% for x in missing %}{{ x }}{% endfor %}",
        "{{ missing|default('d') }}",
        "{{ 'x' if none }}",
    ],
)
def test_undefined_kinds(source, undefined):
    same(source, CONTEXT, undefined=undefined)


def test_errors_are_jinja2s():
    result = same("{{ n + title }}", CONTEXT)
    assert result[0] == "raised" and result[1] is TypeError
    assert same("{{ 1 / zero }}", {"zero": 0})[1] is ZeroDivisionError
    same("{% for a, b in items %}{% endfor %}", {"items": [(1, 2, 3)]})


@pytest.mark.parametrize(
    "source",
    [
        # Python reads *args before the keywords' values, and Jinja2 passes
        # keywords named like Python's as **dict({...}, **kwargs)
        "{{ f(k=1 // zero, *n) }}",
        "{{ f(*n, **(1 // zero)) }}",
        "{{ items|join(k=1 // zero, *n) }}",
        "{{ f(class=1, y=2, **pairs) }}",
        "{{ f(class=1, **{'class': 2}) }}",
        "{{ f(1, *items, y=2, **{'q': 3}) }}",
    ],
)
def test_spread_arguments_in_pythons_order(source):
    def f(*args, **kwargs):
        return f"f{args}{sorted(kwargs.items())}"

    same(source, dict(CONTEXT, f=f, zero=0))


def test_compile_errors_are_jinja2s_in_its_order():
    """An unknown filter in a loop's body and a constant that fails to
    fold in the else after it: Jinja2's generator meets the filter first."""
    source = (
        "{% if s %}{% for x in xs %}{{ s|nofilter }}{% endfor %}"
        "{% else %}{{ 1.name if 1.name }}{% endif %}"
    )
    for env in (jinja2.Environment, mj.Environment):
        with pytest.raises(jinja2.TemplateAssertionError, match="No filter named 'nofilter'"):
            env(undefined=jinja2.StrictUndefined).from_string(source)
    # Without the filter, the fold's error is the template's.
    for env in (jinja2.Environment, mj.Environment):
        with pytest.raises(jinja2.UndefinedError, match="no attribute 'name'"):
            env(undefined=jinja2.StrictUndefined).from_string("{{ 1.name if 1.name }}")


def test_traceback_points_into_the_template():
    def fail():
        raise KeyError("boom")

    def frames(env_class):
        env = env_class(loader=jinja2.DictLoader({"page.html": "line one\n{{ fail() }}\n"}))
        template = env.get_template("page.html")
        with pytest.raises(KeyError) as info:
            template.render(fail=fail)
        return template, traceback.extract_tb(info.tb)

    ours, got = frames(mj.Environment)
    assert ours.markup_native
    _, expected = frames(jinja2.Environment)
    template_frame = [(f.filename, f.lineno, f.name) for f in expected if f.name.startswith("top-")]
    assert template_frame == [("<template>", 2, "top-level template code")]
    assert [(f.filename, f.lineno, f.name) for f in got][-2:] == template_frame + [
        (__file__, got[-1].lineno, "fail")
    ]


def test_traceback_points_into_a_recursive_loops_body():
    def fail(x):
        if x == "deep":
            raise KeyError("boom")
        return x

    source = "{% for i in tree recursive %}\n{{ fail(i.name) }}\n{{ loop(i.kids) }}{% endfor %}"
    tree = [{"name": "top", "kids": [{"name": "deep", "kids": []}]}]
    got = {}
    for env_class in (jinja2.Environment, mj.Environment):
        env = env_class(loader=jinja2.DictLoader({"tree.html": source}))
        template = env.get_template("tree.html")
        with pytest.raises(KeyError):
            template.render(fail=fail, tree=tree)
        try:
            template.render(fail=fail, tree=tree)
        except KeyError as exc:
            got[env_class] = [
                (f.filename, f.lineno) for f in traceback.extract_tb(exc.__traceback__)
            ][-2:]
    assert mj.Environment().from_string(source).markup_native
    # the template's line that failed, then the function it called
    assert got[mj.Environment][0] == ("<template>", 2)
    assert got[jinja2.Environment] == got[mj.Environment]


TEMPLATES = {
    "base.html": "<title>{% block title %}Base{% endblock %}</title>"
    "{% for i in items %}[{% block item scoped %}{{ i.id }}{% endblock %}]{% endfor %}"
    "<main>{% block body %}{% endblock %}</main>{% include 'footer.html' %}",
    "footer.html": "<footer>{{ title }}{% block note %}note{% endblock %}</footer>",
    "mid.html": "{% extends 'base.html' %}{% block title %}{{ super() }} | Mid{% endblock %}",
    "forms.html": "{% macro field(name, value='', kind='text') %}<input type='{{ kind }}' "
    "name='{{ name }}' value='{{ value }}'>{{ hint(name) }}{{ title }}{% endmacro %}\n"
    "{% macro hint(name) %}<small>{{ name|upper }}</small>{% endmacro %}",
}


@pytest.mark.parametrize(
    "source",
    [
        "{% extends 'base.html' %}",
        "{% extends 'base.html' %}{% block body %}{{ title }}{% endblock %}ignored",
        "before{% extends 'mid.html' %}{% block title %}{{ super() }}!{% endblock %}"
        "{% block item %}<{{ i.name }}>{% endblock %}",
        "{% for i in items %}{% include 'footer.html' %}{% endfor %}",
        "{% set title = 'set' %}{% include 'footer.html' %}",
        "{% extends 'mid.html' %}{% block body %}{{ self.title() }}|{{ self.item() }}"
        "{% endblock %}",
        "{% for i in items if i.ok %}{{ i.name }}{% endfor %}"
        "{% with a = title, b = items|length %}{{ a }}{{ b }}{% set a = 1 %}{{ a }}{% endwith %}",
        "{% from 'forms.html' import field %}{% import 'forms.html' as forms %}"
        "{% for i in items %}{{ field(i.name, value=i.id) }}{{ forms.hint(i) }}{% endfor %}"
        "{{ forms.field('q', kind=title) }}",
        "{% extends 'base.html' %}{% block body %}{{ title }}{% set title = 'in block' %}"
        "{{ title }}{% for i in items %}{% set title = i.name %}{{ title }}{% endfor %}"
        "{{ title }}{% endblock %}{% block note %}{{ title }}{% endblock %}",
    ],
)
def test_inheritance_and_includes(source):
    same(source, CONTEXT, TEMPLATES, autoescape=True)


def test_a_changed_parent_is_jinja2s_to_render():
    sources = {"base.html": "A{% block b %}{% endblock %}"}
    env = mj.Environment(
        loader=jinja2.FunctionLoader(lambda name: (sources[name], name, lambda: False))
    )
    child = env.from_string("{% extends 'base.html' %}{% block b %}b{% endblock %}")
    assert child.markup_native and child.render() == "Ab"
    sources["base.html"] = "B{% block b %}{% endblock %}"  # not up to date: loaded again
    assert child.render() == "Bb"


@pytest.mark.parametrize(
    "source, reason",
    [
        ("{% macro m() %}x{% endmacro %}{{ m()|upper }}", "the macro 'm' used other than"),
        ("{% macro m() %}{{ caller()|e }}{% endmacro %}{% call m() %}x{% endcall %}", "caller"),
        ("{% macro m() %}{{ caller() }}{% endmacro %}{{ m() }}", "without a call block"),
        ("{% macro m() %}x{% endmacro %}{% call m() %}x{% endcall %}", "does not use caller"),
        (
            "{% macro m(x) %}{{ x }}{% endmacro %}{% for x in xs recursive %}{{ m(x) }}"
            "{{ loop(x) }}{% endfor %}",
            "a recursive loop that calls a macro",
        ),
        (
            "{% for x in xs recursive %}{% for y in x %}{{ loop(y) }}{% endfor %}{% endfor %}",
            "the loop variable used other than",
        ),
        # Jinja2 starts a name its frame sets before reading it as missing:
        # undefined in a loop that stands before the set
        (
            "{% for x in xs %}{{ title }}{% endfor %}{% set title = 'set' %}",
            "'title' read in a loop, with, macro or call body before its frame sets it",
        ),
        (
            "{% macro m() %}{{ title }}{% endmacro %}{{ m() }}{% set title = 'set' %}",
            "'title' read in a loop, with, macro or call body before its frame sets it",
        ),
        # defined only where the branch runs
        (
            "{% if n > 9 %}{% macro m() %}A{% endmacro %}{% endif %}{{ m() }}",
            "a macro defined inside an if",
        ),
        (
            "{% for x in xs %}{% macro m() %}{{ caller() }}{% endmacro %}{% call m() %}{{ x }}"
            "{% endcall %}{% endfor %}",
            "a macro in a loop that calls caller",
        ),
        (
            "{% for a in xs %}{% for x in xs recursive %}{% else %}{{ loop.index }}{% endfor %}"
            "{% endfor %}",
            "a recursive loop's else reading loop",
        ),
        ("{% extends name %}", "an extends of a template named at run time"),
        ("{{ 1 < n < user.age }}", "a chained comparison of other than names and constants"),
        ("{% for i in items %}{% set l = loop %}{{ l }}{% endfor %}", "the loop variable used"),
        (
            "{% for x in items %}{% set z = x %}{% macro m() %}{{ z }}{% endmacro %}{{ m() }}"
            "{% endfor %}",
            "a macro in a loop that reads or is a name the loop's body sets",
        ),
        (
            "{% for x in items %}{% macro m() %}{{ x }}{% endmacro %}{% for y in [1] %}{{ m() }}"
            "{% endfor %}{% endfor %}",
            "called other than where its loop defines it",
        ),
        (
            "{% for i in items %}{% if i %}{% set l = loop %}{% endif %}{{ l.index }}{% endfor %}",
            "the loop variable used",
        ),
        (
            "{% block b %}{% set t = 1 %}{% macro m() %}{{ t }}{% endmacro %}{{ m() }}"
            "{% endblock %}",
            "a macro in a block that reads or is a name the block sets",
        ),
        ("{% set ns = namespace() %}{% set ns.a %}x{% endset %}", "a block set of a namespace"),
        # calls Jinja2 refuses at run time: its code raises the TypeError
        ("{% macro m(a) %}{{ a }}{% endmacro %}{{ m(1, 2) }}", "more arguments than"),
        ("{% macro m(a) %}{{ a }}{% endmacro %}{{ m(b=2) }}", "does not take"),
        ("{% macro m(a) %}{{ kwargs }}{% endmacro %}{{ m(1, a=2) }}", "given twice"),
        ("{% macro m(a=varargs) %}{{ varargs }}{% endmacro %}{{ m() }}", "reads varargs"),
        ("{% macro m(kwargs) %}{{ kwargs }}{% endmacro %}{{ m(1) }}", "named caller, varargs"),
    ],
)
def test_what_falls_back_says_why(source, reason):
    plain, ours = pair(source)
    assert not ours.markup_native
    assert reason in ours.markup_reason
    assert outcome(ours, {"xs": [1, 2], "name": "x"}) == outcome(plain, {"xs": [1, 2], "name": "x"})


@pytest.mark.parametrize(
    "source, expected",
    [
        # the loop stands before the set: Jinja2 reads undefined there
        ("{% for x in xs %}[{{ title }}]{% endfor %}{% set title = 's' %}{{ title }}", "[][]s"),
        ("{% with %}[{{ title }}]{% endwith %}{% set title = 's' %}", "[]"),
        ("{% autoescape true %}[{{ title }}]{% endautoescape %}{% set title = 's' %}", "[]"),
        # read by the frame first, or set first: the value around, or the set one
        ("[{{ title }}]{% for x in xs %}{{ title }}{% endfor %}{% set title = 's' %}", "[t]tt"),
        ("{% set title = 's' %}{% for x in xs %}{{ title }}{% endfor %}", "ss"),
        ("{% macro m() %}{{ title }}{% endmacro %}{% set title = 's' %}{{ m() }}", "s"),
        (
            "{% if none %}{% set title = 's' %}{% endif %}{% for x in xs %}{{ title }}{% endfor %}",
            "tt",
        ),
    ],
)
def test_a_name_its_frame_sets_reads_as_jinja2(source, expected):
    context = {"xs": [1, 2], "title": "t", "none": None}
    assert same(source, context, native=False) == ("ok", expected)


@pytest.mark.parametrize("kind", [jinja2.pass_context, jinja2.pass_eval_context])
@pytest.mark.parametrize("source", ["{{ '<x>' }}", "{{ 'a' ~ '<' }}", "{{ '<x>'|upper }}"])
def test_a_finalize_taking_the_context_escapes_constants_once(kind, source):
    finalize = kind(lambda ctx, value: f"[{value}]")
    for autoescape in (True, False):
        result = same(source, {}, autoescape=autoescape, finalize=finalize)
        assert result[1].count("[") == 1 and "&amp;" not in result[1]


def test_a_finalize_that_raises_on_a_constant_raises_where_it_is_written():
    def strict(value):
        if value is None:
            raise ValueError("None rendered")
        return value

    source = "{% if x %}{{ none }}{% endif %}ok"
    for env in (jinja2.Environment, mj.Environment):
        template = env(finalize=strict).from_string(source)
        assert template.render() == "ok"
        with pytest.raises(ValueError, match="None rendered"):
            template.render(x=1)
    assert template.markup_native


def test_accelerate_an_existing_environment():
    env = jinja2.Environment(loader=jinja2.DictLoader({"t.html": "{{ x }}"}), autoescape=True)
    before = env.get_template("t.html")
    assert not hasattr(before, "markup_native")
    assert mj.accelerate(env) is env
    after = env.get_template("t.html")
    assert after.markup_native and after.render(x="<") == "&lt;"
    assert isinstance(env, jinja2.Environment)


def test_a_context_filter_sees_the_render():
    @jinja2.pass_context
    def whose(context, value):
        return f"{value}:{context['who']}"

    source = "{% set who = 'set' %}{{ 'v'|whose }}{{ who|whose }}"
    outputs = []
    for env in (jinja2.Environment(), mj.Environment()):
        env.filters["whose"] = whose
        template = env.from_string(source)
        outputs.append(template.render(who="arg"))
    assert template.markup_native
    assert outputs[0] == outputs[1] == "v:setset:set"


def test_a_context_callable_sees_what_was_set_around():
    @jinja2.pass_context
    def seen(context, name):
        return f"{name}={context.get(name)}"

    source = (
        "{% set top = 1 %}{% for i in [1, 2] %}{% set inner = i * 10 %}{{ seen('inner') }}"
        "{{ seen('top') }}{{ 'top'|seen2 }}{% endfor %}{{ seen('inner') }}"
    )
    outputs = []
    for env in (jinja2.Environment(), mj.Environment()):
        env.filters["seen2"] = seen
        template = env.from_string(source)
        outputs.append(template.render(seen=seen))
    assert template.markup_native, template.markup_reason
    assert outputs[0] == outputs[1]
    assert outputs[1] == "inner=10top=1top=1inner=20top=1top=1inner=None"


@pytest.mark.parametrize(
    "source",
    [
        "{% for x in xs %}{% if x > 2 %}{% break %}{% endif %}{{ x }}{% else %}none{% endfor %}!",
        "{% for x in xs %}{% if x is even %}{% continue %}{% endif %}{{ loop.index }}{{ x }}"
        "{% endfor %}",
        "{% for a in [1, 2] %}{% for x in xs %}{% if x == a %}{% break %}{% endif %}{{ x }}"
        "{% endfor %}|{{ loop.index }}{% endfor %}",
        "{% for x in xs %}{% with y = x %}{% if y > 3 %}{% break %}{% endif %}{{ y }}"
        "{% endwith %}{% endfor %}",
        "{% for x in [] %}{% break %}{% else %}empty{% endfor %}",
        "{% for i in tree recursive %}{{ i.name }}{% if i.name == 'b' %}{% break %}{% endif %}"
        "({{ loop(i.kids) }}){% endfor %}",
        "{% for x in xs %}{% if x == 2 %}{% continue %}{% endif %}{{ x }}{% if x == 4 %}"
        "{% break %}{% endif %}{% endfor %}",
        # Jinja2 runs the else unless an item reached the body's end
        "{% for x in xs %}{% continue %}{% else %}E{% endfor %}",
        "{% for x in xs %}{% break %}{% else %}E{% endfor %}",
        "{% for x in xs %}{% if x != 3 %}{% continue %}{% endif %}{{ x }}{% else %}E{% endfor %}",
        "{% for x in xs %}{% for y in xs %}{% continue %}{% else %}E{% endfor %}{% endfor %}",
        "{% for x in xs if x > 2 %}{{ loop.index }}{% continue %}{% else %}E{% endfor %}",
        "{% for i in tree recursive %}{{ i.name }}{{ loop(i.kids) }}{% continue %}"
        "{% else %}E{% endfor %}",
    ],
)
def test_loop_controls_as_jinja2(source):
    # {% break %} ends the loop where it stands, {% continue %} goes on with
    # the next item: both native (jinja2.ext.loopcontrols)
    context = dict(CONTEXT, xs=[1, 2, 3, 4, 5])
    same(source, context, extensions=["jinja2.ext.loopcontrols"], autoescape=True)


def test_a_filtered_loop_with_a_break_reads_its_items_as_jinja2():
    # Jinja2 stops reading the items at the break: an endless generator ends
    import itertools

    source = "{% for x in xs if x is odd %}{{ loop.index }}:{{ x }}{% if x > 5 %}{% break %}"
    source += "{% endif %}{% endfor %}"
    plain, ours = pair(source, extensions=["jinja2.ext.loopcontrols"])
    assert ours.markup_native, ours.markup_reason
    assert ours.render(xs=itertools.count()) == plain.render(xs=itertools.count()) == "1:12:33:54:7"


class Seen:
    """Records each read of .mark: a property with an effect."""

    def __init__(self, seen):
        self.seen = seen

    @property
    def mark(self):
        self.seen.append(1)
        return "m"


def _push(value, to):
    to.append(value)
    return value


@pytest.mark.parametrize(
    "source, context",
    [
        # the body reads the same iterator: the test has not run ahead
        (
            "{% for x in it if x %}{{ loop.index }}:{{ x }}[{% for y in it %}{{ y }}{% endfor %}]"
            "{% endfor %}",
            lambda: {"it": iter([1, 2, 3, 4])},
        ),
        (
            "{% for x in it if x %}{{ x }}[{% for y in it %}{{ y }}{% endfor %}]{% else %}E"
            "{% endfor %}",
            lambda: {"it": iter([1, 2, 3, 4])},
        ),
        (
            "{% for x in it if x recursive %}{{ x }}{{ loop.index }}{% if x == 1 %}"
            "({{ loop(it) }}){% endif %}{% endfor %}",
            lambda: {"it": iter([1, 0, 2, 3])},
        ),
        # what raises first: the body for the first item, or the test for the second
        (
            "{% for x in xs if 10 // x %}{{ loop.index }}{{ y.z.w }}{% endfor %}",
            lambda: {"xs": [1, 0]},
        ),
        (
            "{% for a, b in xs if b %}{{ loop.index }}{{ 1 / 0 }}{% endfor %}",
            lambda: {"xs": [(1, 2), (1, 2, 3)]},
        ),
        # the body changes what the test reads: by a filter, a call, a property, a namespace
        (
            "{% for x in xs if x not in seen %}{{ x|push(seen) }}{{ loop.index }}{% endfor %}",
            lambda: {"xs": [1, 1, 2, 2, 3], "seen": []},
        ),
        (
            "{% for x in xs if x not in seen %}{{ loop.index }}{{ seen.append(x) }}{% endfor %}",
            lambda: {"xs": [1, 1, 2], "seen": []},
        ),
        (
            "{% for x in xs if seen|length < 2 %}{{ o.mark }}{{ loop.index }}{% endfor %}",
            lambda: (lambda seen: {"xs": [1, 2, 3], "seen": seen, "o": Seen(seen)})([]),
        ),
        (
            "{% set ns = namespace(m=0) %}{% for x in xs if x > ns.m %}{{ loop.index }}"
            "{% set ns.m = x %}{% endfor %}",
            lambda: {"xs": [1, 3, 2, 5, 4]},
        ),
        # what the body sets is its own: the test reads the value around
        (
            "{% for x in xs if x > m %}{% set m = x %}{{ loop.revindex }}{{ m }}{% endfor %}"
            "{{ m }}",
            lambda: {"xs": [1, 5, 2, 7], "m": 1},
        ),
        ("{% for x in xs if x.ok() %}{{ loop.index }}{% endfor %}", lambda: {"xs": []}),
    ],
)
def test_a_filtered_loop_tests_each_item_when_jinja2_does(source, context):
    envs = [jinja2.Environment(), mj.Environment()]
    for env in envs:
        env.filters["push"] = _push
    plain, ours = (env.from_string(source) for env in envs)
    assert ours.markup_native, ours.markup_reason
    assert outcome(ours, context()) == outcome(plain, context())


def test_a_break_in_a_block_set_falls_back():
    source = "{% for x in xs %}{% set s %}{{ x }}{% break %}{% endset %}{{ s }}{% endfor %}"
    plain, ours = pair(source, extensions=["jinja2.ext.loopcontrols"])
    assert not ours.markup_native and "break inside a block set" in ours.markup_reason
    assert ours.render(xs=[1, 2]) == plain.render(xs=[1, 2])


def test_templates_from_a_bytecode_cache_render_natively(tmp_path):
    # Jinja2 hands over the cached code without the source: the loader's
    # source is compiled again, once, and the template renders natively.
    cache = jinja2.FileSystemBytecodeCache(str(tmp_path))
    templates = {
        "t.html": "<p>{{ x }}</p>{% for i in xs %}{{ loop.index }}{% endfor %}",
        "r.html": "{% macro f(n) %}{{ n }}{% if n %}{{ f(n - 1) }}{% endif %}{% endmacro %}"
        "{{ f(2) }}",
    }
    loader = jinja2.DictLoader(templates)
    first = mj.Environment(loader=loader, bytecode_cache=cache, autoescape=True)
    first.get_template("t.html")
    assert list(tmp_path.iterdir())  # the cache holds the code now
    again = mj.Environment(loader=loader, bytecode_cache=cache, autoescape=True)
    template = again.get_template("t.html")
    assert template.markup_native, template.markup_reason
    plain = jinja2.Environment(loader=loader, autoescape=True).get_template("t.html")
    assert template.render(x="<a>", xs="ab") == plain.render(x="<a>", xs="ab")
    # a construct that falls back says which, as when compiled first
    mj.Environment(loader=loader, bytecode_cache=cache).get_template("r.html")
    cached = mj.Environment(loader=loader, bytecode_cache=cache).get_template("r.html")
    assert not cached.markup_native and "calls itself" in cached.markup_reason
    assert cached.render() == "210"


# -- random templates against Jinja2 -------------------------------------

NAMES = ["s", "n", "f", "none", "t", "xs", "d", "obj", "safe", "html", "v", "missing"]
FILTERS = [
    "upper",
    "lower",
    "length",
    "default('dflt')",
    "join(',')",
    "e",
    "safe",
    "first",
    "last",
    "title",
    "trim",
    "capitalize",
    "string",
    "list",
    "sort",
    "unique",
    "abs",
    "int",
    "float",
    "round",
    "striptags",
    "wordcount",
    "truncate(5)",
    "replace('a', '&')",
    "center(9)",
    "indent(2)",
    "tojson",
    "urlencode",
    "reverse",
    "sum",
    "min",
    "max",
    "batch(2)|list",
    "map('string')|join",
]
TESTS = [
    "defined",
    "undefined",
    "none",
    "number",
    "string",
    "odd",
    "even",
    "iterable",
    "mapping",
    "sameas none",
    "in xs",
    "divisibleby 3",
]


def atoms():
    return st.one_of(
        st.sampled_from(NAMES),
        st.sampled_from(
            [
                "1",
                "0",
                "-3",
                "2.5",
                "'<a&b>'",
                '"q\'"',
                "none",
                "true",
                "[1, 'x']",
                "(2, 3)",
                "{'k': 'v'}",
                "item",
                "loop.index",
                "loop.last",
            ]
        ),
    )


def expressions():
    return st.recursive(
        atoms(),
        lambda inner: st.one_of(
            st.tuples(inner, st.sampled_from(FILTERS)).map(lambda p: f"{p[0]}|{p[1]}"),
            st.tuples(inner, st.sampled_from(TESTS)).map(lambda p: f"({p[0]} is {p[1]})"),
            st.tuples(inner, st.sampled_from(["name", "k", "0", "items"])).map(
                lambda p: f"{p[0]}.{p[1]}"
            ),
            st.tuples(inner, st.sampled_from(["'k'", "0", "-1", "n"])).map(
                lambda p: f"{p[0]}[{p[1]}]"
            ),
            st.tuples(
                inner,
                st.sampled_from(
                    [
                        "+",
                        "-",
                        "*",
                        "/",
                        "//",
                        "%",
                        "~",
                        "==",
                        "!=",
                        "<",
                        ">=",
                        "in",
                        "not in",
                        "and",
                        "or",
                    ]
                ),
                inner,
            ).map(lambda p: f"({p[0]} {p[1]} {p[2]})"),
            st.tuples(inner, st.sampled_from(["<", "==", "!=", ">=", "in"]), atoms()).map(
                lambda p: f"({p[0]} < n {p[1]} {p[2]})"
            ),
            inner.map(lambda e: f"(not {e})"),
            st.tuples(inner, inner, inner).map(lambda p: f"({p[0]} if {p[1]} else {p[2]})"),
        ),
        max_leaves=4,
    )


def blocks():
    text = st.sampled_from(["", "x", "<p>", "&amp;", " \n  ", "'\"", "é€"])
    output = st.one_of(
        expressions().map(lambda e: "{{ " + e + " }}"),
        expressions().map(lambda e: "{{ mac(" + e + ") }}"),
        st.tuples(expressions(), expressions()).map(lambda p: f"{{{{ mac({p[0]}, q={p[1]}) }}}}"),
        # past the parameters: varargs and kwargs, or Jinja2's TypeError
        st.tuples(expressions(), expressions()).map(
            lambda p: f"{{{{ mac(1, 2, {p[0]}, {p[1]}) }}}}"
        ),
        expressions().map(lambda e: "{{ mac(q=1, k=" + e + ") }}"),
    )
    return st.recursive(
        st.one_of(text, output),
        lambda inner: st.one_of(
            st.lists(inner, max_size=4).map("".join),
            st.tuples(expressions(), inner, inner).map(
                lambda p: f"{{% if {p[0]} %}}{p[1]}{{% else %}}{p[2]}{{% endif %}}"
            ),
            st.tuples(
                st.sampled_from(["xs", "d", "s", "n", "none", "d.items()", "range(3)"]),
                inner,
                inner,
            ).map(lambda p: f"{{% for item in {p[0]} %}}{p[1]}{{% else %}}{p[2]}{{% endfor %}}"),
            st.tuples(expressions(), inner).map(
                lambda p: f"{{% set v = {p[0]} %}}{p[1]}{{{{ v }}}}"
            ),
            st.tuples(st.sampled_from(["xs", "d", "s"]), expressions(), inner).map(
                lambda p: f"{{% for item in {p[0]} %}}{{{{ loop.changed({p[1]}) }}}}{p[2]}"
                "{% endfor %}"
            ),
            st.tuples(st.sampled_from(["xs", "d", "s", "range(4)"]), expressions(), inner).map(
                lambda p: f"{{% for item in {p[0]} if {p[1]} %}}{p[2]}{{% endfor %}}"
            ),
            st.tuples(st.sampled_from(["xs", "d", "range(4)"]), expressions(), inner, inner).map(
                lambda p: f"{{% for item in {p[0]} if {p[1]} %}}{p[2]}{{{{ loop.index }}}}"
                f"{{% else %}}{p[3]}{{% endfor %}}"
            ),
            st.tuples(expressions(), inner).map(
                lambda p: f"{{% with v = {p[0]}, w = v %}}{p[1]}{{{{ w }}}}{{% endwith %}}"
                + "{{ v }}"
            ),
            # a recursive loop down nested lists (and the keys of dicts)
            st.tuples(st.sampled_from(["xs", "d", "s", "[xs, [d, [s]]]"]), inner, inner).map(
                lambda p: f"{{% for item in {p[0]} recursive %}}{p[1]}[{{{{ loop.depth }}}}"
                "{% if item is iterable and item is not string %}{{ loop(item) }}{% endif %}]"
                f"{{% else %}}{p[2]}{{% endfor %}}"
            ),
            st.tuples(expressions(), inner).map(
                lambda p: f"{{% call(c, k='<k>') mac({p[0]}) %}}{{{{ c }}}}{{{{ k }}}}{p[1]}"
                "{% endcall %}"
            ),
            st.tuples(st.sampled_from(["", " | upper", " | e"]), inner).map(
                lambda p: f"{{% set v{p[0]} %}}{p[1]}{{% endset %}}{{{{ v }}}}{{{{ v|length }}}}"
            ),
            st.tuples(st.booleans(), inner).map(
                lambda p: f"{{% autoescape {str(p[0]).lower()} %}}{p[1]}{{% endautoescape %}}"
            ),
            st.tuples(st.sampled_from(["upper", "striptags", "replace('a', '<')"]), inner).map(
                lambda p: f"{{% filter {p[0]} %}}{p[1]}{{% endfilter %}}"
            ),
        ),
        max_leaves=6,
    )


def values():
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-5, 5),
        st.floats(-3, 3, allow_nan=False),
        st.text(st.sampled_from("a<>&'\" é"), max_size=6),
        st.just(Markup("<m>")),
        st.just(Html()),
        st.just(Text()),
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.dictionaries(st.sampled_from(["name", "k", "items"]), inner, max_size=3),
        ),
        max_leaves=5,
    )


def bracket(value):
    """A finalize that makes a plain str of every value (Markup too)."""
    return f"[{value}]"


def pages():
    """Templates that may define a macro at the top (called as mac(...) in
    the rest; where it is not defined, mac is a missing name)."""
    body = st.sampled_from(
        [
            "[{{ p }}|{{ q }}]",
            "{% if p %}{{ p|upper }}{% else %}{{ q }}{% endif %}",
            "{% set r = p ~ '!' %}{{ r }}{{ s }}{% set p2 = q %}",
            "{% for item in p %}{{ item }}{{ q }}{% endfor %}",
            "<{{ caller(p) }}|{% for item in xs %}{{ caller(item, loop.index) }}{% endfor %}>",
            "[{{ p }}|{{ varargs }}|{{ kwargs|dictsort }}]",
        ]
    )
    macro = body.map(lambda b: "{% macro mac(p, q='<d>') %}" + b + "{% endmacro %}")
    return st.tuples(st.one_of(st.just(""), macro), blocks()).map("".join)


# Fewer under an emulated CPU (make cross-pytest): what is compared is
# Python and Jinja2, which no CPU changes, around the same C program runs.
@settings(
    max_examples=max(40, int(400 / conftest.TIME_SCALE)),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(
    source=pages(),
    context=st.dictionaries(st.sampled_from(NAMES[:-1]), values(), max_size=len(NAMES) - 1),
    autoescape=st.booleans(),
    undefined=st.sampled_from(
        [jinja2.Undefined, jinja2.StrictUndefined, jinja2.ChainableUndefined]
    ),
    finalize=st.sampled_from([None, bracket]),
)
def test_random_templates_match_jinja2(source, context, autoescape, undefined, finalize):
    settings = dict(autoescape=autoescape, undefined=undefined, finalize=finalize)
    try:
        plain = jinja2.Environment(**settings).from_string(source)
    except Exception as exc:  # Jinja2 refuses it: so does markup.jinja, alike
        with pytest.raises(type(exc)):
            mj.Environment(**settings).from_string(source)
        return
    ours = mj.Environment(**settings).from_string(source)
    assert outcome(ours, context) == outcome(plain, context), (source, ours.markup_native)


# -- environments and paths beyond the grammar above -----------------------


def test_finalize_as_jinja2_applies_it():
    calls = []

    def finalize(value):
        calls.append(value)
        return "-" if value is None else value

    source = "{{ nothing }}|{{ 'lit' }}|{{ none }}|{{ n }}|text"
    plain, ours = pair(source, finalize=finalize, autoescape=True)
    assert ours.markup_native, ours.markup_reason
    calls.clear()
    context = dict(CONTEXT, nothing=None)
    # a constant is finalized once, escaped, when compiled (Markup('None'))
    assert outcome(ours, context) == outcome(plain, context) == ("ok", "-|lit|None|7|text")
    assert calls == [None, 7, None, 7]  # each render: the two values, not the text


CALL_LIBRARY = {
    "lib.html": "{% macro panel(t) %}<section>{{ t }}{{ caller() }}</section>{% endmacro %}"
}


@pytest.mark.parametrize(
    "source",
    [
        # the body in the call block's scope: its loop, its variables
        "{% macro box(t) %}<div><h2>{{ t }}</h2>{{ caller() }}</div>{% endmacro %}"
        "{% for i in items %}{% call box(i.name) %}<p>{{ loop.index }}:{{ i.id }}"
        "{{ title }}</p>{% endcall %}{% endfor %}",
        # caller() with arguments and defaults, inside the macro's own loop
        "{% macro each(xs) %}<ul>{% for x in xs %}<li>{{ caller(x, loop.index) }}</li>"
        "{% endfor %}</ul>{% endmacro %}{% set sep = '-' %}"
        "{% for i in items %}{% call(item, n=0) each([i.name, i.id]) %}{{ n }}{{ sep }}"
        "{{ item }}{{ loop.index }}{{ loop.cycle('a', 'b') }}{% set sep = '+' %}{{ sep }}"
        "{% endcall %}{% endfor %}{{ sep }}",
        # called twice, a parameter not given, a macro imported
        "{% macro m() %}[{{ caller() }}|{{ caller() }}]{% endmacro %}"
        "{% call m() %}x{{ n }}{% endcall %}",
        "{% macro m(a) %}{{ caller(a) }}{% endmacro %}{% call(q, r) m(title) %}{{ q }}{{ r }}"
        "{% endcall %}",
        "{% import 'lib.html' as lib %}{% from 'lib.html' import panel %}"
        "{% call lib.panel(title) %}<b>{{ n }}</b>{% endcall %}{% call panel(1) %}2{% endcall %}",
    ],
)
@pytest.mark.parametrize("undefined", [jinja2.Undefined, jinja2.StrictUndefined])
def test_call_blocks(source, undefined):
    same(source, CONTEXT, CALL_LIBRARY, autoescape=True, undefined=undefined)


@pytest.mark.parametrize(
    "source",
    [
        "{% set x %}<b>{{ title }}</b>{% endset %}[{{ x }}]{{ x|length }}",
        "{% set x | upper %}<b>{{ title }}</b>{% endset %}[{{ x }}]",
        # in a loop, with a set of its own that stays inside
        "{% for i in items %}{% set row %}{{ loop.index }}:{{ i.name }}{% set inner = i.id %}"
        "{{ inner }}{% endset %}({{ row }}){% endfor %}{{ row }}{{ inner }}",
        "{% filter upper %}a{{ title }}b{% endfilter %}",
        "{% filter striptags %}<p>{{ title }}</p> x{% endfilter %}",
        "{% filter replace('a', '<') %}abc{{ title }}{% endfilter %}",
        "{% filter upper|replace('A', '<') %}abc{{ title }}{% endfilter %}",
        "{% set x | upper|e %}<a>{{ title }}{% endset %}{{ x }}",
        "{% for i in items %}{% filter title %}{{ i.name }} x{% endfilter %}{% endfor %}",
        "{% set x %}{% filter upper %}q{{ title }}{% endfilter %}{% endset %}{{ x ~ '!' }}",
        "{% macro m() %}{% set y %}in{{ n }}{% endset %}{{ y }}{% endmacro %}{{ m() }}",
    ],
)
@pytest.mark.parametrize("autoescape", [True, False])
def test_block_set_and_filter_blocks(source, autoescape):
    same(source, CONTEXT, autoescape=autoescape)


CHILD_TEMPLATES = {
    "base.html": "<nav>{% for p in ['index', 'about'] %}<a{% if p == active_page %} class=on"
    "{% endif %}>{{ p }}</a>{% endfor %}</nav>{% block body %}{% endblock %}",
    "forms.html": "{% macro field(n) %}<input name='{{ n }}'>{% endmacro %}",
    "mid.html": "{% extends 'base.html' %}{% set active_page = 'index' %}"
    "{% block body %}[{% block inner %}{% endblock %}]{% endblock %}",
}


@pytest.mark.parametrize(
    "source",
    [
        # the classic active_page, a macro and an import at a child's top
        "{% extends 'base.html' %}{% from 'forms.html' import field %}"
        "{% set active_page = 'about' %}{% macro row(x) %}<tr>{{ x }}{{ title }}</tr>{% endmacro %}"
        "{% block body %}{{ row(active_page) }}{{ field('q') }}{% endblock %}",
        # set in the child, then again in its parent: the parent's is last
        "{% extends 'mid.html' %}{% set active_page = 'about' %}"
        "{% block inner %}{{ active_page }}{% endblock %}",
        "{% extends 'base.html' %}{% set x %}<b>{{ title }}</b>{% endset %}"
        "{% block body %}{{ x }}{% endblock %}ignored",
    ],
)
def test_what_a_child_defines_outside_its_blocks(source):
    same(source, CONTEXT, CHILD_TEMPLATES, autoescape=True)


@pytest.mark.parametrize(
    "source",
    [
        "{% for i in items %}{% if loop.changed(i.ok) %}<h2>{{ i.ok }}</h2>{% endif %}"
        "{{ i.name }}{% endfor %}",
        # a tracker per run of the loop, and per loop
        "{% for g in [1, 2] %}{% for i in items %}{{ loop.changed(i.id > 5, g) }}"
        "{% for j in [1] %}{{ loop.changed(j) }}{% endfor %}{% endfor %}|{% endfor %}",
        "{% for i in items %}{{ loop.changed() }}{{ loop.changed(i.name) }}{% endfor %}",
        # in a call block's body, `loop` is the loop around the call block
        "{% macro m() %}{% for x in [1, 1, 2] %}[{{ caller(x) }}]{% endfor %}{% endmacro %}"
        "{% for i in items %}{% call(x) m() %}{{ loop.changed(x) }}{{ i.id }}{% endcall %}"
        "{% endfor %}",
    ],
)
def test_loop_changed(source):
    same(source, CONTEXT, autoescape=True)


BLOCK_BASE = {
    "base.html": "<main>{% block content %}{% endblock %}</main>{% block foot %}{% endblock %}"
}


@pytest.mark.parametrize(
    "source",
    [
        "{% extends 'base.html' %}{% block content %}{% macro row(x, c='r') %}"
        "<tr class={{ c }}>{{ x }}{{ title }}</tr>{% endmacro %}{% for i in items %}"
        "{{ row(i.name) }}{% endfor %}{{ row('z', c='q') }}{% endblock %}"
        "{% block foot %}{{ row is defined }}{% endblock %}",
        # the block's own: not seen after it
        "{% block content %}{% macro row(x) %}<b>{{ x }}</b>{% endmacro %}{{ row(1) }}"
        "{% endblock %}{{ row(2) }}",
    ],
)
def test_macros_defined_in_a_block(source):
    same(source, CONTEXT, BLOCK_BASE, autoescape=True)


@pytest.mark.parametrize(
    "source",
    [
        "{% autoescape false %}{{ title }}|{{ title|e }}|{{ '<c>' }}{{ title ~ '<' }}"
        "{% endautoescape %}{{ title }}",
        "{% autoescape true %}{{ title }}|{{ '<c>' }}{{ title ~ '<' }}{{ title|safe }}"
        "{% endautoescape %}{{ title }}",
        "{% autoescape false %}{% set x %}<{{ title }}>{% endset %}{{ x }}{% endautoescape %}"
        "{{ x }}",
        "{% autoescape false %}{% for i in items %}{{ i.name }}{{ pairs|xmlattr }}"
        "{{ [i.name, '<']|join('&') }}{% endfor %}{% endautoescape %}",
        "{% autoescape false %}{% filter upper %}{{ title }}{% endfilter %}{% endautoescape %}",
    ],
)
@pytest.mark.parametrize("autoescape", [True, False])
def test_autoescape_blocks(source, autoescape):
    same(source, CONTEXT, autoescape=autoescape)


def test_a_filter_block_that_gives_no_str_raises_as_jinja2():
    plain, ours = pair("{% filter length %}abc{% endfilter %}")
    assert ours.markup_native
    with pytest.raises(TypeError, match="expected str instance, int found"):
        plain.render()
    with pytest.raises(TypeError, match="expected str instance, int found"):
        ours.render()


def test_finalize_sees_what_macros_super_and_self_write():
    templates = {
        "base.html": "{% block a %}<i>{{ 1 }}</i>{% endblock %}{% block b %}B{% endblock %}",
        "page.html": "{% extends 'base.html' %}{% macro m(x) %}<b>{{ x }}</b>{% endmacro %}"
        "{% block a %}{{ super() }}{{ self.b() }}{{ m('a') }}{% endblock %}",
    }
    plain = jinja2.Environment(
        loader=jinja2.DictLoader(templates), finalize=bracket, autoescape=True
    )
    ours = mj.Environment(loader=jinja2.DictLoader(templates), finalize=bracket, autoescape=True)
    expected = plain.get_template("page.html").render()
    assert "[&lt;i&gt;[1]&lt;/i&gt;]" in expected
    assert ours.get_template("page.html").render() == expected


@pytest.mark.parametrize(
    "source",
    [
        "{{ title[1:5] }}{{ items[::-1]|map(attribute='id')|join }}{{ title[:n] }}",
        "{% include name %}|{% include ['nope.html', 'footer.html'] %}",
        "{% include 'nope.html' ignore missing %}{% include name without context %}",
        "{% import 'forms.html' as f with context %}{{ f.field('x') }}",
    ],
)
def test_slices_and_includes_known_at_run_time(source):
    context = dict(CONTEXT, name="footer.html")
    same(source, context, TEMPLATES, autoescape=True)


def test_async_environment_renders_natively():
    import asyncio

    async def fetch(x):
        return f"<{x}>"

    async def rows():
        for i in range(3):
            yield {"id": i}

    source = (
        "{{ fetch(title) }}{% for r in rows() %}{{ loop.index }}:{{ r.id }}{% endfor %}"
        "{{ [1, 2]|map('string')|join(',') }}"
    )
    outputs = []
    for env_class in (jinja2.Environment, mj.Environment):
        template = env_class(enable_async=True, autoescape=True).from_string(source)
        context = dict(CONTEXT, fetch=fetch, rows=rows)
        outputs.append((template.render(context), asyncio.run(template.render_async(context))))
    assert template.markup_native, template.markup_reason
    assert outputs[0] == outputs[1]
    assert outputs[1][0] == "&lt;&lt;Tom &amp; &#39;Jerry&#39;&gt;&gt;1:02:13:21,2"


def test_async_awaitable_that_waits_is_rendered_by_jinja2():
    import asyncio

    async def slow():
        await asyncio.sleep(0)
        return "done"

    plain, ours = pair("{{ slow() }}", enable_async=True)
    assert ours.markup_native
    assert ours.render(slow=slow) == plain.render(slow=slow) == "done"


class _HtmlText:
    """An object with __html__ and a __str__ of its own: Jinja2's striptags
    reads the HTML, wordcount and title the str()."""

    def __html__(self):
        return "<b>html</b> &amp; text"

    def __str__(self):
        return "str of it_1 <x>"


_FILTER_TEXT = st.one_of(
    st.text(max_size=30),
    st.text(alphabet=st.sampled_from("aZ_9 \x1f\u00a0-(<>!&;ß\u0663"), max_size=30),
    st.sampled_from(["<p>Tea &amp; <b>cake</b></p>", "<!-- a -->b<c", "x &lt;y&gt; <", ""]),
)


@given(
    st.one_of(
        _FILTER_TEXT,
        _FILTER_TEXT.map(Markup),
        st.integers(),
        st.just(None),
        st.builds(_HtmlText),
    )
)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_builtin_text_filters_run_in_c_with_jinja2s_results(value):
    # wordcount, title and striptags are Jinja2's own filters: markup.jinja
    # runs markup's C scan for them, with Jinja2's coercions of the value.
    source = "{{ v|wordcount }}|{{ v|title }}|{{ v|striptags }}|{{ v|striptags|wordcount }}"
    same(source, {"v": value}, autoescape=True)
    same(source, {"v": value}, autoescape=False)


def test_an_overridden_filter_is_the_environments_own():
    plain, ours = pair("{{ v|wordcount }}", None, autoescape=True)
    ours.environment.filters["wordcount"] = lambda s: "mine"
    ours = ours.environment.from_string("{{ v|wordcount }}")
    assert ours.markup_native and ours.render(v="a b") == "mine"
