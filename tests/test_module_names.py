"""A package's folder checked from inside it is analysed as Python imports it: its modules' names
begin with the package's own, so that the absolute imports between them resolve."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from epochlint.config import load_config
from epochlint.discovery import SourceFile, discover
from epochlint.collect import JAVA, PARSED, source_facts
from epochlint.engine import FileResult, check, program_module_names, unit_module_names
from epochlint.frontend.java import available as java_frontend_available
from epochlint.frontend.java import is_java
from tests.conftest import FIXTURES, KNOWN_CODES, actual_marks, expected_marks, run_check
from tests.test_stdin import BASE, RACY_SUBCLASS

WriteTree = Callable[..., Path]


def _absolute_pulsar(tmp_path: Path) -> Path:
    """The #25204 seed's package (an EPL001 fixture), its relative imports made absolute."""
    package = tmp_path / "pulsar"
    shutil.copytree(FIXTURES / "EPL001" / "pulsar", package)
    for path in package.glob("*.py"):
        path.write_text(re.sub(r"^from \.", "from pulsar.", path.read_text(), flags=re.MULTILINE))
    return package


def test_a_package_checked_from_inside_finds_what_a_check_from_above_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = _absolute_pulsar(tmp_path)
    monkeypatch.chdir(package)
    inside = run_check(Path("."))
    monkeypatch.chdir(tmp_path)
    above = run_check(Path("."))
    assert actual_marks(above) == expected_marks(tmp_path, package)
    assert actual_marks(inside) == expected_marks(package, package)
    assert actual_marks(inside), "the seed's EPL001 runs through an absolute import"


@pytest.mark.parametrize(
    ("packages", "root", "import_line", "expected"),
    [
        # The root and the folder above it are packages: names start from the outermost.
        (
            ["a", "a/b", "a/b/c"],
            "a/b",
            "from a.b.c import y",
            {"x.py": "a.b.x", "__init__.py": "a.b", "c/y.py": "a.b.c.y"},
        ),
        # The folder above the root is no package: the root's own name starts them.
        (["b", "b/c"], "b", "import b.c.y", {"x.py": "b.x", "__init__.py": "b", "c/y.py": "b.c.y"}),
        # Files that import each other from the root (PyCG's `parent_import`) are named from it.
        (["b", "b/c"], "b", "from c import y", {"x.py": "x", "c/y.py": "c.y"}),
        # A root that is no package names its modules from itself, as before.
        (["b/c"], "b", "import b.c.y", {"x.py": "x", "c/y.py": "c.y"}),
        # Python cannot import a folder whose name is not an identifier as a package.
        (["my-pkg", "my-pkg/c"], "my-pkg", "from c import y", {"x.py": "x", "c/y.py": "c.y"}),
    ],
)
def test_module_names_start_from_the_outermost_package_holding_the_root(
    tmp_path: Path, packages: list[str], root: str, import_line: str, expected: dict[str, str]
) -> None:
    for folder in packages:
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "__init__.py").write_text("")
    unit = tmp_path / root
    sources = []
    for rel in expected:
        (unit / rel).parent.mkdir(parents=True, exist_ok=True)
        (unit / rel).touch()
        sources.append(SourceFile(unit / rel, rel))
    (unit / "x.py").write_text(f"{import_line}\n")
    assert unit_module_names(sources, unit) == expected


@pytest.mark.parametrize("package", ["ns", "company/ns"])
def test_a_race_between_modules_of_a_namespace_package_is_found_with_and_without_the_prefilter(
    write_tree: WriteTree, package: str
) -> None:
    # No `__init__.py` (PEP 420): the modules are named by the folders the import names.
    dotted = package.replace("/", ".")
    consumer = RACY_SUBCLASS.replace("from pkg.base import Base", f"from {dotted}.base import Base")
    root = write_tree({f"{package}/base.py": BASE, f"{package}/consumer.py": consumer})
    config = load_config([root], None, KNOWN_CODES)
    for prefilter in (True, False):
        found = check([root], config, use_cache=False, prefilter=prefilter).findings
        assert [(f.code, f.location.path) for f in found] == [("EPL001", f"{package}/consumer.py")], prefilter


def _consumer_of(base_module: str) -> str:
    return RACY_SUBCLASS.replace("from pkg.base import Base", f"from {base_module} import Base")


