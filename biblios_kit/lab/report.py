"""A lab report in the user's language: a terminal table (rich), JSON, CSV, and a self-contained HTML page with plots.

Every output has one table per player count and arm: a row per metric, a column per ruleset
(the baseline first). A value comes with its 95% interval; in the other rulesets' columns, the
difference from the baseline follows, marked ``*`` when it is significant after Holm's adjustment.
The HTML page embeds its plots (matplotlib, as SVG) and needs no network to be read.
"""

from __future__ import annotations

import csv
import html
import io
import json
from collections.abc import Iterator
from typing import Any

from biblios_kit.i18n import _, current_language, format_decimal, format_number, format_percent, ngettext, translator
from biblios_kit.lab.names import arm_label, metric_category, metric_label
from biblios_kit.lab.runner import LabReport
from biblios_kit.lab.stats import RATE, CellStats, Difference, Estimate
from biblios_kit.rules.model import Ruleset

SIGNIFICANT_MARK = "*"
"""Appended to a difference that is significant after Holm's adjustment."""


def _rulesets(report: LabReport) -> list[Ruleset]:
    return [ref.build() for ref in report.experiment.rulesets]


def groups(report: LabReport) -> Iterator[tuple[int, str, list[CellStats]]]:
    """The cells by (player count, arm), each group's cells in ruleset order."""
    seen: dict[tuple[int, str], list[CellStats]] = {}
    for cell in report.cells:
        seen.setdefault((cell.players, cell.arm), []).append(cell)
    for (players, arm), cells in seen.items():
        yield players, arm, sorted(cells, key=lambda c: c.ruleset)


def metric_keys(cells: list[CellStats]) -> list[str]:
    """Every metric of a group, in report order (the baseline's order, then metrics only others have)."""
    keys: dict[str, None] = {}
    for cell in cells:
        keys.update(dict.fromkeys(cell.estimates))
    return list(keys)


def format_estimate(estimate: Estimate) -> str:
    """``value (low–high)``: a rate as a percentage, a mean as a decimal."""
    if estimate.kind == RATE:
        return f"{format_percent(estimate.value, 1)} ({format_percent(estimate.low, 1)}–{format_percent(estimate.high, 1)})"
    return f"{format_decimal(estimate.value, 2)} ({format_decimal(estimate.low, 2)}–{format_decimal(estimate.high, 2)})"


def signed(value: float, kind: str) -> str:
    """A signed difference: percentage points for a rate ("+3,2 pts"), a decimal for a mean."""
    if kind == RATE:
        text = _("{diff} pts").format(diff=format_decimal(100 * value, 1))
    else:
        text = format_decimal(value, 2)
    return "+" + text if value > 0 else text


def format_difference(difference: Difference, kind: str) -> str:
    """The signed difference from the baseline (percentage points for a rate), marked when significant."""
    return signed(difference.diff, kind) + (SIGNIFICANT_MARK if difference.significant else "")


def effect_rows(cell: CellStats) -> list[str]:
    """How much a restricted-play cell's restriction bit, and the gap it opened (Jaffe et al.), as lines of text."""
    effect = cell.effect
    if effect is None:
        return []
    if effect.no_effect:
        return [
            ngettext(
                "No effect with these bots: the restriction overrode none of the restricted bot's {count} decision; not compared.",
                "No effect with these bots: the restriction overrode none of the restricted bot's {count} decisions; not compared.",
                effect.choices,
            ).format(count=format_number(effect.choices))
        ]
    lines = [
        _(
            "The restriction overrode {decisions} of the restricted bot's decisions and changed {games} of the games."
        ).format(decisions=format_percent(effect.share_of_decisions, 1), games=format_percent(effect.share_of_games, 1))
    ]
    if cell.gap is not None:
        gap = cell.gap
        lines.append(
            _(
                "Restricted bot against the same bot unrestricted, same deals and seats: {gap} ({low} to {high}){mark}"
            ).format(
                gap=signed(gap.diff, RATE),
                low=signed(gap.low, RATE),
                high=signed(gap.high, RATE),
                mark=SIGNIFICANT_MARK if gap.significant else "",
            )
        )
    return lines


