"""``biblios-kit host`` (a game server), ``host new`` (a table and its invitations) and ``join LINK`` (play a seat)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from biblios_kit.bounded import count_of
from biblios_kit.cli.clock_options import (
    AbsentSecondsOption,
    GameSecondsOption,
    MoveSecondsOption,
    StandInOption,
    clock_fields,
)
from biblios_kit.cli.common import LangOption, error_prefix, fail, start
from biblios_kit.cli.lobby_cmds import (
    DEFAULT_PORT,
    admin_token,
    call,
    default_data_dir,
    register_lobby,
    server_url,
)
from biblios_kit.cli.lobby_cmds import check_port as _check_port
from biblios_kit.i18n import _
from biblios_kit.names import clean_text


def register_host(app: typer.Typer) -> None:
    """Add ``host`` (with ``host new``) to ``app``."""
    host_app = typer.Typer(
        help=_("Host games over the network: serve tables, create them, print invitations."),
        invoke_without_command=True,
        rich_markup_mode=None,
    )
    app.add_typer(host_app, name="host")
    register_lobby(host_app)

    @host_app.callback()
    def host(
        context: typer.Context,
        bind: Annotated[
            str, typer.Option("--bind", help=_("Address to listen on (127.0.0.1: this machine only)."))
        ] = "127.0.0.1",
        port: Annotated[int, typer.Option("--port", help=_("Port to listen on."))] = DEFAULT_PORT,
        data_dir: Annotated[
            Path | None, typer.Option("--data-dir", help=_("Folder of the tables and game records."))
        ] = None,
        public_url: Annotated[
            str | None, typer.Option("--public-url", help=_("Base URL of the invitation links (default: from --bind)."))
        ] = None,
        allow_host: Annotated[
            list[str] | None,
            typer.Option("--allow-host", help=_("A host name the server may be reached by (repeatable).")),
        ] = None,
        durable: Annotated[
            bool, typer.Option("--durable", help=_("Flush every action to disk (survives a power cut; slower)."))
        ] = False,
        db: Annotated[
            str | None,
            typer.Option(
                "--db",
                help=_(
                    "Keep the tables in PostgreSQL (postgresql://USER@HOST/DATABASE), shared by several host "
                    "processes (default: SQLite in --data-dir)."
                ),
            ),
        ] = None,
        lobby: Annotated[
            bool, typer.Option("--lobby", help=_("Serve the public lobby (/lobby): open tables, free seats."))
        ] = False,
        lang: LangOption = None,
    ) -> None:
        """Serve the tables of ``--data-dir`` or ``--db`` (unless a subcommand such as ``new`` follows)."""
        start(lang)
        if context.invoked_subcommand is not None:
            return
        _check_port(port)
        if db is not None:
            _check_database(db)
        from biblios_kit.net.security import bind_warning
        from biblios_kit.net.server import ServerConfig, serve

        folder = data_dir or default_data_dir()
        shown = "127.0.0.1" if bind in ("0.0.0.0", "::", "") else bind
        url = public_url or f"http://{'[' + shown + ']' if ':' in shown else shown}:{port}"
        if public_url is not None and not public_url.startswith(("http://", "https://")):
            fail(f"{error_prefix()} --public-url: " + _("expected a URL starting with http:// or https://"))
        warning = bind_warning(bind)
        if warning:
            print(warning, file=sys.stderr)
        config = ServerConfig(
            folder,
            public_url=url,
            allowed_hosts=tuple(allow_host or ()),
            durable=durable,
            db=db,
            lobby=lobby,
        )

        def ready() -> None:
            if db is None:
                message = _("Serving games on {url} (data in {folder}; Ctrl+C to stop)").format(url=url, folder=folder)
            else:
                from biblios_kit.net.storage import redacted

                message = _(
                    "Serving games on {url} (tables in {database}, records in {folder}; Ctrl+C to stop)"
                ).format(url=url, database=redacted(db), folder=folder)
            print(message, file=sys.stderr, flush=True)

        from biblios_kit.net.storage import StorageError

        try:
            serve(config, bind, port, ready)
        except StorageError as error:
            from biblios_kit.net.storage import redacted

            fail(f"{error_prefix()} " + _("cannot use the database {database}: {reason}").format(
                database=redacted(db or ""), reason=clean_text(str(error), limit=300)))  # fmt: skip
        except OSError as error:
            fail(f"{error_prefix()} " + _("cannot listen on {address}: {reason}").format(
                address=f"{bind}:{port}", reason=error.strerror or error))  # fmt: skip

    @host_app.command("new", help=_("Create a table on a running server and print one invitation per human seat."))
    def new(
        ruleset: Annotated[str, typer.Option("--ruleset", "-r", help=_("Edition or variant."))] = "biblios",
        option: Annotated[
            list[str] | None, typer.Option("--option", "-o", help=_("Switch a ruleset option on (repeatable)."))
        ] = None,
        players: Annotated[int, typer.Option("--players", "-n", help=_("Number of players."))] = 3,
        seat: Annotated[
            list[str] | None,
            typer.Option("--seat", help=_("A bot in a seat, as SEAT=BOT (seats count from 1), e.g. 3=medium.")),
        ] = None,
        name: Annotated[
            list[str] | None, typer.Option("--name", help=_("A seat's name, as SEAT=NAME (repeatable)."))
        ] = None,
        seed: Annotated[int | None, typer.Option("--seed", help=_("Seed of the deal (random by default)."))] = None,
        bot_delay: Annotated[
            float, typer.Option("--bot-delay", help=_("Seconds the server's bots wait before each move."))
        ] = 0.5,
        server: Annotated[
            str | None, typer.Option("--server", help=_("URL of the server (default: the local one)."))
        ] = None,
        data_dir: Annotated[
            Path | None, typer.Option("--data-dir", help=_("The server's data folder (holds its admin token)."))
        ] = None,
        port: Annotated[int, typer.Option("--port", help=_("Port of the local server."))] = DEFAULT_PORT,
        as_json: Annotated[
            bool, typer.Option("--json", help=_("Print the table and its invitations as JSON."))
        ] = False,
        hints: Annotated[
            str | None,
            typer.Option("--hints", help=_("Who may ask for hints: off, on or bots-only (default: bots-only).")),
        ] = None,
        spectators: Annotated[
            bool, typer.Option("--spectators/--no-spectators", help=_("Whether the table may be watched."))
        ] = True,
        open_table: Annotated[
            bool, typer.Option("--open", help=_("List the table in the server's public lobby (host --lobby)."))
        ] = False,
        free_seat: Annotated[
            list[str] | None,
            typer.Option("--free-seat", help=_("A seat left for a visitor of the lobby (repeatable; from 1).")),
        ] = None,
        move_seconds: MoveSecondsOption = None,
        game_seconds: GameSecondsOption = None,
        absent_seconds: AbsentSecondsOption = None,
        stand_in: StandInOption = None,
    ) -> None:
        """Create a table through the API with the data folder's admin token; print the invitations."""
        if not 1 <= players <= 12:
            fail(f"{error_prefix()} --players: " + _("expected a number of players between 1 and 12"))
        seats = ["human"] * players
        for item in seat or []:
            number, spec = _numbered(item, "--seat", players)
            from biblios_kit.bots.registry import BotSpecError, parse_spec

            if spec != "human":
                try:
                    parse_spec(spec)
                except BotSpecError as error:
                    fail(f"{error_prefix()} --seat {item}: {error}")
            seats[number - 1] = spec
        names: list[str] = []
        given = {}
        for item in name or []:
            number, value = _numbered(item, "--name", players)
            given[number] = value
        if given:
            names = [given.get(n, "") for n in range(1, players + 1)]  # "": the default name, in each viewer's language
        admin = admin_token(data_dir)
        url = server_url(server, port)
        body: dict[str, Any] = {"ruleset": ruleset, "options": option or [], "players": players, "seats": seats,
                                "names": names, "bot_delay": bot_delay, "spectators": spectators}  # fmt: skip
        if hints is not None:
            body["hints"] = hints
        if open_table:
            body["open"] = True
        body.update(clock_fields(move_seconds, game_seconds, absent_seconds, stand_in))
        free: list[int] = []
        for item in free_seat or []:
            left = count_of(item.strip())
            if left is None or not 1 <= left <= players or seats[left - 1] != "human":
                fail(f"{error_prefix()} --free-seat {item}: " + _("expected a person's seat, from 1 to {players}")
                     .format(players=players))  # fmt: skip
            free.append(left - 1)
        if free:
            body["free_seats"] = free
        if seed is not None:
            body["seed"] = seed
        reply = call(url, lambda client: client.create_table(admin, **body))
        if as_json:
            print(json.dumps(reply, ensure_ascii=False, indent=1))
            return
        from biblios_kit.rulebook.describe import bot_note, player_name

        print(_("Table {table} created. Send each person their link:").format(table=reply["table"]))
        for entry in reply["seats"]:
            if entry["link"]:
                print(f"  {entry['seat'] + 1}. {player_name(entry['name'], entry['seat'])}: {entry['link']}")
            elif entry["kind"] == "human":  # left free: a visitor of the lobby takes it, or host invite fills it
                print(f"  {entry['seat'] + 1}. {player_name(entry['name'], entry['seat'])}: " + _("free seat"))
            else:
                print(f"  {entry['seat'] + 1}. {player_name(entry['name'], entry['seat'])} {bot_note(entry['kind'])}")
        print(_("Play in a terminal with: biblios-kit join LINK (or open the link in a browser)."))
        if reply.get("spectator_link"):
            print(_("Anyone may watch at: {link}").format(link=reply["spectator_link"]))


