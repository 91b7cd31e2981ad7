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
