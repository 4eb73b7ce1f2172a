"""Language choice and gettext catalogs: ``_``, ``ngettext`` and friends follow the active language.

The active language is chosen once per process by :func:`set_language` (``--lang``, then
``BIBLIOS_LANG``, then the system locale, then English) and can be switched at any time
(the TUI does so during a game). Catalogs live in ``locales/<lang>/LC_MESSAGES/biblios_kit``;
a compiled ``.mo`` is used when present (an installed wheel), else the ``.po`` is compiled
in memory once per process.
"""

from __future__ import annotations

import gettext as _gettext
import io
import os
import sys
from functools import cache

SUPPORTED: tuple[str, ...] = ("en", "fr", "es")
"""Languages with a complete catalog."""
DEFAULT = "en"
DOMAIN = "biblios_kit"

_active: list[str] = [DEFAULT]
_translations: list[_gettext.NullTranslations] = [_gettext.NullTranslations()]


@cache
def translations(lang: str) -> _gettext.NullTranslations:
    """The catalog of ``lang`` (a null catalog for English or when none is found)."""
    from biblios_kit.resources import locales_dir

    folder = locales_dir() / lang / "LC_MESSAGES"
    mo_path = folder / f"{DOMAIN}.mo"
    if mo_path.is_file():
        with mo_path.open("rb") as handle:
            return _gettext.GNUTranslations(handle)
    po_path = folder / f"{DOMAIN}.po"
    if po_path.is_file():
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        with po_path.open("rb") as handle:
            catalog = read_po(handle, locale=lang)
        buffer = io.BytesIO()
        write_mo(buffer, catalog)
        buffer.seek(0)
        return _gettext.GNUTranslations(buffer)
    return _gettext.NullTranslations()


def normalize_language(code: str) -> str:
    """Reduce a locale code (``fr_CA.UTF-8``, ``es-MX``, ``EN``) to its language (``fr``, ``es``, ``en``)."""
    code = code.strip().split(".")[0].split("@")[0]
    return code.replace("-", "_").split("_")[0].lower()


def choose_language(explicit: str | None = None) -> tuple[str, str | None]:
    """Pick the language: ``explicit``, else ``BIBLIOS_LANG``, else the system locale, else English.

    Returns ``(language, unsupported)`` where ``unsupported`` is the requested code when it
    had to fall back to English (so the caller can warn once), else ``None``.
    """
    candidates = [explicit, os.environ.get("BIBLIOS_LANG")]
    candidates += [os.environ.get(name) for name in ("LC_ALL", "LC_MESSAGES", "LANG")]
    for index, code in enumerate(candidates):
        if not code or (index >= 2 and code in ("C", "POSIX")):
            continue
        lang = normalize_language(code)
        if lang in SUPPORTED:
            return lang, None
        if index < 2:  # an explicit choice that we cannot honour deserves a warning
            return DEFAULT, code
        return DEFAULT, None if lang in ("c", "posix", "") else code
    return DEFAULT, None


def set_language(lang: str) -> None:
    """Make ``lang`` (one of :data:`SUPPORTED`) the active language for all messages."""
    lang = normalize_language(lang)
    if lang not in SUPPORTED:
        lang = DEFAULT
    _active[0] = lang
    _translations[0] = translations(lang)


def use_language(explicit: str | None = None, *, warn: bool = True) -> str:
    """Choose (see :func:`choose_language`), activate and return the language; warn once on stderr."""
    lang, unsupported = choose_language(explicit)
    set_language(lang)
    if unsupported and warn:
        print(
            _("warning: language {code!r} is not supported (supported: {supported}); using English").format(
                code=unsupported, supported=", ".join(SUPPORTED)
            ),
            file=sys.stderr,
        )
    return lang


def current_language() -> str:
    """The active language code."""
    return _active[0]


def _(message: str) -> str:
    """Translate ``message`` into the active language."""
    return _translations[0].gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """Translate a message with a plural form chosen for ``n`` by the language's plural rule."""
    return _translations[0].ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """Translate ``message`` in a disambiguating ``context``."""
    return _translations[0].pgettext(context, message)


def N_(message: str) -> str:
    """Mark ``message`` for extraction without translating it now (translate later with ``_``)."""
    return message
