"""Which Java overloads of one number of parameters a call's arguments fit, by their static types.

Java chooses an overload by the types of its arguments as written: first among the overloads they
fit with no boxing (a subtype, a wider primitive), then with boxing, then the most specific of
these. The facts carry an argument's type where its expression shows it (`Arg.static_type`) and a
parameter's declared type, both by name; this follows Java's rules only as far as these names
tell. An argument or a parameter of no known type fits, as does a type no known class rules out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple, TypeVar

# How an argument converts to a parameter's type: `EXACT` (the same type), `WIDER` (a supertype, a
# wider primitive), `UNSURE` (a type unknown or not known to differ: it may fit), `BOXED` (boxing or
# unboxing first), `NO_FIT`.
EXACT, WIDER, UNSURE, BOXED, NO_FIT = range(5)

_WIDENINGS = {
    "byte": ("short", "int", "long", "float", "double"),
    "short": ("int", "long", "float", "double"),
    "char": ("int", "long", "float", "double"),
    "int": ("long", "float", "double"),
    "long": ("float", "double"),
    "float": ("double",),
    "double": (),
    "boolean": (),
}
_BOXES = {
    "byte": "Byte", "short": "Short", "char": "Character", "int": "Integer", "long": "Long",
    "float": "Float", "double": "Double", "boolean": "Boolean",
}
_OBJECT_SUPERTYPES = ("Object", "Serializable", "Comparable")
_ARRAY_SUPERTYPES = ("Object", "Serializable", "Cloneable")


def _box_supertypes(primitive: str) -> tuple[str, ...]:
    numeric = primitive not in ("char", "boolean")
    return (*_OBJECT_SUPERTYPES, "Number") if numeric else _OBJECT_SUPERTYPES


def _closed_conversions() -> dict[str, dict[str, int]]:
    """The types whose supertypes are all known (the primitives, their boxes, `String`: final
    classes), each with how it converts to each type it fits."""
    found: dict[str, dict[str, int]] = {"String": {"String": EXACT, "CharSequence": WIDER, **dict.fromkeys(
        _OBJECT_SUPERTYPES, WIDER)}}
    for primitive, wider in _WIDENINGS.items():
        box, supertypes = _BOXES[primitive], _box_supertypes(primitive)
        unboxed = dict.fromkeys((primitive, *wider), BOXED)
        found[primitive] = {**dict.fromkeys((box, *supertypes), BOXED), **dict.fromkeys(wider, WIDER), primitive: EXACT}
        found[box] = {**unboxed, **dict.fromkeys(supertypes, WIDER), box: EXACT}
    return found


_CLOSED = _closed_conversions()
# A type variable, by the convention of its name (`T`, `E`, `K2`): it takes any reference.
_TYPE_VARIABLE = re.compile(r"[A-Z][A-Z0-9]?")


class ArgumentType(NamedTuple):
    """An argument's static type by its simple name ("" where unknown, "null" for `null`); for a
    class of the project, the simple names of its supertypes (itself among them), and whether one
    of them is a class outside the project, whose own supertypes are unknown. An array (`Msg[]`)
    tells these of its elements' class."""

    name: str
    project: bool = False
    supertypes: frozenset[str] = frozenset()
    open_ended: bool = False


class ParameterType(NamedTuple):
    """A parameter's declared type by its simple name ("" where unknown), and whether it is a
    class of the project (for an array, whether its elements' class is)."""

    name: str
    project: bool = False


_Type = TypeVar("_Type", ArgumentType, ParameterType)


def conversion(argument: ArgumentType, parameter: ParameterType) -> int:
    """How `argument` converts to `parameter` (`EXACT`, `WIDER`, `UNSURE`, `BOXED` or `NO_FIT`)."""
    if not argument.name or not parameter.name:
        return UNSURE
    if argument.name == parameter.name:
        return EXACT
    variable = _TYPE_VARIABLE.fullmatch(parameter.name) is not None and not parameter.project
    if _is_array(argument.name) or _is_array(parameter.name):
        return _array_conversion(argument, parameter, variable)
    closed = _CLOSED.get(argument.name)
    if closed is not None and not variable:
        return closed.get(parameter.name, NO_FIT)
    if closed is not None:
        return BOXED if argument.name in _WIDENINGS else WIDER
    if argument.name == "null":
        return NO_FIT if parameter.name in _WIDENINGS else WIDER
    if variable or parameter.name == "Object" or parameter.name in argument.supertypes:
        return WIDER
    if parameter.name in _CLOSED or parameter.project:
        return NO_FIT
    # A library's type: only a project class whose supertypes are all known is known not to be one.
    return NO_FIT if argument.project and not argument.open_ended else UNSURE


def _is_array(name: str) -> bool:
    return name.endswith("[]")


def _array_conversion(argument: ArgumentType, parameter: ParameterType, variable: bool) -> int:
    """How an argument converts to a parameter, either an array (`long[]`, `Msg[]`) and of another
    type: an array is an `Object`, `Cloneable` and `Serializable` only, and no other type is an
    array but `null`; an array of a primitive is no other array, one of references is an array of
    their supertypes (JLS 4.10.3: `Integer[]` is a `Number[]`, `Msg[]` an `Object[]` and a `T[]`),
    unsure where these are not known."""
    if not _is_array(parameter.name):
        return WIDER if variable or parameter.name in _ARRAY_SUPERTYPES else NO_FIT
    if not _is_array(argument.name):
        return WIDER if argument.name == "null" else NO_FIT
    elements = (_element(argument), _element(parameter))
    if any(element.name in _WIDENINGS for element in elements):
        return NO_FIT  # the same type is `EXACT`, a primitive's array no other one
    return conversion(*elements)


def _element(array: _Type) -> _Type:
    """The type of an array's elements: its name one `[]` shorter, what it tells of their class."""
    return array._replace(name=array.name.removesuffix("[]"))


class Overload(NamedTuple):
    """An overload a call may run: its name, how each argument converts to its parameter, and the
    type of that parameter, as an argument's (to compare it with another overload's) and as a
    parameter's."""

    name: str
    levels: Sequence[int]
    params: Sequence[tuple[ArgumentType, ParameterType]]


def most_specific(candidates: Sequence[Overload]) -> list[str]:
    """Of overloads, those Java may choose: the ones all arguments fit, with no boxing where some
    take none, less those another one of these is more specific than; in the order given."""
    fitting = [overload for overload in candidates if NO_FIT not in overload.levels]
    phase = [overload for overload in fitting if BOXED not in overload.levels] or fitting
    return [overload.name for overload in phase if not any(_more_specific(other, overload) for other in phase)]


def _more_specific(narrower: Overload, wider: Overload) -> bool:
    """Whether Java chooses `narrower` before `wider`, both fitting the arguments: the arguments
    surely fit `narrower`, and each of its parameters surely converts to `wider`'s, not all the
    other way round (`f(Integer)` before `f(Number)` and `f(Object)`). An argument or parameter
    whose type is unknown decides nothing: `wider` may be the only one it fits."""
    if UNSURE in narrower.levels:
        return False
    down = [conversion(mine, theirs) for (mine, _), (_, theirs) in zip(narrower.params, wider.params)]
    up = [conversion(theirs, mine) for (theirs, _), (_, mine) in zip(wider.params, narrower.params)]
    return all(level in (EXACT, WIDER) for level in down) and not all(level in (EXACT, WIDER) for level in up)
