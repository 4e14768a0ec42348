"""Exports of the program's graphs: JSON (node-link), Graphviz dot, and PyCG's call-graph format."""

from __future__ import annotations

import json
from typing import TextIO

from linter.program.model import Program


def write_call_graph(program: Program, fmt: str, stream: TextIO) -> None:
    graph = program.calls.graph
    names = {fid: program.display_function(fid) for fid in graph.nodes}
    if fmt == "pycg":
        # PyCG names code in a class body by the class; merge it into the class's entry.
        pycg_names = {fid: name.removesuffix(".<body>") for fid, name in names.items()}
        mapping: dict[str, set[str]] = {}
        for fid in graph.nodes:
            callees = mapping.setdefault(pycg_names[fid], set())
            callees.update(pycg_names[callee] for callee in graph.successors(fid))
        mapping_sorted = {name: sorted(callees) for name, callees in sorted(mapping.items())}
        stream.write(json.dumps(mapping_sorted, indent=2, sort_keys=True) + "\n")
        return
    edges = []
    for caller, callee, data in graph.edges(data=True):
        for site in data["sites"]:
            edges.append(
                {
                    "caller": names[caller],
                    "callee": names[callee],
                    "kind": site.kind,
                    "path": program.rel_path(caller),
                    "line": site.pos[0],
                    "column": site.pos[1],
                }
            )
    edges.sort(key=lambda e: (e["caller"], e["callee"], e["line"], e["column"], e["kind"]))
    if fmt == "json":
        nodes = [
            {"id": names[fid], "path": program.rel_path(fid), "line": program.symbols.function(fid).pos[0]}
            for fid in graph.nodes
        ]
        nodes.sort(key=lambda n: n["id"])
        stream.write(json.dumps({"nodes": nodes, "edges": edges}, indent=2, sort_keys=True) + "\n")
        return
    stream.write("digraph calls {\n")
    for fid in sorted(names.values()):
        stream.write(f"  {json.dumps(fid)};\n")
    for edge in edges:
        style = ' [style=dashed, label="handoff"]' if edge["kind"] == "handoff" else ""
        stream.write(f"  {json.dumps(edge['caller'])} -> {json.dumps(edge['callee'])}{style};\n")
    stream.write("}\n")
