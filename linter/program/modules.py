"""Module names of the files in one analysis unit, and import resolution between them."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from epochlint.frontend.facts import FileFacts, Import


@dataclass(frozen=True)
class ModuleInfo:
    """One analysed file: its dotted module name, its root-relative path and its facts."""

    name: str
    rel: str
    is_package: bool
    facts: FileFacts


def module_names(rels: list[str], package_dirs: set[str]) -> dict[str, str]:
    """Dotted module names for root-relative paths.

    A file's name is its path below the highest folder of the unbroken chain of packages (folders
    with `__init__.py`) that holds it, as Python would import it. Names that would collide (two
    `main.py` in unrelated folders) are qualified with their folders instead.
    """
    names = {rel: _module_name(rel, package_dirs) for rel in rels}
    seen: dict[str, list[str]] = {}
    for rel, name in names.items():
        seen.setdefault(name, []).append(rel)
    for name, colliding in seen.items():
        if len(colliding) > 1:
            for rel in colliding:
                names[rel] = _path_name(rel)
    return names


def namespace_module_names(names: Mapping[str, str], imported: set[str]) -> dict[str, str]:
    """Names of modules in namespace packages (folders without `__init__.py`, PEP 420).

    A module that the unit imports by its folder path (`from nest import imported` for
    `nest/imported.py`) is named by that path; one never imported so keeps its name, as a test
    folder's modules are imported from their own folder.
    """
    taken = set(names.values())
    renamed = dict(names)
    for rel, name in names.items():
        path_name = _path_name(rel)
        if path_name != name and path_name in imported and path_name not in taken:
            renamed[rel] = path_name
    return renamed


def imported_names(imports: Iterable[Import]) -> set[str]:
    """The absolute dotted names a module's imports may name as modules."""
    found = set()
    for imported in imports:
        if imported.level == 0:
            found.add(imported.module)
            if imported.name:
                found.add(f"{imported.module}.{imported.name}")
    return found


def java_top_level_classes(facts: FileFacts) -> dict[str, str]:
    """The top-level classes of a Java file's facts, by full name (`p.SlowDrain`, `SlowDrain` in the
    default package): the qualified name of each in its file."""
    package = facts.package
    return {
        f"{package}.{cls.name}" if package else cls.name: cls.qualname
        for cls in facts.classes
        if cls.top_level
    }


def _module_name(rel: str, package_dirs: set[str]) -> str:
    # Plain string operations: this runs for every file of every run, even one that analyses nothing.
    folder, file_name = _split(rel)
    stem = posixpath.splitext(file_name)[0]
    parts = [stem] if stem != "__init__" else []
    package = folder
    while package in package_dirs:
        package, name = _split(package)
        parts.insert(0, name)
    return ".".join(parts) or _split(folder)[1] or stem


def _path_name(rel: str) -> str:
    folder, file_name = _split(rel)
    stem = posixpath.splitext(file_name)[0]
    parts = [*(folder.split("/") if folder else ()), *([stem] if stem != "__init__" else ())]
    return ".".join(part.replace(".", "_").replace("-", "_") for part in parts)


def _split(rel: str) -> tuple[str, str]:
    """A root-relative path's folder ("" at the root) and last part."""
    folder, _, name = rel.rpartition("/")
    return folder, name


class ModuleLocator:
    """Where Python finds a module that an import names, from the importing file, where the unit
    names it otherwise: files that would share a module name (two services' `app/consumer.py` in a
    monorepo, `consumer.py` in two script folders) are named after their folders, as are a
    namespace package's, and an absolute import reaches the one below the importer's own import
    root (the folder above its outermost package, or its own folder: the first entry of Python's
    path when it runs); a relative import reaches the file its path names. Python files only."""

    def __init__(self, names: Mapping[str, str]) -> None:
        self._names = names
        # By the name an absolute import gives: (import root, module) of each file named after
        # its folders, for each folder above it that is no package.
        self._by_import: dict[str, dict[str, str]] | None = None

    def located(self, importer: str, level: int, target: str) -> str | None:
        """The module that file `importer` (root-relative) imports as `target` with `level` dots,
        found as above; None where it finds none."""
        if not importer.endswith(".py"):
            return None
        if level:
            return self._by_path(importer, level, target)
        # The import root is looked for only where a module of that name has one: most imports
        # (the standard library's, the unit's own packages') have none.
        by_root = self._by_import_root().get(target)
        return by_root.get(self._import_root(importer)) if by_root else None

    def _by_import_root(self) -> dict[str, dict[str, str]]:
        if self._by_import is None:
            self._by_import = {}
            for rel, name in sorted(self._names.items()):
                if not rel.endswith(".py") or name != _path_name(rel):
                    continue
                parts, folders = name.split("."), rel.split("/")
                for start in range(1, len(parts)):
                    top = "/".join(folders[:start])
                    if f"{top}/__init__.py" not in self._names:
                        self._by_import.setdefault(".".join(parts[start:]), {})[top] = name
        return self._by_import

    def _import_root(self, rel: str) -> str:
        folder = posixpath.dirname(rel)
        while folder and f"{folder}/__init__.py" in self._names:
            folder = posixpath.dirname(folder)
        return folder

    def _by_path(self, importer: str, level: int, target: str) -> str | None:
        folder = posixpath.dirname(importer)
        for _ in range(level - 1):
            folder = posixpath.dirname(folder)
        path = posixpath.join(folder, *target.split(".")) if target else folder
        for rel in (f"{path}.py", f"{path}/__init__.py"):
            if rel in self._names:
                return self._names[rel]
        return None


def absolute_import_module(module: ModuleInfo, imported: Import) -> str:
    """The absolute module an import statement names, resolving `from ..x import y`."""
    return absolute_module(module.name, module.is_package, imported.level, imported.module)


def absolute_module(importer: str, is_package: bool, level: int, target: str) -> str:
    """The absolute name of `target` imported with `level` leading dots from module `importer`."""
    if level == 0:
        return target
    package = importer.split(".")
    if not is_package:
        package = package[:-1]
    if level > 1:
        package = package[: len(package) - (level - 1)]
    base = ".".join(package)
    if target:
        return f"{base}.{target}" if base else target
    return base
