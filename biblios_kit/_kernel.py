"""Which build of the rules kernel runs: compiled with mypyc, or interpreted from the same source.

``make`` compiles the kernel modules (:data:`MODULES`) in place with mypyc when a C
compiler is available (see ``hatch_build.py``); Python then imports the compiled
extension instead of the ``.py`` beside it. :func:`install` (called by
``biblios_kit/__init__.py`` before anything else is imported) makes the interpreted
source win instead, module by module, when

* ``BIBLIOS_KIT_PURE=1`` is set (the differential test runs the same games both ways), or
* a module's source is newer than its compiled extension (an edited kernel runs as written
  until ``make`` compiles it again; it never runs stale code).

:func:`status` says what was loaded, for ``biblios-kit --version``.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

MODULES: tuple[str, ...] = (
    "biblios_kit.engine.core",
    "biblios_kit.engine.events",
    "biblios_kit.engine.compiled",
    "biblios_kit.engine.actions",
    "biblios_kit.engine.state",
)
"""The kernel modules that ``hatch_build.py`` compiles (the same list)."""

GROUP_LIBRARY = "biblios_kit_kernel__mypyc"
"""mypyc puts the compiled code of every kernel module in this one shared library, beside the
package; each module's own extension is a small shim that loads it."""

PURE_VARIABLE = "BIBLIOS_KIT_PURE"
"""Set to a non-empty value to run the kernel interpreted even where it is compiled."""

_PACKAGE_DIR = Path(__file__).resolve().parent


def _paths(module: str) -> tuple[Path, list[Path]]:
    """The module's source file and its compiled extensions, if any."""
    parts = module.split(".")[1:]
    folder = _PACKAGE_DIR.joinpath(*parts[:-1])
    source = folder / f"{parts[-1]}.py"
    compiled = [folder / f"{parts[-1]}{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES]
    return source, [path for path in compiled if path.exists()]


def _use_source(module: str) -> bool:
    source, compiled = _paths(module)
    if not compiled or not source.exists():
        return False
    if os.environ.get(PURE_VARIABLE):
        return True
    built = [path.stat().st_mtime for path in compiled + _group_libraries()]
    return source.stat().st_mtime > max(built)


def _group_libraries() -> list[Path]:
    folder = _PACKAGE_DIR.parent
    candidates = [folder / f"{GROUP_LIBRARY}{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES]
    return [path for path in candidates if path.exists()]


class _SourceFirst(importlib.abc.MetaPathFinder):
    """Finds the ``.py`` source of a kernel module that must run interpreted."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MODULES or not _use_source(fullname):
            return None
        source, _compiled = _paths(fullname)
        return importlib.util.spec_from_file_location(fullname, source)


def install() -> None:
    """Put the source-first finder in front of the import system (once)."""
    if not any(isinstance(finder, _SourceFirst) for finder in sys.meta_path):
        sys.meta_path.insert(0, _SourceFirst())


def status() -> str:
    """``"compiled"`` when every kernel module runs compiled, ``"interpreted"`` when none does, else ``"mixed"``."""
    from importlib import import_module

    compiled = [not (import_module(name).__file__ or "").endswith(".py") for name in MODULES]
    if all(compiled):
        return "compiled"
    return "interpreted" if not any(compiled) else "mixed"
