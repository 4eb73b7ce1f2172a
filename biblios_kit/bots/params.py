"""Reading the parameters of a bot spec (``hard:iterations=200``): names, numbers, ranges.

Errors are :class:`ValueError` with a message in the current language; the registry
prefixes them with the spec (``bad bot spec 'hard:iterations=0': ...``).
"""

from __future__ import annotations

from collections.abc import Iterable

from biblios_kit.i18n import _


def check_names(params: dict[str, object], known: Iterable[str]) -> None:
    """Refuse parameters that are not in ``known``."""
    known = sorted(known)
    unknown = sorted(set(params) - set(known))
    if unknown:
        if not known:
            raise ValueError(_("this bot takes no parameters, got {names}").format(names=", ".join(unknown)))
        raise ValueError(
            _("unknown parameter(s) {names}; known: {known}").format(names=", ".join(unknown), known=", ".join(known))
        )


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
    """Parameter ``key`` (or ``default``) as a number, checked against its range.

    ``low``/``high`` bound it (``above`` makes ``low`` exclusive); ``whole`` asks for an integer.
    """
    value = params.get(key, default)
    bounds = {"low": f"{low:g}" if low is not None else "", "high": f"{high:g}" if high is not None else ""}
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(_("parameter {name} expects a number, got {value}").format(name=key, value=value))
    if whole and value != int(value):
        raise ValueError(_("parameter {name} expects a whole number, got {value}").format(name=key, value=value))
    if above and low is not None and value <= low:
        raise ValueError(
            _("parameter {name} must be more than {low}, got {value}").format(name=key, low=bounds["low"], value=value)
        )
    if low is not None and high is not None and not low <= value <= high:
        raise ValueError(
            _("parameter {name} must lie between {low} and {high}, got {value}").format(name=key, value=value, **bounds)
        )
    if low is not None and value < low:
        raise ValueError(
            _("parameter {name} must be at least {low}, got {value}").format(name=key, low=bounds["low"], value=value)
        )
    return int(value) if whole else float(value)
