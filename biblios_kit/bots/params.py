"""Reading the parameters of a bot spec (``hard:iterations=200``): names, numbers, ranges.

Errors are :class:`~biblios_kit.errors.BotParamError` (a ``ValueError``) with a code and
the parameter's name, value and bounds; the registry wraps them with the spec
(``bad bot spec 'hard:iterations=0': ...``) and the CLI or TUI makes the sentence.
"""

from __future__ import annotations

from collections.abc import Iterable

from biblios_kit.errors import BotParamError


def check_names(params: dict[str, object], known: Iterable[str]) -> None:
    """Refuse parameters that are not in ``known``."""
    known = sorted(known)
    unknown = sorted(set(params) - set(known))
    if unknown:
        if not known:
            raise BotParamError("bot-no-params", names=tuple(unknown))
        raise BotParamError("bot-unknown-params", names=tuple(unknown), known=tuple(known))


def number(
    params: dict[str, object],
    key: str,
    default: float,
    *,
    low: float | None = None,
    high: float | None = None,
    whole: bool = False,
    above: bool = False,
) -> float:
    """Parameter ``key`` (or ``default``) as a float, checked against its range.

    ``low``/``high`` bound it (``above`` makes ``low`` exclusive); ``whole`` asks for an integer
    (still returned as a float, as the signature says, in the interpreted and the compiled build
    alike: :func:`whole` returns an ``int``).
    """
    return float(_checked(params, key, default, low, high, whole, above))


def whole(params: dict[str, object], key: str, default: int, *, low: int | None = None, high: int | None = None) -> int:
    """Parameter ``key`` (or ``default``) as an ``int``, checked against its range."""
    return int(_checked(params, key, default, low, high, True, False))


def _checked(
    params: dict[str, object],
    key: str,
    default: float,
    low: float | None,
    high: float | None,
    integral: bool,
    above: bool,
) -> int | float:
    value = params.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BotParamError("bot-param-not-number", name=key, value=value)
    if integral and value != int(value):
        raise BotParamError("bot-param-not-whole", name=key, value=value)
    if above and low is not None and value <= low:
        raise BotParamError("bot-param-above", name=key, low=low, value=value)
    if low is not None and high is not None and not low <= value <= high:
        raise BotParamError("bot-param-between", name=key, low=low, high=high, value=value)
    if low is not None and value < low:
        raise BotParamError("bot-param-at-least", name=key, low=low, value=value)
    return value
