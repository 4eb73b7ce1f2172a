"""A lab report in the user's language: a terminal table (rich), JSON, CSV, a self-contained HTML page with plots, a summary image.

Every output has one table per player count and arm: a row per metric, a column per ruleset
(the baseline first). A value comes with its 95% interval; in the other rulesets' columns, the
difference from the baseline follows, marked ``*`` when it is significant after Holm's adjustment.
The HTML page opens with the summary in plain words (:mod:`biblios_kit.lab.summary`), then its
charts (matplotlib, as SVG, each with a title, axis labels and the fair share drawn), then the
tables; it needs no network to be read. :func:`summary_bytes` exports the summary as PNG or PDF.
"""

from __future__ import annotations

import csv
import html
import io
import json
from collections.abc import Callable, Iterator
from typing import Any

from biblios_kit.i18n import _, current_language, format_decimal, format_number, format_percent, ngettext, translator
from biblios_kit.lab.names import arm_label, metric_category, metric_label
from biblios_kit.lab.runner import LabReport
from biblios_kit.lab.stats import CellStats
from biblios_kit.lab.summary import findings, signed
from biblios_kit.rules.model import Ruleset
from biblios_kit.sim.stats import RATE, Difference, Estimate

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
    console.print(_("Summary"), style="bold", markup=False, highlight=False)
    for finding in findings(report):
        console.print("• " + finding.text, style="bold" if finding.significant else None, markup=False, highlight=False)
    console.print()
    for message in report.skipped:
        console.print(message, style="yellow", markup=False, highlight=False)
    for players, arm, cells in groups(report):
        title = group_title(players, arm, cells)
        if all(c.no_effect for c in cells):
            console.print(title, style="bold", markup=False, highlight=False)
            for cell in cells:
                for line in effect_rows(cell):
                    console.print(f"{cell_heading(cell, rulesets)}: {line}", markup=False, highlight=False)
            continue
        table = Table(title=title, title_justify="left")
        table.add_column(_("Metric"))
        for cell in cells:
            table.add_column(cell_heading(cell, rulesets), overflow="fold")
        for row in table_rows(report, cells, rulesets):
            table.add_row(*row)
        console.print(table)
        for cell in cells:
            for line in effect_rows(cell):
                console.print(f"{cell_heading(cell, rulesets)}: {line}", markup=False, highlight=False)
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


def _legend(axes: Any, count: int) -> None:
    """A legend under the plot, never over a bar (left out when there is one series)."""
    if count > 1:
        axes.legend(
            fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=min(count, 3), frameon=False
        )


def _fair_share(axes: Any, players: int) -> None:
    """The fair share (1/players) drawn as a labelled dotted line."""
    axes.axhline(1 / players, color="#555", linestyle=":", linewidth=1.2)
    axes.annotate(
        _("fair share {rate}").format(rate=format_percent(1 / players, 0)),
        xy=(1.0, 1 / players),
        xycoords=("axes fraction", "data"),
        xytext=(-4, 3),
        textcoords="offset points",
        ha="right",
        fontsize="small",
        color="#555",
    )


def _grouped_bars(
    axes: Any, cells: list[CellStats], keys: list[str], label: Callable[[CellStats], str], first: int = 0
) -> None:
    """One bar per cell for each metric of ``keys`` (side by side at ``first``, ``first + 1``...), with its
    95% interval; a cell without that metric leaves its place empty."""
    width = 0.8 / len(cells)
    for i, cell in enumerate(cells):
        xs: list[float] = []
        ys: list[float] = []
        errors: tuple[list[float], list[float]] = ([], [])
        for j, key in enumerate(keys):
            e = cell.estimates.get(key)
            if e is None:
                continue
            xs.append(first + j + (i - (len(cells) - 1) / 2) * width)
            ys.append(e.value)
            errors[0].append(e.value - e.low)
            errors[1].append(e.high - e.value)
        axes.bar(xs, ys, width=width, yerr=errors, capsize=3, label=label(cell))


