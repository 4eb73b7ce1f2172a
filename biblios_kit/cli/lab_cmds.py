"""CLI group ``lab``: ``compare`` rulesets and ``sweep`` rule values with bots, with statistics and reports."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from biblios_kit.cli.common import error_prefix, fail, start
from biblios_kit.cli.options import (
    BotsOption,
    LangOption,
    OptionOption,
    PlayersListOption,
    RulesetOption,
    RulesetsOption,
    SeedOption,
)
from biblios_kit.errors import INTERRUPTED_STATUS
from biblios_kit.i18n import _, format_number

if TYPE_CHECKING:
    from biblios_kit.lab.plan import Arm, RulesetRef
    from biblios_kit.lab.runner import LabReport


def register(app: typer.Typer) -> None:
    """Add the ``lab`` group and its commands to ``app``."""
    lab_app = typer.Typer(
        help=_("Balance lab: compare rulesets and sweep rule values with bots, with significance tests."),
        no_args_is_help=True,
        rich_markup_mode=None,
    )
    lab_app.command(
        "compare",
        help=_(
            "Play the same games under each ruleset (the first is the baseline) and report every metric with "
            "its 95% interval and its difference from the baseline."
        ),
    )(compare)
    lab_app.command(
        "sweep",
        help=_("Play the same report for each value (or combination of values) of ruleset fields set with --set."),
    )(sweep)
    lab_app.command(
        "tune",
        help=_(
            "Find the values of one or two rule fields (--set FIELD=LOW..HIGH) that meet a balance target "
            "(--target), by successive halving: few games for the candidates that are clearly off."
        ),
    )(tune)
    app.add_typer(lab_app, name="lab")


# Flags shared by both commands (beyond those of biblios_kit.cli.options).
GamesOption = Annotated[int, typer.Option("--games", "-g", help=_("Games per ruleset, player count and arm."))]
PrecisionOption = Annotated[
    float | None,
    typer.Option(
        "--precision",
        help=_(
            "Instead of a number of games: play until every rate's 95% interval is at most this wide (0.01 = 1 point)."
        ),
    ),
]
MaxGamesOption = Annotated[
    int, typer.Option("--max-games", help=_("With --precision: the most games per ruleset, player count and arm."))
]
RestrictOption = Annotated[
    list[str] | None,
    typer.Option(
        "--restrict",
        help=_("Restricted play: also pit the bot with this restriction against itself unrestricted (repeatable)."),
    ),
]
SkillOption = Annotated[
    str | None,
    typer.Option(
        "--skill", help=_("Skill gradient: also play STRONG,WEAK (one strong bot against weak ones, seats rotated).")
    ),
]
WorkersOption = Annotated[
    int | None,
    typer.Option("--workers", "-w", help=_("Worker processes of the local Dask cluster (default: one per CPU).")),
]
ClusterOption = Annotated[
    str | None,
    typer.Option("--cluster", help=_("Address of an existing Dask scheduler (tcp://HOST:PORT) to run the games on.")),
]
InProcessOption = Annotated[
    bool, typer.Option("--in-process", help=_("Play every game in this process, without Dask."))
]
ResultsOption = Annotated[
    Path | None,
    typer.Option("--results", help=_("Results file (JSON lines; default: one per experiment in the data folder).")),
]
ResumeOption = Annotated[
    bool, typer.Option("--resume", help=_("Continue from the results file without replaying finished games."))
]
JsonOption = Annotated[bool, typer.Option("--json", help=_("Print the report as JSON."))]
CsvOption = Annotated[bool, typer.Option("--csv", help=_("Print the report as CSV."))]
HtmlOption = Annotated[
    Path | None, typer.Option("--html", help=_("Also write a self-contained HTML report with plots to this file."))
]
SummaryOption = Annotated[
    Path | None,
    typer.Option(
        "--summary", help=_("Also write the report's summary, for sharing, to this file (.png, .pdf or .svg).")
    ),
]
BatchOption = Annotated[int, typer.Option("--batch", help=_("Games per task sent to a worker."))]


def compare(
    rulesets: Annotated[
        list[str] | None,
        typer.Argument(
            help=_(
                "Rulesets (id, alias or file; NAME+OPTION switches an option on for that ruleset only), baseline first."
            )
        ),
    ] = None,
    ruleset: RulesetsOption = None,
    option: OptionOption = None,
    players: PlayersListOption = "4",
    bots: BotsOption = "medium",
    games: GamesOption = 1000,
    precision: PrecisionOption = None,
    max_games: MaxGamesOption = 20000,
    seed: SeedOption = 0,
    restrict: RestrictOption = None,
    skill: SkillOption = None,
    workers: WorkersOption = None,
    cluster: ClusterOption = None,
    in_process: InProcessOption = False,
    results: ResultsOption = None,
    resume: ResumeOption = False,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
    html: HtmlOption = None,
    summary: SummaryOption = None,
    batch: BatchOption = 10,
    lang: LangOption = None,
) -> None:
    """Compare rulesets."""
    start(lang)
    from biblios_kit.errors import BibliosError

    names = [*(ruleset or ()), *(rulesets or ())]
    if not names:
        fail(f"{error_prefix()} " + _("name the rulesets to compare, the baseline first"))
    try:
        refs = _compare_refs(names, tuple(option or ()))
    except BibliosError as error:
        fail(f"{error_prefix()} {error}")
    _run(
        "compare", refs, players, bots, games, precision, max_games, seed, restrict, skill,
        workers, cluster, in_process, results, resume, as_json, as_csv, html, batch, summary,
    )  # fmt: skip


def sweep(
    swept: Annotated[
        str | None, typer.Argument(metavar="RULESET", help=_("The ruleset to sweep (id, alias or file)."))
    ] = None,
    set_: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            help=_(
                "FIELD=V1,V2,...: a ruleset field by its path (for example dice.0.start) and the values to try (repeatable: every combination)."
            ),
        ),
    ] = None,
    ruleset: RulesetOption = None,
    option: OptionOption = None,
    players: PlayersListOption = "4",
    bots: BotsOption = "medium",
    games: GamesOption = 1000,
    precision: PrecisionOption = None,
    max_games: MaxGamesOption = 20000,
    seed: SeedOption = 0,
    restrict: RestrictOption = None,
    skill: SkillOption = None,
    workers: WorkersOption = None,
    cluster: ClusterOption = None,
    in_process: InProcessOption = False,
    results: ResultsOption = None,
    resume: ResumeOption = False,
    as_json: JsonOption = False,
    as_csv: CsvOption = False,
    html: HtmlOption = None,
    summary: SummaryOption = None,
    batch: BatchOption = 10,
    lang: LangOption = None,
) -> None:
    """Sweep ruleset fields."""
    start(lang)
    if (swept is None) == (ruleset is None):
        fail(f"{error_prefix()} " + _("name one ruleset to sweep (as an argument or with --ruleset)"))
    ruleset = swept if swept is not None else ruleset
    assert ruleset is not None
    if not set_:
        fail(f"{error_prefix()} " + _("--set FIELD=V1,V2,... is needed: which field to sweep, and its values"))
    from biblios_kit.errors import BibliosError
    from biblios_kit.lab.overrides import sweep_rulesets
    from biblios_kit.lab.plan import RulesetRef

    try:
        points, skipped = sweep_rulesets(ruleset, tuple(option or ()), set_)
    except BibliosError as error:
        fail(f"{error_prefix()} {error}")
    for message in skipped:
        print(f"{error_prefix()} {message}", file=sys.stderr)
    if not points:
        fail(f"{error_prefix()} " + _("no valid value to sweep"))
    refs = [RulesetRef.of(point.ruleset, point.label) for point in points]
    _run(
        "sweep", refs, players, bots, games, precision, max_games, seed, restrict, skill,
        workers, cluster, in_process, results, resume, as_json, as_csv, html, batch, summary,
        sweep_values=[point.values for point in points], skipped=skipped,
    )  # fmt: skip


def tune(
    swept: Annotated[
        str | None, typer.Argument(metavar="RULESET", help=_("The ruleset to tune (id, alias or file)."))
    ] = None,
    set_: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            help=_(
                "FIELD=LOW..HIGH (or LOW..HIGH:STEP, or V1,V2,...): a rule field and the values to try; once or twice."
            ),
        ),
    ] = None,
    target: Annotated[
        str,
        typer.Option(
            "--target",
            help=_(
                "What to reach at every player count: fair:TOLERANCE (every seat within it of the fair share), "
                "METRIC=VALUE:TOLERANCE, METRIC>=VALUE or METRIC<=VALUE (category_nobody.3<=0.1)."
            ),
        ),
    ] = "fair:0.02",
    ruleset: RulesetOption = None,
    option: OptionOption = None,
    players: PlayersListOption = "2,3,4",
    bots: BotsOption = "medium",
    first_games: Annotated[
        int, typer.Option("--first-games", help=_("Games per player count of every candidate in the first round."))
    ] = 100,
    max_games: MaxGamesOption = 3200,
    seed: SeedOption = 0,
    workers: WorkersOption = None,
    cluster: ClusterOption = None,
    in_process: InProcessOption = False,
    as_json: JsonOption = False,
    batch: BatchOption = 10,
    lang: LangOption = None,
) -> None:
    """Tune ruleset fields."""
    start(lang)
    from biblios_kit.cli.options import parse_bots, parse_players
    from biblios_kit.errors import BibliosError
    from biblios_kit.lab import tune as tuning
    from biblios_kit.lab.overrides import sweep_rulesets
    from biblios_kit.lab.plan import MAX_GAMES, RulesetRef

    prefix = error_prefix()
    if (swept is None) == (ruleset is None):
        fail(f"{prefix} " + _("name one ruleset to tune (as an argument or with --ruleset)"))
    name = swept if swept is not None else ruleset
    assert name is not None
    if not set_ or len(set_) > 2:
        fail(f"{prefix} " + _("--set FIELD=LOW..HIGH is needed, once or twice: the fields to tune"))
    if first_games < 1 or max_games < first_games or max_games > MAX_GAMES or batch < 1:
        fail(f"{prefix} " + _("--first-games must be at least 1 and at most --max-games (at most {limit})").format(
            limit=format_number(MAX_GAMES)))  # fmt: skip
    if cluster is not None and in_process:
        fail(f"{prefix} " + _("--cluster and --in-process cannot be used together"))
    try:
        goal = tuning.parse_target(target)
        counts = parse_players(players)
        bot_specs = parse_bots(bots)
        points, skipped = sweep_rulesets(name, tuple(option or ()), [tuning.expand_range(s) for s in set_])
        refs = [RulesetRef.of(point.ruleset, point.label) for point in points]
        _check_players(refs, counts, bot_specs)
    except BibliosError as error:
        fail(f"{prefix} {error}")
    for message in skipped:
        print(f"{prefix} {message}", file=sys.stderr)
    if not points:
        fail(f"{prefix} " + _("no valid value to tune"))
    backend = _backend(workers, cluster, in_process)
    try:
        result = tuning.tune(
            refs, [p.values for p in points], counts, bot_specs, goal, backend,
            seed=seed, first=first_games, most=max_games, batch=batch,
        )  # fmt: skip
    except KeyboardInterrupt:
        raise typer.Exit(INTERRUPTED_STATUS) from None
    finally:
        backend.close()
    if as_json:
        import json

        print(json.dumps(tuning.result_json(result), ensure_ascii=False, indent=1))
    else:
        for line in tuning.result_lines(result):
            print(line)


def _compare_refs(names: list[str], options: tuple[str, ...]) -> list[RulesetRef]:
    """Load each ruleset named on the command line (``NAME+OPTION...`` adds options to that one)."""
    from biblios_kit.lab.plan import RulesetRef
    from biblios_kit.rules import load_ruleset

    refs: list[RulesetRef] = []
    labels: dict[str, int] = {}
    for name in names:
        base, *own = name.split("+") if not Path(name).is_file() else [name]
        ruleset = load_ruleset(base, (*options, *own))
        label = name
        labels[label] = labels.get(label, 0) + 1
        if labels[label] > 1:
            label = f"{label} ({labels[label]})"
        refs.append(RulesetRef.of(ruleset, label))
    return refs


def _arms(bots: tuple[str, ...], restrict: list[str] | None, skill: str | None) -> list[Arm]:
    """The arms asked for: the main one, a skill gradient, restricted play; raise FlagError for bad names."""
    from biblios_kit.cli.options import FlagError, parse_bots
    from biblios_kit.lab.plan import MAIN, Arm
    from biblios_kit.lab.restrict import RESTRICTIONS

    arms = [MAIN]
    if skill is not None:
        pair = parse_bots(skill)
        if len(pair) != 2:
            raise FlagError(_("--skill expects two bot specs, STRONG,WEAK, got {value!r}").format(value=skill))
        arms.append(Arm("skill", strong=pair[0], weak=pair[1]))
    for name in dict.fromkeys(restrict or ()):
        if name not in RESTRICTIONS:
            raise FlagError(
                _("unknown restriction {name!r}; known: {known}").format(name=name, known=", ".join(RESTRICTIONS))
            )
        if len(set(bots)) != 1:
            raise FlagError(_("--restrict needs one bot spec in --bots (the same bot plays every seat)"))
        arms.append(Arm("restrict", restriction=name))
    return arms


def _check_players(refs: list[RulesetRef], counts: tuple[int, ...], bots: tuple[str, ...]) -> None:
    """Every ruleset must support every player count, and per-seat bots must match the count."""
    from biblios_kit.cli.options import FlagError

    for ref in refs:
        supported = ref.build().player_counts
        for count in counts:
            if count not in supported:
                raise FlagError(
                    _("ruleset {ruleset!r} supports {counts} players, not {players}").format(
                        ruleset=ref.label, counts=", ".join(map(str, supported)), players=count
                    )
                )
    if len(bots) > 1:
        for count in counts:
            if len(bots) != count:
                raise FlagError(
                    _("--bots gives {given} bot specs for {players} players (give one, or one per seat)").format(
                        given=len(bots), players=count
                    )
                )


def _run(
    command: str,
    refs: list[RulesetRef],
    players_text: str,
    bots_text: str,
    games: int,
    precision: float | None,
    max_games: int,
    seed: int,
    restrict: list[str] | None,
    skill: str | None,
    workers: int | None,
    cluster: str | None,
    in_process: bool,
    results: Path | None,
    resume: bool,
    as_json: bool,
    as_csv: bool,
    html: Path | None,
    batch: int,
    summary: Path | None = None,
    sweep_values: list[dict[str, str]] | None = None,
    skipped: list[str] | None = None,
) -> None:
    """Check the flags, run the experiment, print and write its report; bad input exits with status 2."""
    from biblios_kit.cli.options import parse_bots, parse_players
    from biblios_kit.errors import BibliosError
    from biblios_kit.lab.backends import ClusterLostError, WorkersGoneError
    from biblios_kit.lab.plan import MAX_GAMES, Experiment
    from biblios_kit.lab.results import ResultsFileError

    prefix = error_prefix()
    if games < 1:
        fail(f"{prefix} " + _("--games must be at least 1, got {games}").format(games=games))
    if precision is not None and not 0 < precision < 1:
        fail(f"{prefix} " + _("--precision must be between 0 and 1, got {value}").format(value=precision))
    if max_games < 1 or batch < 1:
        fail(f"{prefix} " + _("--max-games and --batch must be at least 1"))
    if max(games, max_games) > MAX_GAMES:
        fail(f"{prefix} " + _("--games and --max-games must be at most {limit}").format(limit=format_number(MAX_GAMES)))
    if workers is not None and workers < 1:
        fail(f"{prefix} " + _("--workers must be at least 1, got {workers}").format(workers=workers))
    most_workers = max(64, 4 * (os.cpu_count() or 1))  # each is a process of this machine
    if workers is not None and workers > most_workers:
        fail(f"{prefix} " + _("--workers must be at most {limit} on this machine, got {workers}").format(
            limit=most_workers, workers=workers))  # fmt: skip
    if cluster is not None and in_process:
        fail(f"{prefix} " + _("--cluster and --in-process cannot be used together"))
    if as_json and as_csv:
        fail(f"{prefix} " + _("--json and --csv cannot be used together"))
    if html is not None and not html.parent.is_dir():
        fail(f"{prefix} " + _("--html {path}: no such folder").format(path=html))
    from biblios_kit.lab.report import SUMMARY_FORMATS

    if summary is not None and summary.suffix.lower().lstrip(".") not in SUMMARY_FORMATS:
        fail(f"{prefix} " + _("--summary {path}: the file must end in .png, .pdf or .svg").format(path=summary))
    if summary is not None and not summary.parent.is_dir():
        fail(f"{prefix} " + _("--summary {path}: no such folder").format(path=summary))
    for flag, target in (("--html", html), ("--summary", summary)):
        if target is None:
            continue
        from biblios_kit.lab.results import check_writable

        try:
            check_writable(target)  # checked now, not after the games: a FIFO would hang the write
        except ResultsFileError as error:
            fail(f"{prefix} {flag} {error.where}: {error.reason}")
    try:
        counts = parse_players(players_text)
        bots = parse_bots(bots_text)
        arms = _arms(bots, restrict, skill)
        _check_players(refs, counts, bots)
    except BibliosError as error:
        fail(f"{prefix} {error}")
    experiment = Experiment(
        rulesets=tuple(refs),
        players=counts,
        bots=bots,
        arms=tuple(arms),
        games=max_games if precision is not None else games,
        seed=seed,
        precision=precision,
        batch=batch,
    )
    if results is None:
        from biblios_kit.resources import user_data_dir

        results = user_data_dir() / "lab" / f"{command}-{experiment.fingerprint()}.jsonl"
    backend = _backend(workers, cluster, in_process)
    try:
        report = _execute(experiment, backend, results, resume)
    except ResultsFileError as error:
        fail(f"{prefix} " + _("results file {path}: {reason}").format(path=error.where, reason=error.reason))
    except ClusterLostError:
        fail(
            f"{prefix} "
            + _(
                "the connection to the Dask scheduler was lost; finished games are in {path}: run the same "
                "command with --resume to continue"
            ).format(path=results)
        )
    except WorkersGoneError as error:
        fail(
            f"{prefix} "
            + _(
                "the Dask cluster has had no worker for {seconds} s; finished games are in {path}: start workers "
                "and run the same command with --resume to continue"
            ).format(seconds=f"{error.seconds:g}", path=results)
        )
    except OSError as error:
        fail(f"{prefix} {error}")
    except KeyboardInterrupt:
        print(
            _("interrupted: finished games are in {path}; run the same command with --resume to continue").format(
                path=results
            ),
            file=sys.stderr,
        )
        raise typer.Exit(INTERRUPTED_STATUS) from None
    finally:
        backend.close()
    report.sweep = sweep_values or []
    report.skipped = skipped or []
    _output(report, as_json, as_csv, html, summary)


def _backend(workers: int | None, cluster: str | None, in_process: bool) -> Any:
    """The backend asked for; an unreachable scheduler exits with status 2."""
    from biblios_kit.lab.backends import DaskBackend, InProcessBackend, SchedulerUnreachableError

    if in_process:
        return InProcessBackend()
    try:
        return DaskBackend(address=cluster, workers=workers, timeout=5.0)
    except SchedulerUnreachableError as error:
        fail(
            f"{error_prefix()} "
            + _("no Dask scheduler answered at {address} ({reason})").format(address=error.address, reason=error.reason)
        )
    except ValueError as error:  # a malformed address
        fail(f"{error_prefix()} --cluster {cluster}: {error}")


def _execute(experiment: Any, backend: Any, results: Path, resume: bool) -> LabReport:
    """Run the experiment with a progress bar (time remaining) on stderr when it is a terminal."""
    from biblios_kit.lab.runner import run_experiment

    if not sys.stderr.isatty():
        return run_experiment(experiment, backend, results, resume)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn, TimeRemainingColumn

    with Progress(
        "{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task(_("Playing"), total=None)

        def progress(done: int, planned: int) -> None:
            bar.update(task, completed=done, total=planned)

        return run_experiment(experiment, backend, results, resume, progress)


def _write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file of the same folder, then rename (as ``write_text_atomic``)."""
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _output(report: LabReport, as_json: bool, as_csv: bool, html: Path | None, summary: Path | None = None) -> None:
    """Print the report in the format asked for and write the HTML file and the summary image."""
    from biblios_kit.atomic import write_text_atomic
    from biblios_kit.lab import report as out

    if html is not None:
        try:
            write_text_atomic(html, out.to_html(report))
        except OSError as error:
            fail(f"{error_prefix()} {html}: {error.strerror or error}")
    if summary is not None:
        try:
            _write_bytes_atomic(summary, out.summary_bytes(report, summary.suffix.lower().lstrip(".")))
        except OSError as error:
            fail(f"{error_prefix()} {summary}: {error.strerror or error}")
    if as_json:
        print(out.to_json(report))
    elif as_csv:
        sys.stdout.write(out.to_csv(report))
    else:
        out.render_terminal(report)
