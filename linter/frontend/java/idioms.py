"""The Java library calls whose meaning the Java frontend translates into facts."""

from __future__ import annotations

import re

# Methods of a stream, a collection or a map that call their function argument on the spot, once
# per element: the call is a batch loop over the receiver, and the function its body. Each with the
# one method of the functional interface it takes, which it calls on an object given to it
# (`filter(new CurrentEpoch(this))` runs `CurrentEpoch.test` per element).
ITERATING_METHODS: dict[str, str] = {
    **dict.fromkeys(("filter", "anyMatch", "allMatch", "noneMatch", "removeIf", "takeWhile", "dropWhile"), "test"),
    **dict.fromkeys(("map", "mapToObj", "flatMap", "replaceAll", "reduce"), "apply"),
    **dict.fromkeys(("forEach", "forEachOrdered", "forEachRemaining", "peek"), "accept"),
    "mapToInt": "applyAsInt",
    "mapToLong": "applyAsLong",
    "mapToDouble": "applyAsDouble",
}
# `Optional`'s own method that calls its function argument on the spot, with the value it holds
# if any (with its interface's method, as above): only an `Optional` has it, whatever the receiver
# is known as. Its `filter`, `map` and `flatMap` are the iterating methods above.
OPTIONAL_CONSUMERS: dict[str, str] = {"ifPresent": "accept"}
# The methods that call their function argument on the spot: on an `Optional`, at most once, which
# is no batch loop (one value is no collection).
SPOT_METHODS: dict[str, str] = {**ITERATING_METHODS, **OPTIONAL_CONSUMERS}
# `Optional`'s method that runs one of its two functions on the spot: the first with the value it
# holds, or else the second (each with its interface's method, as above).
OPTIONAL_EITHER: dict[str, tuple[str, str]] = {"ifPresentOrElse": ("accept", "run")}
# `Optional` and its primitive kin; the factories that make one (`Optional.ofNullable(m)`) and the
# methods of one that give another (`opt.filter(...)`, `opt.map(...)`).
OPTIONAL_TYPES = frozenset({"Optional", "java.util.Optional", "OptionalInt", "OptionalLong", "OptionalDouble"})
OPTIONAL_FACTORIES = frozenset({"of", "ofNullable", "empty"})
OPTIONAL_CHAINS = frozenset({"filter", "map", "flatMap", "or"})
# What an iterating method does with its function's value: a decision (kept or dropped), or the
# element of the stream it gives (`map`; a stream of them for `flatMap`, an `Optional`'s own).
MAPPING_METHODS = frozenset({"map", "mapToObj", "flatMap"})
DECIDING_METHODS = frozenset({"filter", "anyMatch", "allMatch", "noneMatch", "removeIf", "takeWhile", "dropWhile"})
# The iterating methods that give the elements they are called on, some of them (a stream's, an
# `Optional`'s value): what the receiver holds goes where the call's value goes.
PASSING_METHODS = frozenset({"filter", "peek", "takeWhile", "dropWhile"})

# The methods of Java's functional interfaces and of `Object` that do not run the function they are
# called on (a combinator makes another function of it: `p.negate()`, `f.andThen(g)`). Any other
# method called on a lambda or a method reference is its one abstract method: `test`, `apply`,
# `accept`, `run`, `get`, `call`, `compare`, or a project interface's own.
FUNCTION_COMBINATORS = frozenset(
    {
        "and", "or", "negate", "andThen", "compose", "reversed", "thenComparing", "thenComparingInt",
        "thenComparingLong", "thenComparingDouble", "equals", "hashCode", "toString", "getClass",
        "notify", "notifyAll", "wait",
    }
)

# The interfaces of `java.util.function` (`Predicate`, `BiFunction`, `ToLongFunction`, `IntUnaryOperator`...):
# a field or a local declared as one holds a function, which a stream operation given it calls per element.
FUNCTION_TYPES = re.compile(r"(?:java\.util\.function\.)?\w*(?:Predicate|Function|Consumer|Operator|Supplier)")

# Field updaters (`AtomicLongFieldUpdater`, `AtomicIntegerFieldUpdater`, `AtomicReferenceFieldUpdater`)
# and atomic numbers (`AtomicLong`, `AtomicInteger`): the operations on the value they hold.
FIELD_UPDATER_TYPES = frozenset(
    {"AtomicLongFieldUpdater", "AtomicIntegerFieldUpdater", "AtomicReferenceFieldUpdater"}
)
ATOMIC_NUMBER_TYPES = frozenset({"AtomicLong", "AtomicInteger"})
ATOMIC_BUMPS = frozenset({"incrementAndGet", "getAndIncrement", "addAndGet", "getAndAdd"})
# The stores that write only over the value they are given as expected.
COMPARE_AND_SETS = frozenset(
    {
        "compareAndSet", "weakCompareAndSet", "weakCompareAndSetPlain", "weakCompareAndSetVolatile",
        "weakCompareAndSetAcquire", "weakCompareAndSetRelease", "compareAndExchange",
        "compareAndExchangeAcquire", "compareAndExchangeRelease",
    }
)
ATOMIC_STORES = COMPARE_AND_SETS | frozenset(
    {
        "set", "lazySet", "setRelease", "setPlain", "setOpaque", "getAndSet", "decrementAndGet",
        "getAndDecrement", "updateAndGet", "getAndUpdate", "accumulateAndGet", "getAndAccumulate",
    }
)
ATOMIC_LOADS = frozenset({"get", "getPlain", "getOpaque", "getAcquire", "longValue", "intValue"})