def seat_rates_figure(cells: list[CellStats]) -> Any:
    """Win rate per seat with 95% intervals, one group of bars per ruleset (a matplotlib figure)."""
    figure = _figure()
    axes = figure.subplots()
    players = cells[0].players
    _grouped_bars(axes, cells, [f"seat_win.{seat + 1}" for seat in range(players)], lambda cell: cell.label, first=1)
    _fair_share(axes, players)
    axes.set_xticks(range(1, players + 1))
    axes.xaxis.set_major_formatter(tick_formatter(COUNT_AXIS))
    axes.yaxis.set_major_formatter(tick_formatter(RATE_AXIS))
    axes.set_xlabel(_("Seat (seat 1 plays first)"))
    axes.set_ylabel(_("Win rate"))
    axes.set_title(_("Win rate per seat at {players} players, with 95% intervals").format(players=players))
    _legend(axes, len(cells))
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
    axes.set_title(_("Final victory points at {players} players").format(players=cells[0].players))
    _legend(axes, len(cells))
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


def _category_figure(cells: list[CellStats], rulesets: list[Ruleset], prefix: str, ylabel: str, title: str) -> Any:
    """A rate per category (the metrics starting with ``prefix``), per ruleset, with 95% intervals."""
    figure = _figure()
    axes = figure.subplots()
    keys = [k for k in metric_keys(cells) if k.startswith(prefix)]
    _grouped_bars(axes, cells, keys, lambda cell: cell_heading(cell, rulesets))
    axes.set_xticks(range(len(keys)), category_names(keys, cells, rulesets), rotation=15)
    axes.yaxis.set_major_formatter(tick_formatter(RATE_AXIS))
    axes.set_xlabel(_("Category"))
    axes.set_ylabel(ylabel)
    axes.set_title(title.format(players=cells[0].players))
    _legend(axes, len(cells))
    return figure


def categories_figure(cells: list[CellStats], rulesets: list[Ruleset]) -> Any:
    """How often each category was won by the game's winner (its decisiveness), per ruleset."""
    return _category_figure(
        cells,
        rulesets,
        "category_by_winner.",
        _("Won by the game's winner"),
        _("How often each category goes to the game's winner at {players} players"),
    )


def plot_categories(cells: list[CellStats], rulesets: list[Ruleset]) -> str:
    """:func:`categories_figure` as inline SVG."""
    return _svg(categories_figure(cells, rulesets))


def nobody_figure(cells: list[CellStats], rulesets: list[Ruleset]) -> Any:
    """How often each category is left to nobody, per ruleset, with 95% intervals."""
    return _category_figure(
        cells,
        rulesets,
        "category_nobody.",
        _("Left to nobody"),
        _("How often each category is left to nobody at {players} players"),
    )


def restricted_figure(report: LabReport, players: int) -> Any | None:
    """Restricted play (Jaffe et al.): each restricted bot's win rate against the fair share, per ruleset.

    A restriction with no effect is drawn as a hollow bar at the fair share and labelled so.
    ``None`` when the run has no restricted play at ``players``.
    """
    cells = [c for c in report.cells if c.players == players and c.effect is not None]
    if not cells:
        return None
    names = list(dict.fromkeys(c.arm.partition(":")[2] for c in cells))
    labels = list(dict.fromkeys(c.label for c in cells))
    figure = _figure()
    axes = figure.subplots()
    width = 0.8 / len(labels)
    for i, label in enumerate(labels):
        xs, ys, errors = [], [], ([], [])  # type: ignore[var-annotated]
        for j, name in enumerate(names):
            cell = next((c for c in cells if c.label == label and c.arm == f"restrict:{name}"), None)
            if cell is None:
                continue
            x = j + (i - (len(labels) - 1) / 2) * width
            if cell.no_effect:
                axes.bar([x], [1 / players], width=width, fill=False, edgecolor="#999", hatch="//")
                axes.annotate(_("no effect"), (x, 1 / players), ha="center", va="bottom", fontsize="x-small")
                continue
            e = cell.estimates["focus_win"]
            xs.append(x)
            ys.append(e.value)
            errors[0].append(e.value - e.low)
            errors[1].append(e.high - e.value)
        axes.bar(xs, ys, width=width, yerr=errors, capsize=3, label=label)
    _fair_share(axes, players)
    axes.set_xticks(range(len(names)), names)
    axes.yaxis.set_major_formatter(tick_formatter(RATE_AXIS))
    axes.set_xlabel(_("Restriction"))
    axes.set_ylabel(_("Win rate of the restricted bot"))
    axes.set_title(
        _("Restricted play at {players} players: the restricted bot against the fair share").format(players=players)
    )
    _legend(axes, len(labels))
    return figure


SWEEP_METRICS = ("seat_win.1", "decisions", "margin", "shared", "comeback", "lead_changes")
"""The metrics a sweep report always considers; the ones that moved most are added (:func:`sweep_keys`)."""

