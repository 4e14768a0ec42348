"""Fuzzing the frontend, every rule and the whole command.

- Generated valid programs (hypothesmith), and consumer-shaped programs built from the constructs
  the rules look at, through the frontend and every rule: no exception, the same facts when read
  twice and after the trip through the codec, and the prefilter's light facts agree on errors.
- Programs nested as deep as the nesting scan lets through, in every construct: analysed, or
  refused as too deeply nested; never a crash, a hang or a RecursionError.
- A mutation fuzzer: byte flips, truncations, line shuffles... of every fixture, through
  `epochlint check`: exit status 0 or 1 only, never a traceback, and every file accounted for.

Everything is seeded: a failure names its seed and input, and reruns the same.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import epochlint.engine as engine
from epochlint.cli import main
from epochlint.config import Config
from epochlint.discovery import SourceFile
from epochlint.engine import FileResult
from epochlint.findings import Finding
from epochlint.frontend import codec, facts_from_source, facts_without_parse
from epochlint.frontend.facts import FileFacts
from epochlint.rules import all_rules
from tests.conftest import FIXTURES, hang_guard

# How many inputs each fuzzer runs: the quick ones in every run, the rest in CI's slow runs.
HYPOTHESMITH_EXAMPLES = 30
HYPOTHESMITH_EXAMPLES_SLOW = 200
CONSUMER_EXAMPLES = 100
CONSUMER_EXAMPLES_SLOW = 500
NESTED_PROGRAMS = 40
NESTED_PROGRAMS_SLOW = 200
MUTANTS = 400
MUTANTS_SLOW = 1600
MUTANTS_PER_RUN = 100

SEED_FILES = sorted(FIXTURES.rglob("*.py"))


# --- the frontend and the rules on one file ------------------------------------------------------


def analyse(data: bytes) -> tuple[FileFacts, list[Finding]]:
    """Facts of `data` (read twice, and through the codec: always the same) and every rule's findings."""
    facts = facts_from_source(data)
    assert facts_from_source(data) == facts
    assert codec.decode(codec.encode(facts)) == facts
    assert facts_without_parse(data).error == facts.error
    source = SourceFile(Path("fuzzed") / "module.py", "module.py")
    findings, rules, _ = engine.analyse([FileResult(source, facts)], Config(root=Path("fuzzed")))
    assert tuple(rules) == tuple(all_rules())  # every rule ran
    return facts, findings


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: not a file anyone can have
        assume(False)
        raise


def _fuzz(strategy: st.SearchStrategy[str], examples: int, check: Callable[[str], object]) -> None:
    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck))
    @given(source=strategy)
    def run(source: str) -> None:
        check(source)

    run()


def _quick_and_many(quick: int, many: int) -> pytest.MarkDecorator:
    return pytest.mark.parametrize(
        "examples", [pytest.param(quick, id="quick"), pytest.param(many, id="many", marks=pytest.mark.slow)]
    )


GENERATORS = {"grammar": hypothesmith.from_grammar(), "syntax-trees": hypothesmith.from_node()}


@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # hypothesmith compiles what it generates
@_quick_and_many(HYPOTHESMITH_EXAMPLES, HYPOTHESMITH_EXAMPLES_SLOW)
@pytest.mark.parametrize("generator", GENERATORS.values(), ids=GENERATORS.keys())
def test_generated_programs_go_through_the_frontend_and_every_rule(
    generator: st.SearchStrategy[str], examples: int
) -> None:
    _fuzz(generator, examples, lambda source: analyse(_utf8(source)))


