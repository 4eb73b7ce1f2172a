"""The gettext catalogs are complete and consistent with the source, and the checker itself catches each problem."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from biblios_kit.i18n import SUPPORTED
from biblios_kit.i18n_tools import PLURAL_FORMS, check_catalog, check_catalogs, placeholders, summary


def test_catalogs_are_complete() -> None:
    """No missing, obsolete, untranslated or fuzzy entry, same placeholders, right plural forms.

    While other work adds strings this fails with the exact list; fix it with
    ``python -m biblios_kit.i18n_tools update`` and translating (docs/translating.md).
    """
    problems = check_catalogs()
    report = "\n".join(str(p) for p in problems[:80])
    more = f"\n... and {len(problems) - 80} more" if len(problems) > 80 else ""
    assert not problems, f"catalog problems:\n{report}{more}\n\n{summary(problems)}"


def test_every_supported_language_has_a_catalog() -> None:
    for lang in SUPPORTED:
        assert (Path(__file__).resolve().parent.parent / "locales" / lang / "LC_MESSAGES" / "biblios_kit.po").is_file()
        assert lang in PLURAL_FORMS


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{count} cards", {"{count}"}),
        ("{name!r} and {byte:02x}", {"{name!r}", "{byte:02x}"}),
        ("literal {{braces}} only", set()),
        ("no placeholder", set()),
    ],
)
def test_placeholders(template: str, expected: set[str]) -> None:
    assert placeholders(template) == expected


def test_malformed_template_is_an_error() -> None:
    with pytest.raises(ValueError):
        placeholders("{unclosed")


def _write(path: Path, catalog: Catalog) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        write_po(handle, catalog)
    return path


def test_checker_finds_every_kind_of_problem(tmp_path: Path) -> None:
    template = Catalog(locale=None)
    template.add("kept {name}")
    template.add("wrong {count} placeholder")
    template.add("untranslated")
    template.add("fuzzy one")
    template.add(("{count} card", "{count} cards"))
    template.add("missing in catalog")

    po = Catalog(locale="fr")
    po.add("kept {name}", "gardé {name}")
    po.add("wrong {count} placeholder", "mauvais {nombre}")
    po.add("untranslated", "")
    po.add("fuzzy one", "approximatif", flags=["fuzzy"])
    po.add(("{count} card", "{count} cards"), ("{count} carte", ""))
    po.add("gone from the source", "disparu")
    path = _write(tmp_path / "fr" / "LC_MESSAGES" / "biblios_kit.po", po)

    problems = check_catalog("fr", template, path)
    found = {(p.kind, p.msgid) for p in problems}
    assert ("missing", "missing in catalog") in found
    assert ("obsolete", "gone from the source") in found
    assert ("untranslated", "untranslated") in found
    assert ("untranslated", "{count} card") in found
    assert ("fuzzy", "fuzzy one") in found
    assert ("placeholders", "wrong {count} placeholder") in found
    assert not any(p.msgid == "kept {name}" for p in problems)
    detail = next(p.detail for p in problems if p.kind == "placeholders")
    assert "{count}" in detail and "{nombre}" in detail


def test_checker_flags_a_wrong_plural_header(tmp_path: Path) -> None:
    template = Catalog(locale=None)
    template.add("hello")
    po = Catalog(locale="fr")
    po.add("hello", "bonjour")
    path = _write(tmp_path / "fr.po", po)
    text = path.read_text(encoding="utf-8").replace("plural=(n > 1)", "plural=(n != 1)")
    path.write_text(text, encoding="utf-8")
    problems = check_catalog("fr", template, path)
    assert [p.kind for p in problems] == ["header"]