def register_join(app: typer.Typer) -> None:
    """Add ``join`` to ``app``."""

    @app.command(
        "join",
        help=_(
            "Play a seat of a table on a game server from its invitation link, or watch it from its spectator link."
        ),
    )
    def join(
        link: Annotated[
            str,
            typer.Argument(help=_("The invitation link (…/play/TABLE?token=…), or a spectator link (…/watch/TABLE).")),
        ],
        bell: Annotated[
            bool, typer.Option("--bell/--no-bell", help=_("Ring the terminal bell when it is your turn."))
        ] = True,
        lang: LangOption = None,
    ) -> None:
        """Parse the link, then run the table in the terminal."""
        language = start(lang)
        from biblios_kit.net.client import parse_link

        try:
            invitation = parse_link(link)
        except ValueError:
            fail(f"{error_prefix()} " + _("not an invitation link: {link}").format(link=clean_text(link, limit=200)))
        token = invitation.token
        if token is None and not invitation.watch:  # a spectator link (/watch/TABLE) has none: the public view
            fail(f"{error_prefix()} " + _("the link has no seat token (…?token=…)"))
        if not os.environ.get("TEXTUAL_DRIVER") and not (sys.stdin.isatty() and sys.stdout.isatty()):
            fail(f"{error_prefix()} " + _("join needs an interactive terminal"))
        from biblios_kit.net.remote import RemoteApp

        app = RemoteApp(invitation.server, invitation.table, token, language, bell=bell)
        app.run()
        if app.moved_to:  # a rematch moved the seat: its new link joins it again
            typer.echo(_("Your seat at the rematch's table: {link}").format(link=clean_text(app.moved_to, limit=500)))
        if app.problem:
            fail(f"{error_prefix()} {app.problem}")


