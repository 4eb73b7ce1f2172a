"""Catalog maintenance: extract, update and check the gettext catalogs (``python -m biblios_kit.i18n_tools check``).

``check`` compares each ``locales/<lang>/LC_MESSAGES/biblios_kit.po`` with a fresh
extraction of the source and lists, per language: missing entries (in the source, not in
the catalog), obsolete ones (in the catalog, no longer in the source), untranslated and
fuzzy entries, ``{placeholder}`` mismatches between msgid and msgstr (Babel's own checker
ignores brace placeholders) and a wrong Plural-Forms header. It exits 1 when anything is
found, so it can gate CI; the translator's to-do list is its output.
"""

from __future__ import annotations

import io
import string
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog, Message

PROJECT_ROOT = Path(__file__).resolve().parent.parent
"""The repository root (the catalogs are maintained from a source checkout)."""
LOCALES = PROJECT_ROOT / "locales"
"""The catalog folder of the source checkout."""
TEMPLATE = LOCALES / "biblios_kit.pot"
"""The message template produced by extraction."""
DOMAIN = "biblios_kit"

PLURAL_FORMS: dict[str, str] = {
    "en": "nplurals=2; plural=(n != 1);",
    "fr": "nplurals=2; plural=(n > 1);",
    "es": "nplurals=2; plural=(n != 1);",
}
"""The Plural-Forms header each catalog must carry (French treats 0 as singular)."""


@dataclass(frozen=True, slots=True)
class CatalogProblem:
    """One problem in one catalog: ``kind`` is missing, obsolete, untranslated, fuzzy, placeholders or header."""

    lang: str
    kind: str
    msgid: str
    detail: str = ""

    def __str__(self) -> str:
        detail = f" ({self.detail})" if self.detail else ""
        return f"{self.lang}: {self.kind}: {self.msgid!r}{detail}"


def placeholders(text: str) -> frozenset[str]:
    """The ``{field!conv:spec}`` placeholders of a ``str.format`` template (``{{`` escapes ignored).

    Raises ``ValueError`` for a malformed template (an unmatched brace).
    """
    found = set()
    for _literal, field, spec, conversion in string.Formatter().parse(text):
        if field is None:
            continue
        token = field + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
        found.add("{" + token + "}")
    return frozenset(found)


def _pybabel(*args: str) -> None:
    """Run a ``pybabel`` command in this process, from the project root, quietly."""
    import contextlib
    import logging
    import os

    from babel.messages.frontend import CommandLineInterface

    previous = os.getcwd()
    os.chdir(PROJECT_ROOT)
    try:
        logging.getLogger("babel").setLevel(logging.WARNING)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            CommandLineInterface().run(["pybabel", "--quiet", *args])
    finally:
        os.chdir(previous)


def extract(output: Path) -> None:
    """Extract every message of the source into ``output`` (the same command as ``make catalogs``)."""
    _pybabel(
        "extract",
        "-F",
        "pyproject.toml",
        "--no-location",
        "--sort-output",
        "--project",
        "biblios-kit",
        "-o",
        str(output),
        ".",
    )


def update() -> None:
    """Re-extract the template and merge it into every language catalog (new entries come untranslated)."""
    extract(TEMPLATE)
    _pybabel(
        "update", "--no-fuzzy-matching", "--ignore-obsolete", "-i", str(TEMPLATE), "-d", str(LOCALES), "-D", DOMAIN
    )


def read_catalog(path: Path, lang: str | None = None) -> Catalog:
    """Read a ``.po`` / ``.pot`` file with Babel."""
    from babel.messages.pofile import read_po

    with path.open("rb") as handle:
        return read_po(handle, locale=lang)


def fresh_template() -> Catalog:
    """A catalog freshly extracted from the source (not written to the repository)."""
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "fresh.pot"
        extract(target)
        return read_catalog(target)


def languages() -> list[str]:
    """The languages that have a catalog under ``locales/``."""
    return sorted(path.parent.parent.name for path in LOCALES.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))


def _key(message: Message) -> tuple[str, str | None]:
    msgid = message.id[0] if isinstance(message.id, (tuple, list)) else message.id
    return msgid, message.context


def _split_token(token: str) -> tuple[str, str]:
    """``{name!conv:spec}`` -> (``name``, ``!conv:spec``)."""
    name = token[1:-1]
    cuts = [name.index(mark) for mark in ("!", ":") if mark in name]
    if not cuts:
        return name, ""
    return name[: min(cuts)], name[min(cuts) :]


