"""The data-flow engine: def-use of locals, containers, return and field summaries, sanitisers."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from epochlint.config import Config, load_config
from epochlint.discovery import discover
from epochlint.frontend.facts import Ref, Site
from epochlint.program.dataflow import EMPTY, HOP_SOURCE, CallContext, Domain, Event, Hop, Label, Value
from epochlint.program.model import Program
from epochlint.rules.epl002_epoch_snapshot_outside_lock import SNAPSHOT, EpochSnapshots
from epochlint.rules.epl003_commit_with_historical_epoch import HISTORICAL, OFFSET, CommitEpochs
from tests.conftest import FIXTURES, KNOWN_CODES, program_of, program_of_folder, run_check

SECRET = "secret"


class Secrets(Domain):
    """A test domain: `x.secret` is a source, `clean(...)` a sanitiser, `sink(...)` an event."""

    key = "test-secrets"
    track_fields = True

    def read(self, fid: str, ref: Ref, site: Site) -> tuple[Value, bool]:
        if ref.attrs and ref.attrs[-1] == SECRET:
            return {Label(SECRET, (ref.text(),)): (Hop(fid, site, HOP_SOURCE, ref.text()),)}, True
        return EMPTY, False

    def call_value(self, ctx: CallContext) -> Value:
        return EMPTY if ctx.call.method == "clean" else super().call_value(ctx)

    def call_events(self, ctx: CallContext) -> Iterable[Event]:
        if ctx.call.method != "sink":
            return
        for value in ctx.args.values():
            for label, path in value.items():
                yield Event("sink", label, path, ctx.fid, ctx.call.site)


def _program(write_tree, files: dict[str, str]) -> Program:  # type: ignore[no-untyped-def]
    return program_of_folder(write_tree(files))


def _sinks(program: Program) -> dict[int, set[str]]:
    """Line of each `sink(...)` -> the sources that reach it."""
    found: dict[int, set[str]] = {}
    for event in program.dataflow.analyse(Secrets()).events:
        found.setdefault(event.site.pos[0], set()).add(str(event.label.root().key[0]))
    return found


def test_a_return_summary_is_a_source_at_call_sites_in_another_module(write_tree) -> None:  # type: ignore[no-untyped-def]
    program = _program(
        write_tree,
        {
            "pkg/__init__.py": "",
            "pkg/make.py": "def make(record):\n    value = record.secret\n    return value\n",
            "pkg/use.py": "from pkg.make import make\n\ndef use(r):\n    x = make(r)\n    sink(x)\n",
        },
    )
    analysis = program.dataflow.analyse(Secrets())
    make = program.function_id("pkg.make", "make")
    assert {label.kind for label in analysis.summary(make).returns} == {SECRET}
    (event,) = analysis.events
    assert program.rel_path(event.fid) == "pkg/use.py" and event.site.pos[0] == 5
    assert [program.rel_path(hop.fid) for hop in event.path] == ["pkg/make.py", "pkg/use.py"]


def test_a_parameter_summary_is_instantiated_per_call_site(write_tree) -> None:  # type: ignore[no-untyped-def]
    program = _program(
        write_tree,
        {
            "m.py": (
                "def ident(v):\n    return v\n\n"
                "def f(r, s):\n"
                "    sink(ident(s.plain))\n"
                "    sink(ident(r.secret))\n"
            ),
        },
    )
    assert _sinks(program) == {6: {"r.secret"}}


def test_a_wrapper_reports_at_the_outermost_call(write_tree) -> None:  # type: ignore[no-untyped-def]
    program = _program(
        write_tree,
        {"m.py": "def send(v):\n    sink(v)\n\ndef f(r):\n    send(r.secret)\n"},
    )
    assert _sinks(program) == {5: {"r.secret"}}


def test_starred_arguments_reach_only_the_parameters_they_may_fill(write_tree) -> None:  # type: ignore[no-untyped-def]
    program = _program(
        write_tree,
        {
            "m.py": (
                "def second(a, b=None, *, c=None):\n    sink(b)\n\n"
                "def only_keyword(a=None, *, c=None):\n    sink(c)\n\n"
                "def spread(first, *rest):\n    second(first, *rest)\n\n"
                "def spread_past_a_keyword_only(*rest):\n    only_keyword(*rest)\n\n"
                "def f(r):\n"
                "    spread(0, r.secret)\n"
                "    spread(r.secret)\n"
                "    spread_past_a_keyword_only(r.secret)\n"
            ),
        },
    )
    # `*rest` fills `b` after `first` took `a`; it never fills a keyword-only `c`.
    assert _sinks(program) == {14: {"r.secret"}}


def test_forwards_of_forwards_hand_each_argument_to_its_own_parameter(write_tree) -> None:  # type: ignore[no-untyped-def]
    program = _program(
        write_tree,
        {
            "m.py": (
                "def target(a, b=None, c=None):\n    sink(b)\n\n"
                "def inner(first, *args, **kwargs):\n    target(first, *args, **kwargs)\n\n"
                "def outer(*args, **kwargs):\n    inner(*args, **kwargs)\n\n"
                "def f(r, s):\n"
                "    outer(s.plain, r.secret, s.plain)\n"
                "    outer(r.secret, s.plain, r.secret)\n"
                "    outer(s.plain, c=r.secret, b=s.plain)\n"
                "    outer(s.plain, b=r.secret)\n"
            ),
        },
    )
    # `outer`'s second argument is `inner`'s `args[0]`, `target`'s `b`; a keyword keeps its name.
    assert _sinks(program) == {11: {"r.secret"}, 14: {"r.secret"}}


def test_a_field_carries_what_one_method_stores_to_another_that_reads_it(write_tree) -> None:  # type: ignore[no-untyped-def]
    program = _program(
        write_tree,
        {
            "m.py": (
                "class C:\n"
                "    def __init__(self):\n        self._kept = None\n\n"
                "    def keep(self, r):\n        self._kept = r.secret\n\n"
                "    def flush(self):\n        sink(self._kept)\n"
            ),
        },
    )
    assert _sinks(program) == {9: {"r.secret"}}
    field = next(f for f in program.dataflow.analyse(Secrets()).fields if f.leaf == "_kept")
    assert field.display() == "C._kept"


def test_containers_carry_their_items(write_tree) -> None:  # type: ignore[no-untyped-def]
    program = _program(
        write_tree,
        {
            "m.py": (
                "def f(rs, r, k):\n"
                "    d = {}\n    d[k] = r.secret\n    sink(d)\n"
                "    items = []\n    items.append(r.secret)\n    sink(items)\n"
                "    built = {x.key: x.secret for x in rs}\n    sink(built)\n"
                "    for key, value in d.items():\n        sink(value)\n"
            ),
        },
    )
    assert set(_sinks(program)) == {4, 7, 9, 11}


def test_a_sanitiser_cuts_the_flow(write_tree) -> None:  # type: ignore[no-untyped-def]
    program = _program(write_tree, {"m.py": "def f(r):\n    x = clean(r.secret)\n    sink(x)\n    sink(r.secret)\n"})
    assert _sinks(program) == {4: {"r.secret"}}


def test_max_with_the_current_epoch_and_the_fallbacks_are_not_historical(write_tree) -> None:  # type: ignore[no-untyped-def]
    program = _program(
        write_tree,
        {
            "m.py": (
                "def defended(record, metadata, tp):\n"
                "    return max(record.leader_epoch, metadata.leader_epoch_for(tp))\n\n"
                "def fallback(record, position):\n"
                "    cur = position.current_leader.epoch\n"
                "    return cur if cur is not None else record.leader_epoch\n\n"
                "def stale(record, batch):\n"
                "    return max(record.leader_epoch, batch.last_epoch)\n"
            ),
        },
    )
    analysis = program.dataflow.analyse(CommitEpochs(program))

    def historical(name: str) -> bool:
        returns = analysis.summary(program.function_id("m", name)).returns
        return any(label.root().kind == HISTORICAL for label in returns)

    assert not historical("defended") and not historical("fallback") and historical("stale")


def test_a_recursive_defence_conditions_its_parameters_once(write_tree) -> None:  # type: ignore[no-untyped-def]
    # Each round of the recursion instantiates the helper's own summary at its call: the same
    # condition met again adds nothing, and the summary settles instead of nesting it per round.
    program = _program(
        write_tree,
        {
            "m.py": (
                "def climb(cur, hist, depth):\n"
                "    if depth == 0:\n        return cur\n"
                "    return climb(max(cur, hist), hist, depth - 1)\n\n"
                "def committed(record, batch):\n"
                "    return climb(batch.last_epoch, record.leader_epoch, 3)\n"
            ),
        },
    )
    returns = program.dataflow.analyse(CommitEpochs(program)).summary(program.function_id("m", "climb")).returns

    def layers(label: Label | None) -> int:
        return 0 if label is None else 1 + layers(label.inner)

    assert max(layers(label) for label in returns) == 2


def test_a_comprehension_variable_is_quoted_as_written(write_tree) -> None:  # type: ignore[no-untyped-def]
    # The loop before binds `batch` too: the comprehension's own `batch` is another variable, which
    # the model names apart. What a finding quotes is the code.
    program = _program(
        write_tree,
        {
            "m.py": (
                "def epochs(batches):\n"
                "    for batch in batches:\n        batch.validate()\n"
                "    return [batch.last_epoch for batch in batches]\n"
            ),
        },
    )
    returns = program.dataflow.analyse(CommitEpochs(program)).summary(program.function_id("m", "epochs")).returns
    assert {(label.root().kind, path[0].text) for label, path in returns.items()} == {
        (HISTORICAL, "reads the historical epoch `batch.last_epoch`")
    }


def test_an_offset_built_from_a_parameter_makes_a_commit_wrapper(write_tree) -> None:  # type: ignore[no-untyped-def]
    program = _program(
        write_tree,
        {
            "m.py": (
                "from kafka import OffsetAndMetadata\n\n"
                "def commit_one(consumer, tp, offset, epoch):\n"
                "    consumer.commit({tp: OffsetAndMetadata(offset, '', epoch)})\n\n"
                "def on_record(consumer, tp, record):\n"
                "    commit_one(consumer, tp, record.offset + 1, record.leader_epoch)\n"
            ),
        },
    )
    analysis = program.dataflow.analyse(CommitEpochs(program))
    events = analysis.summary(program.function_id("m", "commit_one")).events
    offsets = {event.label.root().key for event in events if event.label.kind == OFFSET}
    assert offsets == {("epoch",)}, "the wrapper commits whatever its caller passes as `epoch`"
    assert [(e.fid, e.site.pos[0]) for e in analysis.events] == [(program.function_id("m", "on_record"), 7)]


def test_a_decision_local_is_a_snapshot_and_a_plain_local_is_no_field(write_tree) -> None:  # type: ignore[no-untyped-def]
    program = _program(
        write_tree,
        {
            "m.py": (
                "import threading\n\n"
                "class C:\n"
                "    def __init__(self):\n"
                "        self._lock = threading.Lock()\n        self._epoch = 0\n\n"
                "    def seek(self):\n        with self._lock:\n            self._epoch += 1\n\n"
                "    def on(self, m):\n"
                "        ok = m.epoch >= self._epoch\n"
                "        if ok:\n            m.ack()\n"
            ),
        },
    )
    (event,) = program.dataflow.analyse(EpochSnapshots(program)).events
    assert event.label.kind == SNAPSHOT and event.label.key[1] == "ok"
    on = program.function_id("m", "C.on")
    assert program.dataflow.field_of(on, Ref("C.on", "ok")) is None


def test_each_domain_is_analysed_once_and_reused(write_tree) -> None:  # type: ignore[no-untyped-def]
    program = _program(write_tree, {"m.py": "def f(r):\n    sink(r.secret)\n"})
    assert program.dataflow.analyse(Secrets()) is program.dataflow.analyse(Secrets())


def test_private_spellings_of_epoch_sources_are_the_same_names() -> None:
    config = Config()
    assert config.historical_epoch_read("_offset_epoch")
    assert config.historical_epoch_read("_leader_epoch", "record")
    assert config.current_epoch_source("self._current_leader_epoch")


def test_a_fan_of_calls_reports_each_call_site_once(write_tree) -> None:  # type: ignore[no-untyped-def]
    # Each level calls the next twice: a callee's event copied to every call site, level after
    # level, would be 2**24 events at the top; one per call site and label is what a user needs.
    depth = 24
    levels = [f"def level{i}(x):\n    level{i + 1}(x)\n    level{i + 1}(x)\n" for i in range(depth)]
    source = "\n".join([*levels, f"def level{depth}(x):\n    sink(x)\n", "def top(obj):\n    level0(obj.secret)\n"])
    program = _program(write_tree, {"fan.py": source})
    top_line = source.splitlines().index("    level0(obj.secret)") + 1
    assert _sinks(program) == {top_line: {"obj.secret"}}


def test_domains_sharing_one_program_find_what_each_finds_alone() -> None:
    """The data flow's per-program work (the callee-first order of a call graph with cycles) is
    shared by every domain: each finds in a shared program what it finds in a fresh one."""
    config = load_config([FIXTURES], None, KNOWN_CODES)
    sources, _ = discover([FIXTURES / "EPL002", FIXTURES / "EPL003"], config)
    domains: tuple[Callable[[Program], Domain], ...] = (EpochSnapshots, CommitEpochs)

    def events(program: Program, domain: Callable[[Program], Domain]) -> list[tuple[str, str, object]]:
        found = program.dataflow.analyse(domain(program)).events
        return sorted((e.kind, e.fid, e.site.pos) for e in found)

    shared = program_of(sources, config)
    together = {domain: events(shared, domain) for domain in reversed(domains)}
    alone = {domain: events(program_of(sources, config), domain) for domain in domains}
    assert together == alone
    assert all(together.values())


def test_only_the_functions_labels_reach_are_solved(write_tree) -> None:  # type: ignore[no-untyped-def]
    # `peek` reads a source but returns none of it: its callers see no label and are never solved;
    # `make` returns one, so its callers are, level after level, and a field's readers once a
    # label is stored into it.
    source = (
        "def make(record):\n    return record.secret\n\n"
        "def middle(r):\n    return make(r)\n\n"
        "def top(r):\n    sink(middle(r))\n\n"
        "def peek(record):\n    record.secret\n    return 1\n\n"
        "def after_peek(r):\n    return peek(r)\n\n"
        "def far_from_labels():\n    return after_peek(None)\n\n"
        "class Box:\n"
        "    def put(self, record):\n        self.held = record.secret\n\n"
        "    def take(self):\n        sink(self.held)\n"
    )
    program = _program(write_tree, {"m.py": source})
    analysis = program.dataflow.analyse(Secrets())
    solved = {program.display_function(fid) for fid in analysis.summaries}
    assert solved == {"m.make", "m.middle", "m.top", "m.peek", "m.Box.put", "m.Box.take"}
    assert _sinks(program) == {8: {"record.secret"}, 25: {"record.secret"}}


def test_only_what_a_solved_function_passes_a_label_to_is_solved(write_tree) -> None:  # type: ignore[no-untyped-def]
    # `top` is reached (`make` returns a label of its own): `deliver` is passed one, and `forward`
    # its parameter's, so both are solved (after the worklist passed them over: they rank below
    # `top`), and the sink in `forward` climbs to `top`; `describe`, passed nothing, and what it
    # calls are not solved.
    source = (
        "def make(record):\n    return record.secret\n\n"
        "def forward(value):\n    sink(value)\n\n"
        "def deliver(value):\n    forward(value)\n\n"
        "def label(n):\n    return str(n)\n\n"
        "def describe(n):\n    return label(n)\n\n"
        "def top(record):\n    secret = make(record)\n    deliver(secret)\n    describe(1)\n"
    )
    program = _program(write_tree, {"m.py": source})
    analysis = program.dataflow.analyse(Secrets())
    solved = {program.display_function(fid) for fid in analysis.summaries}
    assert solved == {"m.make", "m.top", "m.deliver", "m.forward"}
    assert _sinks(program) == {18: {"record.secret"}}


def test_a_snapshot_in_a_loop_epl001_does_not_run_for_is_epl002s() -> None:
    """One finding per mistake: the snapshot taken in a loop that EPL001 reports is EPL001's alone;
    where EPL001 is not selected, it reports nothing, and the snapshot is reported as EPL002."""
    rel = "pulsar_snapshot_per_message_in_loop.py"
    both = run_check(FIXTURES / "EPL002", overrides={"select": ["EPL001", "EPL002"]})
    alone = run_check(FIXTURES / "EPL002", overrides={"select": ["EPL002"]})
    assert [f.code for f in both.findings if f.location.path.endswith(rel)] == ["EPL001"]
    assert [(f.code, f.location.line) for f in alone.findings if f.location.path.endswith(rel)] == [("EPL002", 18)]


def test_a_snapshot_used_in_a_later_region_is_said_to_be_used_after_its_own_ended() -> None:
    """The use's note says what is wrong with it: a later region of the guard may hold the use,
    so "used without the lock" would be false there."""
    result = run_check(FIXTURES / "EPL002" / "two_regions.py", overrides={"select": ["EPL002"]})
    notes = [related.message for finding in result.findings for related in finding.related]
    assert "`epoch` used in a decision after the region that read it ended" in notes
    assert not [note for note in notes if "used in a decision without" in note]
