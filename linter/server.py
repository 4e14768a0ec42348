"""`epochlint server`: a Language Server (on pygls) for editors.

It publishes the findings of the open files when they are opened, saved, and changed (after a
pause in typing), from a whole-project analysis with the unsaved buffers in place of their files
on disk: the same run `check - --stdin-filename` makes, through `engine.check`'s in-memory files,
with the project's configuration and its caches. Each diagnostic has the rule's code, a link to its
documentation, and its chain as related information. Code actions make the fixes `check --fix`
makes (verified the same way) and insert a suppression comment.

Analyses run one at a time on a thread of their own, shown as work-done progress where the client
supports it, so the server keeps reading the client's messages meanwhile: edits made during an
analysis are analysed next, and requests are answered at once (code actions on text that is not
the analysed one have nothing to offer until the next diagnostics).

pygls is imported here only: `check` never loads it.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re
import sys
import tokenize
import uuid
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from contextlib import suppress
from functools import lru_cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, TypeVar
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
    JsonRpcServerNotInitialized,
)
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import PositionCodec, ServerTextPosition, TextDocument

from epochlint import __version__
from epochlint.cache import keep_decoded_facts
from epochlint.config import Config, ConfigError, load_config, marks_a_project, name_paths_whole
from epochlint.discovery import UsageError, in_memory_path, is_source_name, named_path, relative_name
from epochlint.engine import check, load_the_analysis
from epochlint.findings import WARNING_CODES, Finding, Location
from epochlint.frontend import decoded
from epochlint.frontend.comments import ignore_list_in
from epochlint.frontend.java import is_java
from epochlint.frontend.stack import start_on_a_large_stack
from epochlint.report import RunResult

__all__ = ["DEBOUNCE_SECONDS", "serve"]

# Wait this long after the last keystroke before analysing: typing never queues analyses.
DEBOUNCE_SECONDS = 0.3
# Where the rules' documentation lives in a checkout (docs/rules/EPLxxx.md beside `linter/`). The
# project publishes no documentation site yet: an install without the checkout links to none.
RULE_DOCS = Path(__file__).resolve().parent.parent / "docs" / "rules"
SOURCE = "epochlint"
# How the open documents' texts are handed to the analysis.
_BUFFER_ENCODING = "utf-8"
# Files whose change on disk changes what the open files' analysis finds: the sources it reads
# from disk (those not open) and the configuration files.
# LSP's exit status for an exit the client did not announce with `shutdown` (it crashed, or the
# connection was lost).
_EXIT_WITHOUT_SHUTDOWN = 1
# What a request already answered (with an error) becomes: nothing handles it.
_ANSWERED = object()
# The line ends of LSP (pygls' documents split lines where `str.splitlines` does: also at a form
# feed or U+2028, which Python source may hold, so their line numbers are not the client's).
# Only a per-file ignore silences these (docs/rules/EPL900.md): no comment on their line.
_UNSUPPRESSIBLE_BY_LINE = frozenset({"EPL900"})
# Reported at a comment that does nothing (an unused suppression): shown faded, as unused code is.
_UNNECESSARY_CODES = frozenset({"EPL901"})
_LINE_END = re.compile(r"\r\n|\r|\n")
_WATCHED_FILES = ("**/*.py", "**/*.java", "**/pyproject.toml", "**/.epochlint.toml", "**/epochlint.toml")
# The editors' language identifiers of the files `check` analyses.
_SOURCE_LANGUAGES = frozenset({"python", "java"})
# A message header's line, `Name: value`: a name is an HTTP token, case aside (RFC 9110).
_HEADER_LINE = re.compile(rb"(?P<name>[-!#$%&'*+.^_`|~0-9A-Za-z]+):[ \t]*(?P<value>.*?)[ \t]*")
# The longest header line read: a line without an end by then is no header.
_LONGEST_HEADER_LINE = 8192
# The largest message read, far beyond any buffer an editor sends: a length beyond it is a broken
# header, and reading it would claim that much memory first.
_LARGEST_MESSAGE = 2**28

if TYPE_CHECKING:
    from epochlint.fix.run import FileFix

_Result = TypeVar("_Result")


@dataclass(frozen=True)
class ProjectRun:
    """One analysis of a project with some files held in memory, and what it found."""

    config: Config
    in_memory: Mapping[Path, bytes]
    result: RunResult


def analyse_buffers(
    buffers: Mapping[Path, bytes], folders: Sequence[Path] = ()
) -> tuple[dict[Path, ProjectRun], list[str]]:
    """Analyse each project that holds one of `buffers` (by `in_memory_path`) with them in place of
    the files on disk: the run of each buffer's file, and the errors met (one line each). Where
    nothing marks a file's project, the innermost of the editor's workspace `folders` that holds it
    is its project, as the current directory is for `check` run there."""
    from epochlint.rules import rule_codes

    by_root: dict[Path, tuple[Config, dict[Path, bytes]]] = {}
    errors: list[str] = []
    for path, data in buffers.items():
        try:
            config = load_config([path], None, rule_codes())
        except ConfigError as error:
            errors.append(str(error))
            continue
        if not marks_a_project(config) and (folder := _holding_folder(folders, path)) is not None:
            config = replace(config, root=folder)
        by_root.setdefault(config.root, (config, {}))[1][path] = data
    runs: dict[Path, ProjectRun] = {}
    for config, held in by_root.values():
        # Where nothing marks a project and no workspace folder holds it, the files alone (as
        # `check -` does): the folder the server was started in could be a home folder, to be
        # walked again at every pause in typing.
        analysed = [config.root] if marks_a_project(config) or config.root in folders else list(held)
        try:
            result = check(analysed, config, jobs=1, in_memory=held)
        except UsageError as error:
            errors.append(str(error))
            continue
        run = ProjectRun(config, held, result)
        runs.update((path, run) for path in held)
    return runs, errors


def _holding_folder(folders: Sequence[Path], path: Path) -> Path | None:
    holding = [folder for folder in folders if folder in path.parents]
    return max(holding, key=lambda folder: len(folder.parts), default=None)


def located_in(run: ProjectRun, path: Path) -> list[Finding]:
    rel = relative_name(path, run.config)
    return [finding for finding in run.result.findings if finding.location.path == rel]


class EpochlintServer(LanguageServer):
    """The open documents' latest analysis, the pending one, and the one under way."""

    def __init__(self) -> None:
        # Whole texts on change: pygls applies a change by its own lines, not the client's.
        super().__init__(
            SOURCE, __version__, protocol_cls=_Protocol, text_document_sync_kind=types.TextDocumentSyncKind.Full
        )
        # By the URI each document was opened with.
        self.runs: dict[str, ProjectRun] = {}
        self._pending: asyncio.TimerHandle | None = None
        self._analysis: asyncio.Task[None] | None = None
        # Asked for while one was under way: another analysis starts when it ends.
        self._again = False
        # Analyses and the fixes' verification share the caches kept in memory: one at a time.
        self._busy = asyncio.Lock()
        self._analysis_loaded = False
        # The errors of the last analysis, shown to the user then: not shown again while they last.
        self._errors_shown: frozenset[str] = frozenset()

    async def watch_files(self) -> None:
        """Ask the client to tell of changes on disk to the files an analysis reads (a checkout,
        another tool's edit), where it can register such watchers as the server asks."""
        workspace = self.client_capabilities.workspace
        watching = workspace.did_change_watched_files if workspace else None
        if not (watching and watching.dynamic_registration):
            return
        options = types.DidChangeWatchedFilesRegistrationOptions(
            [types.FileSystemWatcher(glob_pattern=pattern) for pattern in _WATCHED_FILES]
        )
        registration = types.Registration(str(uuid.uuid4()), types.WORKSPACE_DID_CHANGE_WATCHED_FILES, options)
        try:
            await self.client_register_capability_async(types.RegistrationParams([registration]))
        except JsonRpcException as refused:
            logging.getLogger(__name__).info("the client watches no files for the server: %s", refused)

    def report_server_error(self, error: Exception, source: type[Exception]) -> None:
        if isinstance(error, json.JSONDecodeError):
            # JSON-RPC answers a message that is not JSON with ParseError and a null id: it names
            # no request, and the client learns its message was lost.
            unreadable = JsonRpcParseError(f"the message is not JSON: {error}").to_response_error()
            # As a plain object: pygls' own messages leave a null id out.
            answer = {"jsonrpc": "2.0", "id": None, "error": {"code": unreadable.code, "message": unreadable.message}}
            self.protocol._send_data(answer)
            return
        super().report_server_error(error, source)  # type: ignore[arg-type]

    def schedule(self, delay: float) -> None:
        """Analyse the open documents after `delay` seconds, unless asked again before."""
        if self._pending is not None:
            self._pending.cancel()
        self._pending = asyncio.get_running_loop().call_later(delay, self._start_analysis)

    def _start_analysis(self) -> None:
        self._pending = None
        if self._analysis is not None and not self._analysis.done():
            self._again = True
            return
        self._analysis = asyncio.ensure_future(self._analyse_and_publish())
        self._analysis.add_done_callback(self._analysed)

    def _analysed(self, analysis: asyncio.Task[None]) -> None:
        if not analysis.cancelled() and (failure := analysis.exception()) is not None:
            logging.getLogger(__name__).error("the analysis failed", exc_info=failure)
            self.window_show_message(
                types.ShowMessageParams(types.MessageType.Error, f"epochlint: the analysis failed: {failure}")
            )
        if self._again:
            self._again = False
            self._start_analysis()

    async def _analyse_and_publish(self) -> None:
        # The texts analysed, as they are now: typing goes on while the analysis runs. Keyed as the
        # workspace keys them (not by the URI the client sent, which each document keeps).
        codec = self.workspace.position_codec
        open_documents = dict(self.workspace.text_documents)
        paths = {key: path for key, doc in open_documents.items() if (path := _source_path(doc))}
        documents = {
            key: TextDocument(doc.uri, doc.source, version=doc.version, position_codec=codec)
            for key, doc in open_documents.items()
            if key in paths
        }
        buffers = {paths[key]: _encoded(doc) for key, doc in documents.items()}
        async with self._progress("Analysing the open files' projects"):
            runs, errors = await self.in_background(analyse_buffers, buffers, self._workspace_folders())
        self._show_new_errors(errors)
        self.runs = {}
        for key, document in documents.items():
            # Else closed meanwhile (its diagnostics are cleared), or closed and opened again: the
            # analysis the opening started publishes what it finds in the new text.
            if self.workspace.text_documents.get(key) is open_documents[key]:
                self._publish(document, paths[key], runs.get(paths[key]))
        if not self._analysis_loaded:
            # The first run, on opening, may have read its findings back and loaded neither the
            # parser nor the analysis: loaded now, they no longer hold up the first edit's run.
            self._analysis_loaded = True
            await self.in_background(load_the_analysis)

    def _workspace_folders(self) -> list[Path]:
        """The folders the client opened (or its root, from a client that names no folders)."""
        uris = [folder.uri for folder in self.workspace.folders.values()] or [self.workspace.root_uri]
        return [in_memory_path(Path(path)) for uri in uris if uri and (path := _file_name(uri))]

    def _show_new_errors(self, errors: Sequence[str]) -> None:
        for error in errors:
            if error not in self._errors_shown:
                self.window_show_message(types.ShowMessageParams(types.MessageType.Error, error))
        self._errors_shown = frozenset(errors)

    def _publish(self, document: TextDocument, path: Path, run: ProjectRun | None) -> None:
        """Publish the findings of `run` in `document` (the file at `path`), under the URI the client
        opened it with; none without a run: its project could not be analysed, as an error said."""
        diagnostics: list[types.Diagnostic] = []
        if run is not None:
            self.runs[document.uri] = run
            diagnostics = [diagnostic(finding, document, run) for finding in located_in(run, path)]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=document.uri, diagnostics=diagnostics, version=document.version)
        )

    async def in_background(self, work: Callable[..., _Result], *args: object) -> _Result:
        """`work(*args)`, run on a thread of its own after the work before it has ended."""
        async with self._busy:
            return await _on_a_thread(work, *args)

    def _progress(self, title: str) -> _Progress:
        capabilities = self.client_capabilities.window
        return _Progress(self if capabilities is not None and capabilities.work_done_progress else None, title)

    def forget(self, uri: str) -> None:
        self.runs.pop(uri, None)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


