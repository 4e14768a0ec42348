"""A read-only traversal of libcst trees, in libcst's own order, without rebuilding the tree.

libcst's `node.visit(visitor)` rebuilds every node it passes through (each child is visited by
constructing a new, validated parent), even for a read-only CSTVisitor: that costs more than the
parse. `FastVisitor.walk` calls the same `visit_<Node>`/`leave_<Node>` methods in the same order,
reading children straight from the node's fields, and never enters the fields that can hold only
whitespace, comments and punctuation. `node.visit(visitor)` still works on a FastVisitor.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable
from typing import Any

import libcst as cst

__all__ = ["TRIVIA", "FastVisitor", "child_nodes"]

# Nodes whose subtrees hold no statement and no expression.
TRIVIA: tuple[type[cst.CSTNode], ...] = (
    cst.BaseParenthesizableWhitespace,
    cst.EmptyLine,
    cst.TrailingWhitespace,
    cst.Newline,
    cst.Comment,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.Comma,
    cst.Semicolon,
    cst.Colon,
    cst.Dot,
    cst.AssignEqual,
    cst.Asynchronous,
    cst.ImportStar,
    cst.BaseBinaryOp,
    cst.BaseBooleanOp,
    cst.BaseCompOp,
    cst.BaseUnaryOp,
    cst.BaseAugOp,
)

_CHILD_FIELDS: dict[type[cst.CSTNode], tuple[str, ...]] = {}

Handler = Callable[[Any, Any], Any]
_HANDLERS: dict[tuple[type, type], tuple[Handler | None, Handler | None]] = {}


def _child_fields(cls: type[cst.CSTNode]) -> tuple[str, ...]:
    """The node's fields that can hold more than trivia, in the order libcst visits them.

    `_visit_and_replace_children` rebuilds the node with keyword arguments in visiting order;
    their names are one constant tuple of the method's code. (A test checks the result against
    libcst's `children` on real code.)
    """
    code = cls._visit_and_replace_children.__code__
    fields = {f.name for f in dataclasses.fields(cls)}
    candidates = [
        const
        for const in code.co_consts
        if isinstance(const, tuple) and const and all(isinstance(n, str) and n in fields for n in const)
    ]
    order = max(candidates, key=len) if candidates else ()
    hints = typing.get_type_hints(cls)
    return tuple(name for name in order if _may_hold_code(hints[name]))


def _may_hold_code(annotation: object) -> bool:
    """Whether a field of this type can hold a node that is not trivia."""
    if isinstance(annotation, type):
        return issubclass(annotation, cst.CSTNode) and not issubclass(annotation, TRIVIA)
    return any(_may_hold_code(arg) for arg in typing.get_args(annotation))


def child_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The node's children but trivia, in libcst's visiting order (as `node.children` gives
    them, without its cost)."""
    cls = type(node)
    names = _CHILD_FIELDS.get(cls)
    if names is None:
        names = _CHILD_FIELDS[cls] = _child_fields(cls)
    found: list[cst.CSTNode] = []
    for name in names:
        value = getattr(node, name)
        if isinstance(value, (tuple, list)):
            found += [item for item in value if _is_node(item)]
        elif _is_node(value):
            found.append(value)
    return found


_IS_NODE: dict[type, bool] = {}


def _is_node(value: object) -> bool:
    """Whether `value` is a node but trivia, by a lookup per type: CSTNode is an abstract class,
    whose `isinstance` runs Python code, and the walk asks about every field of every node. Trivia
    is tested too, for a field that holds code or trivia (`from m import *`'s names)."""
    kind = type(value)
    found = _IS_NODE.get(kind)
    if found is None:
        found = _IS_NODE[kind] = issubclass(kind, cst.CSTNode) and not issubclass(kind, TRIVIA)
    return found


def _handlers(visitor_cls: type, node_cls: type) -> tuple[Handler | None, Handler | None]:
    key = (visitor_cls, node_cls)
    found = _HANDLERS.get(key)
    if found is None:
        name = node_cls.__name__
        found = _HANDLERS[key] = (_handler(visitor_cls, f"visit_{name}"), _handler(visitor_cls, f"leave_{name}"))
    return found


def _handler(visitor_cls: type, name: str) -> Handler | None:
    """The visitor's method `name`; None where it has only CSTVisitor's stub, which does nothing
    (libcst marks those `_is_no_op`, and its batched visitor leaves them out too): two calls saved
    at most nodes of every walk."""
    handler = getattr(visitor_cls, name, None)
    return None if getattr(handler, "_is_no_op", False) else handler


class FastVisitor(cst.CSTVisitor):
    """A CSTVisitor whose `walk(node)` visits as `node.visit(self)` does, minus the rebuilding
    and the trivia.

    As in libcst, a `visit_<Node>` that returns False skips the node's children. The
    `visit_<Node>_<field>` attribute hooks are not called, and trivia nodes are never visited.
    """

    def walk(self, node: cst.CSTNode) -> None:
        # The lookup of `_handlers` written out: the walk does it at every node.
        visit, leave = _HANDLERS.get((type(self), type(node))) or _handlers(type(self), type(node))
        if visit is None or visit(self, node) is not False:
            for child in child_nodes(node):
                self.walk(child)
        if leave is not None:
            leave(self, node)