def seat_test_text(cell: CellStats) -> str:
    """The equal-seats test of a cell (χ² and p), marked when the seats differ."""
    if cell.seats is None:
        return "–"
    mark = SIGNIFICANT_MARK if cell.seats.significant else ""
    return f"χ² {format_decimal(cell.seats.chi2, 2)}, p {format_decimal(cell.seats.p, 3)}{mark}"


def table_rows(report: LabReport, cells: list[CellStats], rulesets: list[Ruleset]) -> list[list[str]]:
    """The text rows of one group's table (without the header): metric name, then one entry per ruleset.

    Categories are compared by board position; a column whose ruleset names the category at that
    place otherwise than the row does (Scripts & Scribes' Illuminators on Biblios' Monks row) starts
    with its own name.
    """
    rows = []
    for key in metric_keys(cells):
        first = next(c for c in cells if key in c.estimates)
        row = [metric_label(key, rulesets[first.ruleset], first.arm)]
        named = metric_category(key, rulesets[first.ruleset])
        for cell in cells:
            estimate = cell.estimates.get(key)
            if estimate is None:
                row.append("–")
                continue
            text = format_estimate(estimate)
            difference = cell.differences.get(key)
            if difference is not None:
                text += "  " + format_difference(difference, estimate.kind)
            fair = cell.fair.get(key)
            if fair is not None:
                text += "  " + _("fair share {diff}").format(diff=format_difference(fair, RATE))
            own = metric_category(key, rulesets[cell.ruleset])
            if own is not None and own != named:  # another edition's category at that place (Illuminators, Monks)
                text = _("{category}: {value}").format(category=own, value=text)
            row.append(text)
        rows.append(row)
    if cells[0].arm == "main":
        rows.append([_("Equal seats (chi-square test)")] + [seat_test_text(c) for c in cells])
    return rows


def group_title(players: int, arm: str, cells: list[CellStats]) -> str:
    """The heading of one group's table."""
    return _("{players} players, {arm} (games per ruleset: {games})").format(
        players=players, arm=arm_label(arm), games=format_number(max(c.games for c in cells))
    )


def summary_lines(report: LabReport) -> list[str]:
    """What the run did: games played and resumed, time, workers, results file, legend."""
    lines = [
        _(
            "Games played: {played}; taken from the results file: {resumed}; time: {seconds} s; workers: {workers}"
        ).format(
            played=format_number(report.played),
            resumed=format_number(report.resumed),
            seconds=format_decimal(report.seconds, 1),
            workers=report.workers,
        ),
        _("Results file: {path}").format(path=report.results_file),
        _(
            "Values with their 95% interval; {mark} marks a significant difference from the baseline (first column) "
            "or from the fair share. The primary comparisons (seats, game length, tension, each category's "
            "decisiveness, restricted play) are corrected together with Holm's method; the others, secondary, "
            "are corrected separately. Constant figures are not tested."
        ).format(mark=SIGNIFICANT_MARK),
    ]
    return lines


