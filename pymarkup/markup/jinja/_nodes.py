"""Reading Jinja2's nodes for the compiler: where scopes begin, which
names a body sets, a loop's targets, and Unsupported, which says what is
not compiled."""

from typing import Any, Dict, List, Tuple

from jinja2 import nodes


class Unsupported(Exception):
    """The template uses something this compiler does not compile."""


_SCOPES = (nodes.For, nodes.Block, nodes.Macro, nodes.CallBlock, nodes.FilterBlock)


def _walk_scope(statements: List[Any]) -> Any:
    """The nodes of `statements`, not descending into the bodies that have
    a scope of their own (loops, blocks, macros)."""
    todo = list(reversed(statements))
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, nodes.For):
            todo.append(node.iter)  # its target, body and else are its own
            continue
        if isinstance(node, _SCOPES):
            continue
        todo.extend(reversed(list(node.iter_child_nodes())))


def _walk_all(statements: List[Any]) -> Any:
    for statement in statements:
        yield statement
        yield from statement.find_all(nodes.Node)


def _assigned_in(statements: List[Any]) -> List[str]:
    names: Dict[str, None] = {}
    for node in _walk_scope(statements):
        if isinstance(node, (nodes.Assign, nodes.AssignBlock)) and not isinstance(
            node.target, nodes.NSRef
        ):
            target = node.target
            found = [target] if isinstance(target, nodes.Name) else target.find_all(nodes.Name)
            for name in found:
                names[name.name] = None
    return list(names)


def _caller_outputs(body: List[Any]) -> List[Any]:
    """The {{ caller(...) }} outputs anywhere in a macro's body."""
    found = []
    for node in _walk_all(body):
        if isinstance(node, nodes.Output):
            found += [
                child
                for child in node.nodes
                if isinstance(child, nodes.Call)
                and isinstance(child.node, nodes.Name)
                and child.node.name == "caller"
            ]
    return found


def _targets(target: Any, what: str = "a for loop") -> Dict[str, Tuple[int, ...]]:
    if isinstance(target, nodes.Name):
        return {target.name: ()}
    items: List[Any] = target.items if isinstance(target, nodes.Tuple) else []
    if items and all(isinstance(t, nodes.Name) for t in items):
        names = [t.name for t in items]
        if len(set(names)) != len(names):
            raise Unsupported(f"{what} whose target repeats a name")
        return {name: (i, len(names)) for i, name in enumerate(names)}
    raise Unsupported(f"{what} with a nested target or a namespace attribute")


def _describe(node: Any) -> str:
    what = type(node).__name__
    line = getattr(node, "lineno", None)
    return f"{what} (line {line})" if line else what


# Bodies that are frames of their own in Jinja2's generated code, with the
# part of the node that the frame around them evaluates.
_FRAME_BODIES = (nodes.For, nodes.With, nodes.Macro, nodes.CallBlock, nodes.FilterBlock)


def _frames(node: Any) -> Any:
    """Each frame in `node` (a template), as (node, its statements)."""
    if isinstance(node, nodes.Template):
        yield node, node.body
    for child in node.find_all((*_FRAME_BODIES, nodes.Block, nodes.AssignBlock, nodes.Scope)):
        yield child, child.body


# The fields of a node that Jinja2 runs in a frame of their own.
_INNER_FIELDS = {
    nodes.For: ("target", "body", "else_", "test"),
    nodes.With: ("targets", "body"),
    nodes.Macro: ("args", "defaults", "body"),
    nodes.CallBlock: ("args", "defaults", "body"),
    nodes.FilterBlock: ("body",),
    nodes.AssignBlock: ("body",),
    nodes.Block: ("body",),
    nodes.Scope: ("body",),  # {% autoescape %}
}


def _split_frames(node: Any, own: List[Any], inner: List[Any]) -> None:
    """The nodes of `node` in its own frame (into `own`), and the bodies it
    runs in frames of their own (into `inner`; blocks excepted, which read
    the context rather than the frame)."""
    own.append(node)
    skip = _INNER_FIELDS.get(type(node), ())
    for field, value in node.iter_fields():
        parts = value if isinstance(value, list) else [value]
        for part in parts:
            if not isinstance(part, nodes.Node):
                continue
            if field in skip:
                if not isinstance(node, nodes.Block):
                    inner.append(part)
            else:
                _split_frames(part, own, inner)


def _stored_by(node: Any) -> Tuple[str, ...]:
    """The names `node` itself sets in its frame."""
    if isinstance(node, nodes.Name):
        return (node.name,) if node.ctx == "store" else ()
    if isinstance(node, nodes.Import):
        return (node.target,)
    if isinstance(node, nodes.FromImport):
        return tuple(n if isinstance(n, str) else n[-1] for n in node.names)
    return ()


def read_before_set(template: Any) -> Any:
    """A name that some frame of `template` sets before anything in the
    frame itself reads it, which Jinja2 therefore starts as missing, read
    by a loop, with or call body that stands before the set (or in the
    statement holding it), or by a macro called there: there it is
    undefined in Jinja2, where markup reads the value around. None when
    there is none."""
    from jinja2.idtracking import VAR_LOAD_UNDEFINED, Symbols

    for frame, statements in _frames(template):
        symbols = Symbols()
        if isinstance(frame, nodes.For):
            symbols.analyze_node(frame, for_branch="body")
        else:
            symbols.analyze_node(frame)
        starts_missing = {
            name
            for name, ref in symbols.refs.items()
            if symbols.loads.get(ref) == (VAR_LOAD_UNDEFINED, None)
        }
        if not starts_missing:
            continue
        # each statement's reads in frames of its own, calls and sets, once
        seen = []
        for statement in statements:
            own: List[Any] = []
            inner: List[Any] = []
            _split_frames(statement, own, inner)
            reads = {
                n.name for n in _walk_all(inner) if isinstance(n, nodes.Name) and n.ctx == "load"
            }
            calls = {
                n.node.name
                for n in _walk_all([statement])
                if isinstance(n, nodes.Call) and isinstance(n.node, nodes.Name)
            }
            stores = {name for n in own for name in _stored_by(n)}
            seen.append((statement, reads, calls, stores))
        for name in starts_missing:
            readers = set()  # macros defined here whose bodies read it: read where called
            for statement, reads, calls, stores in seen:
                if isinstance(statement, nodes.Macro):
                    if statement.name == name:
                        break  # defined: set
                    if name in reads:
                        readers.add(statement.name)
                    continue
                if name in reads or calls & readers:
                    return name
                if name in stores:
                    break
    return None


def macro_under_if(node: Any, under_if: bool = False) -> bool:
    """Whether a macro is defined inside an if of its frame: Jinja2 defines
    it only where the branch runs."""
    for child in node.iter_child_nodes():
        if isinstance(child, nodes.Macro) and under_if:
            return True
        if isinstance(child, nodes.If):
            inner = True
        elif isinstance(child, (*_FRAME_BODIES, nodes.Block)):
            inner = False
        else:
            inner = under_if
        if macro_under_if(child, inner):
            return True
    return False