# Statements a consumer's method may hold: locks, loops over batches, epoch reads and writes,
# hand-offs, commits, rewinds, nested functions... in any combination and nesting.
CONSUMER_STATEMENTS = (
    "self._epoch += 1",
    "self._epoch = self._epoch + 1",
    "epoch = self._epoch",
    "self._state.epoch = epoch",
    "self._leader_epochs[tp] = self._epoch",
    "ok = message.epoch >= self._epoch",
    "self.deliver(message)",
    "self._queue.clear()",
    "self._consumer.commit(offsets={tp: (message.offset, self._epoch)})",
    "self._consumer.seek(tp, 0)",
    "self._executor.submit(self.on_batch, batch)",
    "threading.Thread(target=lambda: self.seek(0)).start()",
    "self._lock.acquire()",
    "self._lock.release()",
    "await asyncio.sleep(0)",
    "return self._epoch",
    "yield message",
    "pass",
    "del self._epoch",
    "global EPOCH",
    "EPOCH = self._epoch",
    "self._callback = self._on_done",
)
CONSUMER_BLOCKS = (
    "with self._lock:",
    "with self._cond:",
    "async with self._alock:",
    "for message in batch:",
    "async for message in stream:",
    "while self._running:",
    "if message.epoch < self._epoch:",
    "try:",
    "def inner():",
    "if self._lock.acquire(timeout=1):",
)
CONSUMER_HEADER = """\
import asyncio
import threading

EPOCH = 0


def synchronized(method):
    return method


class Consumer:
    def __init__(self):
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._alock = asyncio.Lock()
        self._epoch = 0

"""


@st.composite
def method_bodies(draw: st.DrawFn, indent: int = 2, depth: int = 0) -> list[str]:
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        pad = "    " * indent
        if depth < 3 and draw(st.booleans()):
            block = draw(st.sampled_from(CONSUMER_BLOCKS))
            lines.append(pad + block)
            lines.extend(draw(method_bodies(indent + 1, depth + 1)))
            if block == "try:":
                lines.extend([pad + "finally:", pad + "    self._lock.release()"])
        else:
            lines.append(pad + draw(st.sampled_from(CONSUMER_STATEMENTS)))
    return lines


@st.composite
def consumers(draw: st.DrawFn) -> str:
    methods = []
    for index in range(draw(st.integers(1, 4))):
        decorator = draw(st.sampled_from(["", "    @synchronized\n"]))
        prefix = draw(st.sampled_from(["def", "async def"]))
        name = draw(st.sampled_from(["on_batch", "seek", "poll", "_is_current", "rewind", "handle"]))
        body = "\n".join(draw(method_bodies()))
        methods.append(f"{decorator}    {prefix} {name}_{index}(self, batch, message, tp):\n{body}\n")
    return CONSUMER_HEADER + "\n".join(methods)


@_quick_and_many(CONSUMER_EXAMPLES, CONSUMER_EXAMPLES_SLOW)
def test_consumer_shaped_programs_go_through_the_frontend_and_every_rule(examples: int) -> None:
    _fuzz(consumers(), examples, _analyse_consumer)


def _analyse_consumer(source: str) -> None:
    facts, findings = analyse(source.encode())
    if facts.error:
        # Only what Python itself rejects (`yield`/`await` where they may not be, `return` with a value
        # in an async generator...); never a crash.
        assert facts.error.startswith("syntax error"), facts.error
    for finding in findings:
        assert finding.location.path == "module.py" and finding.location.line >= 1


# --- programs nested as deeply as the nesting scan allows ---------------------------------------

# (template, its slot takes any expression, its result is an atom)
WRAPPERS: tuple[tuple[str, bool, bool], ...] = (
    ("({e})", True, True), ("[{e}]", True, True), ("{{{e}}}", True, True), ("{{k: {e}}}", True, True),
    ("f({e})", True, True), ("f(a={e})", True, True), ("f(*{e})", False, True), ("a[{e}]", True, True),
    ("a[1:{e}]", False, True), ("{e}.b", False, True), ("{e}()", False, True), ("{e}[0]", False, True),
    ("-{e}", False, False), ("not {e}", False, False), ("~{e}", False, False), ("{e} + 1", False, False),
    ("1 + {e}", False, False), ("{e} * 2", False, False), ("2 ** {e}", False, False), ("{e} ** 2", False, False),
    ("a and {e}", False, False), ("{e} or b", False, False), ("a if {e} else b", False, False),
    ("a if c else {e}", True, False), ("lambda: {e}", True, False), ("lambda a={e}: 1", True, False),
    ("lambda a, b={e}: a", True, False), ("(y := {e})", True, True), ("(x for x in {e})", False, True),
    ("[x for x in y if {e}]", False, True), ("{{x: {e} for x in y}}", True, True), ("await {e}", False, False),
    ("(yield {e})", True, True), ("a < {e} < b", False, False), ("(a, {e})", True, True), ("a @ {e}", False, False),
    ("'s' 't'[{e}]", True, True), ("a.b.c.d({e})", True, True),
)
BLOCK_HEADS = ("if x:", "for a in b:", "def f():", "class C:", "with a:", "while x:")


