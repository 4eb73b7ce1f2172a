"""Hatchling build hook: compile the message catalogs, and the rules kernel with mypyc.

* The gettext catalogs (``locales/*/LC_MESSAGES/*.po``) become ``.mo`` files inside the wheel.
* The kernel modules (:data:`KERNEL`) are compiled to C extensions with mypyc, the compiler
  mypy and black ship with, from the very same Python source. A regular wheel carries the
  extensions; an editable install (``pip install -e .``, what ``make`` does) builds them in
  place, next to their sources. Without a working C compiler, or with
  ``BIBLIOS_KIT_PURE=1`` in the environment, nothing is compiled and the same modules run
  interpreted, with the same results (``biblios-kit --version`` says which).
"""

from __future__ import annotations

import io
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

KERNEL = (
    "biblios_kit/engine/core.py",
    "biblios_kit/engine/events.py",
    "biblios_kit/engine/compiled.py",
    "biblios_kit/engine/actions.py",
    "biblios_kit/engine/state.py",
)
"""The modules compiled with mypyc (``biblios_kit/_kernel.py`` lists the same ones for the runtime)."""

GROUP = "biblios_kit_kernel"
"""mypyc's shared library for the kernel is ``biblios_kit_kernel__mypyc.<abi>.so``."""


class BuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """Compile catalogs (always) and the kernel (when a C compiler is available)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        self._compile_catalogs(root, build_data)
        if self.target_name == "wheel":
            self._compile_kernel(root, version, build_data)

    def _compile_catalogs(self, root: Path, build_data: dict[str, Any]) -> None:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        out_dir = root / "build" / "mo"
        for po_path in sorted((root / "locales").glob("*/LC_MESSAGES/*.po")):
            lang = po_path.parent.parent.name
            with po_path.open("rb") as handle:
                catalog = read_po(handle, locale=lang)
            buffer = io.BytesIO()
            write_mo(buffer, catalog)
            target = out_dir / lang / f"{po_path.stem}.mo"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(buffer.getvalue())
            build_data["force_include"][str(target)] = f"biblios_kit/_data/locales/{lang}/LC_MESSAGES/{po_path.stem}.mo"

    def _compile_kernel(self, root: Path, version: str, build_data: dict[str, Any]) -> None:
        if os.environ.get("BIBLIOS_KIT_PURE"):
            self.app.display_info("biblios-kit: BIBLIOS_KIT_PURE is set, the kernel stays interpreted")
            return
        if not shutil.which(os.environ.get("CC", "cc")) and not shutil.which("gcc"):
            self.app.display_warning("biblios-kit: no C compiler found, the kernel stays interpreted")
            return
        editable = version == "editable"
        build_dir = root / "build" / "mypyc"
        try:
            built = _mypyc_build(root, build_dir, inplace=editable)
        except (Exception, SystemExit) as error:  # mypyc exits on a type error: install the interpreted modules
            self.app.display_warning(f"biblios-kit: compiling the kernel failed ({error}); it stays interpreted")
            return
        if editable:
            return  # the extensions sit next to their sources, which the editable install points to
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        for path in built:
            build_data["force_include"][str(path)] = path.relative_to(build_dir / "lib").as_posix()


def _mypyc_build(root: Path, build_dir: Path, inplace: bool) -> list[Path]:
    """Compile :data:`KERNEL` with mypyc; return the built extension files (under ``build_dir/lib``)."""
    from mypyc.build import mypycify
    from setuptools import Distribution

    previous = Path.cwd()
    os.chdir(root)
    try:
        # An explicit empty mypy configuration: the project's [tool.mypy] names packages to check,
        # which mypyc must not mix with the files it is given.
        modules = mypycify(
            ["--config-file", str(_empty_config(build_dir)), *KERNEL],
            opt_level="3",
            group_name=GROUP,
            target_dir=str(build_dir / "c"),
        )
        distribution = Distribution({"name": "biblios-kit-kernel", "ext_modules": modules})
        command = distribution.get_command_obj("build_ext")
        command.build_lib = str(build_dir / "lib")  # type: ignore[attr-defined]
        command.build_temp = str(build_dir / "temp")  # type: ignore[attr-defined]
        command.inplace = inplace  # type: ignore[attr-defined]
        command.parallel = os.cpu_count() or 1  # type: ignore[attr-defined]
        distribution.run_command("build_ext")
    finally:
        os.chdir(previous)
    if inplace:
        return []
    return sorted(p for p in (build_dir / "lib").rglob("*") if p.suffix in (".so", ".pyd"))


def _empty_config(build_dir: Path) -> Path:
    config = build_dir / "mypy.ini"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f"[mypy]\npython_version = {sys.version_info[0]}.{sys.version_info[1]}\nignore_missing_imports = True\n"
    )
    return config
