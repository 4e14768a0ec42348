"""The Java frontend as a user meets it: discovery with and without it installed, its facts on the
Java idioms the rules depend on, and bad Java input."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from jsonschema.validators import validator_for

from epochlint import discovery
from epochlint.cli import main
from epochlint.frontend.java import available as java_frontend_available
from epochlint.frontend.facts import Ref
from epochlint.frontend.java import facts_from_java
from tests.conftest import REPO, run_check

WriteTree = Callable[..., Path]

needs_java = pytest.mark.skipif(
    not java_frontend_available(), reason="the Java frontend is not installed: pip install 'epochlint[java]'"
)

CONSUMER = """\
import java.util.concurrent.atomic.AtomicLongFieldUpdater;

class Consumer {
    private static final AtomicLongFieldUpdater<Consumer> EPOCH =
            AtomicLongFieldUpdater.newUpdater(Consumer.class, "epoch");
    private volatile long epoch;

    public synchronized void redeliver() {
        EPOCH.incrementAndGet(this);
    }

    public void redeliver(int times) {
        redeliver();
    }

    void later(java.util.concurrent.Executor executor) {
        executor.execute(() -> EPOCH.get(this));
    }
}
"""


def test_java_files_are_left_out_with_one_notice_without_the_frontend(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root: Path = write_tree({"Consumer.java": CONSUMER, "consumer.py": "x = 1\n"})
    monkeypatch.setattr(discovery, "available", lambda: False)
    result = run_check(root)
    assert result.files_analysed == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "epochlint: notice: 1 Java file(s) not analysed: the Java frontend is not installed "
        "(install epochlint with its java extra: tree-sitter and tree-sitter-java)"
    ]


def test_a_java_file_named_without_the_frontend_is_an_epl900(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Named on the command line (as pre-commit names it), it was left out with the notice alone:
    # "No files checked", exit 0, and a CI step passed a Java change it never read.
    root: Path = write_tree({"Consumer.java": CONSUMER, "Other.java": CONSUMER})
    monkeypatch.setattr(discovery, "available", lambda: False)
    result = run_check(root / "Consumer.java")
    assert [(f.location.path, f.code) for f in result.findings] == [("Consumer.java", "EPL900")]
    assert "the Java frontend is not installed" in result.findings[0].message
    assert capsys.readouterr().err == ""


def test_check_of_python_code_never_imports_tree_sitter(tmp_path: Path) -> None:
    (tmp_path / "consumer.py").write_text("import threading\nlock = threading.Lock()\n")
    script = (
        "import sys\nfrom epochlint.cli import main\n"
        f"main(['check', '--no-cache', {str(tmp_path)!r}])\n"
        "print(sorted(m for m in sys.modules if m.startswith('tree_sitter')))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=False)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stderr


@needs_java
def test_updater_operations_are_reads_and_bumps_of_the_field_it_names() -> None:
    facts = facts_from_java(CONSUMER.encode())
    (consumer,) = [c for c in facts.classes if c.name == "Consumer"]
    assert consumer.updaters == (("EPOCH", "epoch"),)
    functions = {f.qualname: f for f in facts.functions}
    (bump,) = functions["Consumer.redeliver~0"].writes
    assert bump.bump and bump.ref.attrs == ("EPOCH",) and bump.ref.name == "this"
    # The one-argument overload keeps the name; its call of `redeliver()` names the method, and the
    # program resolves it to the overload without arguments.
    assert "Consumer.redeliver" in functions and functions["Consumer.redeliver"].params[1].name == "times"
    assert functions["Consumer.redeliver~0"].name == "redeliver"
    (lambda_,) = [f for f in facts.functions if f.kind == "lambda"]
    assert [a.ref.attrs for a in lambda_.accesses] == [("EPOCH",)]
    (execute,) = [c for c in functions["Consumer.later"].calls if c.method == "execute"]
    assert execute.args[0].kind == "lambda" and execute.args[0].function == lambda_.qualname


BRANCHING = """\
class Branching {
    void pick(boolean fast, int mode) {
        if (fast) { a(); } else { b(); }
        if (fast) { a(); }
        switch (mode) { case 1: a(); break; default: b(); }
        switch (mode) { case 1 -> a(); case 2 -> b(); }
    }
}
"""


COMPOSED_TESTS = """\
import java.util.function.BiPredicate;
import java.util.function.Predicate;