SWEEP_PLOTS = 6
"""How many metrics a sweep report plots against the swept values."""


def sweep_keys(cells: list[CellStats]) -> list[str]:
    """The metrics to plot for a sweep: those that moved most (the largest difference from the baseline in units of
    the baseline's interval half-width), seat 1's win rate first."""
    base = cells[0]

    def moved(key: str) -> float:
        e = base.estimates[key]
        half = max(e.width / 2, 1e-9)
        return max((abs(c.differences[key].diff) / half for c in cells[1:] if key in c.differences), default=0.0)

    keys = [k for k in base.estimates if any(k in c.differences for c in cells[1:])]
    ranked = sorted(keys, key=moved, reverse=True)
    chosen = ["seat_win.1"] if "seat_win.1" in base.estimates else []
    chosen += [k for k in ranked if k not in chosen and moved(k) > 0]
    return chosen[:SWEEP_PLOTS]


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
    axes.set_ylabel(_("value (95% interval)"))
    if key.startswith("seat_win."):
        _fair_share(axes, cells[0].players)
    axes.set_title(
        _("{metric} at {players} players").format(
            metric=metric_label(key, rulesets[cells[0].ruleset], cells[0].arm), players=cells[0].players
        ),
        fontsize="medium",
    )
    return figure


def plot_sweep(report: LabReport, cells: list[CellStats], key: str, rulesets: list[Ruleset]) -> str:
    """:func:`sweep_figure` as inline SVG."""
    return _svg(sweep_figure(report, cells, key, rulesets))


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 75em; padding: 0 1em; color: #222;
  line-height: 1.45; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; margin-top: 1.6em; } h3 { font-size: 1.1em; }