def render_terminal(report: LabReport, console: Any = None) -> None:
    """Print the report as rich tables (on ``console``, else standard output)."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    rulesets = _rulesets(report)
    for message in report.skipped:
        console.print(message, style="yellow", markup=False, highlight=False)
    for players, arm, cells in groups(report):
        title = group_title(players, arm, cells)
        if all(c.no_effect for c in cells):
            console.print(title, style="bold", markup=False, highlight=False)
            for cell in cells:
                for line in effect_rows(cell):
                    console.print(f"{cell.label}: {line}", markup=False, highlight=False)
            continue
        table = Table(title=title, title_justify="left")
        table.add_column(_("Metric"))
        for cell in cells:
            table.add_column(cell.label, overflow="fold")
        for row in table_rows(report, cells, rulesets):
            table.add_row(*row)
        console.print(table)
        for cell in cells:
            for line in effect_rows(cell):
                console.print(f"{cell.label}: {line}", markup=False, highlight=False)
    for line in summary_lines(report):
        console.print(line, markup=False, highlight=False)


def to_json(report: LabReport) -> str:
    """The report as JSON text, each metric with its name in the active language."""
    data = report.to_json()
    rulesets = _rulesets(report)
    for cell, entry in zip(report.cells, data["cells"]):
        for key, metric in entry["metrics"].items():
            metric["label"] = metric_label(key, rulesets[cell.ruleset], cell.arm)
        entry["arm_label"] = arm_label(cell.arm)
    data["language"] = current_language()
    return json.dumps(data, ensure_ascii=False, indent=1)


CSV_COLUMNS = (
    "ruleset",
    "players",
    "arm",
    "games",
    "metric",
    "label",
    "kind",
    "value",
    "ci95_low",
    "ci95_high",
    "diff",
    "diff_ci95_low",
    "diff_ci95_high",
    "p",
    "p_holm",
    "family",
    "significant",
)
"""The columns of ``--csv`` (numbers unformatted, so that spreadsheets read them)."""


def to_csv(report: LabReport) -> str:
    """The report as CSV text: one row per cell and metric."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    rulesets = _rulesets(report)
    for cell in report.cells:
        for key, e in cell.estimates.items():
            d = cell.differences.get(key)
            writer.writerow(
                [
                    cell.label,
                    cell.players,
                    cell.arm,
                    cell.games,
                    key,
                    metric_label(key, rulesets[cell.ruleset], cell.arm),
                    e.kind,
                    repr(e.value),
                    repr(e.low),
                    repr(e.high),
                    "" if d is None else repr(d.diff),
                    "" if d is None else repr(d.low),
                    "" if d is None else repr(d.high),
                    "" if d is None else repr(d.p),
                    "" if d is None else repr(d.p_adjusted),
                    "" if d is None else d.family,
                    "" if d is None else str(d.significant).lower(),
                ]
            )
    return out.getvalue()


# --------------------------------------------------------------------------- HTML


def _svg(figure: Any) -> str:
    """A matplotlib figure as inline SVG (text drawn as paths: no font needed to view it)."""
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def _figure(width: float = 7.0, height: float = 3.2) -> Any:
    from matplotlib import rcParams
    from matplotlib.figure import Figure

    rcParams["svg.fonttype"] = "path"
    rcParams["svg.hashsalt"] = "biblios-kit"  # stable ids: the same report gives the same file
    return Figure(figsize=(width, height))


RATE_AXIS, DECIMAL_AXIS, COUNT_AXIS = "rate", "decimal", "count"
"""How an axis's tick labels are written: percentages, decimal numbers, whole numbers."""


def tick_digits(locations: Any, scale: float = 1.0) -> int:
    """The decimals (0 to 3) tick labels need to tell ``locations`` (times ``scale``) apart and show them exactly."""
    values = sorted({round(float(x) * scale, 9) for x in locations})
    for digits in range(3):
        if all(abs(v * 10**digits - round(v * 10**digits)) < 1e-6 for v in values):
            return digits
    return 3


def tick_formatter(kind: str, lang: str | None = None) -> Any:
    """A matplotlib tick formatter writing numbers as ``lang`` does (the active language by default).

    ``kind`` is :data:`RATE_AXIS` ("25 %", "12,5 %"), :data:`DECIMAL_AXIS` ("0,25") or
    :data:`COUNT_AXIS` ("3", "1 000"); the decimals shown are as many as the ticks need.
    """
    from matplotlib.ticker import Formatter

    tr = translator(lang or current_language())

    class LocaleFormatter(Formatter):
        """Tick labels in one language; the decimals shown depend on all the axis's ticks."""

        def __init__(self) -> None:
            self.ticks: list[float] = []

        def set_locs(self, locs: Any) -> None:
            super().set_locs(locs)
            self.ticks = [float(x) for x in locs]

        def __call__(self, value: float, pos: int | None = None) -> str:
            ticks = self.ticks or [value]  # called on its own, not while an axis is drawn
            if kind == RATE_AXIS:
                return tr.format_percent(value, tick_digits(ticks, 100))
            digits = tick_digits(ticks)
            if kind == COUNT_AXIS and digits == 0:
                return tr.format_number(round(value))
            return tr.format_decimal(value, digits)

    return LocaleFormatter()