class _Protocol(LanguageServerProtocol):
    """pygls' protocol, which ignores a change to a document the client has not opened (a client that
    missed the opening, or resends changes to a restarted server): there is no text to apply it to;
    and which answers every request, as JSON-RPC and LSP ask, where pygls leaves some unanswered
    (the client waits for good): one whose parameters do not fit its method gets InvalidParams, one
    sent after `shutdown` InvalidRequest, one sent before `initialize` ServerNotInitialized."""

    @property
    def shut_down(self) -> bool:
        """Whether the client has sent `shutdown`."""
        return self._shutdown

    def structure_message(self, data: dict[str, object]) -> object:
        try:
            return super().structure_message(data)
        except JsonRpcInvalidParams as error:
            if "method" not in data or "id" not in data:  # a notification: nothing to answer
                raise
            self._send_response(data["id"], None, error.to_response_error())  # type: ignore[arg-type]
            return _ANSWERED

    def handle_message(self, message: object) -> None:
        if message is _ANSWERED:
            return
        method, request_id = getattr(message, "method", None), getattr(message, "id", None)
        if self._shutdown and method not in (None, types.EXIT) and request_id is not None:
            refusal = JsonRpcInvalidRequest("the server is shut down: only exit is expected")
            self._send_response(request_id, None, refusal.to_response_error())
            return
        if self._workspace is None and method not in (None, types.INITIALIZE, types.EXIT):
            # Before `initialize`, LSP has requests refused with ServerNotInitialized and
            # notifications dropped: there is no workspace to act on yet.
            if request_id is not None:
                too_early = JsonRpcServerNotInitialized("the server is not initialized: initialize is expected")
                self._send_response(request_id, None, too_early.to_response_error())
            return
        super().handle_message(message)  # type: ignore[arg-type]

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[object, object, None]:
        uri = params.text_document.uri
        if unquote(uri) not in self.workspace.text_documents:  # keyed by the unquoted URI
            logging.getLogger(__name__).debug("ignored a change to %s, which is not open", uri)
            return
        yield from super().lsp_text_document__did_change(params)


