"""The first screen of a lab report: what a designer should act on, in plain words in the report's language.

Each :class:`Finding` is one sentence built from the figures (never from a template filled by
hand): per ruleset and player count, the seat furthest from the fair share; every significant
primary difference from the baseline; how much each restriction bit and the gap it opened;
categories often left to nobody or nearly always won by the game's winner; and how many games
a 2-point difference would need against how many were played.
"""

from __future__ import annotations

from dataclasses import dataclass

from biblios_kit.i18n import _, format_number, format_percent, ngettext
from biblios_kit.lab.names import arm_label, category_name, metric_label
from biblios_kit.lab.runner import LabReport
from biblios_kit.lab.stats import CellStats
from biblios_kit.rules.model import Ruleset
from biblios_kit.sim.stats import RATE, Difference, games_needed

NOBODY_ALERT = 0.2
"""A category left to nobody in at least this share of games is pointed out."""

DECISIVE_ALERT = 0.9
"""A category won by the game's winner in at least this share of games is pointed out (it decides too much)."""

DETECT = 0.02
"""The difference in a win rate the power sentence is about (2 percentage points)."""


@dataclass(frozen=True)
class Finding:
    """One sentence of the summary."""

    text: str
    significant: bool
    """Whether it reports a significant result (highlighted); ``False`` for a neutral fact."""


def _points(value: float) -> str:
    """A rate difference as a count of percentage points, unsigned ("8", "2,5")."""
    from biblios_kit.i18n import format_decimal

    points = abs(100 * value)
    return format_decimal(points, 0 if round(points, 1) == round(points) else 1)


def at_players(players: int, ruleset: str) -> str:
    """The opening of a finding: "At 3 players, in biblios"."""
    return ngettext("At {players} player, in {ruleset}", "At {players} players, in {ruleset}", players).format(
        players=format_number(players), ruleset=ruleset
    )


def _verdict(d: Difference) -> str:
    return _("significant") if d.significant else _("not significant")


def _interval(low: float, high: float) -> str:
    return f"{format_percent(low, 0)}–{format_percent(high, 0)}"


def seat_finding(cell: CellStats) -> Finding | None:
    """The seat furthest from the fair share in a main-arm cell ("At 2 players, seat 1 wins 58% (54–62%), ...")."""
    if not cell.fair:
        return None
    key, d = max(cell.fair.items(), key=lambda item: abs(item[1].diff))
    e = cell.estimates[key]
    seat = key.partition(".")[2]
    if round(100 * abs(d.diff), 1) == 0:
        text = _("{at}, seat {seat} wins {rate} ({interval}), the fair share.").format(
            at=at_players(cell.players, cell.label),
            seat=seat,
            rate=format_percent(e.value, 0),
            interval=_interval(e.low, e.high),
        )
        return Finding(text, False)
    where = _("above the fair share") if d.diff > 0 else _("below the fair share")
    text = _("{at}, seat {seat} wins {rate} ({interval}), {points} points {where}: {verdict}.").format(
        at=at_players(cell.players, cell.label),
        seat=seat,
        rate=format_percent(e.value, 0),
        interval=_interval(e.low, e.high),
        points=_points(d.diff),
        where=where,
        verdict=_verdict(d),
    )
    return Finding(text, d.significant)


def signed(value: float, kind: str) -> str:
    """A signed difference: percentage points for a rate ("+3,2 pts"), a decimal for a mean."""
    from biblios_kit.i18n import format_decimal

    if kind == RATE:
        text = _("{diff} pts").format(diff=format_decimal(100 * value, 1))
    else:
        text = format_decimal(value, 2)
    return "+" + text if value > 0 else text


def _signed(d: Difference, kind: str) -> str:
    return signed(d.diff, kind)


def difference_findings(cell: CellStats, baseline: str, ruleset: Ruleset) -> list[Finding]:
    """Every significant primary difference of a cell from the baseline, largest first."""
    found = []
    for key, d in sorted(cell.differences.items(), key=lambda item: item[1].p):
        if d.family != "primary" or not d.significant:
            continue
        kind = cell.estimates[key].kind
        text = _("{at}, against {baseline}: {metric}, {diff} ({low} to {high}): significant.").format(
            at=at_players(cell.players, cell.label),
            baseline=baseline,
            metric=metric_label(key, ruleset, cell.arm),
            diff=_signed(d, kind),
            low=_signed(Difference(key, 0, 0, d.low, 1), kind),
            high=_signed(Difference(key, 0, 0, d.high, 1), kind),
        )
        found.append(Finding(text, True))
    return found


