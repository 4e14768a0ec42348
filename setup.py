"""The build, beside pyproject.toml: the pure-Python distribution, and with EPOCHLINT_COMPILE=1
the hottest modules (`COMPILED_MODULES`) built as C extensions by mypyc too, which Python then
imports instead of their sources (docs/speed.md: a program's build takes about half the time).

    pip install . mypy setuptools wheel
    EPOCHLINT_COMPILE=1 pip install --no-build-isolation --no-deps --force-reinstall .

mypyc comes with mypy and needs a C compiler and Python's headers; it compiles against the types
of epochlint's dependencies, installed first. Editable installs are left pure: a compiled module
would shadow its edited source.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

from setuptools import Extension, setup

# Name resolution, the symbol tables and the call graph (most of a program's build), and the
# frontend's walk over a syntax tree and the extraction of facts on it (all of a file's but the
# parse and the positions; positions.py lends libcst functions that must bind as methods).
COMPILED_MODULES = (
    "program/resolutions.py",
    "program/symbols.py",
    "program/callgraph.py",
    "frontend/walk.py",
    "frontend/scopes.py",
    "frontend/extract.py",
)
# mypyc names a module after the folders above it: the engine's sources (`linter/`) are compiled
# from a copy laid out as the package they install as.
_STAGED = Path("build") / "mypyc-src" / "epochlint"


def compiled_extensions() -> list[Extension]:
    if os.environ.get("EPOCHLINT_COMPILE") != "1" or "editable_wheel" in sys.argv:
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        sys.exit("EPOCHLINT_COMPILE=1: mypyc is not installed here (pip install mypy; build with --no-build-isolation)")
    if importlib.util.find_spec("libcst") is None:
        # Compiled without libcst's types, the extraction fails at its first attribute (measured).
        sys.exit("EPOCHLINT_COMPILE=1: libcst is not installed here (pip install . first, then build again)")
    shutil.rmtree(_STAGED, ignore_errors=True)
    shutil.copytree("linter", _STAGED, ignore=shutil.ignore_patterns("__pycache__"))
    # Type errors are reported for the compiled modules alone: the others are only read for types.
    options = ["--ignore-missing-imports", "--follow-imports=silent"]
    return mypycify([*options, *(str(_STAGED / module) for module in COMPILED_MODULES)])


setup(ext_modules=compiled_extensions())