class _Progress:
    """Work-done progress around a block, when the client shows it (`server` is None otherwise)."""

    def __init__(self, server: EpochlintServer | None, title: str) -> None:
        self._server = server
        self._title = title
        self._token = f"epochlint-{uuid.uuid4().hex}"
        self._begun = False

    async def __aenter__(self) -> None:
        if self._server is None:
            return
        try:
            await self._server.work_done_progress.create_async(self._token)
        except JsonRpcException:  # the client refused the token: the analysis goes on without it
            return
        self._server.work_done_progress.begin(self._token, types.WorkDoneProgressBegin(self._title))
        self._begun = True

    async def __aexit__(self, kind: type[BaseException] | None, *_: object) -> None:
        # Cancelled, the work is the server's exit: the connection is closed, nothing can be sent.
        if self._server is not None and self._begun and kind is not asyncio.CancelledError:
            self._server.work_done_progress.end(self._token, types.WorkDoneProgressEnd())


def _on_a_thread(work: Callable[..., _Result], *args: object) -> asyncio.Future[_Result]:
    """`work(*args)` on a daemon thread with a large stack (the analysis parses files, and its model
    follows deeply nested code): an analysis under way never holds up the server's exit."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[_Result] = loop.create_future()

    def settle(outcome: Callable[[], None]) -> None:
        if not future.done():
            outcome()

    def run() -> None:
        try:
            result = work(*args)
        except BaseException as failure:  # handed to the awaiting coroutine, never lost
            loop.call_soon_threadsafe(settle, partial(future.set_exception, failure))
        else:
            loop.call_soon_threadsafe(settle, partial(future.set_result, result))

    start_on_a_large_stack(run, "epochlint-analysis")
    return future


def _source_path(document: TextDocument) -> Path | None:
    """Where a document's file is (as `in_memory_path` names it), when it is a Python or Java file:
    by the editor's language, or by its name (some clients send every open document). None for
    other documents, and for those no file holds (an unsaved new buffer, a notebook cell)."""
    path = _file_name(document.uri)
    if not path:
        return None
    if document.language_id not in _SOURCE_LANGUAGES and not is_source_name(Path(path).name):
        return None
    return in_memory_path(Path(path))


def _file_name(uri: str) -> str | None:
    """The name of the file a URI names; None where none can (not a `file:` URI, or a name with a
    NUL byte, which no file system takes: the analysis of every open file would fail on it)."""
    path = to_fs_path(uri)
    return path if path and "\0" not in path else None


def _encoded(document: TextDocument) -> bytes:
    """The buffer's text as its file would hold it once saved."""
    try:
        return document.source.encode(_buffer_encoding(document.source))
    except UnicodeEncodeError:
        # Not in the encoding it declares, or a lone surrogate: bytes that fail to decode, as the
        # saved file's would (EPL900 says where).
        return document.source.encode(_BUFFER_ENCODING, "surrogatepass")