# Two files of one name in a project are named after their folders; an import by the name Python
# gives them reaches the one below the importer's own import root, as Python finds it when each
# service, or script, runs on its own.
SAME_NAMED_MODULES = {
    "two services of a monorepo": (
        {
            **{f"svc{n}/src/app/__init__.py": "" for n in (1, 2)},
            **{f"svc{n}/src/app/base.py": BASE for n in (1, 2)},
            **{f"svc{n}/src/app/consumer.py": _consumer_of("app.base") for n in (1, 2)},
        },
        ["svc1/src/app/consumer.py", "svc2/src/app/consumer.py"],
    ),
    "another service's module of the same name": (
        {
            "svc1/src/app/__init__.py": "",
            "svc1/src/app/base.py": BASE,
            "svc1/src/app/consumer.py": _consumer_of(".base"),
            "svc2/src/app/__init__.py": "",
            "svc2/src/app/base.py": "x = 1\n",
        },
        ["svc1/src/app/consumer.py"],
    ),
    "a scripts folder beside another": (
        {"app/base.py": BASE, "app/consumer.py": _consumer_of("base"), "tools/base.py": "x = 1\n"},
        ["app/consumer.py"],
    ),
    "a copy in the script's own folder and one below it": (
        {"svc/base.py": BASE, "svc/lib/base.py": "x = 1\n", "svc/consumer.py": _consumer_of("base")},
        ["svc/consumer.py"],
    ),
    # Where Python's path would not hold the folder of any copy, or would hold the other one, the
    # guarded base is not reached: no finding.
    "a script outside both services": (
        {
            **{f"svc{n}/src/app/__init__.py": "" for n in (1, 2)},
            "svc1/src/app/base.py": BASE,
            "svc2/src/app/base.py": "x = 1\n",
            "tools/consumer.py": _consumer_of("app.base"),
        },
        [],
    ),
    "a copy in a folder above the script's": (
        {"scripts/base.py": BASE, "tools/base.py": "x = 1\n", "scripts/sub/consumer.py": _consumer_of("base")},
        [],
    ),
    "a vendored copy beside the importer's folder": (
        {"svc1/vendor/base.py": BASE, "svc2/vendor/base.py": "x = 1\n", "svc1/consumer.py": _consumer_of("base")},
        [],
    ),
    "a package at the root and the script's own": (
        {
            "app/__init__.py": "",
            "app/base.py": BASE,
            "svc/app/__init__.py": "",
            "svc/app/base.py": "x = 1\n",
            "svc/consumer.py": _consumer_of("app.base"),
        },
        [],
    ),
}


@pytest.mark.parametrize("layout", list(SAME_NAMED_MODULES))
def test_an_import_of_a_name_two_files_share_reaches_the_one_python_finds(write_tree: WriteTree, layout: str) -> None:
    files, expected = SAME_NAMED_MODULES[layout]
    root = write_tree(files)
    config = load_config([root], None, KNOWN_CODES)
    for prefilter in (True, False):
        found = check([root], config, use_cache=False, prefilter=prefilter).findings
        assert [(f.code, f.location.path) for f in found] == [("EPL001", path) for path in expected], prefilter


_JAVA_SINK = """package p;

public class Sink {
    final Object lock = new Object();
    private long epoch;

    void bump() {
        synchronized (lock) {
            epoch++;
        }
    }

    void drain(Long m) {
        if (epoch > m) {
            return;
        }
    }
}
"""
_JAVA_QUIET_SINK = """package p;

public class Sink {
    void drain(Long m) {
        System.out.println(m);
    }
}
"""


def _java_use(mark: str) -> str:
    return f"""package p;

import java.util.List;

public class Use {{
    void go(List<Long> batch, Sink sink) {{
        for (Long m : batch) {{{mark}
            sink.drain(m);
        }}
    }}
}}
"""


@pytest.mark.skipif(not java_frontend_available(), reason="the Java frontend is not installed")
def test_java_files_of_one_package_and_name_in_two_source_folders_are_two_modules(write_tree: WriteTree) -> None:
    # Two modules of one build, each with its own `p.Sink`: each `Use` calls the one of its own
    # source folder, which reads its epoch unlocked in `a`, nothing in `b`.
    root = write_tree(
        {
            "a/src/main/java/p/Sink.java": _JAVA_SINK,
            "a/src/main/java/p/Use.java": _java_use(" // expect: EPL001"),
            "b/src/main/java/p/Sink.java": _JAVA_QUIET_SINK,
            "b/src/main/java/p/Use.java": _java_use(""),
        }
    )
    assert actual_marks(run_check(root)) == expected_marks(root, root)


_PYTHON_SINK = """import threading


class Sink:
    def __init__(self):
        self.lock = threading.Lock()
        self.epoch = 0

    def bump(self):
        with self.lock:
            self.epoch += 1

    def drain(self, m):
        if self.epoch > m:
            return
"""
_JAVA_DEFAULT_PACKAGE_SINK = _JAVA_QUIET_SINK.replace("package p;\n\n", "")
_JAVA_DEFAULT_PACKAGE_USE = _java_use(" // expect: EPL001").replace("package p;\n\n", "")


