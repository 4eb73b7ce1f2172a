"""The package's layers: no import cycle, and nothing outside the engine touches its private names."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "biblios_kit"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports_of(path: Path) -> set[str]:
    """Every biblios_kit module ``path`` imports at run time (function bodies included, ``TYPE_CHECKING`` blocks not)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.ImportFrom) and child.module and child.module.startswith("biblios_kit"):
                found.add(child.module)
                found.update(f"{child.module}.{alias.name}" for alias in child.names)
            elif isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names if alias.name.startswith("biblios_kit"))
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {name for name in found if name in MODULES}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph``, if there is any (depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := walk(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := walk(node)):
            return cycle
    return None


def test_no_import_cycle_anywhere_in_the_package() -> None:
    # A package's __init__ importing its own submodules is not a cycle of the code's layers.
    graph = {
        name: {other for other in imports_of(path) if other != name and not name.startswith(other + ".")}
        for name, path in MODULES.items()
    }
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_cycles() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def private_engine_names() -> set[str]:
    """Names starting with one underscore defined in ``biblios_kit/engine`` (functions, classes, methods, globals)."""
    names: set[str] = set()
    for path in (PACKAGE / "engine").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            candidates: list[str] = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                candidates.append(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                candidates.extend(t.id for t in targets if isinstance(t, ast.Name))
                candidates.extend(t.attr for t in targets if isinstance(t, ast.Attribute))
            names.update(n for n in candidates if n.startswith("_") and not n.startswith("__"))
    return names


def test_no_module_outside_the_engine_uses_a_private_engine_name() -> None:
    private = private_engine_names()
    assert {"_do", "_setup", "_church_legal"} <= private  # the scan sees the engine's private names
    offenders = []
    for name, path in MODULES.items():
        if name.startswith("biblios_kit.engine"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in private:
                offenders.append(f"{path.name}:{node.lineno}: .{node.attr}")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("biblios_kit.engine"):
                offenders.extend(f"{path.name}:{node.lineno}: {a.name}" for a in node.names if a.name.startswith("_"))
    assert not offenders, "private engine names used outside the engine:\n" + "\n".join(offenders)


LOWER_LAYERS = ("biblios_kit.engine", "biblios_kit.bots", "biblios_kit.sim", "biblios_kit.rules")
"""Packages that raise errors (and report ruleset problems) as data: codes and fields, no sentences."""


def test_the_lower_layers_make_no_sentences() -> None:
    """engine/, bots/, sim/ and rules/ raise errors as data: they never import the translation functions,
    nor the module that makes the sentences (``biblios_kit.messages``), even inside a function."""
    checked = [name for name in MODULES if name.startswith(LOWER_LAYERS)]
    assert {"biblios_kit.rules.checks", "biblios_kit.rules.loader", "biblios_kit.engine.state"} <= set(checked)
    for name in checked:
        imported = imports_of(MODULES[name])
        assert "biblios_kit.i18n" not in imported, f"{name} imports the translation functions"
        assert "biblios_kit.messages" not in imported, f"{name} imports the sentence maker"


def test_the_layering_check_sees_imports_inside_functions(tmp_path: Path) -> None:
    module = tmp_path / "sample.py"
    module.write_text("def f():\n    from biblios_kit.i18n import _\n    return _('x')\n", encoding="utf-8")
    assert "biblios_kit.i18n" in imports_of(module)


def test_simulation_statistics_do_not_import_the_runner() -> None:
    """The runner plays and the statistics summarise; both read the data of ``sim/model.py``."""
    stats = imports_of(MODULES["biblios_kit.sim.stats"])
    assert "biblios_kit.sim.runner" not in stats
    source = MODULES["biblios_kit.sim.stats"].read_text(encoding="utf-8")
    assert "biblios_kit.sim.runner" not in source  # not even for types


LAYERS = (
    ("errors", "resources", "_kernel"),
    ("i18n",),
    ("bounded", "atomic", "names", "linebreak", "savelock", "lifeline"),
    ("rules",),
    ("engine",),
    ("bots",),
    ("sim",),
    ("rulebook",),
    ("messages", "lab", "tui"),
    ("net",),
    ("cli", "i18n_tools", "__main__"),
)
"""The package's layers, bottom first, by top-level module or subpackage: a module imports only from its own
layer or one below (the package itself, ``biblios_kit/__init__.py``, is a facade above them all)."""


def layer_of(name: str) -> int:
    """The index in :data:`LAYERS` of module ``name`` (``biblios_kit.x.y`` is in x's layer)."""
    top = name.split(".")[1]
    return next(index for index, members in enumerate(LAYERS) if top in members)


def upward_imports(modules: dict[str, Path]) -> list[str]:
    """Every import of ``modules`` that reaches a layer above the importer's."""
    found = []
    for name, path in modules.items():
        if name == "biblios_kit":
            continue
        for other in sorted(imports_of(path) - {"biblios_kit"}):
            if layer_of(other) > layer_of(name):
                found.append(f"{name} imports {other}")
    return found


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    assert {name.split(".")[1] for name in MODULES if name != "biblios_kit"} <= {m for layer in LAYERS for m in layer}
    offenders = upward_imports(MODULES)
    assert not offenders, "imports reaching up a layer:\n" + "\n".join(offenders)


def test_the_layer_check_sees_an_import_reaching_up(tmp_path: Path) -> None:
    module = tmp_path / "saves.py"
    module.write_text("from biblios_kit.tui.config import TuiConfig\n", encoding="utf-8")
    assert upward_imports({"biblios_kit.engine.saves": module}) == [
        "biblios_kit.engine.saves imports biblios_kit.tui.config"
    ]


def test_the_table_screen_stays_small() -> None:
    """The table screen routes between widgets (issue 29: under 300 lines, no table widget over 250)."""
    screen = PACKAGE / "tui" / "screens" / "table.py"
    assert len(screen.read_text(encoding="utf-8").splitlines()) < 300
    for widget in sorted((PACKAGE / "tui" / "widgets").glob("*.py")):
        assert len(widget.read_text(encoding="utf-8").splitlines()) <= 250, widget.name
