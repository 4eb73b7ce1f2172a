"""Hostile names and server messages: no control character reaches a screen, markup shows as typed, never a crash.

A seat name can come from ``play --name``, the setup screen, a saved game, a game
server's views or the server's table creation; each entry cleans it
(:mod:`biblios_kit.names`) and every screen shows it as content, never as markup. The
network client reads replies and WebSocket messages up to a bound and stops with a
clear message on a message too large or malformed (``docs/inputs.md``, ``docs/network.md``).
"""

from __future__ import annotations

import asyncio
import io
import json
import random
import unicodedata
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from conftest import game_config, prepare_save, run_until, visible_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from biblios_kit.engine.state import new_game
from biblios_kit.i18n import set_language
from biblios_kit.names import MAX_NAME_LENGTH, clean_name, clean_text, hidden, name_problem
from biblios_kit.net.client import MAX_REPLY_BYTES, ApiClient, ApiError
from biblios_kit.net.remote import RemoteApp, RemoteSession, _post_json
from biblios_kit.net.store import Store
from biblios_kit.net.tables import Rejected, TableHub
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.loader import resolve_ruleset
from biblios_kit.tui.app import make_app
from biblios_kit.tui.render import focus_text, players_table
from biblios_kit.tui.saves import load_game, save_game
from biblios_kit.tui.screens.curtain import CurtainScreen
from biblios_kit.tui.screens.end import EndScreen, hands_renderable, result_renderable
from biblios_kit.tui.screens.table import TableScreen

ESCAPES = {
    "title": "\x1b]0;pwned\x07Ana",  # OSC 0: the window title
    "clear": "\x1b[2JBeto",  # CSI: clear the screen
    "clipboard": "\x1b]52;c;cm0gLXJmIH4K\x07Cleo",  # OSC 52: write the clipboard
    "hyperlink": "\x1b]8;;https://evil.example\x1b\\Dan\x1b]8;;\x1b\\",  # OSC 8: a hyperlink
    "c1": "\x9b31mEve",  # C1 CSI (U+009B)
    "bidi": "\u202eFlo",  # right-to-left override
    "zero width": "G\u200bu\u200dy\ufeff",  # zero-width space, joiner, byte order mark
    "separators": "Hal\u2028\u2029",  # line and paragraph separators
}
MARKUP = ["[/]", "[link=https://evil.example]Ida[/link]", "[bold]Jo", "[$accent]Kim", "[@click=app.quit]Lu[/]"]


def visible(text: str) -> bool:
    """No character of ``text`` is hidden (control, format, separator, ...)."""
    return not any(hidden(c) for c in text)


# ---------------------------------------------------------------- the cleaner


@pytest.mark.parametrize("raw", ESCAPES.values(), ids=list(ESCAPES))
def test_every_escape_sequence_loses_its_hidden_characters(raw: str) -> None:
    name = clean_name(raw, "default")
    assert visible(name) and "\x1b" not in name and "\x9b" not in name
    assert name_problem(raw) is not None  # where a person types it, it is refused instead


def test_clean_name_keeps_words_collapses_spaces_caps_and_falls_back() -> None:
    assert clean_name("\x1b]0;pwned\x07Ana") == "]0;pwnedAna"  # what is left is shown as plain text
    assert clean_name("  Ana \n\t Beto  ") == "Ana Beto"
    assert clean_name("G\u200bu\u200dy") == "Guy"
    assert clean_name("x" * 100) == "x" * MAX_NAME_LENGTH
    assert clean_name("Zoé [/]") == "Zoé [/]"  # markup characters are kept: the screens show them as typed
    for empty in ("", "   ", "\x1b", "\u202e\u200b", None, 7, ["Ana"]):
        assert clean_name(empty, "Player 1") == "Player 1"
    assert name_problem("Ana") is None and name_problem(" [/] ") is None
    assert name_problem("") and name_problem("x" * 41) and name_problem("Ana\nBeto")
    assert clean_text("oops\x1b[2J\nline two\u202e") == "oops[2J\nline two"
    assert clean_text("x" * 600).endswith("…") and len(clean_text("x" * 600)) == 500


