"""``biblios-kit play``: the terminal game (setup screen, table, saves), or the same app in a browser with ``--web``."""

from __future__ import annotations

import os
import shlex
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from biblios_kit.cli.common import LangOption, error_prefix, fail, start
from biblios_kit.cli.options import PLAYERS, SEED, OptionOption, RulesetOption
from biblios_kit.i18n import _, format_list, ngettext
from biblios_kit.lifeline import bind_to_parent

if TYPE_CHECKING:
    from biblios_kit.tui.config import GameConfig

SEAT_KINDS: tuple[str, ...] = ("human", "random", "easy", "medium", "hard")
"""What ``--seat`` accepts (a bot spec with parameters, such as ``hard:iterations=500``, works too)."""


def register(app: typer.Typer) -> None:
    """Add the ``play`` command to ``app``."""

    @app.command("play", help=_("Play Biblios or Scripts & Scribes in the terminal, hot-seat or against bots."))
    def play(
        ruleset: RulesetOption = None,
        option: OptionOption = None,
        players: Annotated[int | None, PLAYERS] = None,
        seed: Annotated[int | None, SEED] = None,
        seat: Annotated[
            list[str] | None,
            typer.Option(
                "--seat", help=_("Who plays each seat, in order: human, random, easy, medium or hard (repeatable).")
            ),
        ] = None,
        name: Annotated[
            list[str] | None, typer.Option("--name", help=_("Name of each seat, in order (repeatable)."))
        ] = None,
        forced_moves: Annotated[
            str | None,
            typer.Option(
                "--forced-moves",
                help=_(
                    "Moves played for a person when each is their only legal move: picks-payments (picks and "
                    "payments, the default), all (every such move) or off (none)."
                ),
            ),
        ] = None,
        resume: Annotated[bool, typer.Option("--resume", help=_("Continue the saved game."))] = False,
        bot_delay: Annotated[float, typer.Option("--bot-delay", help=_("Seconds each bot move stays visible."))] = 0.6,
        web: Annotated[
            bool, typer.Option("--web", help=_("Serve the game to a web browser instead (see --bind)."))
        ] = False,
        port: Annotated[int, typer.Option("--port", help=_("Port of the web server."))] = 8000,
        bind: Annotated[
            str, typer.Option("--bind", help=_("Address the web server listens on (127.0.0.1: this machine only)."))
        ] = "127.0.0.1",
        max_sessions: Annotated[
            int, typer.Option("--max-sessions", help=_("Browser tabs (each a game process) served at once."))
        ] = 4,
        lang: LangOption = None,
    ) -> None:
        """Check the flags, then run the terminal app (or serve it with ``--web``)."""
        bind_to_parent()  # a browser tab's game ends with the server that started it
        language = start(lang)
        config = _config(ruleset, option or [], players, seed, seat or [], name or [], language, forced_moves)
        if lang is not None:  # an explicit --lang wins over the language a saved game was left in
            config.explicit = config.explicit | {"lang"}
        if bot_delay < 0:
            fail(f"{error_prefix()} " + _("--bot-delay must not be negative"))
        if web:
            _serve(port, language, bind, max_sessions)
            return
        if not os.environ.get("TEXTUAL_DRIVER") and not (sys.stdin.isatty() and sys.stdout.isatty()):
            fail(f"{error_prefix()} " + _("play needs an interactive terminal (or use --web)"))
        from biblios_kit.tui.app import make_app

        make_app(config, resume=resume, bot_delay=bot_delay).run()