def _buffer_encoding(text: str) -> str:
    """The encoding a Python source declares in its first two lines (PEP 263), as the analysis reads
    its bytes by it; UTF-8 where it declares none (a byte order mark is in the text already)."""
    try:
        declared, _ = tokenize.detect_encoding(io.BytesIO(text.encode(_BUFFER_ENCODING, "surrogatepass")).readline)
    except SyntaxError:  # an encoding no codec has: the analysis says so
        return _BUFFER_ENCODING
    return _BUFFER_ENCODING if declared.startswith("utf-8") else declared


def _rule_documentation(code: str) -> types.CodeDescription | None:
    page = RULE_DOCS / f"{code}.md"
    return types.CodeDescription(href=page.as_uri()) if page.is_file() else None


def diagnostic(finding: Finding, document: TextDocument, run: ProjectRun) -> types.Diagnostic:
    return types.Diagnostic(
        range=_range(finding.location, document),
        message=finding.message,
        severity=_severity(finding.code),
        code=finding.code,
        code_description=_rule_documentation(finding.code),
        source=SOURCE,
        related_information=list(_related(finding, document, run)),
        data={"fingerprint": finding.fingerprint},
        tags=[types.DiagnosticTag.Unnecessary] if finding.code in _UNNECESSARY_CODES else None,
    )