def test_the_reasons_are_translated() -> None:
    set_language("fr")
    try:
        assert "caractère de contrôle" in (name_problem("Ana\x1b") or "")
        assert "1 à 40 caractères" in (name_problem("x" * 41) or "")
    finally:
        set_language("en")


# ---------------------------------------------------------------- entry points


def test_play_name_refuses_hidden_characters_with_status_2() -> None:
    from typer.testing import CliRunner

    from biblios_kit.cli.app import build_app

    for raw in ESCAPES.values():
        result = CliRunner().invoke(build_app(), ["play", "--name", raw, "--lang", "en"])
        assert result.exit_code == 2, result.output
        assert "control characters" in result.output and "Traceback" not in result.output
        assert visible(result.output.replace("\n", ""))


def test_play_name_takes_markup_characters_as_they_are() -> None:
    from biblios_kit.cli.play_cmds import _config

    config = _config(None, [], 3, None, ["human", "human", "random"], ["[/]", " [bold]Jo "], "en")
    assert config.names == ("[/]", "[bold]Jo")


def test_a_save_with_hostile_names_is_read_with_clean_ones(tmp_path: Path) -> None:
    path = tmp_path / "save.json"
    state = new_game(load_ruleset("biblios"), 3, 5)
    save_game(state, ["human"] * 3, ["a", "b", "c"], "en", path)
    document = json.loads(path.read_text())
    document["table"]["names"] = [ESCAPES["clear"], 42, "x" * 500]
    path.write_text(json.dumps(document))
    assert load_game(path).names == ("[2JBeto", "Player 2", "x" * MAX_NAME_LENGTH)


def test_the_server_refuses_hidden_characters_and_keeps_markup_as_text(tmp_path: Path) -> None:
    hub = TableHub(Store(tmp_path))
    for raw in ESCAPES.values():
        with pytest.raises(Rejected) as refused:
            hub.create("biblios", [], 3, [], names=["Ana", raw], bot_delay=0)
        assert refused.value.code == "bad_names" and "name 2" in refused.value.message
        assert visible(refused.value.message)
    invitation = hub.create("biblios", [], 3, [], names=["[/]", "  Ana   Beto "], bot_delay=0)
    assert hub.table(invitation.table).names[:2] == ("[/]", "Ana Beto")
    hub.store.close()


# ---------------------------------------------------------------- the screens


def test_markup_names_show_as_typed_on_the_curtain_and_the_table() -> None:
    """``play --name '[/]'`` crashed the curtain (MarkupError); ``[link=…]`` was a link."""
    names = ("[/]", "[link=https://evil.example]Ida[/link]", "[bold]Jo" + ESCAPES["clear"])

    async def scenario() -> None:
        app = make_app(game_config(seats=("human", "human", "random"), seed=3, names=names), bot_delay=0)
        async with app.run_test(size=(110, 34)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, CurtainScreen))
            await pilot.pause()
            text = visible_text(app)
            assert "Pass the keyboard to [/]." in text and "I am [/]: show my cards" in text
            await pilot.press("enter")
            await run_until(pilot, lambda: isinstance(app.screen, TableScreen))
            await pilot.pause()
            text = visible_text(app)
            assert "[/]" in text and "[link=https://evil.example]Ida[/link]" in text and "[bold]Jo[2JBeto" in text
            assert visible(text)

    asyncio.run(scenario())


def test_a_saved_game_with_markup_names_reaches_the_end_screen() -> None:
    """The end screen's result table took names as Rich markup (column headers, "won by")."""
    names = ("[/]", "[bold]Jo", ESCAPES["title"])
    prepare_save("scripts-and-scribes", ("human", "random", "random"), 4, lambda s: s.is_terminal(), names=names)

    async def scenario() -> None:
        app = make_app(resume=True, bot_delay=0)
        async with app.run_test(size=(120, 40)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, EndScreen))
            await pilot.pause()
            text = visible_text(app)
            assert "[/]" in text and "[bold]Jo" in text and "]0;pwnedAna" in text
            assert visible(text)

    asyncio.run(scenario())