@pytest.mark.skipif(not java_frontend_available(), reason="the Java frontend is not installed")
@pytest.mark.parametrize(
    ("files", "named"),
    [
        # Two `p.Sink`, each named by its path; the path of the one outside its package's folders
        # gives `Sink`, the full name of the default package's class that `lib/Use.java` calls (a
        # Java import looks for it as a module first), so the file is named by its path itself.
        (
            {
                "Sink.java": _JAVA_SINK,
                "src/main/java/p/Sink.java": _JAVA_QUIET_SINK,
                "lib/Sink.java": _JAVA_DEFAULT_PACKAGE_SINK,
                "lib/Use.java": _JAVA_DEFAULT_PACKAGE_USE.replace(" // expect: EPL001", ""),
            },
            {
                "Sink.java": "Sink.java",
                "src/main/java/p/Sink.java": "src.main.java.p.Sink",
                "lib/Sink.java": "lib.Sink",
            },
        ),
        # One `p.Sink`: no file is renamed, and the default package's `Sink` is still the one called.
        (
            {
                "Sink.java": _JAVA_QUIET_SINK,
                "lib/Sink.java": _JAVA_SINK.replace("package p;\n\n", ""),
                "lib/Use.java": _JAVA_DEFAULT_PACKAGE_USE,
            },
            {"Sink.java": "p.Sink", "lib/Sink.java": "lib.Sink"},
        ),
        # A Python module of a Java class's full name keeps it; the Java file is named by its path,
        # and the Java class that calls `Sink` runs its own package's, not the Python module's.
        (
            {
                "p/Sink.py": _PYTHON_SINK,
                "src/main/java/p/Sink.java": _JAVA_QUIET_SINK,
                "src/main/java/p/Use.java": _java_use(""),
            },
            {"p/Sink.py": "p.Sink", "src/main/java/p/Sink.java": "src.main.java.p.Sink"},
        ),
    ],
    ids=["renamed", "kept", "beside python"],
)
def test_a_java_file_named_by_its_path_takes_no_other_files_name(
    write_tree: WriteTree, files: dict[str, str], named: dict[str, str]
) -> None:
    root = write_tree(files)
    config = load_config([root], None, KNOWN_CODES)
    sources, _ = discover([root], config)
    results = [FileResult(s, source_facts(JAVA if is_java(s.rel) else PARSED, s.path.read_bytes())) for s in sources]
    names = program_module_names(results, config)
    assert len(set(names.values())) == len(files), "each file is a module of its own"
    assert names.items() >= named.items()
    assert actual_marks(run_check(root)) == expected_marks(root, root)


@pytest.mark.skipif(not java_frontend_available(), reason="the Java frontend is not installed")
@pytest.mark.parametrize(
    ("sink", "use", "use_mark"),
    [
        # Main code is built without the test folders (`src/test/java`: see the next test): its
        # `Sink` is none of the project's.
        ("src/testFixtures/java/p/Sink.java", "src/main/java/p/Use.java", ""),
        ("src/it/java/p/Sink.java", "src/main/java/p/Use.java", ""),
        # Test code sees its package's classes in the main folder.
        ("src/main/java/p/Sink.java", "src/test/java/p/Use.java", " // expect: EPL001"),
    ],
)
def test_java_main_code_sees_no_class_of_a_test_source_folder(
    write_tree: WriteTree, sink: str, use: str, use_mark: str
) -> None:
    root = write_tree({sink: _JAVA_SINK, use: _java_use(use_mark)})
    assert actual_marks(run_check(root)) == expected_marks(root, root)


_TEST_REENTRANT_LOCK = "package p;\npublic class ReentrantLock { public void lock() { } public void unlock() { } }\n"


@pytest.mark.skipif(not java_frontend_available(), reason="the Java frontend is not installed")
@pytest.mark.parametrize("folder", ["src/main/java", "src/test/java"])
def test_java_main_code_takes_the_jdks_lock_for_a_class_only_a_test_folder_declares(
    write_tree: WriteTree, folder: str
) -> None:
    # Two `ReentrantLock`s taken in both orders under `import java.util.concurrent.locks.*;`: in
    # main code they are the JDK's, a cycle; in test code, the test folder's own class, no lock.
    fixture = (FIXTURES / "java" / "EPL009" / "JdkLocksOnDemand.java").read_text()
    source = re.sub(r"^package .*;$", "package p;", fixture, flags=re.MULTILINE)
    if folder != "src/main/java":
        source = source.replace(" // expect: EPL009", "")
    root = write_tree(
        {f"{folder}/p/JdkLocksOnDemand.java": source, "src/test/java/p/ReentrantLock.java": _TEST_REENTRANT_LOCK}
    )
    assert actual_marks(run_check(root)) == expected_marks(root, root)
