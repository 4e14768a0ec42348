"""`epochlint server`, driven by a real LSP client (pytest-lsp) over stdin and stdout of a server
subprocess: diagnostics of unsaved buffers analysed with the rest of the project from disk, and
the code actions that fix or suppress them."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp", reason="the server's tests need pytest-lsp (the test extra)")
pytest.importorskip("pygls", reason="the server needs pygls (the lsp extra)")

from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

from tests.conftest import FIXTURES, KNOWN_CODES  # noqa: E402
from tests.test_cli import ENV, loaded_by_a_check, replaced  # noqa: E402
from tests.test_stdin import BASE, LOCKED_SUBCLASS, RACY_SUBCLASS  # noqa: E402

from epochlint.config import load_config  # noqa: E402
from epochlint.engine import check  # noqa: E402

# Where LSP's lines end: after each line end, kept with its line.
LSP_LINES = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")
# The server as an editor starts it.
SERVER = [sys.executable, "-m", "epochlint", "server"]
# What is on disk before the buffer is edited: the consumer without its batch loop yet.
CONSUMER_ON_DISK = "from pkg.base import Base\n\n\nclass Consumer(Base):\n    pass\n"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[None]:
    consumer_project(tmp_path)
    await initialized(lsp_client, tmp_path)
    yield
    await lsp_client.shutdown_session()


def consumer_project(root: Path, consumer: bool = True, marked: bool = True) -> None:
    """The consumer's base in `pkg/base.py` and, with `consumer`, the consumer in `pkg/consumer.py`
    as saved on disk; with `marked`, in a project (a pyproject.toml)."""
    if marked:
        (root / "pyproject.toml").write_text("[project]\nname = 'sample'\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "base.py").write_text(BASE)
    if consumer:
        (root / "pkg" / "consumer.py").write_text(CONSUMER_ON_DISK)


async def initialized(lsp_client: LanguageClient, root: Path) -> None:
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=root.as_uri())
    )


def filler_module(index: int, methods: int = 20) -> str:
    """A module that imports the consumer's base (so it is parsed and analysed with it) and
    defines a class of plain batch methods: work for the analysis, and no finding."""
    body = "".join(
        f"    def step_{m}(self, batch):\n        total = 0\n        for item in batch:\n"
        f"            total += len(str(item)) * {m}\n        return total\n\n"
        for m in range(methods)
    )
    return f"from pkg.base import Base\n\n\nclass Filler{index}(Base):\n{body}"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def busy_client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[None]:
    """A project whose first analysis takes seconds (100 more modules, 11k lines, none cached), and
    a client that shows work-done progress."""
    consumer_project(tmp_path)
    for index in range(100):
        (tmp_path / "pkg" / f"filler_{index}.py").write_text(filler_module(index))
    capabilities = types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True))
    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities, root_uri=tmp_path.as_uri()))
    yield
    if not lsp_client.stopped:  # else the test has ended the session
        await lsp_client.shutdown_session()


# The server with a stack limit of 1 MB, which is what its threads get by default (as on platforms
# whose threads get less than the main thread: 512 KB on macOS).
SMALL_STACK_SERVER = [
    sys.executable,
    "-c",
    "import os, resource, sys; "
    "resource.setrlimit(resource.RLIMIT_STACK, (2**20, resource.getrlimit(resource.RLIMIT_STACK)[1])); "
    "os.execv(sys.executable, [sys.executable, '-m', 'epochlint', 'server'])",
]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SMALL_STACK_SERVER, server_env=ENV))
async def small_stack_client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[None]:
    consumer_project(tmp_path, consumer=False)
    await initialized(lsp_client, tmp_path)
    yield
    await lsp_client.shutdown_session()


async def diagnostics_after(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[uri])


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def applied(text: str, edits: list[types.TextEdit], units: str = "utf-16") -> str:
    """`text` with `edits` made, their columns counted in `units` (UTF-16, as LSP's default), its
    lines ended as LSP ends them (`\\r\\n`, `\\r`, `\\n`: not at a form feed)."""
    lines = LSP_LINES.split(text)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position: types.Position) -> int:
        if position.line >= len(lines):
            return len(text)
        line, counted = lines[position.line], 0
        for index, character in enumerate(line):
            if counted >= position.character:
                return starts[position.line] + index
            counted += len(character.encode("utf-8")) if units == "utf-8" else len(character.encode("utf-16-le")) // 2
        return starts[position.line] + len(line)

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


@pytest.mark.asyncio
async def test_unsaved_racy_loop_is_reported_fixed_and_cleared(client: LanguageClient, tmp_path: Path) -> None:
    consumer = tmp_path / "pkg" / "consumer.py"
    uri = consumer.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, CONSUMER_ON_DISK))
    )
    assert await diagnostics_after(client, uri) == []

    change(client, uri, 2, RACY_SUBCLASS)
    (found,) = await diagnostics_after(client, uri)
    assert found.code == "EPL001"
    assert found.range.start == types.Position(5, 8)  # `for message in batch:`, line 6
    assert found.code_description is not None and found.code_description.href.endswith("docs/rules/EPL001.md")
    related = found.related_information or []
    # The race runs through the file on disk, which the chain names.
    assert (tmp_path / "pkg" / "base.py").as_uri() in {info.location.uri for info in related}
    assert consumer.read_text() == CONSUMER_ON_DISK

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=found.range,
            context=types.CodeActionContext(diagnostics=[found]),
        )
    )
    titles = [action.title for action in actions or [] if isinstance(action, types.CodeAction)]
    assert any(title.startswith("Suppress EPL001") for title in titles), titles
    (fix,) = [a for a in actions or [] if isinstance(a, types.CodeAction) and a.title.startswith("Fix EPL001")]
    assert fix.edit is not None and fix.edit.changes is not None
    fixed = applied(RACY_SUBCLASS, list(fix.edit.changes[uri]))
    consumer.write_text(fixed)
    config = load_config([tmp_path], None, KNOWN_CODES)
    assert check([tmp_path], config, use_cache=False).findings == ()

    change(client, uri, 3, LOCKED_SUBCLASS)
    assert await diagnostics_after(client, uri) == []


async def fix_action_changes(
    client: LanguageClient, uri: str, found: types.Diagnostic
) -> dict[str, list[types.TextEdit]]:
    """The edits, by document, of the one action that fixes `found` in the document at `uri`."""
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(types.TextDocumentIdentifier(uri), found.range, types.CodeActionContext([found]))
    )
    (fix,) = [a for a in actions or [] if isinstance(a, types.CodeAction) and a.title.startswith(f"Fix {found.code}")]
    assert fix.edit is not None and fix.edit.changes is not None
    return {changed: list(edits) for changed, edits in fix.edit.changes.items()}


async def suppressed_by_the_action(
    client: LanguageClient, uri: str, language: str, text: str
) -> tuple[list[types.Diagnostic], str]:
    """The diagnostics of `text`, opened as `language`, and `text` with the suppression action of
    its first EPL001 applied."""
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, language, 1, text)))
    found = await diagnostics_after(client, uri)
    (first, *_) = [d for d in found if d.code == "EPL001"]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(types.TextDocumentIdentifier(uri), first.range, types.CodeActionContext([first]))
    )
    (suppress,) = [a for a in actions or [] if isinstance(a, types.CodeAction) and a.title.startswith("Suppress")]
    assert suppress.edit is not None and suppress.edit.changes is not None
    return found, applied(text, list(suppress.edit.changes[uri]))


# A form feed or U+2028 starts no line: Python and LSP end lines at \\r and \\n alone (pygls' lines,
# split by `str.splitlines`, ended there too, and the buffer, the ranges and the comment were off).
@pytest.mark.parametrize(("above", "loop_line"), [("", 5), ("# page one\f page two, \u2028 same line\n", 6)])
@pytest.mark.asyncio
async def test_suppression_action_silences_the_finding(
    client: LanguageClient, tmp_path: Path, above: str, loop_line: int
) -> None:
    uri = (tmp_path / "pkg" / "consumer.py").as_uri()
    found, suppressed = await suppressed_by_the_action(client, uri, "python", above + RACY_SUBCLASS)
    assert [(d.code, d.range.start) for d in found] == [("EPL001", types.Position(loop_line, 8))]
    assert "for message in batch:  # epochlint: ignore[EPL001]\n" in suppressed
    change(client, uri, 2, suppressed)
    assert await diagnostics_after(client, uri) == []


@pytest.mark.asyncio
async def test_suppression_action_adds_to_an_ignore_list_already_there(client: LanguageClient, tmp_path: Path) -> None:
    # A second `# epochlint:` comment on the line would not be read: the code joins the first.
    uri = (tmp_path / "pkg" / "consumer.py").as_uri()
    listed = RACY_SUBCLASS.replace("for message in batch:", "for message in batch:  # epochlint: ignore[EPL002]")
    _, suppressed = await suppressed_by_the_action(client, uri, "python", listed)
    assert "for message in batch:  # epochlint: ignore[EPL002,EPL001]\n" in suppressed
    change(client, uri, 2, suppressed)
    # What is left is EPL002's entry, which silences nothing there: an error, shown as unused.
    assert [(d.code, d.severity, d.tags) for d in await diagnostics_after(client, uri)] == [
        ("EPL901", types.DiagnosticSeverity.Error, (types.DiagnosticTag.Unnecessary,))
    ]


@pytest.mark.asyncio
async def test_suppression_action_in_java_writes_a_java_comment(client: LanguageClient, tmp_path: Path) -> None:
    pytest.importorskip("tree_sitter_java", reason="Java files need the java extra")
    uri = (tmp_path / "pkg" / "RecordStyleConsumer.java").as_uri()
    source = (FIXTURES / "java" / "EPL001" / "RecordStyleConsumer.java").read_text(encoding="utf-8")
    racy = source.replace(" // expect: EPL001", "")
    _, suppressed = await suppressed_by_the_action(client, uri, "java", racy)
    assert "for (Message message : batch) {  // epochlint: ignore[EPL001]\n" in suppressed
    change(client, uri, 2, suppressed)
    assert await diagnostics_after(client, uri) == []


@pytest.mark.asyncio
async def test_only_python_and_java_files_are_analysed(client: LanguageClient, tmp_path: Path) -> None:
    """Clients may send every open document: a Markdown file was analysed as Python (an EPL900 on
    its text), and so was a new unsaved buffer, as if it were the project's folder."""
    readme, untitled = (tmp_path / "README.md").as_uri(), "untitled:Untitled-1"
    for uri, language, text in ((readme, "markdown", "# Title\n\nSome *text*.\n"), (untitled, "python", "x = (\n")):
        client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, language, 1, text)))
    # A Python file without the suffix is analysed by its language.
    script = tmp_path / "pkg" / "consume"
    open_document(client, script.as_uri(), RACY_SUBCLASS)
    while not client.diagnostics.get(script.as_uri()):
        await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), timeout=120)
    assert [d.code for d in client.diagnostics[script.as_uri()]] == ["EPL001"]
    assert set(client.diagnostics) == {script.as_uri()}
    # The unsaved buffer is said not to be analysed, in the client's log: no silence.
    assert [m.message for m in client.log_messages if untitled in m.message] == [
        "epochlint: untitled:Untitled-1 is not analysed: it is in no file yet (save it to analyse it)"
    ]