def test_the_setup_screen_drops_pasted_control_characters_from_a_name() -> None:
    from textual.widgets import Input

    from biblios_kit.tui.config import GameConfig
    from biblios_kit.tui.screens.setup import SetupScreen

    async def scenario() -> None:
        app = make_app(GameConfig(lang="en"), bot_delay=0)
        async with app.run_test(size=(100, 34)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, SetupScreen) and bool(app.screen.query("#name-0")))
            screen = app.screen
            assert isinstance(screen, SetupScreen)
            field = screen.query_one("#name-0", Input)
            field.value = "\x1b]0;pwned\x07[/]Ana\u202e"  # what a paste would put there
            await pilot.pause()
            assert field.value == "]0;pwned[/]Ana" and screen.form.names[0] == "]0;pwned[/]Ana"
            assert screen.form.to_config("en").names[0] == "]0;pwned[/]Ana"

    asyncio.run(scenario())


# ---------------------------------------------------------------- a hostile server


def _real_view(tmp_path: Path, names: list[str]) -> dict[str, Any]:
    """A real view of seat 0 of a fresh table, with ``names`` put in by hand (as a hostile server would)."""
    hub = TableHub(Store(tmp_path / "real"))
    invitation = hub.create("biblios", [], 3, [], bot_delay=0, seed=8)
    view = hub.table(invitation.table).view(0)
    hub.store.close()
    for seat, name in zip(view["seats"], names):
        seat["name"] = name
    return view