def _families(names: frozenset[str]) -> frozenset[str]:
    """Placeholders with every form of an edition term (``{the_hand}``, ``{of_the_hand}``) counted as that term.

    A translation may place a term with the article its grammar needs: the English
    ``{the_public_space}`` can be ``{of_the_public_space}`` ("del espacio público") in Spanish.
    """
    from biblios_kit.rulebook.grammar import placeholder_family

    def family(token: str) -> str:
        name, rest = _split_token(token)
        return "{" + placeholder_family(name) + rest + "}"

    return frozenset(family(token) for token in names)


def _agreements(tokens: frozenset[str]) -> tuple[frozenset[str], frozenset[str], list[str]]:
    """Split ``{agree_<term>:…}`` placeholders off: (the other placeholders, the terms agreed with, malformed ones).

    An agreement prints a word agreeing with a term, not the term: a translation may add
    one for any term its msgid names, and needs none where its msgid has one.
    """
    from biblios_kit.rulebook.grammar import AGREE, agreement_words, placeholder_family

    others, terms, bad = set(), set(), []
    for token in tokens:
        name, rest = _split_token(token)
        if not name.startswith(f"{AGREE}_") or placeholder_family(name) == name:
            others.add(token)
            continue
        terms.add(placeholder_family(name))
        try:
            if not rest.startswith(":"):
                raise ValueError("no words after a colon")
            agreement_words(rest[1:])
        except ValueError as error:
            bad.append(f"{token}: {error}")
    return frozenset(others), frozenset(terms), bad


def _placeholder_problems(lang: str, message: Message) -> list[CatalogProblem]:
    ids = message.id if isinstance(message.id, (tuple, list)) else (message.id,)
    strings = message.string if isinstance(message.string, (tuple, list)) else (message.string,)
    problems = []
    try:
        expected = [placeholders(text) for text in ids]
    except ValueError as error:
        return [CatalogProblem(lang, "placeholders", ids[0], f"malformed msgid: {error}")]
    for index, text in enumerate(strings):
        if not text:
            continue
        wanted, wanted_terms, _bad = _agreements(expected[0] if index == 0 else expected[-1])
        try:
            got, got_terms, bad = _agreements(placeholders(text))
        except ValueError as error:
            problems.append(CatalogProblem(lang, "placeholders", ids[0], f"malformed msgstr[{index}]: {error}"))
            continue
        named = {token[1:-1] for token in _families(wanted)} | wanted_terms
        strangers = sorted(got_terms - named)
        if _families(got) != _families(wanted):
            missing = ", ".join(sorted(_families(wanted) - _families(got))) or "-"
            extra = ", ".join(sorted(_families(got) - _families(wanted))) or "-"
            problems.append(
                CatalogProblem(lang, "placeholders", ids[0], f"msgstr[{index}] lacks {missing}; unknown {extra}")
            )
        elif bad or strangers:
            detail = "; ".join(bad + [f"agrees with {term}, which the msgid does not name" for term in strangers])
            problems.append(CatalogProblem(lang, "placeholders", ids[0], f"msgstr[{index}]: {detail}"))
    return problems


def check_catalog(lang: str, template: Catalog, path: Path | None = None) -> list[CatalogProblem]:
    """Every problem of one language's catalog compared with ``template`` (a fresh extraction)."""
    po_path = path or LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if not po_path.is_file():
        return [CatalogProblem(lang, "missing", "", f"no catalog at {po_path}")]
    catalog = read_catalog(po_path, lang)
    problems: list[CatalogProblem] = []
    wanted_forms = PLURAL_FORMS.get(lang)
    header = catalog.mime_headers
    plural_header = dict(header).get("Plural-Forms", "")
    if wanted_forms and plural_header.replace(" ", "") != wanted_forms.replace(" ", ""):
        problems.append(
            CatalogProblem(lang, "header", "Plural-Forms", f"is {plural_header!r}, expected {wanted_forms!r}")
        )
    source = {_key(m): m for m in template if m.id}
    present = {_key(m): m for m in catalog if m.id}
    for key in sorted(set(source) - set(present), key=lambda k: k[0]):
        problems.append(CatalogProblem(lang, "missing", key[0]))
    for key in sorted(set(present) - set(source), key=lambda k: k[0]):
        problems.append(CatalogProblem(lang, "obsolete", key[0]))
    for obsolete_key in sorted(catalog.obsolete, key=lambda k: str(k)):
        msgid = obsolete_key[0] if isinstance(obsolete_key, tuple) else obsolete_key
        problems.append(CatalogProblem(lang, "obsolete", str(msgid), "kept as #~ in the catalog"))
    for key, message in sorted(present.items(), key=lambda item: item[0][0]):
        if key not in source:
            continue
        strings = message.string if isinstance(message.string, (tuple, list)) else (message.string,)
        if message.pluralizable and len(strings) != catalog.num_plurals:
            problems.append(
                CatalogProblem(
                    lang, "untranslated", key[0], f"{len(strings)} plural forms, expected {catalog.num_plurals}"
                )
            )
        elif not all(strings):
            problems.append(CatalogProblem(lang, "untranslated", key[0]))
        if message.fuzzy:
            problems.append(CatalogProblem(lang, "fuzzy", key[0]))
        problems.extend(_placeholder_problems(lang, message))
    return problems