def open_document(client: LanguageClient, uri: str, text: str) -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text)))


def code_action_params(uri: str) -> types.CodeActionParams:
    everywhere = types.Range(types.Position(0, 0), types.Position(100, 0))
    return types.CodeActionParams(types.TextDocumentIdentifier(uri), everywhere, types.CodeActionContext([]))


@pytest.mark.asyncio
async def test_the_server_answers_requests_while_it_analyses(busy_client: LanguageClient, tmp_path: Path) -> None:
    client = busy_client
    uri = (tmp_path / "pkg" / "consumer.py").as_uri()
    open_document(client, uri, RACY_SUBCLASS)
    await client.wait_for_notification(types.PROGRESS)  # the analysis has begun
    published = asyncio.ensure_future(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS))

    # Answered at once, with nothing to offer yet: no analysis of this text has ended.
    assert not await client.text_document_code_action_async(code_action_params(uri))
    assert not published.done()

    await published
    (found,) = client.diagnostics[uri]
    assert found.code == "EPL001"
    (reports,) = client.progress_reports.values()
    assert [type(report) for report in reports] == [types.WorkDoneProgressBegin, types.WorkDoneProgressEnd]


@pytest.mark.asyncio
async def test_an_edit_made_during_an_analysis_is_analysed_next(busy_client: LanguageClient, tmp_path: Path) -> None:
    client = busy_client
    uri = (tmp_path / "pkg" / "consumer.py").as_uri()
    open_document(client, uri, RACY_SUBCLASS)
    await client.wait_for_notification(types.PROGRESS)
    change(client, uri, 2, LOCKED_SUBCLASS)  # the lock added while the racy text is analysed

    published: list[types.PublishDiagnosticsParams] = []
    while not published or published[-1].version != 2:
        params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if params.uri == uri:
            published.append(params)
    assert [(p.version, [d.code for d in p.diagnostics]) for p in published] == [(1, ["EPL001"]), (2, [])]


