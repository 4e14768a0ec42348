"""One file changed: epochlint after an edit of a central module (the one most others import) and
of a leaf (imported by none), on the benchmark tree and on a copy four times its size, against a
cold `ruff check --select ALL --no-cache` of the same tree measured in the same run; and the
editor server's time from `didChange` to `publishDiagnostics`.

    .venv/bin/python bench/incremental.py [--repeat N] [--copies 1 4] [--tree PATH] [--compiled]

Two edits of each module: a change of the code (a function added: analysed again), and code moved
(two lines added above the first definition: nothing to analyse again). Trees are built as
`bench/run.py` builds them; `--tree` measures an existing tree instead (at 1x only). With
`--compiled`, epochlint's snapshot is the wheel `setup.py` builds with EPOCHLINT_COMPILE=1.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from run import SNAPSHOT, Measure, _best, _cache_dropper, _epochlint, _install_tools, _run, _tree, snapshot
from snapshot import COMPILED_HELP

_IMPORT = re.compile(rb"^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))", re.MULTILINE)
_FIRST_DEFINITION = re.compile(rb"^(?:class |def |async def )", re.MULTILINE)
# Through `python -m`: wherever the ruff package is importable, its binary is found.
RUFF = [sys.executable, "-m", "ruff", "check", "--select", "ALL", "--no-cache", "--exit-zero", "-q", "."]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each command; the fastest counts")
    parser.add_argument("--copies", type=int, nargs="+", default=[1, 4], help="tree sizes to measure")
    parser.add_argument("--tree", type=Path, help="an existing tree to measure instead (1x)")
    parser.add_argument("--compiled", action="store_true", help=COMPILED_HELP)
    args = parser.parse_args()
    _install_tools()
    snapshot(SNAPSHOT, compiled=args.compiled)
    trees = {1: args.tree.resolve()} if args.tree else {copies: _tree(copies) for copies in args.copies}
    base = trees[min(trees)]
    server_seconds = asyncio.run(_server_round_trip(base, _modules(base)[1]))
    rows: dict[str, Measure] = {}
    for copies, tree in trees.items():
        rows.update(_measure_tree(tree, copies, args.repeat))
    print(_table(rows, trees, server_seconds))


def _modules(tree: Path) -> tuple[Path, Path]:
    """The central module (imported by the most files) and a leaf (imported by none, the largest
    that mentions an epoch)."""
    files = sorted(tree.rglob("*.py"))
    names = {_module_name(tree, path): path for path in files}
    imported: Counter[str] = Counter()
    for path in files:
        for match in _IMPORT.finditer(path.read_bytes()):
            name = (match.group(1) or match.group(2)).decode()
            if name in names:
                imported[name] += 1
    central = names[imported.most_common(1)[0][0]]
    leaves = [path for name, path in names.items() if imported[name] == 0 and path.name != "__init__.py"]
    # A leaf the rules read (it mentions an epoch), where there is one: as in a real edit.
    relevant = [path for path in leaves if b"epoch" in path.read_bytes()]
    return central, max(relevant or leaves, key=lambda p: p.stat().st_size)


def _module_name(tree: Path, path: Path) -> str:
    parts = path.relative_to(tree).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


# Every edit is new to the caches: an edit made by an earlier run of this benchmark would be
# answered from the findings cache (it keeps the latest runs' findings), not analysed.
_RUN = uuid.uuid4().hex[:12]


def _code_added(data: bytes, counter: int) -> bytes:
    return data + f"\n\ndef _bench_edit_{_RUN}_{counter}():\n    return {counter}\n".encode()


def _code_moved(data: bytes, counter: int) -> bytes:
    found = _FIRST_DEFINITION.search(data)
    at = found.start() if found else len(data)
    return data[:at] + f"\n# moved down, edit {_RUN} {counter}\n".encode() + data[at:]


def _measure_tree(tree: Path, copies: int, repeat: int) -> dict[str, Measure]:
    rows = {f"ruff check --select ALL --no-cache, {copies}x": _best(RUFF, tree, repeat)}
    rows[f"epochlint check, cold, {copies}x"] = _best(_epochlint(), tree, 1, _cache_dropper(tree))
    central, leaf = _modules(tree)
    for role, module in (("central", central), ("leaf", leaf)):
        print(f"{copies}x tree: the {role} module is {module.relative_to(tree)}", file=sys.stderr)
        for kind, edit in (("code changed", _code_added), ("code moved", _code_moved)):
            rows[f"one file changed, {role}, {kind}, {copies}x"] = _edited(tree, module, edit, repeat)
    return rows


def _edited(tree: Path, module: Path, edit: Callable[[bytes, int], bytes], repeat: int) -> Measure:
    """The fastest of `repeat` runs, each after a new edit of `module` (from its original), after a
    run that has seen the original."""
    original = module.read_bytes()
    counter = iter(range(1, 1_000_000))
    try:
        _run(_epochlint(), tree)
        return _best(_epochlint(), tree, repeat, lambda: module.write_bytes(edit(original, next(counter))))
    finally:
        module.write_bytes(original)


async def _server_round_trip(tree: Path, module: Path) -> tuple[float, float]:
    """Seconds from a `didChange` (a function added to `module`) to its diagnostics, the server's
    debounce included, with the tree's cache warm: for the first change after the file is opened,
    and for the next one (the server keeps what its runs decoded for the next)."""
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("bench", "1")
    published = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        published.set()

    environment = {**os.environ, "PYTHONPATH": str(SNAPSHOT)}
    await client.start_io(sys.executable, "-m", "epochlint", "server", env=environment, cwd=tree)
    await client.initialize_async(
        types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=tree.as_uri())
    )
    client.initialized(types.InitializedParams())
    uri, text = module.as_uri(), module.read_text(encoding="utf-8", errors="replace")
    document = types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=document))
    await published.wait()
    seconds = []
    for version in (2, 3):
        published.clear()
        started = time.perf_counter()
        change = types.TextDocumentContentChangeWholeDocument(text=_code_added(text.encode(), version).decode())
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=[change]
            )
        )
        await published.wait()
        seconds.append(time.perf_counter() - started)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return seconds[0], seconds[1]


def _table(rows: dict[str, Measure], trees: dict[int, Path], server_seconds: tuple[float, float]) -> str:
    out = ["| Command | Wall (s) | CPU (s) | Peak memory (MB) | Wall vs ruff |", "| --- | ---: | ---: | ---: | ---: |"]
    for name, m in rows.items():
        copies = name.rsplit(", ", 1)[1]
        ruff = rows[f"ruff check --select ALL --no-cache, {copies}"]
        out.append(f"| {name} | {m.seconds:.2f} | {m.cpu:.2f} | {m.peak_mb:.0f} | {m.seconds / ruff.seconds:.2f}x |")
    first, next_change = server_seconds
    out.append(f"| server: didChange -> publishDiagnostics (0.3 s debounce included), 1x | {first:.2f} | | | |")
    out.append(f"| server: the next didChange -> publishDiagnostics, 1x | {next_change:.2f} | | | |")
    if len(trees) > 1:
        small, large = min(trees), max(trees)
        for name in rows:
            if name.startswith("one file changed") and name.endswith(f", {small}x"):
                grown = rows[name.replace(f", {small}x", f", {large}x")]
                out.append(f"| growth {large}x / {small}x: {name} | {grown.seconds / rows[name].seconds:.2f}x | | | |")
    return "\n".join(out)


if __name__ == "__main__":
    main()
