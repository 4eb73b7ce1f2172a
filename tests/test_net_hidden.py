"""Property: random games played through the server never send a seat or a spectator a card hidden from them."""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
from pathlib import Path
from typing import Any

from conftest import SHIPPED_CHOICES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from net_helpers import bearer, create, running_server

from biblios_kit.engine import format_action, new_game
from biblios_kit.engine.actions import PAY, PICK, parse_action
from biblios_kit.engine.state import GameState
from biblios_kit.net.protocol import schema, validate
from biblios_kit.rules import load_ruleset

MAX_ACTIONS = 300
"""Actions per game (a whole game of two or three players, most of a four-player one)."""


def known_cards(state: GameState, seat: int) -> set[int]:
    """Every card ``seat`` may know now, from the engine's own view of that seat (the oracle)."""
    obs = state.observation(seat)
    cards = set(obs.hand) | set(obs.public) | set(obs.discard) | set(obs.my_kept) | set(obs.my_auction_cards)
    cards |= set(obs.revealed) | set(obs.my_buried) | {c for _p, c in obs.gold_paid} | {c for _p, c in obs.acquired}
    cards |= {c for c in (obs.drawn, obs.kept) if c is not None}
    cards |= {card for _p, card, _bid, _cards in obs.unpaid} | {c for *_fact, seen in obs.unpaid for c in seen}
    if obs.church is not None:
        cards.add(obs.church[1])
    if obs.auction is not None:
        cards.add(obs.auction.card)
    if obs.payment is not None:
        cards |= set(obs.payment.paid_gold)
    cards |= {e.card for e in state.events_for(seat) if e.card is not None}
    return cards


def named_cards(message: dict[str, Any], state: GameState) -> set[int]:
    """Every card a view or update message names (the schema allows no other field: checked in full now and
    then, and its field names every time). An update names only the observation fields that changed."""
    update = message["type"] == "update"
    if message["version"] % 16 == 0:
        validate(message, "update" if update else "view")
    defs = schema()["$defs"]
    obs = message["observation"]
    if update:
        assert set(defs["update"]["required"]) <= set(message) <= set(defs["update"]["properties"])
        assert set(obs) <= set(defs["observation"]["required"])
    else:
        assert set(message) == set(defs["view"]["required"])
        assert set(obs) == set(defs["observation"]["required"])
    assert all(set(e) == {"kind", "player", "card", "args"} for e in message["events"])
    cards: set[int] = set()
    for field in ("hand", "public", "discard", "my_kept", "my_auction_cards", "revealed", "my_buried"):
        cards |= set(obs.get(field, ()))
    cards |= {c for _p, c in obs.get("gold_paid", ())} | {c for _p, c in obs.get("acquired", ())}
    cards |= {c for c in (obs.get("drawn"), obs.get("kept")) if c is not None}
    cards |= {fact[1] for fact in obs.get("unpaid", ())} | {c for fact in obs.get("unpaid", ()) for c in fact[3]}
    if obs.get("church") is not None:
        cards.add(obs["church"][1])
    if obs.get("auction") is not None:
        cards.add(obs["auction"]["card"])
    if obs.get("payment") is not None:
        cards |= set(obs["payment"]["paid_gold"])
    cards |= {e["card"] for e in message["events"] if e["card"] is not None}
    for text in obs.get("legal_actions", ()):
        action = parse_action(state.ruleset, text)
        if PICK <= action < PAY + len(state.ruleset.deck):
            cards.add(action - (PICK if action < PAY else PAY))
    return cards


def updated(view: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    """The view an update message makes of ``view`` (what every client does with one)."""
    assert update["base"] == view["version"], "an update to another version than the connection's view"
    return {**view, "version": update["version"], "observation": {**view["observation"], **update["observation"]},
            "first_event": update["first_event"], "events": update["events"],
            "result": update.get("result", view["result"])}  # fmt: skip


async def _play(choice: tuple[Any, ...], seed: int, count_index: int, rng_seed: int, data_dir: Path) -> int:
    ruleset = load_ruleset(*choice)
    players = ruleset.player_counts[count_index % len(ruleset.player_counts)]
    replica = new_game(ruleset, players, seed)  # the test's own copy: the oracle of what each seat may know
    rng = random.Random(rng_seed)
    checked = 0
    # the seats post as fast as the machine goes: the rate limit (tested in its own tests) is lifted
    async with running_server(data_dir, http_rate=1e9, http_burst=1e9) as client:
        reply = await create(
            client, ruleset=choice[0], options=list(choice[1]), players=players, seats=["human"] * players, seed=seed
        )
        table = reply["table"]
        tokens = [seat["token"] for seat in reply["seats"]]
        # Every seat and a spectator twice: one connection sent whole views, one sent updates.
        sockets = []
        for updates in (False, True):
            for token in [*tokens, None]:
                ws = await client.ws_connect(f"/api/tables/{table}/ws")
                await ws.send_json({"type": "hello", "token": token, "updates": updates})
                sockets.append(ws)
        held: dict[int, dict[str, Any]] = {}  # the view each updated connection holds

        async def check_views(version: int) -> None:
            nonlocal checked
            hidden_from_someone = [known_cards(replica, p) for p in range(players)]
            public = set.intersection(*hidden_from_someone)
            whole: list[dict[str, Any]] = []
            for index, ws in enumerate(sockets):
                reader = index % (players + 1)
                while True:
                    message = json.loads((await asyncio.wait_for(ws.receive(), 10)).data)
                    if message["type"] in ("view", "update"):
                        break
                assert message["version"] == version
                assert (message["type"] == "update") == (index > players and version > 0)
                allowed = hidden_from_someone[reader] if reader < players else public
                leaked = named_cards(message, replica) - allowed
                who = f"seat {reader}" if reader < players else "a spectator"
                assert not leaked, (
                    f"{who} was sent hidden cards {sorted(leaked)} at version {version} ({message['type']})"
                )
                if index <= players:
                    whole.append(message)
                else:  # the updated view is exactly the whole view of the same version
                    view = held[index] = updated(held[index], message) if message["type"] == "update" else message
                    assert view == whole[reader], f"{who}: an update made another view than the whole one"
                checked += 1

        await check_views(0)
        for _step in range(MAX_ACTIONS):
            if replica.is_terminal():
                break
            seat = replica.current_player
            assert seat is not None
            legal = replica.legal_actions()
            action = legal[int(rng.random() * len(legal))]
            text = format_action(ruleset, action)
            if rng.random() < 0.05:  # now and then, a seat plays out of turn: refused, nothing sent
                wrong = (seat + 1) % players
                response = await client.post(
                    f"/api/tables/{table}/actions", json={"action": text}, headers=bearer(tokens[wrong])
                )
                assert response.status == 409
            response = await client.post(
                f"/api/tables/{table}/actions", json={"action": text}, headers=bearer(tokens[seat])
            )
            assert response.status == 200, await response.text()
            replica.apply(action)
            await check_views(replica.decision_count)
        for ws in sockets:
            await ws.close()
    return checked


@settings(
    max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    st.sampled_from(SHIPPED_CHOICES),
    st.integers(min_value=0, max_value=2**31),
    st.integers(min_value=0, max_value=10),
    st.integers(min_value=0, max_value=2**32),
)
def test_no_message_names_a_card_hidden_from_its_reader(choice: Any, seed: int, count: int, rng_seed: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        checked = asyncio.run(_play(choice, seed, count, rng_seed, Path(folder)))
    assert checked > 0