@pytest.mark.asyncio
async def test_deeply_nested_code_is_analysed_where_threads_get_small_stacks(
    small_stack_client: LanguageClient, tmp_path: Path
) -> None:
    # Nested as deep as the frontend lets through: libcst's parse of it needs more than 1 MB of stack.
    deep = b"".join(b" " * i + b"if x:\n" for i in range(99)) + b" " * 99 + b"x = " + b"-" * 480 + b"1\n"
    uri = (tmp_path / "pkg" / "deep.py").as_uri()
    open_document(small_stack_client, uri, "from pkg.base import Base\n" + deep.decode())
    params = await asyncio.wait_for(
        small_stack_client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), timeout=120
    )
    assert params.uri == uri and list(params.diagnostics) == []


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def projectless_client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[None]:
    """The consumer's files with nothing that marks a project: no pyproject.toml, no git."""
    consumer_project(tmp_path, marked=False)
    await lsp_client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities()))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_a_buffer_outside_any_project_is_analysed_alone(
    projectless_client: LanguageClient, tmp_path: Path
) -> None:
    # The race runs through pkg/base.py: seen only if the folder around the buffer were walked.
    client, path = projectless_client, tmp_path / "pkg" / "consumer.py"
    document = types.TextDocumentItem(uri=path.as_uri(), language_id="python", version=1, text=RACY_SUBCLASS)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=document))
    assert await diagnostics_after(client, path.as_uri()) == []
    # The same buffer, its folder made a project: the race is found.
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'sample'\n")
    change(client, path.as_uri(), 2, RACY_SUBCLASS + "\n")
    assert [d.code for d in await diagnostics_after(client, path.as_uri())] == ["EPL001"]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def workspace_client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[None]:
    """The consumer's files with nothing that marks a project, their folder opened as the
    workspace (and the parent folder as another)."""
    consumer_project(tmp_path, marked=False)
    folders = [types.WorkspaceFolder(uri=f.as_uri(), name=f.name) for f in (tmp_path.parent, tmp_path)]
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=types.ClientCapabilities(), workspace_folders=folders)
    )
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_a_workspace_folder_is_the_project_where_nothing_marks_one(
    workspace_client: LanguageClient, tmp_path: Path
) -> None:
    # What `check` run in the folder finds: the race through pkg/base.py, the innermost folder the
    # project (the parent folder, walked, would hold other tests' files).
    path = tmp_path / "pkg" / "consumer.py"
    document = types.TextDocumentItem(uri=path.as_uri(), language_id="python", version=1, text=RACY_SUBCLASS)
    workspace_client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=document))
    diagnostics = await diagnostics_after(workspace_client, path.as_uri())
    assert [d.code for d in diagnostics] == ["EPL001"]


