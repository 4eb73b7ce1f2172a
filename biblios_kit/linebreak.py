"""Line breaking that keeps French typography whole: a line never breaks at a no-break space.

The CLI (Rich tables, help) and the terminal UI call :func:`keep_no_break_spaces` when they start.

Rich splits text into words with the expression ``\\s*\\S+\\s*`` (``rich._wrap.re_word``), and
Textual wraps its own content with Rich's ``divide_line``. In Python, ``\\s`` matches the
no-break spaces (U+00A0, U+202F) that French writes before ``: ; ! ?`` and inside « », so a
wrapped French line could start with ":", a lone "»" or the "%" of "91,2 %". Unicode's line-breaking rules
(UAX #14, class GL) forbid a break there; the bug is Textualize/rich#4196, and the fix
proposed upstream (rich#3990) changes that one expression. :func:`keep_no_break_spaces`
applies the same fix for every no-break space until a Rich release carries it.
"""

from __future__ import annotations

import re

NO_BREAK = "\u00a0\u2007\u202f"
"""No-break space, figure space and narrow no-break space: spaces a line must not break at."""

WORD = re.compile(rf"[^\S{NO_BREAK}]*[\S{NO_BREAK}]+[^\S{NO_BREAK}]*")
"""A word and the breakable spaces around it: Rich's ``\\s*\\S+\\s*`` with the no-break spaces inside words."""


def keep_no_break_spaces() -> None:
    """Make Rich, and Textual through it, wrap lines only at breakable spaces (idempotent).

    Everything the terminal UI draws (``Static`` content, Rich tables and groups, the log)
    and the CLI's Rich tables are wrapped by ``rich._wrap.divide_line``, which reads
    ``rich._wrap.re_word`` on every call; ``tests/test_language_tui.py`` checks the result
    on French screens, so a Rich release that renames it fails there rather than on screen.
    """
    import rich._wrap

    rich._wrap.re_word = WORD