class Composed {
    Predicate<Message> known;
    BiPredicate<Message, Message> same;

    boolean stale(Message m, Message[] batch) {
        return known.or(x -> x.epoch() < 0).test(m) || same.and((y, z) -> y == z).test(m, batch[0]);
    }
}
"""


@needs_java
def test_a_lambda_a_tested_predicate_composes_takes_the_arguments_of_test() -> None:
    # Bound to nothing, `x` took no value of `m`: the value-flow rules lost what it was.
    (stale,) = [f for f in facts_from_java(COMPOSED_TESTS.encode()).functions if f.name == "stale"]
    binds = {bind.name: bind for bind in stale.binds if bind.name in ("x", "y", "z")}
    assert binds["x"].kind == "assign" and binds["x"].value_ref == Ref("Composed.stale", "m")
    assert binds["y"].kind == "assign" and binds["y"].value_ref == Ref("Composed.stale", "m")
    # `batch[0]` is no name path: `z` takes no element of the batch, as a loop's would.
    assert binds["z"].kind == "assign" and binds["z"].value_ref is None


@needs_java
def test_an_if_with_else_and_a_switch_with_a_default_run_one_of_their_arms() -> None:
    (pick,) = [f for f in facts_from_java(BRANCHING.encode()).functions if f.name == "pick"]
    assert [(len(branches.arms), branches.exhaustive) for branches in pick.branches] == [
        (2, True),
        (1, False),
        (2, True),
        (2, False),
    ]


@needs_java
def test_a_break_goes_on_after_the_switch_or_loop_it_ends() -> None:
    source = """\
class Breaking {
    void pick(boolean ready, int mode) {
        switch (mode) { case 1: if (ready) { break; } a(); break; default: b(); }
        while (ready) { break; }
    }
}
"""
    (pick,) = [f for f in facts_from_java(source.encode()).functions if f.name == "pick"]
    (switch,) = [branches.pos for branches in pick.branches if len(branches.arms) == 2]
    (loop,) = [loop.site.pos for loop in pick.loops]
    assert [(exit.leaves_loop, exit.ended_loop) for exit in pick.exits] == [
        (True, switch),
        (True, switch),
        (True, loop),
    ]


@needs_java
def test_overload_calls_resolve_by_number_of_arguments(write_tree: WriteTree) -> None:
    root: Path = write_tree(
        {
            "Reader.java": """\
class Reader {
    private long epoch;
    private final java.util.List<Object> queue = new java.util.ArrayList<>();

    public synchronized void seek() {
        epoch++;
        queue.clear();
    }

    public synchronized void seek(long offset) {
        seek();
    }

    public synchronized void redeliver() {
        epoch++;
    }
}
""",
        }
    )
    # seek(long) bumps through seek(): no EPL005.
    assert run_check(root).findings == ()


@needs_java
def test_findings_name_an_overloaded_method_as_java_does(write_tree: WriteTree) -> None:
    root: Path = write_tree(
        {
            "Drainer.java": """\
class Drainer {
    private long epoch;
    private final Object lock = new Object();

    long epoch() { return epoch; }

    long epoch(int shift) { return epoch + shift; }

    void redeliver() { synchronized (lock) { epoch++; } }

    void drain(java.util.List<Long> batch) {
        for (long tag : batch) {
            if (tag != epoch(0)) { continue; }
        }
    }
}
""",
        }
    )
    (finding,) = run_check(root, overrides={"select": ["EPL001"]}).findings
    # An overload is named with its parameters (a primitive's type is not kept); never `epoch~0`.
    assert "(via Drainer.epoch(shift))" in finding.message
    assert [step.function for step in finding.chain] == ["Drainer.drain", "Drainer.drain", "Drainer.epoch(shift)"]


@needs_java
def test_a_java_syntax_error_is_one_finding_and_the_rest_is_analysed(write_tree: WriteTree) -> None:
    root: Path = write_tree({"Broken.java": "class Broken {\n  void f( {\n}\n", "Consumer.java": CONSUMER})
    findings = run_check(root).findings
    assert [(f.location.path, f.code) for f in findings] == [("Broken.java", "EPL900")]
    assert findings[0].message.startswith("Cannot analyse this file: syntax error at line 2")



@needs_java
def test_a_java_diamond_anywhere_but_after_new_is_a_syntax_error(write_tree: WriteTree) -> None:
    """tree-sitter's grammar takes `List<> xs;` for an empty type argument list; javac refuses it."""
    diamonds = (
        "class Diamonds {\n  java.util.List<String> ok = new java.util.ArrayList<>();\n  java.util.List< > xs;\n}\n"
    )
    root: Path = write_tree({"Diamonds.java": diamonds, "Consumer.java": CONSUMER})
    findings = run_check(root).findings
    assert [(f.location.path, f.code, f.location.line, f.location.column) for f in findings] == [
        ("Diamonds.java", "EPL900", 3, 17)
    ]
    assert findings[0].message.startswith("Cannot analyse this file: syntax error at line 3, column 17")