# The server, recording in `loaded.txt` in its workspace which of libcst and networkx are loaded
# once it has loaded the analysis (`load_the_analysis`).
RECORDING_SERVER = [
    sys.executable,
    "-c",
    "import sys\nfrom pathlib import Path\nimport epochlint.server as server\n"
    "from epochlint.cache import keep_decoded_facts\nkeep_decoded_facts()\nlanguage_server = server.build_server()\n"
    "def recorded():\n"
    "    server_load()\n"
    "    loaded = ' '.join(m for m in ('libcst', 'networkx') if m in sys.modules)\n"
    "    Path(language_server.workspace.root_path, 'loaded.txt').write_text(loaded)\n"
    "server_load, server.load_the_analysis = server.load_the_analysis, recorded\n"
    "language_server.start_io()",
]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=RECORDING_SERVER, server_env=ENV))
async def recording_client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[None]:
    """The consumer's project, its findings cached by a `check` run before the server starts."""
    consumer_project(tmp_path)
    loaded_by_a_check(tmp_path, ())
    await initialized(lsp_client, tmp_path)
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_the_first_edit_does_not_wait_for_the_analysis_to_load(
    recording_client: LanguageClient, tmp_path: Path
) -> None:
    """Opening a file whose findings are cached reads them back, parsing and analysing nothing: the
    server then loads the parser and the analysis, before the first edit needs them."""
    client, uri = recording_client, (tmp_path / "pkg" / "consumer.py").as_uri()
    open_document(client, uri, CONSUMER_ON_DISK)
    assert await diagnostics_after(client, uri) == []
    loaded = tmp_path / "loaded.txt"
    for _ in range(1200):  # a minute at most
        if loaded.exists():
            break
        await asyncio.sleep(0.05)
    assert loaded.read_text() == "libcst networkx"
    change(client, uri, 2, RACY_SUBCLASS)
    assert [d.code for d in await diagnostics_after(client, uri)] == ["EPL001"]


def test_check_never_imports_the_server_library(tmp_path: Path) -> None:
    (tmp_path / "consumer.py").write_text(RACY_SUBCLASS)
    assert loaded_by_a_check(tmp_path, ("pygls", "lsprotocol")) == []


@pytest.mark.asyncio
async def test_a_file_whose_uri_is_percent_encoded_keeps_its_uri(client: LanguageClient, tmp_path: Path) -> None:
    """Editors send the URI of a file in `My Projects #1 café 50%` percent-encoded: its diagnostics,
    their chain, its code actions and the clearing on closing all name it by that URI."""
    root = tmp_path / "My Projects #1 café 50%"
    root.mkdir()
    consumer_project(root)
    uri = (root / "pkg" / "consumer.py").as_uri()
    assert all(escape in uri for escape in ("%20", "%23", "%C3%A9", "%25"))
    open_document(client, uri, RACY_SUBCLASS)
    (found,) = await diagnostics_after(client, uri)
    assert found.code == "EPL001"
    related = {info.location.uri for info in found.related_information or []}
    assert related <= {uri, (root / "pkg" / "base.py").as_uri()}

    assert set(await fix_action_changes(client, uri, found)) == {uri}

    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    assert await diagnostics_after(client, uri) == []
    assert set(client.diagnostics) == {uri}


@pytest.mark.asyncio
async def test_a_document_no_file_can_be_named_as_leaves_the_others_analysed(
    client: LanguageClient, tmp_path: Path
) -> None:
    """A URI whose name holds a NUL byte (`%00`) names no possible file: once, it failed the
    analysis of every open document of the project until it was closed."""
    nul = (tmp_path / "pkg").as_uri() + "/%00.py"
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(nul, "python", 1, "x = 1\n")))
    uri = (tmp_path / "pkg" / "consumer.py").as_uri()
    open_document(client, uri, RACY_SUBCLASS)
    while not client.diagnostics.get(uri):
        await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), timeout=120)
    assert [d.code for d in client.diagnostics[uri]] == ["EPL001"]
    assert [m.message for m in client.log_messages if nul in m.message] == [
        f"epochlint: {nul} is not analysed: no file has its name"
    ]


