"""CLI command ``simulate``: play many games with bots and print the statistics (text or JSON)."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from biblios_kit.cli.common import LangOption, error_prefix, fail, start
from biblios_kit.cli.options import RULESET, BotsOption, OptionOption, PlayersOption, SeedOption
from biblios_kit.errors import INTERRUPTED_STATUS
from biblios_kit.i18n import _, format_list, ngettext

if TYPE_CHECKING:
    from collections.abc import Callable

    from biblios_kit.sim.runner import SimulationStopped


def register(app: typer.Typer) -> None:
    """Add ``simulate`` to ``app``."""
    app.command(
        "simulate",
        help=_("Play many games with bots and print win rates, victory points, category shares and speed."),
    )(simulate)


def simulate(
    ruleset: Annotated[str, RULESET] = "biblios",
    option: OptionOption = None,
    players: PlayersOption = 4,
    games: Annotated[int, typer.Option("--games", "-g", help=_("Number of games."))] = 1000,
    seed: SeedOption = 0,
    bots: BotsOption = "random",
    rotate: Annotated[
        bool, typer.Option("--rotate", help=_("Play every seat assignment of the bots equally often."))
    ] = False,
    workers: Annotated[
        int, typer.Option("--workers", "-w", help=_("Worker processes (results do not depend on it)."))
    ] = 1,
    records: Annotated[
        str | None, typer.Option("--records", help=_("Folder to write each game's record into."))
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help=_("Print the figures as one JSON object."))] = False,
    lang: LangOption = None,
) -> None:
    """Simulate games and report their statistics."""
    start(lang)
    from biblios_kit.bots.registry import BotSpecError
    from biblios_kit.errors import BibliosError
    from biblios_kit.sim.model import SimConfig
    from biblios_kit.sim.runner import SimulationStopped, run_simulation

    if games < 1:
        fail(f"{error_prefix()} " + _("--games must be at least 1, got {games}").format(games=games))
    if workers < 1:
        fail(f"{error_prefix()} " + _("--workers must be at least 1, got {workers}").format(workers=workers))
    specs = tuple(spec.strip() for spec in bots.split(",") if spec.strip())
    if not specs:
        fail(f"{error_prefix()} " + _("--bots needs at least one bot spec"))
    if rotate:
        from biblios_kit.sim.runner import seat_assignments

        seats = specs * players if len(specs) == 1 else specs
        count = len(seat_assignments(seats, True))
        if games % count:
            print(
                _("note: {count} seat assignments do not divide {games} games; some are played once more").format(
                    count=count, games=games
                ),
                file=sys.stderr,
            )
    config = SimConfig(
        ruleset=ruleset,
        players=players,
        games=games,
        seed=seed,
        options=tuple(option or ()),
        bots=specs,
        rotate=rotate,
        workers=workers,
        records=records,
    )
    try:
        with _progress(games) as advance:
            stats = run_simulation(config, advance)
    except SimulationStopped as stopped:
        _report_stopped(stopped, ruleset, tuple(option or ()), as_json)
    except (BotSpecError, BibliosError, ValueError, OSError) as error:
        fail(f"{error_prefix()} {error}")
    _print_figures(stats.to_json(), ruleset, tuple(option or ()), as_json)


def _print_figures(data: dict[str, Any], ruleset: str, options: tuple[str, ...], as_json: bool) -> None:
    """Print the figures of a run on stdout, as JSON or as text."""
    if as_json:
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return
    from biblios_kit.rules import load_ruleset

    print(render_text(data, load_ruleset(ruleset, options)))


def _report_stopped(stopped: SimulationStopped, ruleset: str, options: tuple[str, ...], as_json: bool) -> NoReturn:
    """Print the figures of the games finished before a run stopped, say why it stopped, and exit.

    Ctrl-C exits with status 130, a dead worker process with status 2.
    """
    from biblios_kit.sim.runner import INTERRUPTED

    done = len(stopped.summaries)
    if stopped.stats is not None:
        data = stopped.stats.to_json()
        data["stopped"] = stopped.reason
        data["games_planned"] = stopped.planned
        _print_figures(data, ruleset, options, as_json)
    finished = ngettext(
        "{done} of {planned} game finished", "{done} of {planned} games finished", stopped.planned
    ).format(done=done, planned=stopped.planned)
    figures = _("the figures above are of those games") if done else _("no figures to show")
    if stopped.reason == INTERRUPTED:
        print(_("Interrupted: {finished}; {figures}.").format(finished=finished, figures=figures), file=sys.stderr)
        raise typer.Exit(INTERRUPTED_STATUS)
    fail(
        f"{error_prefix()} "
        + _("a worker process died (killed, or out of memory): {finished}; {figures}.").format(
            finished=finished, figures=figures
        )
    )


class _progress:
    """A progress bar on stderr when it is a terminal; nothing otherwise."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.bar: Any = None

    def __enter__(self) -> Callable[[int], None] | None:
        if not sys.stderr.isatty():
            return None
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

        self.bar = Progress(
            "{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self.bar.__enter__()
        task = self.bar.add_task(_("Simulating"), total=self.total)
        return lambda done: self.bar.advance(task, done)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)