#summary { background: #f7f4ec; border: 1px solid #e2dccb; border-radius: 6px; padding: 0.6em 1.2em; }
#summary li { margin: 0.35em 0; }
#summary li.sig { font-weight: 600; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3efe6; }
td.sig { background: #fff3c4; font-weight: 600; }
figure { display: inline-block; margin: 0.5em; max-width: 100%; vertical-align: top; }
svg { max-width: 100%; height: auto; }
.note { color: #555; }
@media (max-width: 40em) { body { padding: 0 0.5em; } figure { margin: 0.5em 0; } table { font-size: 0.8em; } }
@media print { #summary { break-after: page; } }
"""


def cell_heading(cell: CellStats, rulesets: list[Ruleset]) -> str:
    """A column heading: the ruleset's title and switched-on options in the active language
    ("Biblios (Bluff médiéval)") when the cell is labelled by the ruleset's id; a label of the
    user's own (a sweep's values) as it is."""
    from biblios_kit.rulebook.describe import ruleset_label

    ruleset = rulesets[cell.ruleset]
    if cell.label == "+".join([ruleset.id, *sorted(ruleset.active_options)]):
        return ruleset_label(ruleset)
    return cell.label


def _charts(report: LabReport, rulesets: list[Ruleset]) -> list[tuple[str, str]]:
    """Every chart of the report, as (heading, inline SVG), in reading order."""
    charts: list[tuple[str, str]] = []
    by_players: dict[int, list[CellStats]] = {}
    for players, arm, cells in groups(report):
        if arm == "main":
            by_players[players] = cells
    for players, cells in by_players.items():
        charts.append(("seats", _svg(seat_rates_figure(cells))))
        restricted = restricted_figure(report, players)
        if restricted is not None:
            charts.append(("restricted", _svg(restricted)))
        charts.append(("nobody", _svg(nobody_figure(cells, rulesets))))
        charts.append(("decisive", _svg(categories_figure(cells, rulesets))))
        charts.append(("vp", _svg(vp_figure(report, cells))))
        if report.sweep and len(cells) > 1:
            charts.extend(("sweep", plot_sweep(report, cells, key, rulesets)) for key in sweep_keys(cells))
    return charts


def to_html(report: LabReport) -> str:
    """The report as one self-contained HTML page: the summary in plain words, then the charts, then the tables.

    Inline CSS and SVG only (no script, no font, no network); it reads on a phone (the tables scroll
    sideways) and prints with the summary on its own page.
    """

    rulesets = _rulesets(report)
    lang = current_language()
    esc = html.escape
    title = _("Balance lab report")
    summary_heading, charts_heading, tables_heading = _("Summary"), _("Charts"), _("Tables")
    parts = [
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n<h1>{esc(title)}</h1>",
        f'<section id="summary">\n<h2>{esc(summary_heading)}</h2>\n<ul>',
        *(
            f'<li class="sig">{esc(f.text)}</li>' if f.significant else f"<li>{esc(f.text)}</li>"
            for f in findings(report)
        ),
        "</ul>\n</section>",
        f"<h2>{esc(charts_heading)}</h2>",
        *(f"<figure>{svg}</figure>" for _kind, svg in _charts(report, rulesets)),
        f"<h2>{esc(tables_heading)}</h2>",
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
        parts.append(f"<h3>{esc(group_title(players, arm, cells))}</h3>")
        parts.extend(
            f"<p>{esc(cell_heading(cell, rulesets))}: {esc(line)}</p>" for cell in cells for line in effect_rows(cell)
        )
        if all(c.no_effect for c in cells):
            continue
        parts.append('<div class="scroll"><table>\n<tr><th>' + esc(_("Metric")) + "</th>")
        parts.append("".join(f"<th>{esc(cell_heading(c, rulesets))}</th>" for c in cells) + "</tr>")
        for row in table_rows(report, cells, rulesets):
            cells_html = "".join(
                f'<td class="sig">{esc(text)}</td>' if SIGNIFICANT_MARK in text else f"<td>{esc(text)}</td>"
                for text in row[1:]
            )
            parts.append(f"<tr><th>{esc(row[0])}</th>{cells_html}</tr>")
        parts.append("</table></div>")
    parts.append("</body>\n</html>\n")
    return "\n".join(parts)


def summary_figure(report: LabReport) -> Any:
    """The summary for sharing: its sentences, then the win rate per seat at the largest player count."""
    import textwrap

    lines: list[tuple[str, bool]] = []
    for finding in findings(report):
        wrapped = textwrap.wrap(finding.text, 95)
        lines.extend((("• " if i == 0 else "  ") + line, finding.significant) for i, line in enumerate(wrapped))
    mains = [cells for _players, arm, cells in groups(report) if arm == "main"]
    text_height = 0.24 * (len(lines) + 2)
    figure = _figure(8.0, text_height + (3.4 if mains else 0))
    top = text_height / (text_height + (3.4 if mains else 0))
    figure.text(
        0.02, 1 - 0.12 / (text_height + 3.4), _("Balance lab report"), fontsize="large", weight="bold", va="top"
    )
    for i, (line, strong) in enumerate(lines):
        y = 1 - (0.24 * (i + 1.6)) / (text_height + (3.4 if mains else 0))
        figure.text(0.02, y, line, fontsize="small", va="top", weight="bold" if strong else "normal")
    if mains:
        cells = mains[-1]
        axes = figure.add_axes((0.1, 0.1 * (1 - top), 0.85, (1 - top) * 0.72))
        players = cells[0].players
        width = 0.8 / len(cells)
        for i, cell in enumerate(cells):
            es = [cell.estimates[f"seat_win.{s + 1}"] for s in range(players)]
            xs = [s + 1 + (i - (len(cells) - 1) / 2) * width for s in range(players)]
            axes.bar(
                xs,
                [e.value for e in es],
                width=width,
                yerr=([e.value - e.low for e in es], [e.high - e.value for e in es]),
                capsize=3,
                label=cell.label,
            )
        _fair_share(axes, players)
        axes.set_xticks(range(1, players + 1))
        axes.yaxis.set_major_formatter(tick_formatter(RATE_AXIS))
        axes.set_xlabel(_("Seat (seat 1 plays first)"))
        axes.set_ylabel(_("Win rate"))
        axes.set_title(_("Win rate per seat at {players} players, with 95% intervals").format(players=players))
        if len(cells) > 1:
            axes.legend(fontsize="small", loc="lower right")
    return figure


SUMMARY_FORMATS = ("png", "pdf", "svg")
"""The formats ``--summary FILE`` writes, by the file's suffix."""


def summary_bytes(report: LabReport, fmt: str) -> bytes:
    """The summary figure as a PNG, PDF or SVG file's bytes."""
    buffer = io.BytesIO()
    summary_figure(report).savefig(
        buffer, format=fmt, dpi=150, bbox_inches="tight", metadata={"Date": None} if fmt == "svg" else None
    )
    return buffer.getvalue()