@pytest.mark.asyncio
async def test_exit_during_an_analysis_is_quiet(
    busy_client: LanguageClient, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """The client exits while the first analysis runs, shown as progress: the server sends nothing
    more and writes nothing to its log (once, megabytes of failed sends to the closed connection,
    for seconds)."""
    client = busy_client
    open_document(client, (tmp_path / "pkg" / "consumer.py").as_uri(), RACY_SUBCLASS)
    await client.wait_for_notification(types.PROGRESS)  # the analysis has begun
    await asyncio.wait_for(client.shutdown_session(), timeout=60)
    assert client.diagnostics == {}
    assert capfd.readouterr().err == ""


# The server started in the file system's root folder (editors start servers in a folder of their
# own choosing): every project lies under its current folder.
ROOTED_SERVER = [
    sys.executable,
    "-c",
    "import os, sys; os.chdir(os.sep); os.execv(sys.executable, [sys.executable, '-m', 'epochlint', 'server'])",
]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=ROOTED_SERVER, server_env=ENV))
async def rooted_client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[None]:
    consumer_project(tmp_path)
    await initialized(lsp_client, tmp_path)
    yield
    await lsp_client.shutdown_session()


async def published_after_edit(client: LanguageClient, uri: str, version: int, text: str) -> list[str]:
    """The codes published for `uri` once `text` replaces it, as edit `version`."""
    change(client, uri, version, text)
    return [str(d.code) for d in await asyncio.wait_for(diagnostics_after(client, uri), timeout=60)]


@pytest.mark.asyncio
async def test_an_invalid_configuration_is_shown_once_per_error_and_clears_diagnostics(
    rooted_client: LanguageClient, tmp_path: Path
) -> None:
    client, uri, pyproject = rooted_client, (tmp_path / "pkg" / "consumer.py").as_uri(), tmp_path / "pyproject.toml"
    open_document(client, uri, RACY_SUBCLASS)
    assert [d.code for d in await diagnostics_after(client, uri)] == ["EPL001"]

    pyproject.write_text("[project]\nname = 'sample'\n\n[tool.epochlint]\nselekt = ['ALL']\n")
    # No diagnostics while none is current, and the error once, however long the typing goes on.
    assert await published_after_edit(client, uri, 2, "\n" + RACY_SUBCLASS) == []
    assert await published_after_edit(client, uri, 3, "\n\n" + RACY_SUBCLASS) == []
    (unknown_key,) = [message.message for message in client.messages]
    assert unknown_key.startswith(f"{pyproject}: [tool.epochlint] unknown key 'selekt'")

    pyproject.write_text("[project]\nname = 'sample'\n\n[tool.epochlint]\nselect = 'EPL001'\n")
    assert await published_after_edit(client, uri, 4, RACY_SUBCLASS) == []
    assert len(client.messages) == 2 and client.messages[-1].message.startswith(f"{pyproject}: ")

    pyproject.write_text("[project]\nname = 'sample'\n")
    assert await published_after_edit(client, uri, 5, "\n" + RACY_SUBCLASS) == ["EPL001"]
    pyproject.write_text("[project]\nname = 'sample'\n\n[tool.epochlint]\nselekt = ['ALL']\n")
    assert await published_after_edit(client, uri, 6, RACY_SUBCLASS) == []
    assert [message.message for message in client.messages][2:] == [unknown_key]


@pytest.mark.asyncio
async def test_a_change_to_a_document_never_opened_is_ignored(client: LanguageClient, tmp_path: Path) -> None:
    never_opened, uri = (tmp_path / "pkg" / "base.py").as_uri(), (tmp_path / "pkg" / "consumer.py").as_uri()
    change(client, never_opened, 2, BASE + "\n")
    open_document(client, uri, RACY_SUBCLASS)
    assert [d.code for d in await diagnostics_after(client, uri)] == ["EPL001"]
    assert client.messages == []
    assert set(client.diagnostics) == {uri}


@pytest.mark.asyncio
async def test_a_buffer_is_analysed_in_the_encoding_it_declares(client: LanguageClient, tmp_path: Path) -> None:
    # Handed to the analysis as UTF-8, a cp1252 buffer's bytes failed to decode as cp1252 (EPL900).
    uri = (tmp_path / "pkg" / "consumer.py").as_uri()
    declared = "# -*- coding: cp1252 -*-\n# \u00c1ngel's consumer\n" + RACY_SUBCLASS
    open_document(client, uri, declared)
    # A finding is an error, as SARIF and GitHub annotations say; code that cannot be read, a warning.
    assert [(d.code, d.range.start, d.severity) for d in await diagnostics_after(client, uri)] == [
        ("EPL001", types.Position(7, 8), types.DiagnosticSeverity.Error)
    ]
    # A lone surrogate cannot be saved in any encoding: the file it would make is undecodable.
    change(client, uri, 2, RACY_SUBCLASS + "# \ud800\n")
    assert [(d.code, d.severity) for d in await diagnostics_after(client, uri)] == [
        ("EPL900", types.DiagnosticSeverity.Warning)
    ]


