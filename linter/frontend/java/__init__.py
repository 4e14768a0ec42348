"""The Java frontend: reads one `.java` file with tree-sitter and returns the same FileFacts as the
Python frontend does for a `.py` file.

tree-sitter and its Java grammar are an optional extra (`epochlint[java]`): they are imported only
when a Java file is analysed, and `available()` tells discovery whether Java files can be.
"""

from __future__ import annotations

import importlib.util

from epochlint.frontend.facts import FileFacts

JAVA_SUFFIX = ".java"
# What the facts of a Java file depend on besides this code: the parser and its grammar.
JAVA_DISTRIBUTIONS = ("tree-sitter", "tree-sitter-java")
MISSING_REASON = (
    "the Java frontend is not installed (install epochlint with its java extra: tree-sitter and tree-sitter-java)"
)
MISSING_NOTICE = "{count} Java file(s) not analysed: " + MISSING_REASON


def is_java(rel: str) -> bool:
    return rel.endswith(JAVA_SUFFIX)


def available() -> bool:
    """Whether tree-sitter and its Java grammar can be imported."""
    return all(importlib.util.find_spec(name) is not None for name in ("tree_sitter", "tree_sitter_java"))


def facts_from_java(data: bytes) -> FileFacts:
    """Parse `data` (the bytes of a Java file) and extract its facts; errors become `FileFacts.error`."""
    if not data.strip():
        return FileFacts(lines=0)
    from epochlint.frontend.java.extract import extract_java

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        reason = f"cannot decode line {line} as utf-8: {error.reason} (byte {error.start} of the file)"
        return FileFacts(lines=0, error=reason)
    return extract_java(data, text)
