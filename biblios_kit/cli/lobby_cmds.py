"""``biblios-kit host tables | invite | settings | close``: the admin's view of a running server's tables."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from biblios_kit.bounded import count_of
from biblios_kit.cli.clock_options import (
    AbsentSecondsOption,
    GameSecondsOption,
    MoveSecondsOption,
    StandInOption,
    clock_fields,
    clock_line,
)
from biblios_kit.cli.common import error_prefix, fail
from biblios_kit.i18n import N_, _

DEFAULT_PORT = 8765
"""The port ``biblios-kit host`` listens on by default."""

ADMIN_TOKEN_VARIABLE = "BIBLIOS_KIT_ADMIN_TOKEN"
"""The environment variable the admin commands take the admin token from (else the data folder's ``admin-token``)."""

HINT_LABELS = {
    "off": N_("hints off"),
    "on": N_("hints on"),
    "bots-only": N_("hints only for one person against bots"),
}
"""How ``host tables`` says a table's hint setting."""

T = TypeVar("T")

ServerOption = Annotated[str | None, typer.Option("--server", help=_("URL of the server (default: the local one)."))]
DataDirOption = Annotated[
    Path | None, typer.Option("--data-dir", help=_("The server's data folder (holds its admin token)."))
]
PortOption = Annotated[int, typer.Option("--port", help=_("Port of the local server."))]
JsonOption = Annotated[bool, typer.Option("--json", help=_("Print the server's reply as JSON."))]


def default_data_dir() -> Path:
    """Where the server keeps its tables and records unless ``--data-dir`` says otherwise."""
    from biblios_kit.resources import user_data_dir

    return user_data_dir() / "server"


def check_port(port: int) -> None:
    """Exit with status 2 unless ``port`` is a TCP port."""
    if not 0 < port < 65536:
        fail(f"{error_prefix()} " + _("--port must be between 1 and 65535"))


def admin_token(data_dir: Path | None) -> str:
    """The admin token: ``BIBLIOS_KIT_ADMIN_TOKEN``, else the data folder's (exit status 2 when there is none)."""
    admin = os.environ.get(ADMIN_TOKEN_VARIABLE, "").strip()  # a server elsewhere: its token, off the command line
    if admin:
        return admin
    token_file = (data_dir or default_data_dir()) / "admin-token"
    if not token_file.is_file():
        fail(f"{error_prefix()} {token_file}: " + _("no admin token (start the server with biblios-kit host first)"))
    return token_file.read_text(encoding="utf-8").strip()


def server_url(server: str | None, port: int) -> str:
    """The server's URL: ``--server``, else the local one on ``port``."""
    check_port(port)
    return server or f"http://127.0.0.1:{port}"


def call(url: str, request: Callable[[Any], Awaitable[T]]) -> T:
    """Run one request of an :class:`~biblios_kit.net.client.ApiClient` to ``url``; an error exits with status 2."""
    from biblios_kit.net.client import ApiClient, ApiError

    async def run() -> T:
        async with ApiClient(url) as client:
            return await request(client)

    try:
        return asyncio.run(run())
    except ApiError as error:
        fail(f"{error_prefix()} {error.message if error.code == 'network' else f'{url}: {error.message}'}")


def table_id(text: str) -> str:
    """``text`` if it can be a table's id (letters, digits, ``-`` and ``_``), else exit with status 2."""
    import re

    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", text):
        fail(f"{error_prefix()} " + _("not a table id: {table}").format(table=repr(text[:64])))
    return text


def table_lines(summary: dict[str, Any]) -> list[str]:
    """A table of ``host tables`` as lines: its state and whose turn, each seat and who is connected, its settings."""
    from biblios_kit.rulebook.describe import bot_note, player_name

    names = [player_name(seat["name"], seat["seat"]) for seat in summary["seats"]]
    to_move = summary["to_move"]
    if summary["state"] == "finished":
        state = _("finished")
    elif isinstance(to_move, int) and 0 <= to_move < len(names):
        state = _("move {version}, {player} to play").format(version=summary["version"] + 1, player=names[to_move])
    else:
        state = _("playing")
    lines = [f"{summary['table']} · {summary['ruleset']} · {state}"]
    for seat, name in zip(summary["seats"], names):
        if seat["kind"] == "human" and seat["free"]:
            lines.append(f"  {seat['seat'] + 1}. {name}: " + _("free seat"))
        elif seat["kind"] == "human":
            presence = _("connected") if seat["connected"] else _("away")
            lines.append(f"  {seat['seat'] + 1}. {name}: {presence}")
        else:
            lines.append(f"  {seat['seat'] + 1}. {name} {bot_note(seat['kind'])}")
    settings = summary["settings"]
    label = HINT_LABELS.get(settings["hints"])
    hints = _(label) if label is not None else settings["hints"]
    watching = (
        _("spectators: {link} ({count} watching)").format(link=summary["spectator_link"], count=summary["spectators"])
        if summary["spectator_link"]
        else _("no spectators")
    )
    lines.append(f"  {hints} · {watching}" + (" · " + _("open in the lobby") if settings["open"] else ""))
    clocks = clock_line(settings)
    if clocks is not None:
        lines.append(f"  {clocks}")
    return lines


def register_lobby(host_app: typer.Typer) -> None:
    """Add ``tables``, ``invite``, ``settings`` and ``close`` to ``biblios-kit host``."""

    @host_app.command("tables", help=_("List the tables of a running server: who is connected, whose turn it is."))
    def tables(server: ServerOption = None, data_dir: DataDirOption = None, port: PortOption = DEFAULT_PORT,
               as_json: JsonOption = False) -> None:  # fmt: skip
        """Print every table of the server (``GET /api/tables``)."""
        admin = admin_token(data_dir)
        reply = call(server_url(server, port), lambda client: client.tables(admin))
        if as_json:
            print(json.dumps(reply, ensure_ascii=False, indent=1))
            return
        if not reply["tables"]:
            print(_("No tables on this server."))
        for summary in reply["tables"]:
            print("\n".join(table_lines(summary)))
        for table, reason in reply["broken"].items():
            print(_("{table} cannot be resumed: {reason}").format(table=table, reason=reason))

    @host_app.command("invite", help=_("Issue a new link for a seat (the old one stops working) and print it."))
    def invite(
        table: Annotated[str, typer.Argument(help=_("The table's id."))],
        seat: Annotated[str, typer.Argument(help=_("The seat, counted from 1."))],
        server: ServerOption = None,
        data_dir: DataDirOption = None,
        port: PortOption = DEFAULT_PORT,
    ) -> None:
        """Issue the seat's link again (``POST /api/tables/{table}/invite``)."""
        number = count_of(seat.strip())
        if number is None or number < 1:
            fail(f"{error_prefix()} " + _("the seat must be a number from 1"))
        table = table_id(table)
        admin = admin_token(data_dir)
        reply = call(server_url(server, port), lambda client: client.invite(admin, table, number - 1))
        print(_("New link for seat {seat} (the old one no longer works):").format(seat=number))
        print(f"  {reply['link']}")

    @host_app.command("settings", help=_("Change a table's settings: hints, spectators, clocks."))
    def settings(
        table: Annotated[str, typer.Argument(help=_("The table's id."))],
        hints: Annotated[
            str | None, typer.Option("--hints", help=_("Who may ask for hints: off, on or bots-only."))
        ] = None,
        spectators: Annotated[
            bool | None,
            typer.Option("--spectators/--no-spectators", help=_("Whether the table may be watched.")),
        ] = None,
        open_table: Annotated[
            bool | None,
            typer.Option("--open/--no-open", help=_("Whether the server's public lobby lists the table.")),
        ] = None,
        server: ServerOption = None,
        data_dir: DataDirOption = None,
        port: PortOption = DEFAULT_PORT,
        move_seconds: MoveSecondsOption = None,
        game_seconds: GameSecondsOption = None,
        absent_seconds: AbsentSecondsOption = None,
        stand_in: StandInOption = None,
    ) -> None:
        """Change the table's settings (``POST /api/tables/{table}/settings``) and print the table."""
        table = table_id(table)
        fields: dict[str, Any] = {}
        if hints is not None:
            fields["hints"] = hints
        if spectators is not None:
            fields["spectators"] = spectators
        if open_table is not None:
            fields["open"] = open_table
        fields.update(clock_fields(move_seconds, game_seconds, absent_seconds, stand_in))
        admin = admin_token(data_dir)
        reply = call(server_url(server, port), lambda client: client.change_settings(admin, table, **fields))
        print("\n".join(table_lines(reply)))

    @host_app.command("close", help=_("Close a table: its players are told, and it is no longer served."))
    def close(
        table: Annotated[str, typer.Argument(help=_("The table's id."))],
        server: ServerOption = None,
        data_dir: DataDirOption = None,
        port: PortOption = DEFAULT_PORT,
    ) -> None:
        """Close the table (``DELETE /api/tables/{table}``)."""
        table = table_id(table)
        admin = admin_token(data_dir)
        call(server_url(server, port), lambda client: client.close_table(admin, table))
        print(_("Table {table} closed.").format(table=table))