ATOMIC = (REPO / "fixtures" / "java" / "EPL001" / "AtomicEpochConsumer.java").read_text(encoding="utf-8")


def _java_places(root: Path) -> list[tuple[str, int, int]]:
    return [
        (f.code, f.location.line, f.location.column) for f in run_check(root, overrides={"select": ["EPL001"]}).findings
    ]


@needs_java
@pytest.mark.parametrize(
    ("edited", "moved_by"),
    [
        # Columns counted UTF-8 bytes, not characters: three two-byte and one three-byte character
        # before the finding put it five columns to the right (SARIF says its columns count code points).
        (lambda text: text.replace("                .filter(", "/* \u00e9\u00e9\u00e9\u20ac */ .filter("), -5),
        # A file whose lines end in a carriage return alone had every finding on line 1.
        (lambda text: text.replace("\n", "\r"), 0),
    ],
)
def test_java_findings_are_placed_in_lines_and_characters(
    write_tree: WriteTree, tmp_path: Path, edited: Callable[[str], str], moved_by: int
) -> None:
    original = _java_places(write_tree({"fixtures/epl001/AtomicEpochConsumer.java": ATOMIC}))
    (tmp_path / "fixtures" / "epl001" / "AtomicEpochConsumer.java").write_bytes(edited(ATOMIC).encode("utf-8"))
    assert _java_places(tmp_path) == [(code, line, column + moved_by) for code, line, column in original]
    assert original == [("EPL001", 22, 18)]


def _nested_calls(depth: int) -> str:
    return f"class Calls{depth} {{ int g(int a) {{ return a; }} int f() {{ return {'g(' * depth}1{')' * depth}; }} }}\n"


# Nested as deep as the Java frontend lets through: 500 levels of tree-sitter's tree (two per call).
JAVA_JUST_UNDER_THE_LIMIT = {
    "Calls247.java": _nested_calls(247),
    "Ifs.java": "class Ifs { int epoch; synchronized void f(boolean x) {\n"
    + "if (x) {\n" * 246
    + "epoch++;\n"
    + "}\n" * 246
    + "} }\n",
    "Fields.java": "class Fields { Fields next; int epoch; int f() { return this" + ".next" * 493 + ".epoch; } }\n",
}


@needs_java
def test_java_nested_past_the_limit_is_one_finding_and_just_under_it_is_analysed(write_tree: WriteTree) -> None:
    """The extraction recursed without a bound: a call nested 3,000 deep ended the whole run with
    an internal RecursionError."""
    files = {**JAVA_JUST_UNDER_THE_LIMIT, "Calls248.java": _nested_calls(248), "Deepest.java": _nested_calls(3000)}
    findings = run_check(write_tree(files)).findings
    assert [(f.location.path, f.code) for f in findings] == [("Calls248.java", "EPL900"), ("Deepest.java", "EPL900")]
    assert {f.message for f in findings} == {
        "Cannot analyse this file: too deeply nested to analyse: more than 500 levels at line 1."
    }


@needs_java
def test_undecodable_java_file_is_reported_in_one_line(write_tree: WriteTree) -> None:
    root: Path = write_tree({"Latin.java": b"class Latin { String s = \"\xe9\"; }\n"})
    (finding,) = run_check(root).findings
    assert finding.code == "EPL900" and "cannot decode line 1 as utf-8" in finding.message


