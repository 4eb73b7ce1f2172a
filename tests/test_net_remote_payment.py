"""A seat's payment questions to its server: a server that refuses (the game moved on) or answers nonsense
gives :class:`SeatUnavailable` with a message to show, never a crash of the terminal table."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from biblios_kit.engine.actions import format_action
from biblios_kit.engine.state import Phase
from biblios_kit.net import remote as remote_module
from biblios_kit.net.client import ApiError, payment_options_of
from biblios_kit.net.remote import RemoteSession
from biblios_kit.net.store import Store
from biblios_kit.net.tables import Rejected, Table, TableHub
from biblios_kit.tui.table_session import SeatUnavailable

SERVER = "http://127.0.0.1:9"


def _seat_to_pay(hub: TableHub) -> tuple[Table, int]:
    """A two-person table played at random until somebody must pay for a card they won."""
    invitation = hub.create("biblios", [], 2, ["human", "human"], ["Ann", "Bob"], seed=6, bot_delay=0)
    table = hub.table(invitation.table)
    rng = random.Random(4)
    while table.state.phase is not Phase.PAYMENT:
        seat = table.state.current_player
        assert seat is not None
        hub.act(table, seat, [rng.choice(table.view(seat, 10**6)["observation"]["legal_actions"])])
    seat = table.state.current_player
    assert seat is not None
    return table, seat


def _session(table: Table, seat: int, monkeypatch: pytest.MonkeyPatch, answer: Any) -> RemoteSession:
    """The seat's session, its blocking question answered by ``answer(body)`` instead of an HTTP call."""
    monkeypatch.setattr(remote_module, "_post_json", lambda _connection, _route, body: answer(body))
    connection = SimpleNamespace(server=SERVER, table=table.id, token="t")
    return RemoteSession(connection, table.state.ruleset, table.view(seat), "en", lambda actions: None)  # type: ignore[arg-type]


def test_a_payment_already_made_elsewhere_is_a_message_not_a_crash(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """The terminal shows a payment dialog from its last view while the payment reaches the server (a
    forced move, another window): the question that follows is refused, and the seat says why."""
    hub = TableHub(Store(tmp_path))
    try:
        table, seat = _seat_to_pay(hub)

        def ask_the_hub(body: dict[str, Any]) -> dict[str, Any]:
            try:
                return {"options": hub.payment_options(table, seat, body["pay"])}
            except Rejected as error:
                raise ApiError(error.code, error.message, error.status) from None

        session = _session(table, seat, monkeypatch, ask_the_hub)
        first = session.payment_options(())
        assert first and session.blocking_calls == 1
        card = first[0]
        payment = [card]
        while (options := session.payment_options(payment)) is not None:  # the server agrees so far
            payment.append(next(a for a in options if a not in payment))
        stale = _session(table, seat, monkeypatch, ask_the_hub)  # a terminal with the same view
        hub.act(table, seat, [format_action(table.state.ruleset, a) for a in payment])  # paid from elsewhere
        with pytest.raises(SeatUnavailable, match="you have no payment to make now"):
            stale.payment_options([card])
    finally:
        hub.store.close()


@pytest.mark.parametrize("reply", [{}, {"options": 5}, {"options": "pay 1"}, {"options": [1, 2]}, [], "x"])
def test_a_reply_without_a_list_of_actions_is_unreadable(reply: Any) -> None:
    with pytest.raises(ApiError) as caught:
        payment_options_of(reply, SERVER)
    assert caught.value.code == "bad_reply"


@pytest.mark.parametrize("reply", [{"options": 5}, {"options": ["pay 9999"]}, {"options": ["bid 2", "§"]}])
def test_options_that_are_not_actions_of_the_ruleset_leave_the_dialog_with_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reply: dict[str, Any]
) -> None:
    hub = TableHub(Store(tmp_path))
    try:
        table, seat = _seat_to_pay(hub)
        session = _session(table, seat, monkeypatch, lambda body: reply)
        with pytest.raises(SeatUnavailable, match="cannot read"):
            session.payment_options(())
        assert not session.knows_payment(())  # nothing kept: the next question asks again
    finally:
        hub.store.close()


def test_a_server_out_of_reach_is_a_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hub = TableHub(Store(tmp_path))
    try:
        table, seat = _seat_to_pay(hub)

        def unreachable(body: dict[str, Any]) -> dict[str, Any]:
            raise ApiError("network", f"{SERVER}: connection refused")

        with pytest.raises(SeatUnavailable, match="connection refused"):
            _session(table, seat, monkeypatch, unreachable).payment_options(())
    finally:
        hub.store.close()