def check_template(template: Catalog, path: Path = TEMPLATE) -> list[CatalogProblem]:
    """Entries missing from or obsolete in the committed ``.pot`` compared with ``template``."""
    if not path.is_file():
        return [CatalogProblem("pot", "missing", "", f"no template at {path}")]
    committed = {_key(m) for m in read_catalog(path) if m.id}
    fresh = {_key(m) for m in template if m.id}
    problems = [CatalogProblem("pot", "missing", key[0]) for key in sorted(fresh - committed, key=lambda k: k[0])]
    problems += [CatalogProblem("pot", "obsolete", key[0]) for key in sorted(committed - fresh, key=lambda k: k[0])]
    return problems


def check_catalogs(langs: Iterable[str] | None = None) -> list[CatalogProblem]:
    """Every problem of the template and of every catalog (default: each language under ``locales/`` and each supported one)."""
    from biblios_kit.i18n import SUPPORTED

    template = fresh_template()
    chosen = sorted(set(langs) if langs is not None else set(languages()) | set(SUPPORTED))
    problems: list[CatalogProblem] = check_template(template) if langs is None else []
    for lang in chosen:
        problems.extend(check_catalog(lang, template))
    return problems


def summary(problems: Sequence[CatalogProblem]) -> str:
    """Counts per language and kind, one line per language."""
    counts: dict[str, dict[str, int]] = {}
    for problem in problems:
        per_lang = counts.setdefault(problem.lang, {})
        per_lang[problem.kind] = per_lang.get(problem.kind, 0) + 1
    return "\n".join(
        f"{lang}: " + ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
        for lang, kinds in sorted(counts.items())
    )


NNBSP = "\u202f"
"""The narrow no-break space French puts before ``: ; ! ?`` and inside « »."""


def french_typography(text: str) -> str:
    """``text`` with French spacing: a narrow no-break space before ``: ; ! ?`` and inside « ».

    ``{placeholders}`` (format specs such as ``{x:>3}``), ``://`` and ``12:30`` are left alone;
    applying it twice changes nothing.
    """
    import re

    parts = re.split(r"(\{[^{}]*\})", text)
    for index in range(0, len(parts), 2):
        part = re.sub(r"[ \u00a0]+([:;!?])", NNBSP + r"\1", parts[index])
        part = re.sub(r"«[ \u00a0\u202f]*", "«" + NNBSP, part)
        part = re.sub(r"[ \u00a0\u202f]*»", NNBSP + "»", part)
        parts[index] = part
    joined = "".join(parts)
    joined = re.sub(r"(?<=[\w})\]»%'\"])([;!?])(?=\s|$)", NNBSP + r"\1", joined)
    return re.sub(r"(?<=[^\W\d_]|[})\]»%'\"])(:)(?=\s|$)", NNBSP + r"\1", joined)


def apply_typography(lang: str = "fr") -> int:
    """Rewrite ``lang``'s catalog with :func:`french_typography` on every translation; return how many changed."""
    import io

    from babel.messages.pofile import write_po

    path = LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    catalog = read_catalog(path, lang)
    changed = 0
    for message in catalog:
        if not message.id:
            continue
        new: str | tuple[str, ...]
        if isinstance(message.string, (tuple, list)):
            new = tuple(french_typography(text) for text in message.string)
        else:
            new = french_typography(message.string or "")
        if new != message.string:
            message.string = new
            changed += 1
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=76, include_previous=False)
    path.write_bytes(buffer.getvalue())
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    """``check [LANG...]`` lists the problems (exit 1 if any); ``update`` re-extracts and merges; ``extract FILE``;
    ``typography`` gives the French translations their narrow no-break spaces."""
    args = list(sys.argv[1:] if argv is None else argv)
    command = args[0] if args else "check"
    if command == "check":
        problems = check_catalogs(args[1:] or None)
        for problem in problems:
            print(problem)
        if problems:
            print("\n" + summary(problems))
            return 1
        print("catalogs complete: " + ", ".join(args[1:] or languages()))
        return 0
    if command == "update":
        update()
        print(f"updated {TEMPLATE.relative_to(PROJECT_ROOT)} and " + ", ".join(languages()))
        return 0
    if command == "extract" and len(args) == 2:
        extract(Path(args[1]).resolve())
        return 0
    if command == "typography":
        print(f"fr: {apply_typography('fr')} translations given French spacing")
        return 0
    print(
        "usage: python -m biblios_kit.i18n_tools [check [LANG...] | update | extract FILE | typography]",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