@asynccontextmanager
async def fake_server(ws_messages: list[str] | None = None, http_body: bytes = b"{}",
                      http_status: int = 200, release: asyncio.Event | None = None) -> AsyncIterator[str]:  # fmt: skip
    """A server on 127.0.0.1 that answers every WebSocket hello with ``ws_messages`` (those after the first
    once ``release`` is set, when given) and every HTTP call with ``http_body``; yields its base URL."""

    async def socket(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.receive()  # the hello
        for index, message in enumerate(ws_messages or []):
            if index == 1 and release is not None:
                await release.wait()
            await ws.send_str(message)
        async for _message in ws:  # keep it open until the client leaves
            pass
        return ws

    async def http(request: web.Request) -> web.Response:
        return web.Response(body=http_body, status=http_status, content_type="application/json")

    app = web.Application()
    app.router.add_get("/api/tables/{id}/ws", socket)
    app.router.add_route("*", "/{tail:.*}", http)
    async with TestServer(app, host="127.0.0.1") as server:
        yield str(server.make_url("")).rstrip("/")


async def _join(url: str, until: Callable[[RemoteApp], bool]) -> RemoteApp:
    app = RemoteApp(url, "t1", "token", "en")
    async with app.run_test(size=(110, 34)) as pilot:
        await run_until(pilot, lambda: until(app))
        await pilot.pause()
        app.seen = visible_text(app)  # type: ignore[attr-defined]
        await app.action_quit()
    return app


def test_join_cleans_the_names_a_server_sends(tmp_path: Path) -> None:
    names = ["[/]" + ESCAPES["title"], ESCAPES["hyperlink"], "[link=https://evil.example]Ida"]
    view = _real_view(tmp_path, names)

    async def scenario() -> None:
        async with fake_server([json.dumps(view)]) as url:
            app = await _join(url, lambda app: isinstance(app.screen, TableScreen))
        assert app.remote_session is not None
        assert app.remote_session.names == ("[/]]0;pwnedAna", "]8;;https://evil.example\\Dan]8;;\\",
                                            "[link=https://evil.example]Ida")  # fmt: skip
        text = app.seen  # type: ignore[attr-defined]
        assert "[/]]0;pwnedAna" in text and "[link=https://evil.example]Ida" in text and visible(text)
        assert app.problem is None

    asyncio.run(scenario())


@pytest.mark.parametrize("ruleset_id", ["rulesets/biblios.yaml", "../../etc/ruleset.yaml", "nonexistent"])
def test_join_loads_only_a_ruleset_known_here_by_id(tmp_path: Path, ruleset_id: str) -> None:
    """A server cannot make the client read a file of its choosing: a ruleset is taken by id, never by path."""
    target = tmp_path / "etc" / "ruleset.yaml"
    target.parent.mkdir()
    target.write_text(resolve_ruleset("biblios").read_text(encoding="utf-8"), encoding="utf-8")
    view = _real_view(tmp_path, [])
    view["ruleset"]["id"] = str(target) if ruleset_id.startswith("..") else ruleset_id

    async def scenario() -> None:
        async with fake_server([json.dumps(view)]) as url:
            app = RemoteApp(url, "t1", "token", "en")
            async with app.run_test(size=(100, 30)) as pilot:
                await run_until(pilot, lambda: app.problem is not None)
        assert "does not have" in (app.problem or "")
        assert app.remote_session is None

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("ruleset", "options", "players", "seed"),
    [
        ("biblios", [], 3, 1),
        ("biblios", [], 4, 2),
        ("scripts-and-scribes", [], 2, 3),
        ("biblios", ["medieval-bluff"], 3, 4),
    ],
)
def test_every_view_of_real_games_passes_the_clients_checks(
    tmp_path: Path, ruleset: str, options: list[str], players: int, seed: int
) -> None:
    """The client's checks of a view (cards, players, dice, result in range) never refuse a real server's."""
    hub = TableHub(Store(tmp_path))
    invitation = hub.create(ruleset, options, players, [], seed=seed, bot_delay=0)
    table = hub.table(invitation.table)
    rules = load_ruleset(ruleset, options)
    sessions = [RemoteSession(None, rules, table.view(s), "en", lambda a: None) for s in range(players)]  # type: ignore[arg-type]
    rng = random.Random(seed)
    while not table.finished:
        seat = table.state.current_player
        assert seat is not None
        hub.act(table, seat, [rng.choice(table.view(seat, 10**6)["observation"]["legal_actions"])])
        for s, session in enumerate(sessions):
            session.update(table.view(s, len(session.remote.events)))
    assert all(session.over for session in sessions)
    hub.store.close()


@pytest.mark.parametrize(
    "spoil",
    [
        lambda v: v["observation"]["hand"].append(10**6),
        lambda v: v["observation"].update(current_player=7),
        lambda v: v["observation"]["dice"].append(3),
        lambda v: v["observation"].update(dice=[9] * len(v["observation"]["dice"])),
        lambda v: v["observation"]["hand_sizes"].pop(),
        lambda v: v["observation"]["cards_lost"].pop(),
        lambda v: v["events"].append({"kind": "bid", "player": 9, "card": None, "args": [1]}),
        lambda v: v["events"].append({"kind": "bid", "player": 0, "card": -5, "args": [1]}),
        lambda v: v.update(version="x"),
    ],
    ids=[
        "card",
        "player",
        "dice count",
        "die face",
        "hand sizes",
        "lost counts",
        "event player",
        "event card",
        "version",
    ],
)
def test_a_view_naming_what_does_not_exist_is_refused(tmp_path: Path, spoil: Callable[[dict[str, Any]], None]) -> None:
    view = _real_view(tmp_path, [])
    session = RemoteSession(None, load_ruleset("biblios"), json.loads(json.dumps(view)), "en", lambda a: None)  # type: ignore[arg-type]
    before = session.remote.last
    spoil(view)
    with pytest.raises(ValueError):
        session.update(view)
    assert session.remote.last is before  # nothing changed


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ("x" * (MAX_REPLY_BYTES + 10), "larger than 1 MB"),
        ("{not json", "cannot read"),
        ('["a list"]', "cannot read"),
        (json.dumps({"type": "view", "first_event": 0, "events": [], "seat": 0}), "cannot read"),
    ],
    ids=["too large", "not JSON", "not an object", "a view without its fields"],
)
def test_join_stops_with_a_clear_message_on_a_bad_server_message(message: str, reason: str) -> None:
    async def scenario() -> None:
        async with fake_server([message]) as url:
            app = RemoteApp(url, "t1", "token", "en")
            async with app.run_test(size=(100, 30)) as pilot:
                await run_until(pilot, lambda: app.problem is not None)
        assert reason in (app.problem or "") and visible(app.problem or "")

    asyncio.run(scenario())