def value_text(value: object) -> str:
    """A swept value as a tick label in the active language (3 / 2,5 / text as it is)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int):
        return format_number(value)
    return format_decimal(value, tick_digits([value]))


def seat_rates_figure(cells: list[CellStats]) -> Any:
    """Win rate per seat with 95% intervals, one group of bars per ruleset (a matplotlib figure)."""
    figure = _figure()
    axes = figure.subplots()
    players = cells[0].players
    width = 0.8 / len(cells)
    for i, cell in enumerate(cells):
        xs: list[float] = []
        ys: list[float] = []
        errors: tuple[list[float], list[float]] = ([], [])
        for seat in range(players):
            e = cell.estimates.get(f"seat_win.{seat + 1}")
            if e is None:
                continue
            xs.append(seat + 1 + (i - (len(cells) - 1) / 2) * width)
            ys.append(e.value)
            errors[0].append(e.value - e.low)
            errors[1].append(e.high - e.value)
        axes.bar(xs, ys, width=width, yerr=errors, capsize=3, label=cell.label)
    axes.axhline(1 / players, color="grey", linestyle=":", linewidth=1)
    axes.set_xticks(range(1, players + 1))
    axes.xaxis.set_major_formatter(tick_formatter(COUNT_AXIS))
    axes.yaxis.set_major_formatter(tick_formatter(RATE_AXIS))
    axes.set_xlabel(_("Seat"))
    axes.set_ylabel(_("Win rate"))
    axes.legend(fontsize="small")
    return figure


def plot_seat_rates(cells: list[CellStats]) -> str:
    """:func:`seat_rates_figure` as inline SVG."""
    return _svg(seat_rates_figure(cells))


def vp_figure(report: LabReport, cells: list[CellStats]) -> Any:
    """The distribution of victory points (every seat of every game), one histogram per ruleset."""
    figure = _figure()
    axes = figure.subplots()
    series = [[v for g in report.games.get(cell.cell, []) for v in g["vp"]] for cell in cells]
    top = max((max(s) for s in series if s), default=1)
    bins = [b - 0.5 for b in range(top + 2)]
    for cell, values in zip(cells, series):
        if values:
            axes.hist(values, bins=bins, histtype="step", linewidth=1.5, density=True, label=cell.label)
    axes.xaxis.set_major_formatter(tick_formatter(COUNT_AXIS))
    axes.yaxis.set_major_formatter(tick_formatter(RATE_AXIS))
    axes.set_xlabel(_("Victory points"))
    axes.set_ylabel(_("Share of players"))
    axes.legend(fontsize="small")
    return figure


def plot_vp(report: LabReport, cells: list[CellStats]) -> str:
    """:func:`vp_figure` as inline SVG."""
    return _svg(vp_figure(report, cells))


def category_names(keys: list[str], cells: list[CellStats], rulesets: list[Ruleset]) -> list[str]:
    """The name of each category metric's category, as every ruleset of the group names it (one per line)."""
    names = []
    for key in keys:
        own = (metric_category(key, rulesets[cell.ruleset]) for cell in cells)
        names.append("\n".join(dict.fromkeys(name for name in own if name is not None)))
    return names


def categories_figure(cells: list[CellStats], rulesets: list[Ruleset]) -> Any:
    """How often each category was won by the game's winner (its decisiveness), per ruleset."""
    figure = _figure()
    axes = figure.subplots()
    keys = [k for k in metric_keys(cells) if k.startswith("category_by_winner.")]
    width = 0.8 / len(cells)
    for i, cell in enumerate(cells):
        xs: list[float] = []
        ys: list[float] = []
        errors: tuple[list[float], list[float]] = ([], [])
        for j, key in enumerate(keys):
            e = cell.estimates.get(key)
            if e is None:
                continue
            xs.append(j + (i - (len(cells) - 1) / 2) * width)
            ys.append(e.value)
            errors[0].append(e.value - e.low)
            errors[1].append(e.high - e.value)
        axes.bar(xs, ys, width=width, yerr=errors, capsize=3, label=cell.label)
    axes.set_xticks(range(len(keys)), category_names(keys, cells, rulesets), rotation=15)
    axes.yaxis.set_major_formatter(tick_formatter(RATE_AXIS))
    axes.set_ylabel(_("Won by the game's winner"))
    axes.legend(fontsize="small")
    return figure


def plot_categories(cells: list[CellStats], rulesets: list[Ruleset]) -> str:
    """:func:`categories_figure` as inline SVG."""
    return _svg(categories_figure(cells, rulesets))


