"""Seat names and other text from people, files or a server, made safe to show: no control characters, bounded.

A player's name reaches terminals (the table, the curtain, the CLI's output) and other
players' screens. Whatever it comes from (``play --name``, the setup screen, a saved game,
a game server's views, the server's own table creation), it goes through this module:

* :func:`clean_name` drops every character of Unicode category C (control ``Cc``: ESC,
  C1 controls such as CSI U+009B; format ``Cf``: bidi overrides, zero-width characters;
  surrogates, private use and unassigned code points) and the line and paragraph
  separators, collapses runs of whitespace into one space, keeps at most
  :data:`MAX_NAME_LENGTH` characters, and falls back to a default when nothing is left;
* :func:`name_problem` says why a name typed by a person is refused (the CLI and the
  server refuse rather than change what someone typed);
* :func:`clean_text` does the same for longer text from a server (its error messages),
  keeping line breaks.

Characters such as ``[`` and ``]`` are kept: a name is shown as content, never as markup
(the TUI builds ``Text``/``Content`` from it). See ``docs/inputs.md``.
"""

from __future__ import annotations

import unicodedata

from biblios_kit.i18n import _

MAX_NAME_LENGTH = 40
"""Longest seat name, in characters (the server refuses longer ones; readers cut them)."""
MAX_TEXT_LENGTH = 500
"""Longest message from a server shown to the player, in characters (longer ones are cut, with "…")."""


def hidden(character: str) -> bool:
    """Whether ``character`` must never reach a screen: Unicode category C, or a line or paragraph separator."""
    category = unicodedata.category(character)
    return category[0] == "C" or category in ("Zl", "Zp")


def clean_name(raw: object, default: str = "") -> str:
    """``raw`` as a safe seat name: hidden characters dropped, whitespace collapsed, at most 40 characters.

    ``default`` when ``raw`` is not a string or nothing is left. Line breaks and tabs
    count as whitespace (``"Ana\\nBeto"`` becomes ``"Ana Beto"``); every other hidden
    character simply goes (``"\\x1b[2J"`` leaves ``"[2J"``, shown as typed).
    """
    if not isinstance(raw, str):
        return default
    words = "".join(" " if c.isspace() else c for c in raw if c.isspace() or not hidden(c)).split()
    name = " ".join(words)[:MAX_NAME_LENGTH].rstrip()
    return name or default


def name_problem(raw: str) -> str | None:
    """Why a name a person typed is refused (translated), or ``None`` when :func:`clean_name` keeps it as it is
    (apart from runs of spaces): 1 to 40 characters, no control or format character, no whitespace but spaces."""
    if any(hidden(c) or (c.isspace() and c != " ") for c in raw):
        return _("a name must not contain control characters, line breaks or invisible characters")
    name = raw.strip(" ")
    if not name or len(name) > MAX_NAME_LENGTH:
        return _("a name has 1 to {limit} characters").format(limit=MAX_NAME_LENGTH)
    return None


def clean_text(raw: object, limit: int = MAX_TEXT_LENGTH) -> str:
    """Text from a server (an error message) safe to print: hidden characters dropped, line breaks kept, cut at
    ``limit`` characters (with "…"); ``""`` when ``raw`` is not a string."""
    if not isinstance(raw, str):
        return ""
    lines = ("".join(" " if c == "\t" else c for c in line if c == "\t" or not hidden(c)) for line in raw.splitlines())
    text = "\n".join(line.rstrip() for line in lines).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"