def test_the_http_client_bounds_replies_and_cleans_error_messages() -> None:
    async def scenario() -> None:
        async with fake_server(http_body=b'"' + b"x" * (MAX_REPLY_BYTES + 10) + b'"') as url:
            async with ApiClient(url, "token") as client:
                with pytest.raises(ApiError) as error:
                    await client.view("t1")
            assert error.value.code == "bad_reply" and "larger than 1 MB" in error.value.message
            connection = RemoteApp(url, "t1", "token").connection
            with pytest.raises(ApiError) as error:
                await asyncio.to_thread(_post_json, connection, "payment-options", {"pay": []})
            assert "larger than 1 MB" in error.value.message
        hostile = {"error": {"code": "bad\x1b[2J", "message": "no\x1b]0;pwned\x07 [/]"}}
        async with fake_server(http_body=json.dumps(hostile).encode(), http_status=400) as url:
            async with ApiClient(url, "token") as client:
                with pytest.raises(ApiError) as error:
                    await client.view("t1")
            assert error.value.message == "no]0;pwned [/]" and error.value.code == "bad[2J"
        reply = {"table": "t\x1b1", "seats": [{"seat": 0, "name": ESCAPES["clear"], "kind": "human",
                                                "link": "http://x/play/t?token=a\x1b[2J", "token": "a"}]}  # fmt: skip
        async with fake_server(http_body=json.dumps(reply).encode(), http_status=201) as url:
            async with ApiClient(url) as client:
                created = await client.create_table("admin")
            assert created["table"] == "t1" and created["seats"][0]["name"] == "[2JBeto"
            assert created["seats"][0]["link"] == "http://x/play/t?token=a[2J"
        async with fake_server(http_body=b"<html>", http_status=200) as url:
            async with ApiClient(url) as client:
                with pytest.raises(ApiError) as error:
                    await client.view("t1")
            assert "cannot read" in error.value.message

    asyncio.run(scenario())


# ---------------------------------------------------------------- the property


def _finished_state() -> Any:
    state = new_game(load_ruleset("biblios"), 3, 11)
    rng = random.Random(2)
    while not state.is_terminal():
        state.apply(state.random_action(rng))
    return state


FINISHED = _finished_state()
MID_GAME = new_game(load_ruleset("biblios"), 3, 12)
for _step in range(25):
    MID_GAME.apply(MID_GAME.random_action(random.Random(_step)))

# Any text, with the control, format, surrogate and private-use characters and the markup brackets weighed in.
NAMES = st.text(
    st.one_of(
        st.characters(),
        st.sampled_from(["[", "]", "/", "=", "$", "@", "\x1b", "\x07", "\x9b", "\u202e", "\u200b", "\u2028", "\n"]),
        st.characters(categories=["Cc", "Cf", "Co", "Cs", "Zl", "Zp"]),
    ),
    max_size=60,
)


def _rendered(*renderables: Any) -> str:
    console = Console(width=200, record=True, color_system="truecolor", force_terminal=True, file=io.StringIO())
    for renderable in renderables:
        console.print(renderable)
    return console.export_text(styles=False)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(raw=st.lists(NAMES, min_size=3, max_size=3), viewer=st.sampled_from([0, 1, 2]))