@needs_java
def test_java_findings_in_sarif_with_their_chain_and_through_a_baseline(write_tree: WriteTree) -> None:
    from tests.test_report_formats import SCHEMA_PATH

    fixture = REPO / "fixtures" / "java" / "EPL001"
    names = ("AtomicEpochConsumer.java", "Message.java", "MultiTopicsConsumer.java", "RecordStyleConsumer.java")
    root: Path = write_tree({name: (fixture / name).read_text() for name in names})
    sarif_file, baseline = root / "out.sarif", root / "baseline.json"
    assert main(["check", "--output-format", "sarif", "--output-file", str(sarif_file), str(root)]) == 1
    document = json.loads(sarif_file.read_text())
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    validator_for(schema)(schema).validate(document)
    results = document["runs"][0]["results"]
    assert sorted(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results) == [
        "AtomicEpochConsumer.java", "MultiTopicsConsumer.java", "MultiTopicsConsumer.java", "RecordStyleConsumer.java"
    ]
    assert all(r["codeFlows"] for r in results if "via" in r["message"]["text"])
    assert main(["check", "--write-baseline", str(baseline), str(root)]) == 0
    assert main(["check", "--baseline", str(baseline), str(root)]) == 0
    consumer = root / "MultiTopicsConsumer.java"
    # A new batch loop (the retry loop made to walk a batch) is the one finding the baseline lets through.
    text = consumer.read_text().replace(
        "public void retryThreeTimes(Message msg)", "public void retryEach(List<Message> messages, Message msg)"
    )
    consumer.write_text(text.replace("for (int attempt = 0; attempt < 3; attempt++)", "for (Message other : messages)"))
    assert main(["check", "--baseline", str(baseline), str(root)]) == 1


@needs_java
def test_every_kind_of_java_17_declaration_and_statement_is_read() -> None:
    """Records, sealed interfaces, enums with methods, nested, local and anonymous classes,
    initialiser blocks, switch expressions and patterns, text blocks, try-with-resources, labels."""
    facts = facts_from_java((REPO / "tests" / "data" / "java" / "Everything.java").read_bytes())
    assert not facts.error and facts.lines == 99
    methods = {f.qualname for f in facts.functions if f.kind in ("method", "staticmethod")}
    assert {
        "Circle.__init__",
        "Circle.area",
        "Shape.unit",
        "State.close",
        "Outer.Inner.read",
        "Outer.everything",
    } <= methods
    assert {"Outer.<init:33>", "Outer.<init:34>"} <= methods  # the static and the instance initialiser
    lambdas = [f for f in facts.functions if f.kind == "lambda"]
    # `r` (a hand-off) and the anonymous class's toString; the stream's lambdas run on the spot.
    assert len(lambdas) == 2
    (everything,) = [f for f in facts.functions if f.qualname == "Outer.everything"]
    assert [loop.kind for loop in everything.loops].count("while") == 1
    assert sum(loop.batch for loop in everything.loops) >= 4  # the enhanced for and three stream stages


@needs_java
@pytest.mark.parametrize(
    "comment",
    [
        "// epochlint: ignore[EPL001]",
        "/* epochlint: ignore[EPL001] */",
        "/** epochlint: ignore[EPL001] */",
        "// noqa: EPL001",
    ],
)
def test_a_suppression_inside_a_streams_chain_of_calls_silences_its_line(write_tree: WriteTree, comment: str) -> None:
    # A comment inside an expression was never read: the walk that read comments did not go there.
    source = ATOMIC.replace("epoch.get()) // expect: EPL001", f"epoch.get()) {comment}")
    root = write_tree({"fixtures/epl001/AtomicEpochConsumer.java": source})
    assert _java_places(root) == []


COMMENTED = REPO / "fixtures" / "java" / "EPL001" / "CommentsInsideExpressions.java"
# A Java comment of either kind (the fixture's strings hold no comment marks).
_JAVA_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)


@needs_java
def test_comments_inside_java_code_change_no_finding(write_tree: WriteTree, tmp_path: Path) -> None:
    """The grammar puts a comment among the children of any node it stands in: code read with its
    comments must give what the same code gives without them (each comment blanked in place)."""
    source = COMMENTED.read_text(encoding="utf-8")
    commented = _java_places(write_tree({"fixtures/epl001/CommentsInsideExpressions.java": source}))
    blanked = _JAVA_COMMENT.sub(lambda comment: re.sub(r"[^\n]", " ", comment.group()), source)
    (tmp_path / "fixtures" / "epl001" / "CommentsInsideExpressions.java").write_text(blanked, encoding="utf-8")
    assert _java_places(tmp_path) == commented
    assert len(commented) == source.count("// expect: EPL001")