def nested_expression(rng: random.Random, wrappers: int) -> str:
    expression, atom = "x", True
    for _ in range(wrappers):
        template, any_slot, result_is_atom = rng.choice(WRAPPERS)
        inner = expression if any_slot or atom else f"({expression})"
        expression, atom = template.format(e=inner), result_is_atom
    return expression


def nested_program(rng: random.Random, wrappers: int, blocks: int) -> bytes:
    heads = [" " * level + rng.choice(BLOCK_HEADS) for level in range(blocks)]
    body = f"{' ' * blocks}async def g():\n{' ' * (blocks + 1)}z = {nested_expression(rng, wrappers)}"
    return ("\n".join([*heads, body]) + "\n").encode()


def _check_nested_programs(seed: int, count: int) -> None:
    rng = random.Random(seed)
    recursion_limit = sys.getrecursionlimit()
    verdicts = {"analysed": 0, "too deep": 0}
    for index in range(count):
        program = nested_program(rng, rng.randint(1, 700), rng.randint(0, 97))
        error = facts_from_source(program).error
        assert error == "" or error.startswith("too deeply nested to parse"), (seed, index, error)
        verdicts["analysed" if not error else "too deep"] += 1
    assert sys.getrecursionlimit() == recursion_limit
    assert all(verdicts.values()), verdicts  # both sides of the limit were tried


@hang_guard
def test_deeply_nested_programs_are_analysed_or_refused() -> None:
    _check_nested_programs(seed=8, count=NESTED_PROGRAMS)


@pytest.mark.slow
@hang_guard
def test_deeply_nested_programs_are_analysed_or_refused_many() -> None:
    _check_nested_programs(seed=88, count=NESTED_PROGRAMS_SLOW)


# --- the mutation fuzzer, through the command -----------------------------------------------------

INTERESTING_BYTES = b"\x00\xff\x80\r\n\t\x0c\"'()[]{}:\\#\xc3@*="
TOKENS = (
    b"(", b")", b"[", b"]", b":", b"\t", b"\r", b"\\\n", b'"""', b"'", b"#", b"\x00", b"\xef\xbb\xbf",
    b"lambda ", b" if ", b"await ", b"with self._lock:\n", b"\n    ", b"\xff", b"# -*- coding: latin-1 -*-\n",
    b"yield ", b"global x\n", b"nonlocal x\n", b"del self._epoch\n", b"return\n", b"async ", b"**", b":=",
    b"self._epoch += 1\n", b"for message in batch:\n", b"(" * 300, b"-" * 600, b"\r\n", b"\x1b[2J",
)
Mutation = Callable[[random.Random, bytes, bytes], bytes]


def _flip_bit(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    if not data:
        return data
    at = rng.randrange(len(data))
    return data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1 :]


