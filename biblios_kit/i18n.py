"""Language choice, gettext catalogs and Babel formatting: ``_``, ``ngettext`` and friends follow the active language.

The active language is chosen once per process by :func:`use_language` (``--lang``, then
``BIBLIOS_LANG``, then the system locale ``LC_ALL`` / ``LC_MESSAGES`` / ``LANG``, then
English) and can be switched at any time with :func:`set_language` (the TUI does so during
a game). Code that must render in a given language without touching the process-wide
choice (the rulebook renderer, tests, a TUI worker) uses :func:`translator` or the
:func:`in_language` context manager, which is local to the current thread / asyncio task.

Catalogs live in ``locales/<lang>/LC_MESSAGES/biblios_kit``; a compiled ``.mo`` is used
when present (an installed wheel), else the ``.po`` is compiled in memory once per process.
"""

from __future__ import annotations

import contextlib
import contextvars
import gettext as _gettext
import io
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

SUPPORTED: tuple[str, ...] = ("en", "fr", "es")
"""Languages with a complete catalog."""
DEFAULT = "en"
"""The fallback language (the source language of every message)."""
DOMAIN = "biblios_kit"
"""The gettext domain: catalogs are ``locales/<lang>/LC_MESSAGES/biblios_kit.po``."""

SYSTEM_VARIABLES: tuple[str, ...] = ("LC_ALL", "LC_MESSAGES", "LANG")
"""Locale variables consulted, in POSIX precedence order, when nothing more explicit is set."""

_NEUTRAL_LOCALES = frozenset({"c", "posix"})


@cache
def translations(lang: str) -> _gettext.NullTranslations:
    """The catalog of ``lang``: messages stay in English for English or when no catalog is found.

    English is the source language, so its catalog (kept for the completeness checks) is
    not loaded. A compiled ``.mo`` next to the ``.po`` (an installed wheel) is used as is;
    otherwise the ``.po`` is compiled once and the result cached (see :func:`_compiled_po`).
    """
    if lang == DEFAULT:
        return _gettext.NullTranslations()
    from biblios_kit.resources import locales_dir

    folder = locales_dir() / lang / "LC_MESSAGES"
    mo_path = folder / f"{DOMAIN}.mo"
    if mo_path.is_file():
        with mo_path.open("rb") as handle:
            return _gettext.GNUTranslations(handle)
    po_path = folder / f"{DOMAIN}.po"
    if po_path.is_file():
        return _gettext.GNUTranslations(io.BytesIO(_compiled_po(po_path, lang)))
    return _gettext.NullTranslations()


