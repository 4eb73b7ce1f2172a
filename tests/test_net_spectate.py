"""The spectator page's server side: ``/watch/{table}`` needs no token, shows the public view, never a hidden card."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

from conftest import SHIPPED_CHOICES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from net_helpers import bearer, create, running_server
from test_net_hidden import known_cards

from biblios_kit.engine import format_action
from biblios_kit.net.seat_page import LogSentences, seat_texts
from biblios_kit.net.store import Store
from biblios_kit.net.tables import TableHub
from biblios_kit.net.views import SPECTATOR
from biblios_kit.rulebook.describe import card_name


async def test_the_spectator_page_needs_no_token_and_is_read_only(tmp_path: Path) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, seats=["human", "human", "easy"], names=["Ana", "Beto", "C"], seed=4, bot_delay=5)
        table = reply["table"]
        page = await client.get(f"/watch/{table}", headers={"Accept-Language": "es-ES,es;q=0.9"})
        assert page.status == 200
        html = await page.text()
        assert '<html lang="es">' in html and f'data-base="/watch/{table}"' in html
        assert "script-src 'self'" in page.headers["Content-Security-Policy"] and not page.cookies
        texts = await (await client.get(f"/watch/{table}/texts?lang=fr&full=1")).json()
        assert texts["lang"] == "fr" and texts["ui"]["watching"].startswith("Vous regardez")
        assert texts["actions"] == {} and texts["bluffs"] == {}
        assert "piochez" not in texts["focus"].lower() and "drew" not in texts["focus"]
        seat = await (await client.get(f"/play/{table}?token={reply['seats'][0]['token']}")).text()
        assert "data-base" in seat  # the seat page still works (its own base)
        # The page's socket is a spectator's, whatever the request carries.
        ws = await client.ws_connect(f"/watch/{table}/ws", headers=bearer(reply["seats"][0]["token"]))
        await ws.send_json({"type": "hello", "since": 0, "table_info": True})
        view = json.loads((await ws.receive()).data)
        assert view["type"] == "view" and view["seat"] is None and view["observation"]["hand"] == []
        info = json.loads((await ws.receive()).data)
        assert info["type"] == "table_info" and info["spectators"] == 1
        await ws.send_json({"type": "action", "action": "keep"})
        assert json.loads((await ws.receive()).data)["code"] == "spectator"
        await ws.close()
        assert (await client.get(f"/watch/{table}/replay?step=0")).status == 409  # not over yet
        assert (await client.get(f"/watch/{table}/record")).status == 409
        seat_cookie = {f"biblios_kit_seat_{table}": reply["seats"][0]["token"]}
        assert (await client.get(f"/play/{table}/record", cookies=seat_cookie)).status == 409
        wrong = {f"biblios_kit_seat_{table}": "guess"}
        assert (await client.get(f"/play/{table}/record", cookies=wrong)).status == 403  # a seat's, with its cookie
        assert (await client.get(f"/watch/{table}/texts?since=-1")).status == 400
        assert (await client.get("/watch/nothing")).status == 404


def _names_in(text: str, names: list[str]) -> set[str]:
    """The card names ``text`` mentions, longest first (``Church card +1 ×2`` is not also ``Church card +1``)."""
    found = set()
    for name in sorted(set(names), key=len, reverse=True):
        if name in text:
            found.add(name)
            text = text.replace(name, "\0")
    return found


def _watch_a_game(choice: tuple[str, tuple[str, ...]], seed: int, rng_seed: int, folder: Path) -> int:
    rng = random.Random(rng_seed)
    hub = TableHub(Store(folder))
    try:
        from biblios_kit.rules import load_ruleset

        players = rng.choice(load_ruleset(*choice).player_counts)
        invitation = hub.create(choice[0], list(choice[1]), players, ["human"] * players, seed=seed, bot_delay=0)
        table = hub.table(invitation.table)
        state = table.state
        logs = LogSentences()
        checked = 0
        for _step in range(400):
            if state.is_terminal():
                break
            if rng.random() < 0.2:
                lang = rng.choice(["en", "fr", "es"])
                texts = seat_texts(table, SPECTATOR, lang, 0, False, logs)
                public = set.intersection(*(known_cards(state, p) for p in range(players)))
                names = [card_name(state.ruleset, card, lang) for card in range(len(state.ruleset.deck))]
                allowed = {names[card] for card in public}
                words = " ".join([texts["focus"], texts["phase"], *(line["text"] for line in texts["log"])])
                leaked = _names_in(words, names) - allowed
                assert not leaked, f"the spectator's texts name {sorted(leaked)} at version {table.version}"
                assert texts["actions"] == {} and texts["end"] is None
                checked += 1
            legal = state.legal_actions()
            action = legal[int(rng.random() * len(legal))]
            seat = state.current_player
            assert seat is not None
            hub.act(table, seat, [format_action(state.ruleset, action)])
        return checked
    finally:
        hub.store.close()


@settings(
    max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from(SHIPPED_CHOICES), st.integers(min_value=0, max_value=2**31), st.integers(0, 2**32))
def test_the_spectators_texts_never_name_a_hidden_card(choice: Any, seed: int, rng_seed: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        assert _watch_a_game(choice, seed, rng_seed, Path(folder)) > 0