@pytest.mark.asyncio
async def test_the_chain_in_another_file_is_placed_in_the_clients_units(client: LanguageClient, tmp_path: Path) -> None:
    # Columns count code points; UTF-16 counts the emoji as two units.
    base = tmp_path / "pkg" / "base.py"
    read = "return message.epoch >= self._epoch"
    base.write_text(replaced(BASE, read, f'return "gr\u00f6\u00dfe \U0001f600" and {read[7:]}'), encoding="utf-8")
    uri = (tmp_path / "pkg" / "consumer.py").as_uri()
    open_document(client, uri, RACY_SUBCLASS)
    (found,) = await diagnostics_after(client, uri)
    lines = base.read_text(encoding="utf-8").splitlines()
    (row,) = [index for index, text in enumerate(lines) if "self._epoch" in text and "message" in text]
    units = len(lines[row][: lines[row].index("self._epoch")].encode("utf-16-le")) // 2
    related = [info.location for info in found.related_information or []]
    assert types.Position(row, units) in [location.range.start for location in related if location.uri == base.as_uri()]


@pytest.mark.asyncio
async def test_the_chain_in_another_file_with_an_escaped_name_points_at_that_file(
    client: LanguageClient, tmp_path: Path
) -> None:
    # Reports name the folder `odd\tname` as `odd\\tname`, which the server took for its path.
    folder = tmp_path / "odd\tname"
    folder.mkdir()
    consumer_project(folder, consumer=False, marked=False)
    uri = (folder / "pkg" / "consumer.py").as_uri()
    open_document(client, uri, RACY_SUBCLASS)
    (found,) = await diagnostics_after(client, uri)
    related = {info.location.uri for info in found.related_information or []}
    assert (folder / "pkg" / "base.py").as_uri() in related, related


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("x = foo(\n", "EPL900"),  # only a per-file ignore silences it
        (RACY_SUBCLASS.replace("for message in batch:", "for message in \\\n                batch:"), "EPL001"),
    ],
)
async def test_no_suppression_is_offered_where_a_comment_cannot_work(
    client: LanguageClient, tmp_path: Path, text: str, code: str
) -> None:
    # A comment after a line's continuation backslash is a syntax error.
    uri = (tmp_path / "pkg" / "consumer.py").as_uri()
    open_document(client, uri, text)
    assert [d.code for d in await diagnostics_after(client, uri)] == [code]
    actions = await client.text_document_code_action_async(code_action_params(uri)) or []
    assert not [action.title for action in actions if action.title.startswith("Suppress")]


@pytest.mark.asyncio
async def test_a_document_closed_and_opened_again_gets_no_diagnostics_of_its_old_text(
    busy_client: LanguageClient, tmp_path: Path
) -> None:
    client = busy_client
    uri = (tmp_path / "pkg" / "consumer.py").as_uri()
    open_document(client, uri, RACY_SUBCLASS)
    await client.wait_for_notification(types.PROGRESS)  # the racy text's analysis has begun
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    cleared = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(cleared.diagnostics) == []
    open_document(client, uri, LOCKED_SUBCLASS)  # version 1 again, another text
    published = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert (published.uri, list(published.diagnostics)) == (uri, [])


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def utf8_client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[None]:
    """A client that counts columns in UTF-8 bytes, as the server agrees to."""
    consumer_project(tmp_path)
    general = types.GeneralClientCapabilities(position_encodings=[types.PositionEncodingKind.Utf8])
    capabilities = types.ClientCapabilities(general=general)
    result = await lsp_client.initialize_session(types.InitializeParams(capabilities, root_uri=tmp_path.as_uri()))
    assert result.capabilities.position_encoding == types.PositionEncodingKind.Utf8
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_a_fix_replaces_the_whole_text_in_the_units_agreed_on(
    utf8_client: LanguageClient, tmp_path: Path
) -> None:
    client = utf8_client
    consumer = tmp_path / "pkg" / "consumer.py"
    uri = consumer.as_uri()
    racy = RACY_SUBCLASS + 'print("déjà vu")'  # no line end: the edit ends within the last line
    open_document(client, uri, racy)
    (found,) = await diagnostics_after(client, uri)
    changes = await fix_action_changes(client, uri, found)
    fixed = applied(racy, changes[uri], units="utf-8")
    assert fixed.endswith('\nprint("déjà vu")') and fixed.count("déjà") == 1
    consumer.write_text(fixed, encoding="utf-8")
    assert check([tmp_path], load_config([tmp_path], None, KNOWN_CODES), use_cache=False).findings == ()