def _severity(code: str) -> types.DiagnosticSeverity:
    """As the other outputs say: a finding is an error; code that could not be checked, a warning."""
    return types.DiagnosticSeverity.Warning if code in WARNING_CODES else types.DiagnosticSeverity.Error


def _related(finding: Finding, document: TextDocument, run: ProjectRun) -> Iterator[types.DiagnosticRelatedInformation]:
    for step in finding.chain:
        message = f"{step.function}: {step.message}" if step.function else step.message
        yield _information(step.location, message, finding.location.path, document, run)
    for related in finding.related:
        yield _information(related.location, related.message, finding.location.path, document, run)


def _information(
    location: Location, message: str, document_name: str, document: TextDocument, run: ProjectRun
) -> types.DiagnosticRelatedInformation:
    """`document_name` is the document's name in the run (`Location.path`), which may be escaped."""
    if location.path == document_name:  # named by the URI the client sent
        return types.DiagnosticRelatedInformation(types.Location(document.uri, _range(location, document)), message)
    path = named_path(run.config.root, location.path)
    uri = from_fs_path(str(path)) or document.uri
    # Columns count code points; the document's codec turns them into the client's units, where
    # the file's text can be read (else code points: the same for ASCII lines).
    text = _analysed_text(run, path)
    other = TextDocument(uri, text, position_codec=document.position_codec) if text is not None else None
    return types.DiagnosticRelatedInformation(types.Location(uri, _range(location, other)), message)