def _cache_dir() -> Path:
    override = os.environ.get("BIBLIOS_KIT_CACHE_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_cache_dir("biblios-kit", appauthor=False))


def _compiled_po(po_path: Path, lang: str) -> bytes:
    """The ``.mo`` bytes of a ``.po`` file, cached on disk by path, size and modification time.

    Compiling with Babel costs about 90 ms (imports and parsing) per process; reading the
    cached ``.mo`` costs about 1 ms, which keeps ``biblios-kit --help`` fast in a source
    checkout. Any cache problem just means compiling again.
    """
    import hashlib

    stat = po_path.stat()
    tag = hashlib.sha1(f"{po_path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()[:16]
    cached = _cache_dir() / "catalogs" / f"{lang}-{tag}.mo"
    try:
        return cached.read_bytes()
    except OSError:
        pass
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po_path.open("rb") as handle:
        catalog = read_po(handle, locale=lang)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    data = buffer.getvalue()
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        temporary = cached.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_bytes(data)
        os.replace(temporary, cached)
        for stale in cached.parent.glob(f"{lang}-*.mo"):
            if stale != cached:
                stale.unlink(missing_ok=True)
    except OSError:
        pass
    return data


def normalize_language(code: str) -> str:
    """Reduce a locale code (``fr_CA.UTF-8``, ``es-MX``, ``EN``, ``de_DE@euro``) to its language (``fr``, ``es``, ``en``, ``de``)."""
    code = code.strip().split(".")[0].split("@")[0]
    return code.replace("-", "_").split("_")[0].lower()


@dataclass(frozen=True)
class LanguageChoice:
    """The outcome of :func:`choose_language`.

    ``language`` is always one of :data:`SUPPORTED`. ``requested`` is the code that was
    asked for and ``source`` where it came from (``"option"``, ``"BIBLIOS_LANG"``, a locale
    variable name, or ``"default"``). ``unsupported`` is true when ``requested`` named a
    language we do not have, so English is used instead.
    """

    language: str
    requested: str | None
    source: str
    unsupported: bool


def choose_language(explicit: str | None = None, environ: dict[str, str] | None = None) -> LanguageChoice:
    """Pick the language: ``explicit``, else ``BIBLIOS_LANG``, else the system locale, else English.

    The system locale follows POSIX precedence: the first non-empty of ``LC_ALL``,
    ``LC_MESSAGES`` and ``LANG`` decides; ``C`` or ``POSIX`` there means English (no
    warning). Regional codes map to their language (``fr_CA.UTF-8`` -> ``fr``). A code
    naming a language we do not support falls back to English with ``unsupported`` set.
    """
    env = os.environ if environ is None else environ
    candidates: list[tuple[str, str | None]] = [("option", explicit), ("BIBLIOS_LANG", env.get("BIBLIOS_LANG"))]
    system = next(((name, env[name]) for name in SYSTEM_VARIABLES if env.get(name, "").strip()), None)
    if system is not None:
        candidates.append(system)
    for source, code in candidates:
        if code is None or not code.strip():
            continue
        lang = normalize_language(code)
        if lang in SUPPORTED:
            return LanguageChoice(lang, code, source, unsupported=False)
        if lang in _NEUTRAL_LOCALES and source in SYSTEM_VARIABLES:
            return LanguageChoice(DEFAULT, code, source, unsupported=False)
        return LanguageChoice(DEFAULT, code, source, unsupported=True)
    return LanguageChoice(DEFAULT, None, "default", unsupported=False)


_active: list[str] = [DEFAULT]
_translations: list[_gettext.NullTranslations] = [_gettext.NullTranslations()]
_local: contextvars.ContextVar[tuple[str, _gettext.NullTranslations] | None] = contextvars.ContextVar(
    "biblios_kit_language", default=None
)
_warned: set[str] = set()


def set_language(lang: str) -> None:
    """Make ``lang`` (a code of :data:`SUPPORTED`, regional forms accepted) the process-wide language.

    An unsupported code selects English silently; use :func:`use_language` to warn.
    """
    lang = normalize_language(lang)
    if lang not in SUPPORTED:
        lang = DEFAULT
    _active[0] = lang
    _translations[0] = translations(lang)


def unsupported_message(choice: LanguageChoice) -> str:
    """The warning shown once when ``choice`` fell back to English."""
    if choice.source == "option":
        where = "--lang"
    else:
        where = choice.source
    return _("warning: language {code} ({source}) is not supported; using English. Choose one of: {choices}.").format(
        code=repr(choice.requested), source=where, choices=", ".join(SUPPORTED)
    )


def use_language(explicit: str | None = None, *, warn: bool = True) -> str:
    """Choose (see :func:`choose_language`), activate and return the language.

    When the requested language is not supported, English is used and, if ``warn``, a
    warning is printed on stderr, at most once per process for a given code (the CLI
    may choose the language more than once while starting).
    """
    choice = choose_language(explicit)
    set_language(choice.language)
    if choice.unsupported and warn and choice.requested not in _warned:
        _warned.add(choice.requested or "")
        print(unsupported_message(choice), file=sys.stderr)
    return choice.language


def current_language() -> str:
    """The active language code (the one of :func:`in_language` inside such a block)."""
    local = _local.get()
    return local[0] if local is not None else _active[0]


def _catalog() -> _gettext.NullTranslations:
    local = _local.get()
    return local[1] if local is not None else _translations[0]


def _(message: str) -> str:
    """Translate ``message`` into the active language."""
    return _catalog().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """Translate a message with a plural form chosen for ``n`` by the language's plural rule."""
    return _catalog().ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """Translate ``message`` in a disambiguating ``context``."""
    return _catalog().pgettext(context, message)


def N_(message: str) -> str:
    """Mark ``message`` for extraction without translating it now (translate later with ``_``)."""
    return message


@contextlib.contextmanager
def in_language(lang: str) -> Iterator[str]:
    """Within the block, ``_``/``ngettext``/``format_*`` use ``lang`` in this thread or task only.

    The process-wide language (:func:`set_language`) is left untouched. Yields the
    normalized language code (English for an unsupported one).
    """
    code = normalize_language(lang)
    if code not in SUPPORTED:
        code = DEFAULT
    token = _local.set((code, translations(code)))
    try:
        yield code
    finally:
        _local.reset(token)


# --- Babel formatting for the active language -------------------------------------------------


def format_list(items: Iterable[str], style: Literal["standard", "or"] = "standard") -> str:
    """Join ``items`` as a list in the active language ("A, B, and C" / "A, B et C" / "A, B y C").

    ``style="or"`` gives a disjunction ("2, 3, or 4" / "2, 3 ou 4" / "2, 3 o 4").
    """
    from babel.lists import format_list as babel_format_list

    values = list(items)
    if not values:
        return ""
    return babel_format_list(values, style=style, locale=current_language())


MIN_GROUPING_DIGITS: dict[str, int] = {"en": 1, "fr": 1, "es": 2}
"""CLDR's ``minimumGroupingDigits`` per language: Spanish groups only from five digits ("1096,6"
but "10 960,6"). Babel 2.18 does not apply it, so :func:`format_number` and friends do."""


def _grouped(number: float) -> bool:
    """Whether ``number`` gets a grouping separator in the active language (CLDR's minimum grouping digits)."""
    digits = len(str(int(abs(number))))
    return digits >= 3 + MIN_GROUPING_DIGITS.get(current_language(), 1)


def format_number(number: int | float) -> str:
    """Format a whole or decimal number with the active language's grouping (1,234 / 1 234 / 1234 / 10.960)."""
    from babel.numbers import format_decimal as babel_format_decimal

    return babel_format_decimal(number, locale=current_language(), group_separator=_grouped(number))


def _pattern(kind: Literal["decimal", "percent"], digits: int) -> str:
    """The active language's number pattern of ``kind`` with exactly ``digits`` decimals."""
    from babel import Locale

    locale = Locale.parse(current_language())
    formats = locale.decimal_formats if kind == "decimal" else locale.percent_formats
    pattern: str = formats[None].pattern.split(";")[0]
    end = pattern.index("0")
    while end < len(pattern) and pattern[end] == "0":
        end += 1
    head, tail = pattern[:end], pattern[end:]
    if tail.startswith("."):
        tail = tail[1:].lstrip("0#")
    return head + ("." + "0" * digits if digits > 0 else "") + tail


def format_decimal(number: float, digits: int = 2) -> str:
    """Format ``number`` with exactly ``digits`` decimals in the active language (3.50 / 3,50)."""
    from babel.numbers import format_decimal as babel_format_decimal

    return babel_format_decimal(
        number, format=_pattern("decimal", digits), locale=current_language(), group_separator=_grouped(number)
    )


def format_percent(ratio: float, digits: int = 0) -> str:
    """Format a ratio (0.25) as a percentage in the active language (25% / 25 % / 25 %)."""
    from babel.numbers import format_percent as babel_format_percent

    return babel_format_percent(
        ratio, format=_pattern("percent", digits), locale=current_language(), group_separator=_grouped(ratio * 100)
    )


# --- An explicit translator, for code that renders in a given language -------------------------


@dataclass(frozen=True)
class Translator:
    """Messages and formatting in one fixed language, independent of the active language.

    ``tr = translator("fr")`` then ``tr.gettext("...")``; for a longer piece of code prefer
    ``with in_language("fr"):`` so the usual ``_()`` calls (which message extraction sees)
    do the work.
    """

    language: str

    def _catalog(self) -> _gettext.NullTranslations:
        return translations(self.language)

    def gettext(self, message: str) -> str:
        """Translate ``message``."""
        return self._catalog().gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        """Translate with the plural form for ``n``."""
        return self._catalog().ngettext(singular, plural, n)

    def pgettext(self, context: str, message: str) -> str:
        """Translate ``message`` in ``context``."""
        return self._catalog().pgettext(context, message)

    def format_list(self, items: Iterable[str], style: Literal["standard", "or"] = "standard") -> str:
        """Join ``items`` as a list in this language."""
        with in_language(self.language):
            return format_list(items, style)

    def format_number(self, number: int | float) -> str:
        """Format a number in this language."""
        with in_language(self.language):
            return format_number(number)

    def format_decimal(self, number: float, digits: int = 2) -> str:
        """Format a number with ``digits`` decimals in this language."""
        with in_language(self.language):
            return format_decimal(number, digits)

    def format_percent(self, ratio: float, digits: int = 0) -> str:
        """Format a ratio as a percentage in this language."""
        with in_language(self.language):
            return format_percent(ratio, digits)


def translator(lang: str) -> Translator:
    """A :class:`Translator` for ``lang`` (regional codes accepted; English when unsupported)."""
    code = normalize_language(lang)
    return Translator(code if code in SUPPORTED else DEFAULT)