@pytest.mark.asyncio
async def test_the_fix_keeps_the_byte_order_mark_the_buffer_starts_with(client: LanguageClient, tmp_path: Path) -> None:
    uri = (tmp_path / "pkg" / "standalone.py").as_uri()
    source = (FIXTURES / "EPL900" / "consumer.py").read_text(encoding="utf-8")
    racy = "\ufeff" + source.replace("  # expect: EPL001", "")
    open_document(client, uri, racy)
    (found,) = await diagnostics_after(client, uri)
    changes = await fix_action_changes(client, uri, found)
    fixed = applied(racy, changes[uri])  # U+FEFF is one UTF-16 unit, as ASCII characters are
    assert fixed.startswith('\ufeff"""')
    change(client, uri, 2, fixed)
    assert await diagnostics_after(client, uri) == []


# The watchers the server registered with `watching_client`.
REGISTERED: list[types.Registration] = []


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def watching_client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[None]:
    """A client that watches files for the server, as it asks (VS Code's does): what it was asked
    to watch is in `REGISTERED`."""
    REGISTERED.clear()

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        REGISTERED.extend(params.registrations)

    consumer_project(tmp_path)
    watching = types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True)
    capabilities = types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(did_change_watched_files=watching)
    )
    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities, root_uri=tmp_path.as_uri()))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_a_configuration_changed_on_disk_is_analysed_again_without_an_edit(
    watching_client: LanguageClient, tmp_path: Path
) -> None:
    client, uri = watching_client, (tmp_path / "pkg" / "consumer.py").as_uri()
    open_document(client, uri, RACY_SUBCLASS)
    assert [d.code for d in await diagnostics_after(client, uri)] == ["EPL001"]
    (registration,) = REGISTERED
    assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
    globs = {watcher["globPattern"] for watcher in registration.register_options["watchers"]}
    assert {"**/*.py", "**/pyproject.toml"} <= globs

    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[project]\nname = 'sample'\n\n[tool.epochlint]\nignore = ['EPL001']\n")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(pyproject.as_uri(), types.FileChangeType.Changed)])
    )
    assert await diagnostics_after(client, uri) == []


# The header LSP specifies.
HEADER = b"Content-Length: %d\r\n\r\n"


def framed(message: dict[str, object] | bytes, header: bytes = HEADER) -> bytes:
    """A message with its `header` (its length put in); bytes are a body sent as they are."""
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return header % len(body) + body


@dataclass(frozen=True)
class RawSession:
    answers: dict[object, dict[str, Any]]  # by request id
    status: int
    log: str  # what the server wrote on stderr


def opening(root: Path) -> list[dict[str, object]]:
    """`initialize` in `root`, and `initialized`."""
    initialize = {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}
    return [
        {"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": initialize},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
    ]


EXIT = {"jsonrpc": "2.0", "method": "exit"}


def raw_session(
    root: Path, *requests: dict[str, object] | bytes, early: Sequence[dict[str, object]] = (), header: bytes = HEADER
) -> RawSession:
    """The server's answers, exit status and log for a session that sends the `early` messages,
    initializes in `root`, sends `requests` (messages a typed client would refuse to send), and
    ends with `exit`, each message under `header`."""
    messages = [*early, *opening(root), *requests, EXIT]
    return served_raw(root, b"".join(framed(message, header) for message in messages))


def served_raw(root: Path, sent: bytes) -> RawSession:
    """The session of a server in `root` sent the bytes `sent`, its input left open: it ends by
    itself (on `exit`, or on input it cannot read), else the test fails on the timeout."""
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        server = subprocess.Popen(SERVER, stdin=subprocess.PIPE, stdout=stdout, stderr=stderr, env=ENV, cwd=root)
        assert server.stdin is not None
        try:
            server.stdin.write(sent)
            server.stdin.flush()
            status = server.wait(timeout=60)
        finally:
            server.kill()
            server.stdin.close()
        stdout.seek(0)
        stderr.seek(0)
        answered, log = stdout.read(), stderr.read().decode()
    bodies = re.split(rb"Content-Length: \d+\r\n(?:[^\r\n]+\r\n)*\r\n", answered)[1:]
    answers = [json.loads(body) for body in bodies]
    by_id = {answer["id"]: answer for answer in answers if "id" in answer}
    return RawSession(by_id, status, log)


SHUTDOWN = {"jsonrpc": "2.0", "id": "shutdown", "method": "shutdown"}


def test_exit_without_shutdown_is_status_1_and_after_shutdown_0(tmp_path: Path) -> None:
    """LSP: the server exits with 0 after a `shutdown` request, with 1 when the client exits without
    one (it crashed): an editor tells a clean stop from a lost one by it."""
    consumer_project(tmp_path)
    assert raw_session(tmp_path).status == 1
    session = raw_session(tmp_path, SHUTDOWN)
    assert (session.answers["shutdown"]["result"], session.status) == (None, 0)


