"""Shared test helpers: the `# expect: CODE` markers and running the real pipeline on a folder."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from epochlint.collect import read_source
from epochlint.config import Config, load_config
from epochlint.discovery import SourceFile, discover
from epochlint.engine import FileResult, build_program, check
from epochlint.frontend import facts_from_source
from epochlint.frontend.facts import FileFacts
from epochlint.program.model import Program
from epochlint.report import RunResult
from epochlint.rules import all_rules

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"
KNOWN_CODES = frozenset(rule.code for rule in all_rules())
# `# expect:` in Python, `// expect:` in Java.
_EXPECT = re.compile(r"(?:#|//)\s*expect:\s*(?P<codes>EPL\d{3}(?:\s*,\s*EPL\d{3})*)")
SOURCE_PATTERNS = ("*.py", "*.java")
# A guard against a hang only (every run it bounds takes seconds): the test fails with its stack
# instead of stalling the suite. How fast a run is gets measured in bench/, never asserted here.
HANG_GUARD_SECONDS = 300
hang_guard = pytest.mark.timeout(HANG_GUARD_SECONDS)

Mark = tuple[str, int, str]


def expected_marks(root: Path, folder: Path) -> Counter[Mark]:
    """(root-relative path, line, code) for every `# expect:` marker in the folder's files."""
    marks: Counter[Mark] = Counter()
    for path in sorted(p for pattern in SOURCE_PATTERNS for p in folder.rglob(pattern)):
        rel = path.relative_to(root).as_posix()
        text = path.read_bytes().decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            match = _EXPECT.search(line)
            if match:
                for code in match.group("codes").split(","):
                    marks[(rel, number, code.strip())] += 1
    return marks


def actual_marks(result: RunResult) -> Counter[Mark]:
    return Counter((f.location.path, f.location.line, f.code) for f in result.findings)


def program_of(sources: list[SourceFile], config: Config) -> Program:
    """The program of `sources`, each read and parsed in this process (no cache, no prefilter)."""
    return build_program([FileResult(source, _parsed(source, config.max_file_size)) for source in sources], config)


def program_of_folder(root: Path) -> Program:
    """The program of every file found under `root`, with its configuration."""
    config = load_config([root], None, KNOWN_CODES)
    sources, _ = discover([root], config)
    return program_of(sources, config)


def _parsed(source: SourceFile, max_size: int) -> FileFacts:
    data = read_source(source, max_size)
    return FileFacts(lines=0, error=data) if isinstance(data, str) else facts_from_source(data)


def run_check(*paths: Path, overrides: dict[str, object] | None = None) -> RunResult:
    config = load_config(list(paths), None, KNOWN_CODES, overrides)
    return check(list(paths), config)


@pytest.fixture
def write_tree(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Write {relative path: text} under a fresh project root (with a pyproject.toml) and return it."""

    def write(files: dict[str, str | bytes], pyproject: str = "") -> Path:
        (tmp_path / "pyproject.toml").write_text(pyproject or "[project]\nname = 'sample'\n")
        for rel, content in files.items():
            target = tmp_path / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content)
        return tmp_path

    return write
