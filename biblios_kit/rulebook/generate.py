"""Write the Markdown rulebook of every shipped edition in every language: ``python -m biblios_kit.rulebook.generate DIR``."""

from __future__ import annotations

import sys
from pathlib import Path

from biblios_kit.i18n import SUPPORTED
from biblios_kit.rulebook.formats import rulebook_markdown
from biblios_kit.rulebook.render import render_rulebook
from biblios_kit.rules.loader import available_rulesets, load_ruleset


def edition_ids() -> list[str]:
    """The ids of the shipped editions (not variants or user rulesets), sorted."""
    return sorted(entry.id for entry in available_rulesets() if entry.origin == "edition")


def expected_files() -> dict[str, str]:
    """File name -> Markdown content of every generated rulebook (``biblios.fr.md`` ...)."""
    files: dict[str, str] = {}
    for ruleset_id in edition_ids():
        ruleset = load_ruleset(ruleset_id)
        for lang in SUPPORTED:
            files[f"{ruleset_id}.{lang}.md"] = rulebook_markdown(render_rulebook(ruleset, lang))
    return files


def generate(folder: Path) -> list[Path]:
    """Write every rulebook into ``folder`` (created if needed); return the paths written or updated."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, content in expected_files().items():
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != content:
            path.write_text(content, encoding="utf-8")
            written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: regenerate the rulebooks in the folder given (default ``docs/rules``)."""
    args = sys.argv[1:] if argv is None else argv
    folder = Path(args[0] if args else "docs/rules")
    written = generate(folder)
    for path in written:
        print(f"wrote {path}")
    if not written:
        print(f"{folder}: up to date")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