def restriction_finding(cell: CellStats) -> Finding | None:
    """How much a restriction bit, and Jaffe's gap: "never-bid: the restricted bot wins 12%, ..."."""
    effect = cell.effect
    if effect is None:
        return None
    name = arm_label(cell.arm)
    if effect.no_effect:
        text = _("{at}, {restriction}: no effect with these bots (it never overrode a choice).")
        return Finding(text.format(at=at_players(cell.players, cell.label), restriction=name), False)
    e = cell.estimates["focus_win"]
    gap = cell.gap
    text = _(
        "{at}, {restriction}: it overrode {decisions} of the bot's decisions and "
        "changed {games} of the games; the restricted bot wins {rate} ({interval}) against a fair share of {fair}"
    ).format(
        at=at_players(cell.players, cell.label),
        restriction=name,
        decisions=format_percent(effect.share_of_decisions, 1),
        games=format_percent(effect.share_of_games, 0),
        rate=format_percent(e.value, 0),
        interval=_interval(e.low, e.high),
        fair=format_percent(1 / cell.players, 0),
    )
    if gap is not None:
        sentence = (
            _(", {points} points below the same bot unrestricted: {verdict}.")
            if gap.diff < 0
            else _(", {points} points above the same bot unrestricted: {verdict}.")
        )
        text += sentence.format(points=_points(gap.diff), verdict=_verdict(gap))
    else:
        text += "."
    return Finding(text, gap is not None and gap.significant)


def category_findings(cell: CellStats, ruleset: Ruleset) -> list[Finding]:
    """Categories often left to nobody, or nearly always won by the game's winner."""
    found = []
    for key, e in cell.estimates.items():
        name, _sep, position = key.partition(".")
        if name == "category_nobody" and e.value >= NOBODY_ALERT:
            text = _("{at}, {category} is left to nobody in {rate} of the games ({interval}).")
        elif name == "category_by_winner" and e.value >= DECISIVE_ALERT:
            text = _(
                "{at}, whoever wins {category} wins the game in {rate} of the games ({interval}): it decides too much."
            )
        else:
            continue
        found.append(
            Finding(
                text.format(
                    at=at_players(cell.players, cell.label),
                    category=category_name(ruleset, position),
                    rate=format_percent(e.value, 0),
                    interval=_interval(e.low, e.high),
                ),
                True,
            )
        )
    return found


def power_finding(report: LabReport) -> Finding | None:
    """How many games a 2-point difference in a seat's win rate needs, against how many were played."""
    mains = [c for c in report.cells if c.arm == "main" and c.games]
    if not mains:
        return None
    players = max(c.players for c in mains)
    fair = 1 / players
    against_fair = games_needed(fair, DETECT, two_samples=False)
    between = games_needed(fair, DETECT)
    played = min(c.games for c in mains)
    text = ngettext(
        "To detect a {points}-point gap in a seat's win rate at {players} players, about {fair} games per ruleset "
        "are needed against the fair share and {between} between two rulesets; this run played {played} game per ruleset.",
        "To detect a {points}-point gap in a seat's win rate at {players} players, about {fair} games per ruleset "
        "are needed against the fair share and {between} between two rulesets; this run played {played} games per ruleset.",
        played,
    ).format(
        points=_points(DETECT),
        players=format_number(players),
        fair=format_number(against_fair),
        between=format_number(between),
        played=format_number(played),
    )
    return Finding(text, False)


def findings(report: LabReport) -> list[Finding]:
    """The summary of ``report``: its findings in reading order (seats, differences, restrictions, categories, power)."""
    rulesets = [ref.build() for ref in report.experiment.rulesets]
    baseline = report.experiment.rulesets[0].label
    out: list[Finding] = []
    cells = sorted(report.cells, key=lambda c: (c.players, c.ruleset))
    for cell in cells:
        if cell.arm == "main" and (found := seat_finding(cell)) is not None:
            out.append(found)
    for cell in cells:
        out.extend(difference_findings(cell, baseline, rulesets[cell.ruleset]))
    for cell in cells:
        if (found := restriction_finding(cell)) is not None:
            out.append(found)
    for cell in cells:
        if cell.arm == "main":
            out.extend(category_findings(cell, rulesets[cell.ruleset]))
    if (found := power_finding(report)) is not None:
        out.append(found)
    return out
