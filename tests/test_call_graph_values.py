"""Functions as values where the call graph resolves them: elements at constant keys (of a local's
container or a field's), elements added by a container's methods and iterated over its views and
copies, starred and default values, nested base classes, properties read by an alias, methods of
external instances passed as arguments, and arguments bound for a later call (`functools.partial`,
`executor.submit`, `threading.Thread(target=f, args=(...))`, `atexit.register`), and the `run` that
`start()` runs on a project subclass of a thread or process class.

Each case is a module `main` and the edges `epochlint graph calls --format pycg` must print for
the call made there: the functions it calls, and none it does not.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from epochlint.cli import main

WriteTree = Callable[..., Path]

FUNCTIONS = "def func1():\n    pass\n\ndef func2():\n    pass\n\ndef func3():\n    pass\n\n"


def factory_chain(length: int, made: str) -> str:
    """A class `made` with a method `poll`, and `length` factories: `make0` returns `make1()`, ...,
    the last a new `made`."""
    factories = "".join(f"def make{i}():\n    return make{i + 1}()\n\n" for i in range(length - 1))
    last = f"def make{length - 1}():\n    return {made}()\n\n"
    return f"class {made}:\n    def poll(self):\n        pass\n\n{factories}{last}"


# A call of what a chain of factories returns.
_POLLED = "def call():\n    consumer = make0()\n    consumer.poll()\n"

# (module text after three functions func1..func3, the caller, exactly what it calls)
CASES: dict[str, tuple[str, str, set[str]]] = {
    "dict_key_is_type_sensitive": ('d = {1: func1, "1": func2}\nd[1]()\n', "main", {"main.func1"}),
    "dict_key_quoting_does_not_matter": ("d = {'a': func1, \"b\": func2}\nd[\"a\"]()\n", "main", {"main.func1"}),
    "dict_item_replaced_before_the_call": (
        'd = {"a": func1, "b": func3}\nd["a"] = func2\nd["a"]()\n',
        "main",
        {"main.func2"},
    ),
    "dict_update_replaces_the_key": ('d = {"a": func1}\nd.update({"a": func2})\nd["a"]()\n', "main", {"main.func2"}),
    "nested_dict_item": (
        'd = {"a": {"b": func1}}\nd["a"]["b"] = func2\nd["a"]["b"]()\n',
        "main",
        {"main.func2"},
    ),
    "nested_list_index": ("ls = [[func1], func2]\nls[0][0]()\n", "main", {"main.func1"}),
    "store_in_a_branch_keeps_both": (
        'd = {"a": func1}\nif input():\n    d["a"] = func2\nd["a"]()\n',
        "main",
        {"main.func1", "main.func2"},
    ),
    "unknown_key_is_any_element": ("ls = [func1, func2]\nls[int(input())]()\n", "main", {"main.func1", "main.func2"}),
    "starred_unpacking": (
        "a, *b, c = func1, func2, func3, func1\nb[0]()\nb[1]()\nc()\n",
        "main",
        {"main.func1", "main.func2", "main.func3"},
    ),
    "parameter_default": (
        "def call(f=func3):\n    f()\n\ncall()\n",
        "main.call",
        {"main.func3"},
    ),
    "class_given_as_a_parameters_default_types_the_field_it_makes": (
        "class A:\n    def m(self):\n        pass\n\n"
        "class Holder:\n    def __init__(self, factory=A):\n        self.made = factory()\n\n"
        "    def call(self):\n        self.made.m()\n\nHolder().call()\n",
        "main.Holder.call",
        {"main.A.m"},
    ),
    "nested_class_as_base": (
        "class A:\n    class B:\n        def run(self):\n            pass\n\n"
        "class C(A.B):\n    pass\n\nC().run()\n",
        "main",
        {"main.A.B.run"},
    ),
    "property_read_by_a_class_body_alias_through_a_base": (
        "class A:\n    @property\n    def value(self):\n        return 1\n\n    current = value\n\n"
        "class B(A):\n    pass\n\nb = B()\nb.current\n",
        "main",
        {"main.A.value"},
    ),
    # A decorator that returns what it is given gives back each function it decorates, not all
    # of them: else every decorated name stands for all, and a test suite grows with their square.
    "decorator_returning_its_argument": (
        "def mark(f):\n    f.marked = True\n    return f\n\n"
        "@mark\ndef func4():\n    pass\n\n@mark\ndef func5():\n    pass\n\nfunc4()\n",
        "main",
        {"main.func4"},
    ),
    "stacked_decorator_factories_returning_their_argument": (
        "def skip(reason):\n    def decorator(item):\n        return item\n    return decorator\n\n"
        "def mark(f):\n    return f\n\n"
        "@skip('slow')\n@mark\ndef func4():\n    pass\n\n@skip('flaky')\n@mark\ndef func5():\n    pass\n\nfunc5()\n",
        "main",
        {"main.func5"},
    ),
    "decorator_returning_its_argument_through_a_helper": (
        "def _id(obj):\n    return obj\n\ndef only(test):\n    return _id(test)\n\n"
        "@only\ndef func4():\n    pass\n\n@only\ndef func5():\n    pass\n\nfunc4()\n",
        "main",
        {"main.func4"},
    ),
    # A wrapper is made per decoration: the one a call runs calls the function decorated there.
    "wrapper_calls_the_function_it_was_made_for": (
        "def logged(f):\n    def wrapper(*args):\n        return f(*args)\n    return wrapper\n\n"
        "@logged\ndef func4():\n    pass\n\n@logged\ndef func5():\n    pass\n\nfunc4()\n",
        "main.logged.wrapper",
        {"main.func4"},
    ),
    "wrapper_of_stacked_decorators_calls_the_function_it_was_made_for": (
        "def logged(f):\n    def wrapper(*args):\n        return f(*args)\n    return wrapper\n\n"
        "def timed(f):\n    def timer(*args):\n        return f(*args)\n    return timer\n\n"
        "@timed\n@logged\ndef func4():\n    pass\n\n@timed\n@logged\ndef func5():\n    pass\n\nfunc5()\n",
        "main.logged.wrapper",
        {"main.func5"},
    ),
    "identity_function_gives_back_its_argument_at_each_call": (
        "def same(value):\n    return value\n\nfirst = same(func1)\nsecond = same(func2)\nfirst()\n",
        "main",
        {"main.func1"},
    ),
    "a_fields_container_filled_by_its_methods": (
        "class A:\n    def __init__(self):\n        self.handlers = {'a': func1, 'c': func3}\n\n"
        "    def register(self):\n        self.handlers['b'] = func2\n\n"
        "    def run(self):\n        self.handlers['a']()\n        self.handlers['b']()\n",
        "main.A.run",
        {"main.func1", "main.func2"},
    ),
    "appended_to_a_list": (
        "def fill():\n    ls = [func3]\n    ls.append(func1)\n    ls.insert(0, func2)\n    run(ls)\n\n"
        "def run(items):\n    for f in items:\n        f()\n",
        "main.run",
        {"main.func1", "main.func2", "main.func3"},
    ),
    "set_as_default_then_iterated": (
        'd = {"a": func1}\nd.setdefault("b", func2)\nfor f in d.values():\n    f()\n',
        "main",
        {"main.func1", "main.func2"},
    ),
    "values_of_a_dict": (
        'd = {"a": func1, "b": func2}\nfor f in d.values():\n    f()\n',
        "main",
        {"main.func1", "main.func2"},
    ),
    "a_copy_of_a_list": ("ls = [func1]\nfor f in list(ls):\n    f()\n", "main", {"main.func1"}),
    # What is added may come out of the same container (`pop` is not followed): no endless resolution.
    "element_taken_and_put_back": ("q = [func1]\nq.append(q.pop())\nq[0]()\n", "main", {"main.func1"}),
    "a_fields_list_filled_by_append": (
        "class A:\n    def __init__(self):\n        self.handlers = {'a': func1}\n        self.listeners = []\n\n"
        "    def register(self):\n        self.listeners.append(func2)\n\n"
        "    def run(self):\n        self.handlers['a']()\n        for f in self.listeners:\n            f()\n",
        "main.A.run",
        {"main.func1", "main.func2"},
    ),
    # A `functools.partial` binds its positional arguments ahead of the call's own.
    "partial_binds_ahead_of_the_call": (
        "import functools\n\ndef call(tag, f):\n    f()\n\np = functools.partial(call, 'x')\np(func2)\n",
        "main.call",
        {"main.func2"},
    ),
    "partial_of_a_partial_binds_both": (
        "from functools import partial\n\ndef call(a, b, f):\n    f()\n\n"
        "p = partial(partial(call, 1), 2)\np(func3)\n",
        "main.call",
        {"main.func3"},
    ),
    "partial_binds_the_function_it_wraps": (
        "from functools import partial\n\ndef call(f, tag):\n    f()\n\np = partial(call, func1)\np('x')\n",
        "main.call",
        {"main.func1"},
    ),
    "partial_of_a_class_kept_in_a_field_constructs_it": (
        "from functools import partial\n\nclass A:\n    def __init__(self, owner, f):\n        owner.notify()\n"
        "        f()\n\nclass AOwner:\n    def __init__(self):\n        self.make = partial(A, self)\n\n"
        "    def notify(self):\n        pass\n\n    def run(self):\n        self.make(func2)\n",
        "main.A.__init__",
        {"main.AOwner.notify", "main.func2"},
    ),
    "partial_of_what_a_star_hides_is_not_followed": (
        "from functools import partial\n\nparts = (func1, 1)\np = partial(*parts)\np()\n",
        "main",
        set(),
    ),
    # A class held as a value constructs it where called: the field given its instance holds one.
    "class_kept_in_a_field_is_a_factory": (
        "class A:\n    def run(self):\n        pass\n\nclass Owner:\n    def __init__(self):\n"
        "        self.make = A\n        self.made = self.make()\n\n    def go(self):\n        self.made.run()\n",
        "main.Owner.go",
        {"main.A.run"},
    ),
    "class_attribute_naming_a_class_is_a_factory": (
        "class A:\n    def run(self):\n        pass\n\nclass Owner:\n    factory = A\n\n    def __init__(self):\n"
        "        self.made = self.factory()\n\n    def go(self):\n        self.made.run()\n",
        "main.Owner.go",
        {"main.A.run"},
    ),
    # A hand-off that forwards its further arguments binds them to the function it is given.
    "executor_submit_forwards_its_arguments": (
        "from concurrent.futures import ThreadPoolExecutor\n\ndef call(tag, f):\n    f()\n\n"
        "ThreadPoolExecutor().submit(call, 'x', func2)\n",
        "main.call",
        {"main.func2"},
    ),
    "call_later_forwards_what_follows_the_callback": (
        "import asyncio\n\ndef call(f):\n    f()\n\nasyncio.get_event_loop().call_later(1, call, func3)\n",
        "main.call",
        {"main.func3"},
    ),
    "a_hand_off_of_the_projects_own_forwards_nothing": (
        "class Pool:\n    def submit(self, fn, job):\n        pass\n\ndef call(f):\n    f()\n\n"
        "Pool().submit(call, func1)\n",
        "main.call",
        set(),
    ),
    # A thread, a timer or a process starts its function with the elements of its literal
    # `args` tuple by position and of its `kwargs` dict by name.
    "thread_started_with_a_tuple_of_arguments": (
        "import threading\n\ndef call(tag, f):\n    f()\n\n"
        "threading.Thread(target=call, args=('x', func1), daemon=True).start()\n",
        "main.call",
        {"main.func1"},
    ),
    "timer_started_with_a_dict_of_arguments": (
        "from threading import Timer\n\ndef call(tag, f=None):\n    f()\n\n"
        "Timer(1.0, call, ('x',), {'f': func2}).start()\n",
        "main.call",
        {"main.func2"},
    ),
    "process_binds_each_element_to_its_own_parameter": (
        "import multiprocessing\n\ndef call(f, tag):\n    tag()\n\n"
        "multiprocessing.Process(target=call, args=(func3, 'x')).start()\n",
        "main.call",
        set(),
    ),
    "exit_handler_registered_with_arguments": (
        "import atexit\n\ndef call(tag, f):\n    f()\n\natexit.register(call, 'x', f=func1)\n",
        "main.call",
        {"main.func1"},
    ),
    "finalizer_given_arguments": (
        "import weakref\n\nclass A:\n    pass\n\ndef call(tag, f):\n    f()\n\n"
        "weakref.finalize(A(), call, 'x', func2)\n",
        "main.call",
        {"main.func2"},
    ),
    # `start()` on a project subclass of a thread or process class runs its `run` in a thread or
    # process of its own.
    "thread_subclass_started_runs_its_run": (
        "import threading\n\nclass A(threading.Thread):\n    def run(self):\n        func1()\n\n"
        "worker = A()\nworker.start()\n",
        "main",
        {"main.A.run"},
    ),
    "process_subclass_started_in_a_chain_runs_its_run": (
        "from multiprocessing import Process\n\nclass A(Process):\n    def run(self):\n        pass\n\n"
        "A().start()\n",
        "main",
        {"main.A.run"},
    ),
    "thread_subclass_starting_itself_through_super_runs_its_run": (
        "import threading\n\nclass A(threading.Thread):\n    def start(self):\n        super().start()\n\n"
        "    def run(self):\n        pass\n",
        "main.A.start",
        {"main.A.run"},
    ),
    "thread_subclass_with_a_start_of_its_own_runs_that_start": (
        "import threading\n\nclass A(threading.Thread):\n    def start(self):\n        pass\n\n"
        "    def run(self):\n        pass\n\nA().start()\n",
        "main",
        {"main.A.start"},
    ),
    "start_of_a_class_that_is_no_thread_runs_nothing": (
        "class A:\n    def run(self):\n        pass\n\nA().start()\n",
        "main",
        set(),
    ),
    "external_method_passed_as_argument": (
        "from ext import Client\n\ndef call(f):\n    f()\n\nclient = Client()\ncall(client.close)\n",
        "main.call",
        {"ext.Client.close"},
    ),
    # An empty literal container holds what its methods add later.
    "empty_list_filled_by_append": (
        "class A:\n    def run(self):\n        pass\n\n"
        "def call():\n    objs = []\n    objs.append(A())\n    for obj in objs:\n        obj.run()\n",
        "main.call",
        {"main.A.run"},
    ),
    "module_registry_filled_by_append": (
        "HANDLERS = []\nHANDLERS.append(func1)\n\ndef dispatch():\n    for handler in HANDLERS:\n        handler()\n",
        "main.dispatch",
        {"main.func1"},
    ),
    # The second name of a loop over a named container's items holds its elements.
    "local_dict_items": (
        'def call():\n    handlers = {}\n    handlers["a"] = func1\n'
        "    for name, handler in handlers.items():\n        handler()\n",
        "main.call",
        {"main.func1"},
    ),
    "copy_of_a_local_dicts_items": (
        'def call():\n    handlers = {"a": func2}\n'
        "    for name, handler in list(handlers.items()):\n        handler()\n",
        "main.call",
        {"main.func2"},
    ),
    # A copy of a container field's view iterates as the view does.
    "copy_of_a_container_fields_items": (
        "class A:\n    def run(self):\n        pass\n\n"
        "class Sub:\n    def __init__(self):\n        self.states = {}\n\n"
        "    def add(self, key):\n        self.states[key] = A()\n\n"
        "    def each(self):\n        for key, state in list(self.states.items()):\n            state.run()\n",
        "main.Sub.each",
        {"main.A.run"},
    ),
    # A comprehension's variable is its own scope's (Python 3): the loop's `f` is another name.
    "comprehension_variable_is_not_the_loops": (
        "def call():\n    fs = [func1]\n    gs = [func2]\n    names = [f for f in fs]\n    for f in gs:\n        f()\n",
        "main.call",
        {"main.func2"},
    ),
    "module_comprehension_variable_is_not_the_loops": (
        "fs = [func1]\ngs = [func2]\nnames = [f for f in fs]\nfor f in gs:\n    f()\n",
        "main",
        {"main.func2"},
    ),
    "comprehension_variable_called_in_it": (
        "def call():\n    fs = [func1]\n    f = func2\n    return [f() for f in fs]\n",
        "main.call",
        {"main.func1"},
    ),
    # Its first iterable is read where the comprehension stands, before its variable exists.
    "comprehension_iterable_named_like_its_variable": (
        "g = [func1]\n\ndef call():\n    return [g() for g in g]\n",
        "main.call",
        {"main.func1"},
    ),
    "inner_comprehension_clause_iterates_the_outer_variable": (
        "class A:\n    def __init__(self):\n        self.handlers = [func1]\n\n"
        "class B:\n    def __init__(self):\n        self.handlers = [func2]\n\n"
        "def call():\n    a = B()\n    objs = [A()]\n    return [f() for a in objs for f in a.handlers]\n",
        "main.call",
        {"main.A.__init__", "main.func1"},
    ),
    # An element of a container filled with instances of one class is of that class: what a call
    # on it returns is typed too (here by the method's annotation alone).
    "result_of_a_call_on_an_appended_element": (
        "class A:\n    def run(self):\n        pass\n\n"
        "class Matcher:\n    def match(self, cache) -> A:\n        return cache.get(self)\n\n"
        "class Validator:\n    def __init__(self):\n        self.matchers = []\n\n"
        "    def add(self):\n        self.matchers.append(Matcher())\n\n"
        "    def validate(self, cache):\n        for matcher in self.matchers:\n"
        "            found = matcher.match(cache)\n            found.run()\n",
        "main.Validator.validate",
        {"main.A.run"},
    ),
    # Indexed, not looped over: an element of a list field of no one type, filled by `append`.
    "result_of_a_call_on_an_indexed_appended_element": (
        "class A:\n    def run(self):\n        pass\n\n"
        "class Matcher:\n    def match(self, cache) -> A:\n        return cache.get(self)\n\n"
        "class Validator:\n    def __init__(self):\n        self.matchers = []\n\n"
        "    def add(self):\n        self.matchers.append(Matcher())\n\n"
        "    def validate(self, cache):\n        found = self.matchers[0].match(cache)\n        found.run()\n",
        "main.Validator.validate",
        {"main.A.run"},
    ),
    # One element taken by a method or builtin from a container the value flow follows.
    "result_of_a_call_on_an_element_got_from_a_local_dict": (
        "class A:\n    def run(self):\n        pass\n\n"
        "class Matcher:\n    def match(self) -> A:\n        return A()\n\n"
        "def go(names):\n    by_name = {}\n    for name in names:\n        by_name[name] = Matcher()\n"
        "    found = by_name.get(names[0]).match()\n    found.run()\n",
        "main.go",
        {"main.A.run"},
    ),
    "result_of_a_call_on_an_element_popped_from_a_list_field": (
        "class A:\n    def run(self):\n        pass\n\n"
        "class Matcher:\n    def match(self) -> A:\n        return A()\n\n"
        "class Validator:\n    def __init__(self):\n        self.matchers = []\n\n"
        "    def add(self):\n        self.matchers.append(Matcher())\n\n"
        "    def validate(self):\n        found = self.matchers.pop().match()\n        found.run()\n",
        "main.Validator.validate",
        {"main.A.run"},
    ),
    "next_of_a_generator": (
        "def each():\n    yield func2\n\ndef go():\n    handler = next(each())\n    handler()\n",
        "main.go",
        {"main.func2"},
    ),
    # A parameter's container holds what its callers put in besides what is stored here, and the
    # element read is the one before the store: the wrapper's `inner` is not a wrapper.
    "element_of_a_parameters_container_is_not_typed_by_a_store_into_it": (
        "class A:\n    def __init__(self, inner):\n        self.inner = inner\n\n"
        "    def run(self):\n        self.inner.run()\n\n"
        'def wrap(conf):\n    conf["x"] = A(conf["x"])\n',
        "main.A.run",
        set(),
    ),
    # What a generator yields: calls' values, and through `yield from`, the elements of a container
    # or what another generator yields.
    "generator_yields_what_a_call_returns": (
        "def pick():\n    return func1\n\ndef each():\n    yield pick()\n\n"
        "def call():\n    for f in each():\n        f()\n",
        "main.call",
        {"main.func1"},
    ),
    "generator_yields_from_a_list": (
        "def each():\n    handlers = [func1, func2]\n    yield from handlers\n\n"
        "def call():\n    for f in each():\n        f()\n",
        "main.call",
        {"main.func1", "main.func2"},
    ),
    "generator_yields_from_another": (
        "def inner():\n    yield func3\n\ndef outer():\n    yield from inner()\n\n"
        "def call():\n    for f in outer():\n        f()\n",
        "main.call",
        {"main.func3"},
    ),
    # An attribute declared in the class body, without a value: its annotation types the field.
    "attribute_declared_in_the_class_body": (
        "class A:\n    def run(self):\n        pass\n\n"
        "class Holder:\n    inner: A\n\n    def __init__(self, inner):\n        self.inner = inner\n\n"
        "    def go(self):\n        self.inner.run()\n",
        "main.Holder.go",
        {"main.A.run"},
    ),
    "dataclass_field_without_a_default": (
        "from dataclasses import dataclass\n\n"
        "class A:\n    def run(self):\n        pass\n\n"
        "@dataclass\nclass Holder:\n    name: str\n    inner: A\n\n"
        "def go(holder: Holder):\n    holder.inner.run()\n",
        "main.go",
        {"main.A.run"},
    ),
    # Annotation forms that stand for their one class, nested in any order.
    "parameter_annotated_as_a_union_with_none": (
        "import typing\n\nclass A:\n    def run(self):\n        pass\n\n"
        "def go(a: typing.Union[A, None]):\n    a.run()\n",
        "main.go",
        {"main.A.run"},
    ),
    "attribute_declared_final_and_optional": (
        "from typing import Final, Optional\n\nclass A:\n    def run(self):\n        pass\n\n"
        "class Holder:\n    inner: Final[Optional[A]]\n\n    def go(self):\n        self.inner.run()\n",
        "main.Holder.go",
        {"main.A.run"},
    ),
    "parameter_annotated_with_metadata": (
        "from typing import Annotated\n\nclass A:\n    def run(self):\n        pass\n\n"
        'def go(a: Annotated[A, "the partition"]):\n    a.run()\n',
        "main.go",
        {"main.A.run"},
    ),
    # Iterating an instance of a project class: what its `__iter__` yields, or what iterating the
    # iterator it returns gives.
    "loop_over_an_object_whose_iter_is_a_generator": (
        "class Handlers:\n    def __init__(self):\n        self.items = []\n        self.items.append(func1)\n\n"
        "    def __iter__(self):\n        yield from self.items\n\n"
        "def call():\n    for f in Handlers():\n        f()\n",
        "main.call",
        {"main.func1"},
    ),
    "loop_over_an_object_whose_iter_returns_an_iterator": (
        "class Handlers:\n    def __init__(self):\n        self.items = [func2]\n\n"
        "    def __iter__(self):\n        return iter(self.items)\n\n"
        "def call():\n    for f in Handlers():\n        f()\n",
        "main.call",
        {"main.func2"},
    ),
    "yield_from_an_object_whose_iter_is_a_generator": (
        "class Handlers:\n    def __iter__(self):\n        yield func3\n\n"
        "def each():\n    yield from Handlers()\n\n"
        "def call():\n    for f in each():\n        f()\n",
        "main.call",
        {"main.func3"},
    ),
    "value_fed_back_through_a_chain_of_calls": (
        "class AStart:\n    def advance(self):\n        return ANext()\n\n"
        "class ANext:\n    def advance(self):\n        return ALast()\n\n"
        "class ALast:\n    def advance(self):\n        return None\n\n"
        "def call():\n    node = AStart()\n    while node:\n        node = node.advance()\n",
        "main.call",
        {"main.AStart.advance", "main.ANext.advance", "main.ALast.advance"},
    ),
    "external_value_fed_back_through_its_own_method": (
        "from ext import start\n\ndef call():\n    when = start()\n    while when:\n        when = when.step()\n",
        "main.call",
        {"ext.start", "ext.start.step"},
    ),
    "partial_of_the_name_it_is_bound_to": (
        "from functools import partial\n\ndef call(migrate=func1):\n"
        "    migrate = partial(migrate, 1)\n    migrate(2)\n",
        "main.call",
        {"main.func1"},
    ),
    "instance_returned_through_eight_factories": (
        factory_chain(8, "AConsumer") + _POLLED,
        "main.call",
        {"main.AConsumer.poll"},
    ),
    # Past the depth limit: what was cut short is resolved from the top, then the call again.
    "instance_returned_through_forty_factories": (
        factory_chain(40, "AConsumer") + _POLLED,
        "main.call",
        {"main.AConsumer.poll"},
    ),
    "generator_yields_from_itself": (
        "def walk(depth):\n    yield func2\n    if depth:\n        yield from walk(depth - 1)\n\n"
        "def call():\n    for f in walk(3):\n        f()\n",
        "main.call",
        {"main.func2"},
    ),
}


def pycg_graph(root: Path) -> dict[str, list[str]]:
    out = io.StringIO()
    with contextlib.chdir(root), contextlib.redirect_stdout(out):
        status = main(["graph", "calls", ".", "--format", "pycg"])
    assert status == 0
    graph: dict[str, list[str]] = json.loads(out.getvalue())
    return graph


@pytest.mark.parametrize("case", sorted(CASES))
def test_call_resolves_to_exactly_the_functions_held_there(write_tree: WriteTree, case: str) -> None:
    code, caller, expected = CASES[case]
    graph = pycg_graph(write_tree({"main.py": FUNCTIONS + code}))
    called = {callee for callee in graph[caller] if callee.startswith(("main.func", "main.A", "ext."))}
    assert called == expected


def test_a_method_of_a_field_that_may_hold_none_is_no_external_call(write_tree: WriteTree) -> None:
    code = (
        "from ext import connect\n\n"
        "class Holder:\n    def __init__(self):\n        self.conn = connect()\n\n"
        "    def close(self):\n        self.conn = None\n\n"
        "    def send(self):\n        self.conn.send()\n"
    )
    graph = pycg_graph(write_tree({"main.py": code}))
    # What `connect()` returns is not known here: the call is no edge, and no `None.send` either.
    assert graph["main.Holder.send"] == []
    assert "None.send" not in graph


def test_a_call_resolves_the_same_however_deep_the_resolution_that_first_met_it(write_tree: WriteTree) -> None:
    # Resolving `consumer` in `first` follows the returns of all seventeen factories, past the depth
    # limit; the calls it reached there were answered as cut short, and `make5`'s call of `make6`,
    # resolved from that answer, was missing from the graph although nothing about it is deep.
    code = factory_chain(17, "Consumer") + "def first():\n    consumer = make0()\n    consumer.poll()\n"
    graph = pycg_graph(write_tree({"main.py": code}))
    assert [graph[f"main.make{i}"] for i in range(16)] == [[f"main.make{i + 1}"] for i in range(16)]


def test_a_call_resolves_the_same_whichever_function_of_a_cycle_was_resolved_first(write_tree: WriteTree) -> None:
    # `a_make` and `b_make` return each other's results. Resolving `a_make` first met `b_make` with
    # `a_make` unfinished, and `b_make` kept the empty answer it saw then: `d_second` could not
    # tell that its consumer is a `Consumer`, though `c_first` could.
    code = (
        "class Consumer:\n    def poll(self):\n        pass\n\n"
        "def a_make(retry):\n    if retry:\n        return b_make(retry - 1)\n    return Consumer()\n\n"
        "def b_make(retry):\n    return a_make(retry)\n\n"
        "def c_first():\n    consumer = a_make(2)\n    consumer.poll()\n\n"
        "def d_second():\n    consumer = b_make(2)\n    consumer.poll()\n"
    )
    graph = pycg_graph(write_tree({"main.py": code}))
    assert "main.Consumer.poll" in graph["main.c_first"] and "main.Consumer.poll" in graph["main.d_second"]


@pytest.mark.parametrize("callers", [("a_whole", "b_half"), ("b_whole", "a_half")])
def test_a_chain_longer_than_the_depth_limit_resolves_whichever_part_was_asked_first(
    write_tree: WriteTree, callers: tuple[str, str]
) -> None:
    # Functions are resolved in the order of their names: the whole chain of forty factories first
    # (cut short at the depth limit, where nothing of it was known yet), or its second half first
    # (then the whole chain found that half already resolved, and went through).
    whole, half = callers
    code = (
        factory_chain(40, "Consumer")
        + f"def {whole}():\n    consumer = make0()\n    consumer.poll()\n\n"
        + f"def {half}():\n    consumer = make20()\n    consumer.poll()\n"
    )
    graph = pycg_graph(write_tree({"main.py": code}))
    assert "main.Consumer.poll" in graph[f"main.{whole}"] and "main.Consumer.poll" in graph[f"main.{half}"]