def _analysed_text(run: ProjectRun, path: Path) -> str | None:
    """The text of the file at `path` as the run analysed it: an open buffer's, or the file's."""
    data = run.in_memory.get(in_memory_path(path))
    if data is None:
        try:
            status = path.stat()
        except OSError:
            return None
        return _file_text(str(path), status.st_mtime_ns, status.st_size)
    with suppress(SyntaxError, ValueError):
        return decoded(data)
    return None


@lru_cache(maxsize=64)
def _file_text(path: str, mtime_ns: int, size: int) -> str | None:
    """A file's text, read once while it stays as it is (`mtime_ns`, `size`): a chain names the same
    few files in every diagnostic."""
    with suppress(OSError, SyntaxError, ValueError):
        return decoded(Path(path).read_bytes())
    return None


def _range(location: Location, document: TextDocument | None) -> types.Range:
    """`location`'s span (columns in code points) in the client's units, where the text is at hand."""
    start = ServerTextPosition(location.line - 1, location.column - 1)
    end = ServerTextPosition(location.end_line - 1, location.end_column - 1)
    if document is None:
        return types.Range(types.Position(start.line, start.character), types.Position(end.line, end.character))
    lines, codec = _lines(document.source), document.position_codec
    return types.Range(codec.position_to_client_units(lines, start), codec.position_to_client_units(lines, end))


def _lines(text: str) -> list[str]:
    """The lines of `text` as LSP counts them, without their ends."""
    return _LINE_END.split(text)


async def code_actions(server: EpochlintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """The fix (where one exists and is verified) and a suppression, for each finding in range."""
    run = server.runs.get(params.text_document.uri)
    document = server.workspace.get_text_document(params.text_document.uri)
    path = _source_path(document)
    if run is None or path is None or run.in_memory.get(path) != _encoded(document):
        return []  # analysed text is out of date: the next diagnostics bring their own actions
    findings = [f for f in located_in(run, path) if _overlaps(_range(f.location, document), params.range)]
    planned = await server.in_background(_planned_fixes, run, findings)
    if run.in_memory.get(path) != _encoded(document):
        return []  # edited while the fixes were verified
    actions: list[types.CodeAction] = []
    for finding, fixes in zip(findings, planned):
        actions.extend(_fix_actions(run, finding, fixes, document, path))
        if (suppression := _suppression_action(finding, document)) is not None:
            actions.append(suppression)
    return actions


def _planned_fixes(run: ProjectRun, findings: Sequence[Finding]) -> list[list[FileFix]]:
    """The verified fixes of each finding (none where it has no fix)."""
    from epochlint.fix import fixable
    from epochlint.fix.run import plan_fixes

    return [
        plan_fixes([run.config.root], run.config, run.result.findings, [finding], in_memory=run.in_memory)
        if fixable(finding)
        else []
        for finding in findings
    ]


def _overlaps(found: types.Range, wanted: types.Range) -> bool:
    def key(position: types.Position) -> tuple[int, int]:
        return (position.line, position.character)

    return key(found.start) <= key(wanted.end) and key(wanted.start) <= key(found.end)


def _fix_actions(
    run: ProjectRun, finding: Finding, fixes: Sequence[FileFix], document: TextDocument, path: Path
) -> list[types.CodeAction]:
    """The fix of `finding` in `document` (the file at `path`), with any other files it edits."""
    edits: dict[str, list[types.TextEdit]] = {}
    for fix in fixes:
        own = fix.source.path == path
        # The document's own edit goes to the URI the client opened it with, in the text its bytes
        # were made from (a leading BOM in it kept: the fix's encoding would drop it).
        uri = document.uri if own else from_fs_path(str(fix.source.path)) or document.uri
        encoding = _buffer_encoding(document.source) if own else fix.encoding
        before, after = fix.before.decode(encoding), fix.after.decode(encoding)
        edits[uri] = [_whole_text_edit(before, after, document.position_codec)]
    if not edits:
        return []
    return [
        types.CodeAction(
            title=f"Fix {finding.code}: {finding.name}",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diagnostic(finding, document, run)],
            edit=types.WorkspaceEdit(changes=edits),
            is_preferred=True,
        )
    ]


