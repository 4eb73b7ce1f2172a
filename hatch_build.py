"""Hatchling build hook: compile the gettext catalogs (.po) to .mo files inside the wheel."""

from __future__ import annotations

import io
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CompileCatalogs(BuildHookInterface):
    """Add ``biblios_kit/_data/locales/<lang>/LC_MESSAGES/*.mo`` compiled from ``locales/``."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        root = Path(self.root)
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