def render_text(data: dict[str, Any], ruleset: Any = None) -> str:
    """The human-readable report of a run (``SimStats.to_json()``), in the active language.

    With the run's ``Ruleset``, the game and its categories are named in the user's language.
    """
    from biblios_kit.i18n import current_language, format_decimal, format_number, format_percent
    from biblios_kit.rulebook.grammar import name_forms

    lang = current_language()

    def category_name(category_id: str) -> str:
        return ruleset.category(category_id).name.get(lang) if ruleset is not None else category_id

    lines = [
        ngettext(
            "{games} game of {ruleset} with {players} players (seed {seed})",
            "{games} games of {ruleset} with {players} players (seed {seed})",
            data["games"],
        ).format(
            games=format_number(data["games"]),
            players=data["players"],
            seed=data["seed"],
            **name_forms("ruleset", ruleset.title.get(lang) if ruleset is not None else data["ruleset"], lang),
        )
    ]
    if data["options"]:
        lines.append(_("Options: {options}").format(options=format_list(data["options"])))
    lines.append(_("Win rate per seat:"))
    bots = data["bots"]
    for seat, (rate, ci) in enumerate(zip(data["seat_win_rates"], data["seat_win_ci95"])):
        who = "" if data["rotate"] else f" ({bots[seat]})"
        lines.append(
            "  "
            + _("seat {seat}{who}: {rate} (95% interval {low} to {high}), mean victory points {vp}").format(
                seat=seat + 1,
                who=who,
                rate=format_percent(rate, 1),
                low=format_percent(ci[0], 1),
                high=format_percent(ci[1], 1),
                vp=format_decimal(data["mean_vp"][seat], 2),
            )
        )
    if len(data["bot_win_rates"]) > 1 or data["rotate"]:
        lines.append(_("Win rate per bot:"))
        for spec, entry in data["bot_win_rates"].items():
            lines.append(
                "  "
                + _("{bot}: {rate} (95% interval {low} to {high}), mean victory points {vp}").format(
                    bot=spec,
                    rate=format_percent(entry["rate"], 1),
                    low=format_percent(entry["ci95"][0], 1),
                    high=format_percent(entry["ci95"][1], 1),
                    vp=format_decimal(data["bot_mean_vp"][spec], 2),
                )
            )
    lines.append(_("Category won, per seat (and by nobody):"))
    for category, shares in data["category_win_shares"].items():
        lines.append(
            "  "
            + _("{category}: {shares}; nobody {nobody}").format(
                category=category_name(category),
                shares=" / ".join(format_percent(share, 1) for share in shares),
                nobody=format_percent(data["category_unclaimed"][category], 1),
            )
        )
    lines.append(_("Shared first place: {rate}").format(rate=format_percent(data["shared_rate"], 1)))
    lines.append(_("Mean decisions per game: {n}").format(n=format_decimal(data["mean_decisions"], 1)))
    lines.append(
        ngettext(
            "Speed: {games} games/s, {decisions} decisions/s ({workers} worker, {seconds} s)",
            "Speed: {games} games/s, {decisions} decisions/s ({workers} workers, {seconds} s)",
            data["workers"],
        ).format(
            games=format_decimal(data["games_per_sec"], 1),
            decisions=format_number(round(data["decisions_per_sec"])),
            workers=data["workers"],
            seconds=format_decimal(data["seconds"], 2),
        )
    )
    return "\n".join(lines)
