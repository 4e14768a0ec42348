"""Pathological inputs at growing sizes: how a cold one-job `epochlint check` grows with each.

    .venv/bin/python bench/pathological.py [--scale F] [--timeout S] [--repeat N] [--only NAME ...]

Each input is generated into a fresh temporary folder (beside the racy consumer every run must
still report), checked as a separate process with `--no-cache --jobs 1`, and measured: wall time,
CPU time (user and system, of the checking process), exit status, and what it reported for the
input (its findings' codes, or how it ended). "x previous" is the CPU time's ratio to the previous
size, which other work on the machine disturbs less than the wall time's: near the size ratio (2)
means linear growth, near 4 quadratic. `--repeat` runs each size N times and shows the run of
median CPU time. `--scale` multiplies every size (0.25 for a quick look); a run past `--timeout`
seconds is stopped and shown as such.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
CONSUMER = (REPOSITORY / "fixtures" / "EPL900" / "consumer.py").read_text(encoding="utf-8")
_CONSUMER_BODY = CONSUMER.split("class BatchConsumer:")[1]

Files = dict[str, str]


def diamond_ladder(levels: int) -> Files:
    classes = ["class D0:\n    def helper(self):\n        return 1"]
    for i in range(levels):
        classes += [f"class L{i}(D{i}): pass", f"class R{i}(D{i}): pass", f"class D{i + 1}(L{i}, R{i}): pass"]
    return {"ladder.py": _with_consumer_inheriting(f"D{levels}", classes)}


def inheritance_chain(length: int) -> Files:
    classes = ["class C0:\n    def helper(self):\n        return 1"]
    classes += [f"class C{i}(C{i - 1}): pass" for i in range(1, length)]
    return {"chain.py": _with_consumer_inheriting(f"C{length - 1}", classes)}


def _with_consumer_inheriting(base: str, classes: list[str]) -> str:
    consumer = CONSUMER.replace("class BatchConsumer:", f"class BatchConsumer({base}):")
    return "\n".join(classes) + "\n\n" + consumer.replace("accepted = []", "accepted = [self.helper()]")


def call_chain(length: int) -> Files:
    # The consumer's loop calls f0, which calls f1, ... which takes a lock: one chain of `length` calls.
    functions = [f"def f{i}(lock):\n    f{i + 1}(lock)\n" for i in range(length)]
    functions.append(f"def f{length}(lock):\n    with lock:\n        pass\n")
    consumer = CONSUMER.replace("accepted = []", "accepted = []\n        f0(self._lock)")
    return {"calls.py": "\n".join(functions) + "\n" + consumer}


def forking_calls(levels: int, back_to_the_top: bool = False, read: str = "self._epoch") -> Files:
    # The consumer's loop calls its method f0a; at each level both methods call both of the next
    # level, and the last two `read` the epoch: 2 ** levels paths through calls to each read. With
    # `back_to_the_top`, the last two also call f0b: every method is on one call cycle.
    again = " + self.f0b()" if back_to_the_top else ""
    methods = [f"    def f{levels}{side}(self):\n        return {read}{again}\n" for side in "ab"]
    for level in range(levels - 1, -1, -1):
        below = f"self.f{level + 1}a() + self.f{level + 1}b()"
        methods += [f"    def f{level}{side}(self):\n        return {below}\n" for side in "ab"]
    consumer = CONSUMER.replace("accepted.append(message)", "accepted.append(message)\n            self.f0a()")
    return {"calls.py": consumer.rstrip("\n") + "\n\n" + "\n".join(methods)}


def forking_cycle(levels: int) -> Files:
    return forking_calls(levels, back_to_the_top=True)


def forking_cycle_reading_in_its_loops(levels: int) -> Files:
    # The last two methods of the cycle read the epoch only in batch loops of their own, which are
    # checked as loops of their own: the search from the consumer's loop finds nothing in the cycle.
    return forking_calls(levels, back_to_the_top=True, read="[m for m in self._pending if m.epoch == self._epoch]")


def loops_into_a_forking_cycle(loops: int) -> Files:
    # `loops` more batch loops each call into one cycle of forking calls 11 levels deep: the search
    # from each stays within its loop's work limit, and together they go past their unit's.
    (path, code), = forking_cycle(11).items()
    loop = "    def on_batch_{0}(self, batch):\n        for message in batch:\n            self.f0a()\n\n"
    methods = "".join(loop.format(i) for i in range(loops))
    return {path: code.replace("    def seek(", methods + "    def seek(", 1)}


def forking_lock_parameters(levels: int, back_to_the_top: bool = False) -> Files:
    # The consumer's loop calls g0a with its lock; at each level both functions call both of the
    # next level with the lock they were given, and the last two hold it while they read the epoch:
    # 2 ** levels paths of callers lead up to the lock each `with lock:` holds. With
    # `back_to_the_top`, the last two also call g0b: every function is on one call cycle.
    again = "    g0b(consumer, lock)\n" if back_to_the_top else ""
    body = f"{again}    with lock:\n        return consumer._epoch\n"
    functions = [f"def g{levels}{side}(consumer, lock):\n{body}" for side in "ab"]
    for level in range(levels - 1, -1, -1):
        below = "".join(f"    g{level + 1}{side}(consumer, lock)\n" for side in "ab")
        functions += [f"def g{level}{side}(consumer, lock):\n{below}" for side in "ab"]
    call_below = "accepted.append(message)\n            g0a(self, self._lock)"
    consumer = CONSUMER.replace("accepted.append(message)", call_below)
    return {"calls.py": consumer.rstrip("\n") + "\n\n\n" + "\n\n".join(functions)}


def forking_lock_cycle(levels: int) -> Files:
    return forking_lock_parameters(levels, back_to_the_top=True)


def forwarded_callbacks(levels: int) -> Files:
    # The consumer's loop calls h0 with `levels` callbacks; each helper hands them on to the next
    # twice, its own one replaced by one of two lambdas, and the last calls them all and reads the
    # epoch (of a module-level consumer): 2 ** levels combinations of what the paths pass reach it.
    params = ", ".join(f"c{j}" for j in range(levels))
    helpers = []
    for level in range(levels):
        calls = "".join(
            f"    h{level + 1}("
            + ", ".join(f"c{j}" if j != level else f"lambda: {side}" for j in range(levels))
            + ")\n"
            for side in (1, 2)
        )
        helpers.append(f"def h{level}({params}):\n{calls}")
    called = "".join(f"    c{j}()\n" for j in range(levels))
    helpers.append(f"def h{levels}({params}):\n{called}    return CURRENT._epoch\n")
    start = "h0(" + ", ".join("lambda: 0" for _ in range(levels)) + ")"
    consumer = CONSUMER.replace("accepted.append(message)", f"accepted.append(message)\n            {start}")
    return {"forwarded.py": consumer + "\n\nCURRENT = BatchConsumer()\n\n\n" + "\n\n".join(helpers)}


def identity_decorated(functions: int) -> Files:
    # Test-suite style: every function wrapped by decorators that give it back (`expectedFailure`,
    # a helper's `_id`), each calling the next.
    helpers = (
        "def _id(obj):\n    return obj\n\n\ndef only_here(test):\n    return _id(test)\n\n\n"
        "def expected(test):\n    test.expected = True\n    return test\n"
    )
    decorated = [
        f"@only_here\n@expected\ndef case{i}(consumer):\n    return case{i + 1}(consumer)\n" for i in range(functions)
    ]
    decorated.append(f"def case{functions}(consumer):\n    return consumer._epoch\n")
    consumer = CONSUMER.replace("accepted.append(message)", "accepted.append(message)\n            case0(self)")
    return {"cases.py": helpers + "\n\n" + "\n\n".join(decorated) + "\n\n" + consumer}


def factory_chain(length: int) -> Files:
    # The consumer's loop reads the epoch only through what `make0()` returns: `make0` returns
    # `make1()`, ..., the last a `Checker`. Each factory nests the resolution of the returned
    # instance two deeper: the chain is far past the depth limit, yet the read must be found.
    factories = [f"def make{i}():\n    return make{i + 1}()\n" for i in range(length)]
    factories.append(f"def make{length}():\n    return Checker()\n")
    checker = (
        "class Checker:\n    def current(self, message, consumer):\n        return message.epoch >= consumer._epoch\n"
    )
    consumer = CONSUMER.replace("message.epoch >= self._epoch", "make0().current(message, self)")
    return {"factories.py": checker + "\n\n" + "\n\n".join(factories) + "\n\n" + consumer}


def method_chain(length: int) -> Files:
    # The consumer's loop reads the epoch through `Checker().same().same()...current(...)`: a chain
    # of `length` method calls, each on what the one before returns (a builder or a fluent API).
    checker = (
        "class Checker:\n    def same(self):\n        return self\n\n"
        "    def current(self, message, consumer):\n        return message.epoch >= consumer._epoch\n"
    )
    chain = "Checker()" + ".same()" * length + ".current(message, self)"
    return {"fluent.py": checker + "\n\n" + CONSUMER.replace("message.epoch >= self._epoch", chain)}


def bump_chain(length: int) -> Files:
    # f0 calls f1, ... which bumps an epoch: every function has that bump as an event, with the
    # calls that lead to it.
    state = (
        "import threading\n\n\nclass State:\n    def __init__(self):\n        self._lock = threading.Lock()\n"
        "        self._epoch = 0\n\n    def bump(self):\n        with self._lock:\n            self._epoch += 1\n\n"
        "    def read(self):\n        with self._lock:\n            return self._epoch\n\n\nSTATE = State()\n\n\n"
    )
    functions = [f"def f{i}():\n    f{i + 1}()\n" for i in range(length)]
    functions.append(f"def f{length}():\n    STATE.bump()\n")
    return {"bump.py": state + "\n".join(functions)}


def import_chain(modules: int) -> Files:
    files = {
        f"m{i}.py": f"from m{i + 1} import step{i + 1}\n\n\ndef step{i}(lock):\n    step{i + 1}(lock)\n"
        for i in range(modules)
    }
    files[f"m{modules}.py"] = f"def step{modules}(lock):\n    with lock:\n        pass\n"
    first_step = CONSUMER.replace("accepted = []", "accepted = []\n        step0(self._lock)")
    files["consumer.py"] = "from m0 import step0\n" + first_step
    return files


def nested_lock_chain(length: int) -> Files:
    # f0 calls f1 holding LOCK_0, f1 calls f2 holding LOCK_1, ...: a lock-order pair for every two
    # locks, each with the chain of calls between them.
    locks = "".join(f"LOCK_{i} = threading.Lock()\n" for i in range(length + 1))
    functions = [f"def f{i}():\n    with LOCK_{i}:\n        f{i + 1}()\n" for i in range(length)]
    functions.append(f"def f{length}():\n    with LOCK_{length}:\n        pass\n")
    return {"held.py": "import threading\n\n" + locks + "\n" + "\n".join(functions)}


# The callers that enter `lock_ring`, each with two locks of its own.
LOCK_RING_ENTRIES = 8


def lock_ring(helpers: int) -> Files:
    # A call cycle of helpers (made odd-sized), each handing the two locks and the callback it is
    # given on to the next with the locks swapped; h0 holds the first around the second. Each of
    # LOCK_RING_ENTRIES callers enters the ring at its own place with two locks of its own (shared
    # with the next caller's) and a callback: every helper is bound each caller's locks in both
    # orders, found round after round of the ring, and the locks make one cycle of lock order.
    length = helpers | 1
    locks = "".join(f"LOCK_{j} = threading.Lock()\n" for j in range(LOCK_RING_ENTRIES + 1))
    head = "    with first:\n        with second:\n            callback()\n"
    ring = [
        f"def h{i}(first, second, callback):\n"
        f"{head if i == 0 else ''}    h{(i + 1) % length}(second, first, callback)\n"
        for i in range(length)
    ]
    entries = [
        f"def noop{j}():\n    pass\n\n\n"
        f"def enter{j}():\n    h{j * length // LOCK_RING_ENTRIES}(LOCK_{j}, LOCK_{j + 1}, noop{j})\n"
        for j in range(LOCK_RING_ENTRIES)
    ]
    functions = ring + entries
    return {"ring.py": "import threading\n\n" + locks + "\n\n" + "\n\n".join(functions)}


def batch_loops_with_lambdas(loops: int) -> Files:
    body = "".join(
        f"        for m{i} in batch:\n            key{i} = lambda m: m.epoch >= self._epoch\n" for i in range(loops)
    )
    method = f"    def many(self, batch: list) -> None:\n{body}"
    return {"loops.py": CONSUMER + "\n" + method}


def guarded_writes_and_loops(count: int) -> Files:
    # `count` methods bump one epoch under its lock and `count` batch loops read it without: every
    # EPL001 finding relates every guarded write (the report grows as count squared, the work to
    # find the writes need not).
    methods = "".join(
        f"    def bump{i}(self):\n        with self._lock:\n            self._epoch += 1\n\n"
        f"    def loop{i}(self, batch):\n        for m in batch:\n            if m.epoch == self._epoch:\n"
        "                print(m)\n\n"
        for i in range(count)
    )
    prelude = "import threading\n\n\nclass Writers:\n    def __init__(self):\n        self._lock = threading.Lock()\n"
    return {"writers.py": f"{prelude}        self._epoch = 0\n\n{methods}"}


def with_items(items: int) -> Files:
    names = ", ".join(f"a{i}" for i in range(items))
    return {"withs.py": f"def f({names}):\n    with {names}:\n        pass\n"}


def module_globals(count: int) -> Files:
    # The lock makes the file relevant, so that it is parsed and its names resolved.
    values = "".join(f"value_{i} = {i}\n" for i in range(count))
    return {"globals.py": f"import threading\n\nLOCK = threading.Lock()\n{values}"}


def consumer_classes(lines: int) -> Files:
    per_class = _CONSUMER_BODY.count("\n") + 1
    classes = "".join(f"class Consumer{i}:{_CONSUMER_BODY}\n" for i in range(max(1, lines // per_class)))
    return {"classes.py": "import threading\n" + classes}


def one_long_line(size: int) -> Files:
    return {"line.py": "x = [" + "1, " * (size // 3) + "]\n"}


def fstring_nesting(depth: int) -> Files:
    return {"fstring.py": "x = f'{" + "(" * depth + "a" + ")" * depth + "}'\n"}


@dataclass(frozen=True)
class Input:
    name: str
    make: Callable[[int], Files]
    sizes: tuple[int, ...]
    unit: str


INPUTS = (
    Input("diamond_ladder", diamond_ladder, (11, 22, 44), "diamonds"),
    Input("inheritance_chain", inheritance_chain, (250, 500, 1000), "classes"),
    Input("call_chain", call_chain, (625, 1250, 2500), "functions"),
    Input("bump_chain", bump_chain, (625, 1250, 2500), "functions"),
    Input("factory_chain", factory_chain, (50, 100, 200), "factories"),
    Input("method_chain", method_chain, (100, 200, 400), "calls"),
    Input("forking_calls", forking_calls, (10, 20, 40), "levels"),
    Input("forking_cycle", forking_cycle, (10, 20, 40), "levels"),
    Input("forking_cycle_reading_in_its_loops", forking_cycle_reading_in_its_loops, (10, 20, 40), "levels"),
    Input("loops_into_a_forking_cycle", loops_into_a_forking_cycle, (4, 8, 16), "loops"),
    Input("identity_decorated", identity_decorated, (500, 1000, 2000), "functions"),
    Input("forwarded_callbacks", forwarded_callbacks, (10, 20, 40), "levels"),
    Input("forking_lock_parameters", forking_lock_parameters, (4, 8, 15), "levels"),
    Input("forking_lock_cycle", forking_lock_cycle, (4, 8, 15), "levels"),
    Input("nested_lock_chain", nested_lock_chain, (100, 200, 400), "nested calls"),
    Input("lock_ring", lock_ring, (101, 201, 401), "helpers"),
    Input("import_chain", import_chain, (250, 500, 1000), "modules"),
    Input("batch_loops_with_lambdas", batch_loops_with_lambdas, (125, 250, 500), "loops"),
    Input("guarded_writes_and_loops", guarded_writes_and_loops, (150, 300, 600), "writes and loops"),
    Input("with_items", with_items, (1250, 2500, 5000), "items"),
    Input("module_globals", module_globals, (25_000, 50_000, 100_000), "globals"),
    Input("consumer_classes", consumer_classes, (12_500, 25_000, 50_000), "lines"),
    Input("one_long_line", one_long_line, (250_000, 500_000, 1_000_000), "bytes"),
    Input("fstring_nesting", fstring_nesting, (500, 1000, 2000), "brackets"),
)


@dataclass(frozen=True)
class Measure:
    seconds: float
    cpu_seconds: float
    outcome: str


def measure(files: Files, timeout: float) -> Measure:
    with tempfile.TemporaryDirectory(prefix="epochlint-pathological-") as folder:
        root = Path(folder)
        (root / "pyproject.toml").write_text("[project]\nname = 'pathological'\n")
        for rel, text in {"racy_consumer.py": CONSUMER, **files}.items():
            (root / rel).write_text(text, encoding="utf-8")
        command = [
            sys.executable, "-m", "epochlint", "check", "--no-cache", "--jobs", "1", "--output-format", "json", "."
        ]
        started, cpu_before = time.perf_counter(), _children_cpu()
        try:
            done = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return Measure(timeout, _children_cpu() - cpu_before, "stopped (timeout)")
        seconds = time.perf_counter() - started
    return Measure(seconds, _children_cpu() - cpu_before, _outcome(done, set(files)))


def _children_cpu() -> float:
    """User and system seconds of the child processes that have ended."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _outcome(done: subprocess.CompletedProcess[str], inputs: set[str]) -> str:
    if done.returncode not in (0, 1):
        return f"exit {done.returncode}: {(done.stderr.strip().splitlines() or [''])[-1][:60]}"
    findings = json.loads(done.stdout)["findings"]
    racy_found = any(f["path"] == "racy_consumer.py" and f["code"] == "EPL001" for f in findings)
    codes = sorted({f["code"] for f in findings if f["path"] in inputs})
    return ("racy found" if racy_found else "RACE MISSED") + f"; input: {', '.join(codes) or 'no findings'}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    print("| input | size | wall s | CPU s | x previous | outcome |")
    print("|---|---:|---:|---:|---:|---|")
    for entry in INPUTS:
        if args.only and entry.name not in args.only:
            continue
        previous = None
        for size in entry.sizes:
            scaled = max(1, int(size * args.scale))
            runs = sorted(
                (measure(entry.make(scaled), args.timeout) for _ in range(args.repeat)), key=lambda m: m.cpu_seconds
            )
            result = runs[len(runs) // 2]
            ratio = f"{result.cpu_seconds / previous:.1f}" if previous else ""
            print(
                f"| {entry.name} | {scaled:,} {entry.unit} | {result.seconds:.1f} | {result.cpu_seconds:.1f} "
                f"| {ratio} | {result.outcome} |",
                flush=True,
            )
            previous = result.cpu_seconds
    return 0


if __name__ == "__main__":
    sys.exit(main())
