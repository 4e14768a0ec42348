"""Exports of the program's graphs: the call graph (JSON node-link, Graphviz dot, PyCG's format) and
the lock-order graph with the guard of every epoch field (JSON, dot)."""

from __future__ import annotations

import json
from typing import Any, TextIO

from epochlint.frontend.facts import Pos
from epochlint.program.callgraph import HANDOFF, CallSite
from epochlint.program.lockorder import OrderSite
from epochlint.program.model import Program
from epochlint.program.symbols import FieldId


def write_call_graph(program: Program, fmt: str, stream: TextIO) -> None:
    graph = program.calls.graph
    names = {fid: program.display_function(fid) for fid in graph.nodes}
    if fmt == "pycg":
        stream.write(json.dumps(_pycg_mapping(program), indent=2, sort_keys=True) + "\n")
        return
    # A wrapper's clones (one per decoration) are the wrapper here: each edge and node once.
    edges = [
        {"caller": caller, "callee": callee, "kind": kind, "path": path, "line": line, "column": column}
        for caller, callee, line, column, kind, path in sorted(
            {
                (names[caller], names[callee], site.pos[0], site.pos[1], site.kind, program.rel_path(caller))
                for caller, callee, data in graph.edges(data=True)
                for site in data["sites"]
            }
        )
    ]
    if fmt == "json":
        nodes = {
            names[fid]: {"id": names[fid], "path": program.rel_path(fid), "line": program.symbols.function(fid).pos[0]}
            for fid in graph.nodes
        }
        listed = {"nodes": [nodes[name] for name in sorted(nodes)], "edges": edges}
        stream.write(json.dumps(listed, indent=2, sort_keys=True) + "\n")
        return
    stream.write("digraph calls {\n")
    for fid in sorted(set(names.values())):
        stream.write(f"  {json.dumps(fid)};\n")
    for edge in edges:
        style = ' [style=dashed, label="handoff"]' if edge["kind"] == "handoff" else ""
        stream.write(f"  {json.dumps(edge['caller'])} -> {json.dumps(edge['callee'])}{style};\n")
    stream.write("}\n")


def _pycg_mapping(program: Program) -> dict[str, list[str]]:
    """The call graph in PyCG's format: each function's callees, as PyCG names them, with the
    imported functions and classes outside the program it calls (as nodes without callees).

    A function passed as an argument to a function of the program is called where that function
    calls it, so that hand-off is no call of its own here (one to `submit()` or `map()` is).
    """
    graph = program.calls.graph
    names = _pycg_names(program)
    mapping: dict[str, set[str]] = {}
    for fid in graph.nodes:
        callees = mapping.setdefault(names[fid], set())
        for callee in graph.successors(fid):
            if not all(_passed_to_own_function(program, site) for site in graph.edges[fid, callee]["sites"]):
                callees.add(names[callee])
        callees.update(program.calls.external_calls.get(fid, ()))
    for name in set().union(*mapping.values()) - set(mapping):
        mapping[name] = set()
    return {name: sorted(callees) for name, callees in sorted(mapping.items())}


def _passed_to_own_function(program: Program, site: CallSite) -> bool:
    if not (site.via_argument and site.kind == HANDOFF):
        return False
    made = program.calls.sites_of_call.get((site.caller, site.call_id), [])
    return any(not other.via_argument for other in made)


def _pycg_names(program: Program) -> dict[str, str]:
    """PyCG's names: code in a class body is the class's; lambdas are numbered in the order they
    appear in their scope (`main.<lambda1>`)."""
    names = {fid: program.display_function(fid).removesuffix(".<body>") for fid in program.calls.graph.nodes}
    lambdas: dict[str, list[str]] = {}
    for fid in sorted(names, key=lambda f: program.symbols.function(f).pos):
        function = program.symbols.function(fid)
        if function.kind == "lambda":
            lambdas.setdefault(function.qualname.rpartition(".")[0], []).append(fid)
    for fids in lambdas.values():
        for number, fid in enumerate(fids, start=1):
            names[fid] = f"{names[fid].rpartition('.')[0]}.<lambda{number}>"
    return names


def write_lock_graph(program: Program, fmt: str, stream: TextIO) -> None:
    """The lock-order graph (locks with their kind, edges with every acquisition site and its
    chain of calls) and the guard of every epoch field."""
    order = program.lock_order
    guards = {field: sorted(program.guards(field)) for field in program.epoch_fields()}
    locks = set(order.graph.nodes).union(*guards.values())
    lock_list = [
        {"id": _qualified(lock), "name": lock.display(), "kind": program.locks.kind(lock)}
        for lock in locks
    ]
    lock_list.sort(key=lambda lock: lock["id"])
    edges: list[dict[str, Any]] = [
        {
            "from": _qualified(held),
            "to": _qualified(taken),
            "sites": sorted(
                (_order_site(program, site) for site in data["sites"]),
                key=lambda s: (s["path"], s["line"], s["column"], len(s["chain"])),
            ),
        }
        for held, taken, data in order.graph.edges(data=True)
    ]
    edges.sort(key=lambda e: (e["from"], e["to"]))
    guard_list = [
        {"field": _qualified(field), "name": field.display(), "guards": [_qualified(g) for g in locks_of]}
        for field, locks_of in sorted(guards.items())
    ]
    if fmt == "json":
        document = {"locks": lock_list, "edges": edges, "guards": guard_list}
        stream.write(json.dumps(document, indent=2, sort_keys=True) + "\n")
        return
    stream.write("digraph locks {\n")
    for lock in lock_list:
        label = f"{lock['name']}\n({lock['kind']})"
        stream.write(f"  {json.dumps(lock['id'])} [label={json.dumps(label)}];\n")
    for edge in edges:
        first = edge["sites"][0]
        label = f"{first['path']}:{first['line']}"
        stream.write(f"  {json.dumps(edge['from'])} -> {json.dumps(edge['to'])} [label={json.dumps(label)}];\n")
    for guard in guard_list:
        stream.write(f"  {json.dumps(guard['field'])} [shape=box, label={json.dumps(guard['name'])}];\n")
        for lock_id in guard["guards"]:
            stream.write(
                f"  {json.dumps(guard['field'])} -> {json.dumps(lock_id)} [style=dotted, label=\"guarded by\"];\n"
            )
    stream.write("}\n")


def _qualified(field: FieldId) -> str:
    """`module.Class.attribute`, or `module.NAME` for a global."""
    return ".".join((field.owner.replace(":", "."), *field.path))


def _order_site(program: Program, site: OrderSite) -> dict[str, object]:
    """Where the second lock is taken, where the first is held from, and the calls between."""
    return {
        **_place(program, site.inner.function, site.inner.pos),
        "held_at": _place(program, site.outer.function, site.outer.pos),
        "chain": [
            {**_place(program, call.caller, call.pos), "calls": program.display_function(call.callee)}
            for call in site.chain
        ],
    }


def _place(program: Program, fid: str, pos: Pos) -> dict[str, object]:
    return {
        "function": program.display_function(fid),
        "path": program.rel_path(fid),
        "line": pos[0],
        "column": pos[1],
    }