def _numbered(item: str, flag: str, players: int) -> tuple[int, str]:
    """Split ``SEAT=VALUE`` (seat 1 .. players), failing with status 2 on a bad form."""
    number, sep, value = item.partition("=")
    seat = count_of(number.strip())
    if not sep or seat is None or not value.strip():
        fail(f"{error_prefix()} {flag} {item!r}: " + _("expected SEAT=VALUE, e.g. 3=medium"))
    if not 1 <= seat <= players:
        fail(f"{error_prefix()} {flag} {item}: " + _("seat {seat} is not between 1 and {players}").format(
            seat=seat, players=players))  # fmt: skip
    return seat, value.strip()


def _check_database(db: str) -> None:
    """Fail (status 2) unless ``db`` is a PostgreSQL URL and the driver is installed."""
    import importlib.util

    from biblios_kit.net.storage import is_database_url, redacted

    if not is_database_url(db):
        fail(f"{error_prefix()} --db {clean_text(redacted(db), limit=200)}: "
             + _("expected a PostgreSQL URL starting with postgresql://"))  # fmt: skip
    if importlib.util.find_spec("psycopg") is None:
        fail(
            f"{error_prefix()} --db: "
            + _("the PostgreSQL driver is not installed (pip install 'biblios-kit[postgres]')")
        )