# `L.lock()` ... `L.unlock()` on a `java.util.concurrent.locks.Lock`; `readLock()`/`writeLock()` of a
# `ReentrantReadWriteLock` are held as the read-write lock itself (readers and writers exclude each other).
# A `Semaphore` is held from `acquire()` to `release()` (a lock when its count is 1).
LOCK_METHODS = frozenset({"lock", "lockInterruptibly", "acquire", "acquireUninterruptibly"})
UNLOCK_METHODS = frozenset({"unlock", "release"})
TRY_LOCK_METHODS = frozenset({"tryLock", "tryAcquire"})
READ_WRITE_VIEWS = frozenset({"readLock", "writeLock"})
# A `StampedLock` is held from the stamp these return (`long stamp = L.writeLock();`) until the stamp
# is given back (`L.unlockWrite(stamp);`). Its optimistic reads hold nothing.
STAMPED_LOCK = "StampedLock"
STAMP_LOCK_METHODS = frozenset({"writeLock", "readLock", "writeLockInterruptibly", "readLockInterruptibly"})
STAMP_UNLOCK_METHODS = frozenset({"unlockWrite", "unlockRead", "unlock"})

# The JDK classes whose meaning the analysis knows by their full names (locks), by package: a file
# that imports the package whole (`import java.util.concurrent.locks.*;`) names them from there.
KNOWN_PACKAGE_CLASSES = {
    "java.util.concurrent.locks": frozenset(
        {"Lock", "ReadWriteLock", "ReentrantLock", "ReentrantReadWriteLock", "StampedLock", "Condition"}
    ),
    "java.util.concurrent": frozenset({"Semaphore"}),
}

# Types every Java file sees without an import: never taken for a class of the file's own package.
JAVA_LANG = frozenset(
    {
        "Object", "String", "StringBuilder", "Integer", "Long", "Short", "Byte", "Double", "Float",
        "Boolean", "Character", "Number", "Math", "System", "Thread", "Runnable", "Iterable", "Class",
        "Exception", "RuntimeException", "Error", "Throwable", "IllegalStateException",
        "IllegalArgumentException", "InterruptedException", "NullPointerException", "Override",
        "Deprecated", "SuppressWarnings", "FunctionalInterface", "AutoCloseable", "Comparable", "Enum",
        "Void", "CharSequence", "ThreadLocal", "SafeVarargs", "UnsupportedOperationException",
    }
)
PRIMITIVE_TYPES = frozenset({"int", "long", "short", "byte", "char", "boolean", "float", "double", "void", "var"})
# Declared types of numbers and flags, primitive or boxed: a capacity, a load factor, a fairness
# flag, never a collection whose items a constructor copies.
SCALAR_TYPES = (PRIMITIVE_TYPES - {"void", "var"}) | frozenset(
    {"Integer", "Long", "Short", "Byte", "Character", "Boolean", "Float", "Double"}
)

# A `Map`'s methods that store a value under a key (a key, then the value or a function of it): an
# assignment into the map, as Python's `m[k] = v` (a queue's one-argument `put` is not one).
MAP_STORES = frozenset({"put", "putIfAbsent", "merge", "compute", "computeIfAbsent", "computeIfPresent"})
# Streams of the numbers of a range, `IntStream.range(0, 3)`: (class, method).
NUMBER_RANGES = frozenset(
    {("IntStream", "range"), ("IntStream", "rangeClosed"), ("LongStream", "range"), ("LongStream", "rangeClosed")}
)
# Factories of an empty collection when called without arguments: (class, method).
EMPTY_FACTORIES = frozenset(
    {
        ("List", "of"), ("Set", "of"), ("Map", "of"), ("Map", "ofEntries"), ("Collections", "emptyList"),
        ("Collections", "emptySet"), ("Collections", "emptyMap"), ("Collections", "emptySortedSet"),
        ("Collections", "emptySortedMap"), ("Collections", "emptyNavigableSet"), ("Collections", "emptyNavigableMap"),
    }
)
# Factories of a collection written out element by element: (class, method).
LITERAL_COLLECTIONS = frozenset(
    {("List", "of"), ("Set", "of"), ("Stream", "of"), ("Arrays", "asList"), ("EnumSet", "of")}
)
# The methods giving a collection's stream, a view of its elements.
COLLECTION_STREAMS = frozenset({"stream", "parallelStream"})
# Stream operations giving elements of the stream they are called on, themselves (not `map`'s other
# values): what `forEach` or `findFirst()` after them takes is an element of that stream.
ELEMENT_KEEPING_STREAM_OPERATIONS = frozenset(
    {
        "filter", "peek", "distinct", "sorted", "limit", "skip", "takeWhile", "dropWhile", "sequential",
        "parallel", "unordered",
    }
)
# Stream operations that give no more elements than the stream or the `Optional` they are called
# on has, each from one of its own (not `flatMap`): over a collection written out, a range of
# numbers or an `Optional`, what they give walks no batch either (`IntStream.range(0, 3).boxed()`,
# `opt.stream().map(f)`).
ELEMENTWISE_STREAM_OPERATIONS = ELEMENT_KEEPING_STREAM_OPERATIONS | frozenset(
    {
        "stream", "boxed", "map", "mapToObj", "mapToInt", "mapToLong", "mapToDouble", "asLongStream",
        "asDoubleStream",
    }
)