def _config(ruleset: str | None, options: list[str], players: int | None, seed: int | None, seats: list[str],
            names: list[str], lang: str, forced_moves: str | None = None) -> GameConfig:  # fmt: skip
    """Check the flags (bad input exits with status 2) and build the :class:`GameConfig` they describe."""
    from biblios_kit.tui.config import AUTOPLAY_MODES, DEFAULT_AUTOPLAY, GameConfig

    explicit = set()
    from biblios_kit.bounded import MAX_INT_DIGITS

    if forced_moves is not None:
        if forced_moves not in AUTOPLAY_MODES:
            fail(f"{error_prefix()} " + _("--forced-moves must be {values}, not {value}").format(
                values=format_list(AUTOPLAY_MODES, style="or"), value=shlex.quote(forced_moves)))  # fmt: skip
        explicit.add("autoplay")  # it also wins over the setting a continued game was saved with
    autoplay = forced_moves or DEFAULT_AUTOPLAY
    from biblios_kit.names import clean_name, name_problem

    for given in names:  # the rule of every entry point: see biblios_kit/names.py
        problem = name_problem(given)
        if problem:
            fail(f"{error_prefix()} --name {given!r}: {problem}")  # repr: no control character reaches the terminal
    names = [clean_name(given) for given in names]
    if seed is not None and abs(seed) >= 10**MAX_INT_DIGITS:  # the save could not hold it
        fail(f"{error_prefix()} " + _("--seed must have at most {digits} digits").format(digits=MAX_INT_DIGITS))
    if ruleset is None and not options and players is None and not seats:
        # Nothing to check: the setup screen loads the default edition after its first frame
        # (so the loader, YAML and the ruleset model are not imported here).
        if len(names) > 3:
            fail(
                f"{error_prefix()} "
                + ngettext(
                    "{count} --name given for {players} player", "{count} --name given for {players} players", 3
                ).format(count=len(names), players=3)
            )
        return GameConfig(names=tuple(names), seed=seed, lang=lang, autoplay=autoplay, explicit=frozenset(explicit))
    from biblios_kit.errors import BibliosError
    from biblios_kit.rules import load_ruleset

    try:
        loaded = load_ruleset(ruleset or "biblios", options)
    except BibliosError as error:
        fail(f"{error_prefix()} {error}")
    if ruleset is not None:
        explicit.add("ruleset")
    if seats:
        from biblios_kit.bots.registry import BotSpecError, parse_spec
    for spec in seats:
        if spec != "human":
            try:
                parse_spec(spec)
            except BotSpecError as error:
                fail(f"{error_prefix()} --seat {shlex.quote(spec)}: {error}")
    if players is None:
        players = len(seats) if seats else (3 if 3 in loaded.player_counts else loaded.player_counts[0])
    else:
        explicit.add("players")
    if players not in loaded.player_counts:
        fail(f"{error_prefix()} " + _("{ruleset} is played by {counts} players, not {players}").format(
            ruleset=loaded.id, counts=format_list(map(str, loaded.player_counts), style="or"), players=players))  # fmt: skip
    if seats:
        explicit.add("seats")
        if len(seats) > players:
            fail(f"{error_prefix()} " + ngettext(
                "{count} --seat given for {players} player", "{count} --seat given for {players} players", players
            ).format(count=len(seats), players=players))  # fmt: skip
        if "human" not in seats and len(seats) == players:
            fail(f"{error_prefix()} " + _("at least one --seat must be human"))
        if len(seats) == players:
            explicit.add("ruleset")
            explicit.add("players")
    if len(names) > players:
        fail(
            f"{error_prefix()} "
            + ngettext(
                "{count} --name given for {players} player", "{count} --name given for {players} players", players
            ).format(count=len(names), players=players)
        )
    return GameConfig(
        ruleset=loaded.id if ruleset is None else ruleset,
        options=tuple(sorted(loaded.active_options)),
        players=players,
        seats=tuple(seats),
        names=tuple(names),
        seed=seed,
        lang=lang,
        autoplay=autoplay,
        explicit=frozenset(explicit),
    )


def _serve(port: int, lang: str, bind: str, max_sessions: int) -> None:
    """Serve the app to browsers: each tab runs ``biblios-kit play`` in its own process (textual-serve's AppService).

    The server binds 127.0.0.1 unless ``--bind`` says otherwise (with a warning), serves
    nothing without the random token of the printed URL (kept in a cookie once opened),
    checks Host and Origin, runs at most ``max_sessions`` games at once and lists no folder.
    """
    if not 0 < port < 65536:
        fail(f"{error_prefix()} " + _("--port must be between 1 and 65535"))
    if max_sessions < 1:
        fail(f"{error_prefix()} " + _("--max-sessions must be at least 1"))
    from aiohttp import web

    from biblios_kit.net.security import bind_warning, new_token
    from biblios_kit.net.web import browser_language, make_play_app

    args = sys.argv[1:]
    cleaned: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in ("--port", "--bind", "--max-sessions"):
            skip = True
            continue
        if arg == "--web" or arg.startswith(("--port=", "--bind=", "--max-sessions=")):
            continue
        cleaned.append(arg)
    explicit_lang = "--lang" in cleaned or any(a.startswith("--lang=") for a in cleaned)

    def command(request: web.Request) -> str:
        """The game of one browser tab: in the browser's language unless ``--lang`` was given."""
        chosen = [] if explicit_lang else ["--lang", browser_language(request) or lang]
        return shlex.join([sys.executable, "-m", "biblios_kit", *cleaned, *chosen])

    token = new_token()
    warning = bind_warning(bind)
    if warning:
        print(warning, file=sys.stderr)
    shown = "127.0.0.1" if bind in ("0.0.0.0", "::", "") else bind
    host = f"[{shown}]" if ":" in shown else shown
    url = f"http://{host}:{port}/?token={token}"

    def page_language(request: web.Request) -> str:
        """The page's language: the game's (``--lang``, else the browser's)."""
        return lang if explicit_lang else browser_language(request) or lang

    app = make_play_app(command, token, max_sessions=max_sessions, page_language=page_language)

    def serving(_banner: str) -> None:
        """The link, once the server listens (and Ctrl+C stops it cleanly): never for a port it could not take."""
        print(_("Serving biblios-kit on {url} (Ctrl+C to stop)").format(url=url), file=sys.stderr, flush=True)

    try:
        web.run_app(app, host=bind, port=port, print=serving, access_log=None, shutdown_timeout=5)
    except OSError as error:
        fail(f"{error_prefix()} " + _("cannot listen on {address}: {reason}").format(
            address=f"{bind}:{port}", reason=error.strerror or error))  # fmt: skip
