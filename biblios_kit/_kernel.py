"""Which build of the rules kernel and the bots runs: compiled with mypyc, or interpreted from the same source.

``make`` compiles the modules of :data:`GROUPS` in place with mypyc when a C compiler is
available (see ``hatch_build.py``); Python then imports the compiled extension instead of
the ``.py`` beside it. :func:`install` (called by ``biblios_kit/__init__.py`` before
anything else is imported) makes the interpreted source win instead, when

* ``BIBLIOS_KIT_PURE=1`` is set (the differential test runs the same games both ways), or
* a module's source is newer than its group's compiled extensions (an edited module runs as
  written until ``make`` compiles it again; it never runs stale code).

The compiled code of a group calls the compiled code of the groups before it directly (the
bots use the kernel's native classes), so when a group must run interpreted, so do all the
groups after it. A group that did not compile (``hatch_build.py`` then leaves it out and
removes its old extensions) runs interpreted beside the compiled groups before it.

:func:`status` says what was loaded, for ``biblios-kit --version``. Run as a script, this
file prints the source paths of every compiled module (the ``Makefile`` watches them).
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

GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "biblios_kit_kernel",
        (
            "biblios_kit.engine.core",
            "biblios_kit.engine.events",
            "biblios_kit.engine.compiled",
            "biblios_kit.engine.actions",
            "biblios_kit.engine.state",
            "biblios_kit.engine.observation",
            "biblios_kit.engine.scoring",
        ),
    ),
    (
        "biblios_kit_bots",
        (
            "biblios_kit.bots.params",
            "biblios_kit.bots.style",
            "biblios_kit.bots.context",
            "biblios_kit.bots.estimate",
            "biblios_kit.bots.heuristic",
            "biblios_kit.bots.playout",
            "biblios_kit.bots.ismcts",
            "biblios_kit.lab.projector",
        ),
    ),
)
"""The modules compiled with mypyc, in groups: mypyc puts the code of a group's modules in one
shared library, ``<group>__mypyc.<abi>.so`` beside the package (each module's own extension is
a small shim that loads it). ``hatch_build.py`` compiles them, the ``Makefile`` watches their
sources: this is the only list. The kernel comes first (``engine/observation.py`` with it:
``state.py`` calls it); the bots, compiled after it with the balance lab's per-game
measurement loops (``lab/projector.py``, which the lab runs at every turn boundary of its
games), call the kernel's native code, and a compile error in a module of that group leaves
it interpreted, never the kernel. ``engine/hidden.py``
(the model of hidden information) and ``engine/worlds.py`` stay interpreted (its error class
inherits ``RuntimeError``, which mypyc cannot compile)."""

MODULES: tuple[str, ...] = tuple(module for _group, modules in GROUPS for module in modules)
"""Every compiled module, in group order."""

PURE_VARIABLE = "BIBLIOS_KIT_PURE"
"""Set to a non-empty value to run the kernel and the bots interpreted even where they are compiled."""

_PACKAGE_DIR = Path(__file__).resolve().parent


def source_path(module: str) -> str:
    """``biblios_kit.engine.core`` -> ``biblios_kit/engine/core.py`` (relative to the project's root)."""
    return module.replace(".", "/") + ".py"


def _paths(module: str) -> tuple[Path, list[Path]]:
    """The module's source file and its compiled extensions, if any."""
    parts = module.split(".")[1:]
    folder = _PACKAGE_DIR.joinpath(*parts[:-1])
    source = folder / f"{parts[-1]}.py"
    compiled = [folder / f"{parts[-1]}{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES]
    return source, [path for path in compiled if path.exists()]


def _group_libraries(group: str) -> list[Path]:
    folder = _PACKAGE_DIR.parent
    candidates = [folder / f"{group}__mypyc{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES]
    return [path for path in candidates if path.exists()]


def _group_runs_compiled(group: str, modules: tuple[str, ...]) -> bool:
    """Every module of the group has its extension, and none of the sources is newer than the build."""
    built: list[float] = [path.stat().st_mtime for path in _group_libraries(group)]
    newest_source = 0.0
    for module in modules:
        source, compiled = _paths(module)
        if not compiled:
            return False
        built.extend(path.stat().st_mtime for path in compiled)
        if source.exists():
            newest_source = max(newest_source, source.stat().st_mtime)
    return newest_source <= max(built)


def _interpreted_from() -> int:
    """The index in :data:`GROUPS` of the first group that must run interpreted (len(GROUPS): none)."""
    if os.environ.get(PURE_VARIABLE):
        return 0
    for index, (group, modules) in enumerate(GROUPS):
        if not _group_runs_compiled(group, modules):
            return index
    return len(GROUPS)


def _use_source(module: str) -> bool:
    source, compiled = _paths(module)
    if not compiled or not source.exists():
        return False
    first = _interpreted_from()
    return any(module in modules for _group, modules in GROUPS[first:])


class _SourceFirst(importlib.abc.MetaPathFinder):
    """Finds the ``.py`` source of a compiled module that must run interpreted."""

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
    """``"compiled"`` when every module of :data:`GROUPS` runs compiled, ``"interpreted"`` when none
    does, else ``"mixed"`` (for instance the kernel compiled and the bots, which did not compile,
    interpreted). A module not imported yet is not imported: its import would load what it names."""
    compiled = [_runs_compiled(name) for name in MODULES]
    if all(compiled):
        return "compiled"
    return "interpreted" if not any(compiled) else "mixed"


def _runs_compiled(name: str) -> bool:
    module = sys.modules.get(name)
    if module is not None:
        origin = module.__file__ or ""
    else:
        spec = importlib.util.find_spec(name)
        origin = (spec.origin if spec is not None else None) or ""
    return bool(origin) and not origin.endswith(".py")


if __name__ == "__main__":
    print(" ".join(source_path(module) for module in MODULES))