def _whole_text_edit(before: str, after: str, codec: PositionCodec) -> types.TextEdit:
    """`before` replaced by `after`, in the units the client and the server agreed on."""
    lines = _lines(before)
    end = codec.position_to_client_units(lines, ServerTextPosition(len(lines) - 1, len(lines[-1])))
    return types.TextEdit(types.Range(types.Position(0, 0), end), after)


def _suppression_action(finding: Finding, document: TextDocument) -> types.CodeAction | None:
    """Add the finding's code to the line's ignore list, or end the line with one, in a comment of
    the document's language; None where no comment can silence it: a finding only a per-file
    ignore silences, a line continued by a backslash (which no comment may end)."""
    line = finding.location.line - 1
    lines = _lines(document.source)
    text = lines[line] if line < len(lines) else ""
    listed = ignore_list_in(text)
    if finding.code in _UNSUPPRESSIBLE_BY_LINE or (listed is None and text.endswith("\\")):
        return None
    if listed is not None:
        column = listed.end("codes")
        inserted = f",{finding.code}" if listed.group("codes").strip() else finding.code
    else:
        column = len(text)
        inserted = f"  {'//' if _is_java(document) else '#'} epochlint: ignore[{finding.code}]"
    at = document.position_codec.position_to_client_units(lines, ServerTextPosition(line, column))
    edit = types.TextEdit(types.Range(at, at), inserted)
    return types.CodeAction(
        title=f"Suppress {finding.code} on this line",
        kind=types.CodeActionKind.QuickFix,
        edit=types.WorkspaceEdit(changes={document.uri: [edit]}),
    )


def _is_java(document: TextDocument) -> bool:
    return document.language_id == "java" or is_java(_file_name(document.uri) or "")