def test_no_hidden_or_markup_character_of_a_name_reaches_a_rendered_screen(raw: list[str], viewer: int) -> None:
    """Whatever the names, through each entry point and each renderer: no hidden character, markup as typed."""
    set_language("en")
    ruleset = FINISHED.ruleset
    # The entry points: a person typing (refused or kept), a save or a server (cleaned), the table itself.
    entries = [clean_name(n, f"Player {i}") for i, n in enumerate(raw, 1)]
    for typed in raw:
        assert name_problem(typed) is not None or clean_name(typed) == " ".join(typed.split())
    view = _VIEW_TEMPLATE | {"seats": [{"name": n, "kind": "human"} for n in raw]}
    session = RemoteSession(None, ruleset, view, "en", lambda actions: None)  # type: ignore[arg-type]
    assert session.names == tuple(entries)
    for name in entries:
        assert visible(name) and 0 < len(name) <= MAX_NAME_LENGTH
        assert not any(unicodedata.category(c)[0] == "C" for c in name)
    obs = MID_GAME.observation(viewer)
    text = _rendered(
        players_table(entries, ("human",) * 3, obs.hand_sizes, obs.current_player, obs.active_player, viewer, ruleset),
        focus_text(MID_GAME.ruleset, obs, entries, viewer),
        result_renderable(ruleset, FINISHED.result(), entries),
        hands_renderable(ruleset, FINISHED, FINISHED.result(), entries),
    )
    assert visible(text.replace("\n", ""))
    for name in entries:
        assert name in text  # shown as typed: "[/]" and "[link=…]" are text, not markup


@pytest.fixture(scope="module", autouse=True)
def _view_template(tmp_path_factory: pytest.TempPathFactory) -> None:
    global _VIEW_TEMPLATE
    _VIEW_TEMPLATE = _real_view(tmp_path_factory.mktemp("view"), [])


_VIEW_TEMPLATE: dict[str, Any] = {}


def test_a_name_the_server_gives_a_seat_later_is_cleaned_and_taken(tmp_path: Path) -> None:
    """A visitor named a free seat: the terminal seat takes the names of the next whole view, cleaned like the first."""
    hub = TableHub(Store(tmp_path))
    invitation = hub.create("biblios", [], 3, [], seed=1, bot_delay=0)
    table = hub.table(invitation.table)
    rules = load_ruleset("biblios")
    session = RemoteSession(None, rules, table.view(0), "en", lambda a: None)  # type: ignore[arg-type]
    assert session.names == ("Player 1", "Player 2", "Player 3")
    hub.rename(table, ["", "Zoé\x1b[2J\u202e", ""])
    assert session.rename(table.view(0)) and session.names == ("Player 1", "Zoé[2J", "Player 3")
    assert not session.rename(table.view(0))  # the same names again: nothing to draw
    assert not session.rename({"seats": [{"name": "Eve", "kind": "human"}]})  # another number of seats
    assert session.names[1] == "Zoé[2J"


def test_a_terminal_table_draws_a_seat_named_after_it_opened(tmp_path: Path) -> None:
    """The table is on screen when a whole view names a free seat: the table is drawn again with the new
    name, cleaned (nothing else moved, so only the names can make it redraw)."""
    first = _real_view(tmp_path, ["Ana", "Player 2", "Ida"])
    renamed = json.loads(json.dumps(first))
    renamed["seats"][1]["name"] = "Zoé\x1b[2J"

    async def scenario() -> None:
        release = asyncio.Event()
        async with fake_server([json.dumps(first), json.dumps(renamed)], release=release) as url:
            app = RemoteApp(url, "t1", "token", "en")
            async with app.run_test(size=(110, 34)) as pilot:
                await run_until(pilot, lambda: isinstance(app.screen, TableScreen))
                await pilot.pause()
                assert "Zoé" not in visible_text(app) and "Player 2" in visible_text(app)
                release.set()  # the renaming view comes once the first table is on screen
                await run_until(pilot, lambda: "Zoé[2J" in visible_text(app), limit=10)
                assert "Player 2" not in visible_text(app) and visible(visible_text(app))
        assert app.problem is None

    asyncio.run(scenario())