def _replace_byte(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + bytes([rng.choice(INTERESTING_BYTES)]) + data[at + 1 :]


def _insert_token(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + rng.choice(TOKENS) + data[at:]


def _truncate(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def _delete_range(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    start = rng.randrange(len(data) + 1)
    return data[:start] + data[start + rng.randrange(1, 200) :]


def _duplicate_range(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    start = rng.randrange(len(data) + 1)
    end = min(len(data), start + rng.randrange(1, 400))
    return data[:end] + data[start:end] + data[end:]


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True) or [b""]


def _shuffle_lines(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    lines = _lines(data)
    rng.shuffle(lines)
    return b"".join(lines)


def _swap_lines(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    lines = _lines(data)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return b"".join(lines)


def _duplicate_line(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    lines = _lines(data)
    at = rng.randrange(len(lines))
    return b"".join(lines[: at + 1] + lines[at:])


def _delete_line(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    lines = _lines(data)
    del lines[rng.randrange(len(lines))]
    return b"".join(lines)


def _reindent_line(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    lines = _lines(data)
    at = rng.randrange(len(lines))
    lines[at] = rng.choice([b"", b"    ", b"\t", b"        "]) + lines[at].lstrip(b" \t")
    return b"".join(lines)


def _splice_other_file(rng: random.Random, data: bytes, other: bytes) -> bytes:
    lines, donor = _lines(data), _lines(other)
    start = rng.randrange(len(donor))
    at = rng.randrange(len(lines) + 1)
    return b"".join(lines[:at] + donor[start : start + rng.randrange(1, 30)] + lines[at:])


MUTATIONS: tuple[Mutation, ...] = (
    _flip_bit, _replace_byte, _insert_token, _truncate, _delete_range, _duplicate_range, _shuffle_lines,
    _swap_lines, _duplicate_line, _delete_line, _reindent_line, _splice_other_file,
)


def mutants(seed: int, count: int) -> Iterator[tuple[str, bytes]]:
    """(name, content) of `count` mutants of the fixtures, each 1 to 4 mutations deep."""
    rng = random.Random(seed)
    originals = [path.read_bytes() for path in SEED_FILES]
    for index in range(count):
        chosen = rng.randrange(len(originals))
        data = originals[chosen]
        # Mostly one mutation, so that many mutants still parse and reach the rules.
        for _ in range(rng.choice((1, 1, 1, 2, 3, 4))):
            data = rng.choice(MUTATIONS)(rng, data, rng.choice(originals))
        yield f"m{index:05d}_{SEED_FILES[chosen].stem}.py", data


def _run_command(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as exit_:
            status = exit_.code if isinstance(exit_.code, int) else -1
        except BaseException as error:  # a crash: reported with the input that caused it below
            status, err = -1, io.StringIO(f"Traceback: {error!r}")
    return status, out.getvalue(), err.getvalue()


def _fuzz_through_the_command(tmp_path: Path, seed: int, count: int) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'fuzzed'\n")
    batch: list[str] = []
    for name, data in mutants(seed, count):
        (tmp_path / "batch" / name).parent.mkdir(exist_ok=True)
        (tmp_path / "batch" / name).write_bytes(data)
        batch.append(name)
        if len(batch) == MUTANTS_PER_RUN:
            _check_batch(tmp_path, batch)
            batch = []
    if batch:
        _check_batch(tmp_path, batch)


def _check_batch(root: Path, names: list[str]) -> None:
    folder = root / "batch"
    status, stdout, stderr = _run_command("check", "--no-cache", "--output-format", "json", str(folder))
    culprit = "" if status in (0, 1) and not stderr else _culprit(folder, names)
    assert status in (0, 1) and "Traceback" not in stderr and stderr == "", (status, stderr[-2000:], culprit)
    summary = json.loads(stdout)["summary"]
    assert summary["files"] == len(names), summary  # nothing dropped
    for path in folder.iterdir():
        path.unlink()


def _culprit(folder: Path, names: list[str]) -> str:
    """The first mutant that fails on its own, to name in the failure."""
    for name in names:
        status, _, stderr = _run_command("check", "--no-cache", str(folder / name))
        if status not in (0, 1) or stderr:
            return f"{name}: {(folder / name).read_bytes()[:300]!r}"
    return "no single file fails alone"


def test_mutated_fixtures_through_the_command_exit_0_or_1(tmp_path: Path) -> None:
    _fuzz_through_the_command(tmp_path, seed=20260, count=MUTANTS)


@pytest.mark.slow
def test_mutated_fixtures_through_the_command_exit_0_or_1_many(tmp_path: Path) -> None:
    _fuzz_through_the_command(tmp_path, seed=20261, count=MUTANTS_SLOW)


def test_the_mutants_are_reproducible_and_varied() -> None:
    first = list(mutants(7, 50))
    assert first == list(mutants(7, 50))
    unparseable = sum(1 for _, data in first if facts_from_source(data).error)
    assert 0 < unparseable < len(first), unparseable