def build_server() -> EpochlintServer:
    server = EpochlintServer()

    @server.feature(types.INITIALIZED)
    async def initialized(server: EpochlintServer, params: types.InitializedParams) -> None:
        await server.watch_files()

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files_changed(server: EpochlintServer, params: types.DidChangeWatchedFilesParams) -> None:
        server.schedule(DEBOUNCE_SECONDS)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(server: EpochlintServer, params: types.DidOpenTextDocumentParams) -> None:
        opened = params.text_document
        if opened.language_id in _SOURCE_LANGUAGES and not _file_name(opened.uri):
            # Said, not left silent: its findings would depend on a project it is in no folder of.
            unsaved = not to_fs_path(opened.uri)
            why = "it is in no file yet (save it to analyse it)" if unsaved else "no file has its name"
            server.window_log_message(
                types.LogMessageParams(types.MessageType.Info, f"{SOURCE}: {opened.uri} is not analysed: {why}")
            )
        server.schedule(0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(server: EpochlintServer, params: types.DidChangeTextDocumentParams) -> None:
        server.schedule(DEBOUNCE_SECONDS)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(server: EpochlintServer, params: types.DidSaveTextDocumentParams) -> None:
        server.schedule(0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(server: EpochlintServer, params: types.DidCloseTextDocumentParams) -> None:
        server.forget(params.text_document.uri)
        server.schedule(0)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    async def code_action(server: EpochlintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return await code_actions(server, params)

    return server


class _OneLine(logging.Formatter):
    """A record on one line, an exception by its type and message: the editor's log of the server
    shows what went wrong, and no traceback."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if record.exc_info and (failure := record.exc_info[1]) is not None:
            message = f"{message}: {type(failure).__name__}: {failure}"
        return f"epochlint server: {record.levelname.lower()}: {message}"


def log_on_one_line() -> None:
    """Warnings and errors of the server and pygls go to stderr, each on one line."""
    handler = logging.StreamHandler()
    handler.setFormatter(_OneLine())
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)


class _UnreadableInput(Exception):
    """The client's input cannot be split into messages any more: the session ends."""


class _FramedInput:
    """The client's messages, each read here and handed on as pygls reads them (a header of
    `Content-Length: N` and CRLF exactly, where it waits for good on any other): header names in
    any case, blanks after the colon, and LF line ends are taken. A header that cannot be read, or
    a length beyond `_LARGEST_MESSAGE`, raises `_UnreadableInput`: where the next message starts is
    lost."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        # The message pygls is reading, less what it has read.
        self._framed = b""

    def readline(self) -> bytes:
        if not self._framed:
            self._framed = self._next_message()
        line, end, self._framed = self._framed.partition(b"\n")
        return line + end

    def read(self, size: int) -> bytes:
        taken, self._framed = self._framed[:size], self._framed[size:]
        return taken

    def _next_message(self) -> bytes:
        """The next message with pygls' header; empty once the client has closed the input."""
        length = self._content_length()
        if length is None:
            return b""
        return b"Content-Length: %d\r\n\r\n" % length + self._stream.read(length)

    def _content_length(self) -> int | None:
        """The Content-Length of the next message's header; None where the input ends first."""
        length: int | None = None
        while line := self._stream.readline(_LONGEST_HEADER_LINE):
            if len(line) == _LONGEST_HEADER_LINE and not line.endswith(b"\n"):
                raise _UnreadableInput(f"a header line is longer than {_LONGEST_HEADER_LINE} bytes: {line[:80]!r}")
            if not (text := line.removesuffix(b"\n").removesuffix(b"\r")):
                if length is None:
                    raise _UnreadableInput("a message header has no Content-Length")
                return length
            if not (header := _HEADER_LINE.fullmatch(text)):
                raise _UnreadableInput(
                    f"the header line {text[:80]!r} cannot be read"
                    " (is it the end of a message longer than its Content-Length?)"
                )
            if header["name"].lower() == b"content-length":
                length = _message_length(header["value"])
        return None


def _message_length(value: bytes) -> int:
    if not value.isdigit():
        raise _UnreadableInput(f"the Content-Length {value[:80]!r} is not a number of bytes")
    # By its digits first: `int` refuses a string of thousands of them.
    if len(value) > len(str(_LARGEST_MESSAGE)) or int(value) > _LARGEST_MESSAGE:
        raise _UnreadableInput(
            f"the Content-Length {value[:80].decode()} is beyond the {_LARGEST_MESSAGE} bytes a message may hold"
        )
    return int(value)


def serve() -> int:
    """Speak LSP on stdin and stdout until the client says exit (or closes the connection); the
    exit status is 0 after a `shutdown` request, 1 without one, as LSP specifies (and 1 where the
    input cannot be split into messages: the client is lost)."""
    keep_decoded_facts()  # each analysis after the first decodes only the files that changed
    log_on_one_line()
    name_paths_whole()
    server = build_server()
    try:
        # pygls ends it by SystemExit, which it swallows, with the status it meant. It reads its
        # input by `readline` and `read` only.
        server.start_io(_FramedInput(sys.stdin.buffer))  # type: ignore[arg-type]
    except _UnreadableInput as lost:
        logging.getLogger(__name__).error("%s: the session ends", lost)
        return _EXIT_WITHOUT_SHUTDOWN
    assert isinstance(server.protocol, _Protocol)
    return 0 if server.protocol.shut_down else _EXIT_WITHOUT_SHUTDOWN