SWEEP_METRICS = ("seat_win.1", "decisions", "margin", "shared", "comeback", "lead_changes")
"""The metrics a sweep report plots against the swept values."""


def sweep_figure(report: LabReport, cells: list[CellStats], key: str, rulesets: list[Ruleset]) -> Any:
    """One metric (with its 95% interval) against the sweep's values."""
    figure = _figure(5.0, 3.0)
    axes = figure.subplots()
    labels: list[str] = []
    ys: list[float] = []
    errors: tuple[list[float], list[float]] = ([], [])
    kind = DECIMAL_AXIS
    for cell in cells:
        e = cell.estimates.get(key)
        if e is None:
            continue
        kind = RATE_AXIS if e.kind == RATE else DECIMAL_AXIS
        point = report.sweep[cell.ruleset] if cell.ruleset < len(report.sweep) else {}
        labels.append(", ".join(value_text(v) for v in point.values()) or cell.label)
        ys.append(e.value)
        errors[0].append(e.value - e.low)
        errors[1].append(e.high - e.value)
    axes.errorbar(range(len(ys)), ys, yerr=errors, marker="o", capsize=3)
    axes.set_xticks(range(len(labels)), labels)
    axes.yaxis.set_major_formatter(tick_formatter(kind))
    axes.set_xlabel(", ".join(report.sweep[0]) if report.sweep else "")
    axes.set_title(metric_label(key, rulesets[cells[0].ruleset], cells[0].arm), fontsize="medium")
    return figure


def plot_sweep(report: LabReport, cells: list[CellStats], key: str, rulesets: list[Ruleset]) -> str:
    """:func:`sweep_figure` as inline SVG."""
    return _svg(sweep_figure(report, cells, key, rulesets))


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 75em; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3efe6; }
td.sig { background: #fff3c4; font-weight: 600; }
figure { display: inline-block; margin: 0.5em; }
svg { max-width: 100%; height: auto; }
.note { color: #555; }
"""


def to_html(report: LabReport) -> str:
    """The report as one self-contained HTML page (inline CSS and SVG plots; no scripts, no network)."""
    rulesets = _rulesets(report)
    lang = current_language()
    esc = html.escape
    title = _("Balance lab report")
    parts = [
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n<title>{esc(title)}</title>',
        f"<style>{_STYLE}</style>\n</head>\n<body>\n<h1>{esc(title)}</h1>",
        "<ul>",
        *(
            f"<li>{esc(ref.label)}: {esc(rulesets[i].title.get(lang))} ({esc(ref.content_hash[:12])})</li>"
            for i, ref in enumerate(report.experiment.rulesets)
        ),
        "</ul>",
        *(f'<p class="note">{esc(line)}</p>' for line in summary_lines(report)),
    ]
    if report.skipped:
        parts.append("<ul>" + "".join(f"<li>{esc(m)}</li>" for m in report.skipped) + "</ul>")
    for players, arm, cells in groups(report):
        parts.append(f"<h2>{esc(group_title(players, arm, cells))}</h2>")
        parts.extend(f"<p>{esc(cell.label)}: {esc(line)}</p>" for cell in cells for line in effect_rows(cell))
        if all(c.no_effect for c in cells):
            continue
        parts.append("<table>\n<tr><th>" + esc(_("Metric")) + "</th>")
        parts.append("".join(f"<th>{esc(c.label)}</th>" for c in cells) + "</tr>")
        for row in table_rows(report, cells, rulesets):
            cells_html = "".join(
                f'<td class="sig">{esc(text)}</td>' if text.endswith(SIGNIFICANT_MARK) else f"<td>{esc(text)}</td>"
                for text in row[1:]
            )
            parts.append(f"<tr><th>{esc(row[0])}</th>{cells_html}</tr>")
        parts.append("</table>")
        plots = []
        if arm == "main":
            plots.append(plot_seat_rates(cells))
        plots.append(plot_vp(report, cells))
        plots.append(plot_categories(cells, rulesets))
        if report.sweep and len(cells) > 1:
            plots.extend(plot_sweep(report, cells, key, rulesets) for key in SWEEP_METRICS if key in cells[0].estimates)
        parts.extend(f"<figure>{svg}</figure>" for svg in plots)
    parts.append("</body>\n</html>\n")
    return "\n".join(parts)