def test_every_request_is_answered_even_when_refused(tmp_path: Path) -> None:
    """A request whose parameters do not fit its method gets InvalidParams, one sent after
    `shutdown` InvalidRequest, and one sent before `initialize` ServerNotInitialized (a notification
    then is dropped): a client waiting for the answer is never left waiting."""
    consumer_project(tmp_path)
    uri = (tmp_path / "pkg" / "consumer.py").as_uri()
    whole_file = {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}
    code_action = {"textDocument": {"uri": uri}, "range": whole_file, "context": {"diagnostics": []}}
    session = raw_session(
        tmp_path,
        {"jsonrpc": "2.0", "id": "unfit", "method": "textDocument/codeAction", "params": {"range": whole_file}},
        {"jsonrpc": "2.0", "id": "fit", "method": "textDocument/codeAction", "params": code_action},
        SHUTDOWN,
        {"jsonrpc": "2.0", "id": "late", "method": "textDocument/codeAction", "params": code_action},
        early=(
            {"jsonrpc": "2.0", "id": "early", "method": "textDocument/codeAction", "params": code_action},
            {"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}},
        ),
    )
    assert session.answers["early"]["error"]["code"] == types.ErrorCodes.ServerNotInitialized
    assert session.answers["unfit"]["error"]["code"] == types.ErrorCodes.InvalidParams
    assert session.answers["fit"]["result"] == []
    assert session.answers["late"]["error"]["code"] == types.ErrorCodes.InvalidRequest
    assert session.status == 0


def test_a_message_that_is_not_json_is_answered_and_logged_on_one_line(tmp_path: Path) -> None:
    """A body that is not JSON gets ParseError with a null id (JSON-RPC), one line in the log and
    no traceback, and the session goes on: the next request is answered."""
    consumer_project(tmp_path)
    session = raw_session(tmp_path, b"{not json", SHUTDOWN)
    assert session.answers[None]["error"]["code"] == types.ErrorCodes.ParseError
    assert session.answers["shutdown"]["result"] is None
    assert "Traceback" not in session.log
    reason = "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
    assert session.log.splitlines() == [f"epochlint server: error: Unable to handle message: JSONDecodeError: {reason}"]


@pytest.mark.parametrize(
    "header",
    [b"content-length: %d\r\n\r\n", b"Content-Length:%d\r\n\r\n", b"Content-Length: %d\n\n"],
    ids=["lowercase-name", "no-blank-after-colon", "lf-line-ends"],
)
def test_a_header_in_another_case_spacing_or_line_end_is_read(tmp_path: Path, header: bytes) -> None:
    """Header names in any case (as HTTP's), no blank after the colon, and LF line ends are read as
    LSP's header: every request is answered, and the session ends as the client asked."""
    consumer_project(tmp_path)
    session = raw_session(tmp_path, SHUTDOWN, header=header)
    assert (session.answers["shutdown"]["result"], session.status, session.log) == (None, 0, "")


def test_a_content_length_shorter_than_its_message_ends_the_session_on_one_line(tmp_path: Path) -> None:
    """The cut message is answered with ParseError; the bytes it leaves make the next header
    unreadable, which the log says on one line, and the server exits with 1: where the next message
    starts is lost, and the server does not wait for good."""
    consumer_project(tmp_path)
    body = json.dumps(SHUTDOWN).encode()
    cut = b"Content-Length: %d\r\n\r\n" % (len(body) - 2) + body
    session = served_raw(tmp_path, b"".join(map(framed, opening(tmp_path))) + cut + framed(EXIT))
    assert session.answers[None]["error"]["code"] == types.ErrorCodes.ParseError
    assert session.status == 1
    assert session.log.splitlines()[1:] == [
        "epochlint server: error: the header line b'\"}Content-Length: 36' cannot be read"
        " (is it the end of a message longer than its Content-Length?): the session ends"
    ]


@pytest.mark.parametrize(
    ("header", "said"),
    [
        (b"Content-Length: 99999999999999999999\r\n\r\n", "the Content-Length 99999999999999999999 is beyond"),
        (b"Content-Length: 12x\r\n\r\n", "the Content-Length b'12x' is not a number of bytes"),
        (b"Content-Type: application/vscode-jsonrpc\r\n\r\n{}", "a message header has no Content-Length"),
        (b"x" * 10000, "a header line is longer than 8192 bytes"),
    ],
    ids=["20-digit-length", "length-not-a-number", "no-length", "endless-line"],
)
def test_a_header_the_server_cannot_honour_ends_the_session_on_one_line(
    tmp_path: Path, header: bytes, said: str
) -> None:
    """A header that cannot be read, or a length no message has, is said on one line of the log (no
    traceback), and the server exits with 1: it cannot tell where the next message starts."""
    consumer_project(tmp_path)
    session = served_raw(tmp_path, b"".join(map(framed, opening(tmp_path))) + header + framed(SHUTDOWN))
    assert session.answers["init"]["result"]["serverInfo"]["name"] == "epochlint"
    assert "shutdown" not in session.answers
    assert session.status == 1
    [logged] = session.log.splitlines()
    assert logged.startswith(f"epochlint server: error: {said}") and logged.endswith(": the session ends")
