"""The table's content without Textual: the TableView a seat gets (hand, collections, dice, legal actions,
notices, log, highlights), the keys it allows, the next turn, and hidden cards never in it.

These check what the pilot tests used to check through the screen, in milliseconds; the pilot
tests keep what only a running app shows (keys, layout, timers, dialogs).
"""

from __future__ import annotations

import io
import random
import re
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import cat, gold, position
from rich.console import Console, RenderableType
from table_helpers import NAMES, after_penalty, bidding

from biblios_kit.engine.actions import BID, KEEP, PASS, PICK, TO_AUCTION, TO_PUBLIC
from biblios_kit.engine.state import GameState, Phase, new_game
from biblios_kit.i18n import set_language, translator
from biblios_kit.rulebook.describe import card_name
from biblios_kit.rules import load_ruleset
from biblios_kit.tui.public_cards import public_events
from biblios_kit.tui.render import FRESH_MARK
from biblios_kit.tui.session import GameSession
from biblios_kit.tui.table_session import TableSession
from biblios_kit.tui.table_text import (
    focus_renderable,
    hand_renderable,
    notice_text,
    offer_label,
    players_renderable,
    public_renderable,
    status_text,
)
from biblios_kit.tui.table_turns import next_turn
from biblios_kit.tui.table_view import EventFeed, KeysPart, Perspective, TableView, key_allowed, table_view

LANGS = ["en", "fr", "es"]


def plain(renderable: RenderableType, width: int = 60) -> str:
    """A renderable as plain text, spaces and line breaks as single spaces."""
    console = Console(width=width, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return re.sub(r"[ \n]+", " ", console.file.getvalue()).strip()  # type: ignore[attr-defined]


def everything(session: TableSession, view: TableView) -> str:
    """Every text the view puts on the table (the log aside)."""
    ruleset = session.ruleset
    parts = [
        status_text(view.status, 100),
        hand_renderable(ruleset, view.hand),
        public_renderable(ruleset, view.public),
        focus_renderable(ruleset, view.focus),
        players_renderable(ruleset, view.players),
        *(offer_label(offer) for offer in view.actions.offers),
        view.actions.waiting or "",
    ]
    if view.notice is not None:
        parts.append(notice_text(ruleset, view.notice))
    return " ".join(plain(part) for part in parts)


def local(state: GameState, seats: tuple[str, ...] = ("human", "random"), autoplay: str = "off") -> GameSession:
    return GameSession(state.ruleset, state, seats, NAMES[: len(seats)], autosave=False, autoplay=autoplay)


def view_of(session: TableSession, seen: Perspective, previous: TableView | None = None,
            feed: EventFeed | None = None) -> TableView:  # fmt: skip
    return table_view(session, seen, feed or EventFeed(session), previous)


# ---------------------------------------------------------------- honest bidding


@pytest.mark.parametrize("lang", LANGS)
def test_the_bidder_sees_what_their_hand_can_pay_and_a_bluff_with_its_cost(lang: str) -> None:
    set_language(lang)
    t = translator(lang)
    session = local(bidding())
    view = view_of(session, Perspective(viewer=0))
    assert view.seen.bid_choice == 1  # the lowest bid to start with
    focus = plain(focus_renderable(session.ruleset, view.focus))
    assert t.gettext("You can pay: {amount}").split("{")[0].strip() in focus and "3" in focus
    assert t.gettext("Bluff: you cannot pay {amount}.").split(":")[0] not in focus
    commands = [offer.command for offer in view.actions.offers]
    assert commands == [f"act-{PASS}", "bid-less", "bid-go", "bid-more"]
    assert view.actions.offers[2].variant == "success"
    bluff = view_of(session, replace(view.seen, bid_choice=4), view)  # 4 Gold: one more than Gold 1 + Gold 2
    focus = plain(focus_renderable(session.ruleset, bluff.focus))
    assert t.gettext("Bluff: you cannot pay {amount}.").split(":")[0] in focus
    lose = t.ngettext(
        "If you win, each other player takes a card at random from your {hand}: you lose {count} card.",
        "If you win, each other player takes a card at random from your {hand}: you lose {count} cards.",
        1,
    )
    assert lose.split("{hand}")[-1].format(count=1) in focus
    button = bluff.actions.offers[2]
    assert t.gettext("(bluff)") in button.label and button.variant == "warning"
    honest = view_of(session, replace(bluff.seen, bid_choice=3), bluff)
    assert t.gettext("Bluff: you cannot pay {amount}.").split(":")[0] not in plain(
        focus_renderable(session.ruleset, honest.focus)
    )


def test_the_bid_stays_within_the_legal_range_and_starts_again_when_the_auction_moves_on() -> None:
    state = bidding()
    session = local(state)
    view = view_of(session, Perspective(viewer=0))
    auction = view.focus.obs.auction
    assert auction is not None
    high = view_of(session, replace(view.seen, bid_choice=10**6), view)
    assert high.seen.bid_choice == auction.min_bid  # out of range: back to the lowest
    kept = view_of(session, replace(view.seen, bid_choice=4), view)
    assert kept.seen.bid_choice == 4
    state.apply(BID + 2)  # Ann bids 2: the lowest bid is now 3, and 4 is still allowed
    after = view_of(session, kept.seen, kept).focus.obs.auction
    assert after is not None and after.min_bid == 3 and after.max_bid >= 4
    assert view_of(session, kept.seen, kept).seen.bid_choice == 3  # the auction moved on: back to the lowest


def test_medieval_bluff_names_the_left_neighbour_and_one_card() -> None:
    session = local(bidding(("medieval-bluff",)))
    first = view_of(session, Perspective(viewer=0))
    view = view_of(session, replace(first.seen, bid_choice=5), first)
    focus = plain(focus_renderable(session.ruleset, view.focus), width=200)
    assert "Bob draws a card at random from your hand and it leaves the game: you lose 1 card." in focus


def test_a_bid_in_view_of_everyone_names_no_bluff_and_shows_no_hand() -> None:
    """Hot-seat, a bid on the public table: the actor's Gold must not show, not even as a bluff."""
    session = local(bidding(), seats=("human", "human"))
    view = view_of(session, Perspective(viewer=None, actor=0, bid_choice=9))
    assert view.legal  # the actor decides
    assert view.hand.cards is None and "h" in view.hand.note
    assert view.focus.obs.hand == () and view.focus.obs.legal_actions == ()
    shown = everything(session, view)
    assert "(bluff)" not in shown
    assert card_name(session.ruleset, cat(session.ruleset, "monks", "A")) not in shown  # Ann's hidden card
    assert view.keys.show_hand and key_allowed(view.keys, "show_hand", ())


# ---------------------------------------------------------------- penalty notice


@pytest.mark.parametrize("lang", LANGS)
def test_a_penalty_notice_names_who_lost_which_card_until_dismissed(lang: str) -> None:
    set_language(lang)
    session = local(after_penalty())
    view = view_of(session, Perspective(viewer=0))
    assert view.notice is not None
    text = plain(notice_text(session.ruleset, view.notice), width=200)
    assert "Bob" in text and "3" in text
    assert session.ruleset.category("pigments").name.get(lang) in text  # Ann saw the card she took
    assert translator(lang).gettext("Esc closes this notice.") in text
    again = view_of(session, replace(view.seen, bid_choice=2), view)
    assert again.notice == view.notice  # a redraw keeps it
    assert key_allowed(again.keys, "dismiss_notice", ())
    closed = view_of(session, replace(again.seen, dismissed=frozenset({view.notice.index})), again)
    assert closed.notice is None and not key_allowed(closed.keys, "dismiss_notice", ())


# ---------------------------------------------------------------- collections, highlights, log


def _three_at_the_pick() -> tuple[GameSession, GameState]:
    ruleset = load_ruleset("biblios")
    draw = [cat(ruleset, "monks", x) for x in "ABCD"] + [cat(ruleset, "pigments", x) for x in "ABCD"]
    state = position(ruleset, 3, hands=[[], [], []], draw=draw)
    return local(state, seats=("human", "random", "random")), state


@pytest.mark.parametrize("lang", LANGS)
def test_collections_are_shown_and_new_cards_marked_until_the_highlight_fades(lang: str) -> None:
    set_language(lang)
    session, state = _three_at_the_pick()
    feed = EventFeed(session)
    first = view_of(session, Perspective(viewer=0), feed=feed)
    assert not first.news and not any(first.highlights.cards)
    for action in (KEEP, TO_AUCTION, TO_PUBLIC, TO_PUBLIC):  # Ann: two cards in the public space
        state.apply(action)
    while state.phase is Phase.PICK:  # Bob and Cy pick
        state.apply(next(a for a in state.legal_actions() if a >= PICK))
    view = view_of(session, first.seen, first, feed)
    picked = [e for e in state.events_for(0) if e.kind.name == "PICKED"]
    assert {e.player for e in picked} == {1, 2}
    players = plain(players_renderable(session.ruleset, view.players), width=120)
    for event in picked:  # every pick is listed in the picker's collection, marked as new
        card = session.ruleset.deck[event.card]
        assert f"{card.value}{card.letter}" in players
        assert event.card in view.highlights.cards[event.player]
    assert FRESH_MARK in players and view.news
    assert view.log.fresh_from == len(first.log.events)  # the new log lines are highlighted
    faded = view_of(session, view.seen, view.faded(), feed)
    assert FRESH_MARK not in plain(players_renderable(session.ruleset, faded.players), width=120)
    assert faded.log.fresh_from is None and not faded.news
    other = view_of(session, Perspective(viewer=1), view, feed)  # another viewer: nothing is new to them
    assert not any(other.highlights.cards) and other.log.fresh_from is None


def test_a_die_that_moved_keeps_its_face_before_until_the_highlight_fades() -> None:
    session = local(bidding())
    view = view_of(session, Perspective(viewer=0))
    before = replace(view, dice=replace(view.dice, values=(view.dice.values[0] + 1, *view.dice.values[1:])))
    moved = view_of(session, view.seen, before)
    assert moved.news and moved.dice.previous[0] == view.dice.values[0] + 1
    assert all(previous is None for previous in moved.dice.previous[1:])
    assert all(previous is None for previous in view_of(session, moved.seen, moved.faded()).dice.previous)


@pytest.mark.parametrize("lang", LANGS)
def test_you_and_every_seat_are_listed(lang: str) -> None:
    set_language(lang)
    session = local(bidding())
    players = plain(players_renderable(session.ruleset, view_of(session, Perspective(viewer=0)).players))
    assert translator(lang).gettext("(you)") in players and "Ann" in players and "Bob" in players


# ---------------------------------------------------------------- what may be done, and by whom


def test_the_legal_actions_are_offered_only_to_the_person_deciding_and_never_while_busy() -> None:
    session, state = _three_at_the_pick()
    view = view_of(session, Perspective(viewer=0))
    assert view.legal == tuple(state.legal_actions())
    assert {offer.command for offer in view.actions.offers} == {f"act-{a}" for a in state.legal_actions()}
    assert key_allowed(view.keys, "place", (KEEP,)) and not key_allowed(view.keys, "pass_bid", ())
    busy = view_of(session, replace(view.seen, busy=True), view)
    assert busy.legal == () and busy.actions.offers == () and busy.actions.waiting
    assert not key_allowed(busy.keys, "place", (KEEP,)) and key_allowed(busy.keys, "quit_game", ())
    state.apply(KEEP)
    state.apply(TO_AUCTION)
    state.apply(TO_PUBLIC)
    state.apply(TO_PUBLIC)
    bob = view_of(session, Perspective(viewer=0))  # Bob picks: Ann waits
    assert bob.legal == () and bob.actions.waiting is not None and "Bob" in bob.actions.waiting
    assert not key_allowed(bob.keys, "pick", (1,))


def test_the_cards_to_pick_are_numbered_in_the_public_space_and_on_the_buttons() -> None:
    ruleset = load_ruleset("biblios")
    draw = [cat(ruleset, "monks", x) for x in "ABCD"]
    state = position(ruleset, 3, hands=[[], [], []], draw=draw, active=1)
    for action in (KEEP, TO_AUCTION, TO_PUBLIC, TO_PUBLIC):  # Bob's turn: two cards in the public space
        state.apply(action)
    if state.current_player == 2:  # Cy picks first
        state.apply(next(a for a in state.legal_actions() if a >= PICK))
    session = local(state, seats=("human", "random", "random"))
    view = view_of(session, Perspective(viewer=0))
    assert state.current_player == 0 and state.phase is Phase.PICK  # Ann picks after Cy
    picks = [a - PICK for a in state.legal_actions()]
    assert dict(view.public.numbered) == {card: index + 1 for index, card in enumerate(picks)}
    assert [offer.key for offer in view.actions.offers] == [str(n + 1) for n in range(len(picks))]
    assert all(offer.short for offer in view.actions.offers)  # a shorter label for a narrow bar


def test_the_next_turn_forced_curtain_public_bot_and_end() -> None:
    ruleset = load_ruleset("biblios")
    draw = [cat(ruleset, "monks", x) for x in "ABCD"]
    state = position(ruleset, 3, hands=[[], [], []], draw=draw, active=1)
    two_people = local(state, seats=("human", "human", "random"), autoplay="off")
    turn = next_turn(two_people, Perspective(viewer=0))
    assert turn.kind == "curtain" and turn.seat == 1  # Bob's gift turn needs his drawn card
    assert next_turn(two_people, Perspective(viewer=1)).kind == "person"
    for action in (KEEP, TO_AUCTION, TO_PUBLIC, TO_PUBLIC):
        state.apply(action)
    assert state.current_player == 2
    assert next_turn(two_people, Perspective(viewer=1)).kind == "bot"
    state.apply(next(a for a in state.legal_actions() if a >= PICK))  # Cy picks: Ann has one card left
    public = next_turn(two_people, Perspective(viewer=1))
    assert public.kind == "person" and public.seen.viewer is None and public.seen.actor == 0
    forced = next_turn(local(state, seats=("human", "human", "random"), autoplay="picks-payments"), Perspective())
    assert forced.kind == "forced" and forced.action == state.legal_actions()[0]
    alone = next_turn(local(state, seats=("human", "random", "random"), autoplay="off"), Perspective())
    assert alone.kind == "person" and alone.seen.viewer == 0 and alone.seen.actor is None


def test_key_checks() -> None:
    keys = KeysPart(Phase.BIDDING, (PASS, BID + 1), busy=False, notice=None, show_hand=False)
    assert key_allowed(keys, "bid_step", (1,)) and key_allowed(keys, "pass_bid", ())
    assert not key_allowed(keys, "open_church", ()) and not key_allowed(keys, "show_hand", ())
    nothing = replace(keys, legal=())
    assert not key_allowed(nothing, "bid", ()) and not key_allowed(nothing, "hint", ())
    assert key_allowed(nothing, "open_rules", ())  # a key that plays nothing stays


# ---------------------------------------------------------------- hidden information


@pytest.mark.parametrize("options", [(), ("medieval-bluff",)])
def test_a_view_holds_only_what_its_viewer_may_know(options: tuple[str, ...]) -> None:
    """Random games: a seat's view holds its own observation and redacted events; with no viewer, only the
    public ones (no hand, no drawn card, no legal action of anyone)."""
    ruleset = load_ruleset("biblios", options)
    rng = random.Random(3)
    for seed in range(3):
        state = new_game(ruleset, 3, seed=seed)
        session = local(state, seats=("human", "human", "human"))
        feeds = {viewer: EventFeed(session) for viewer in (None, 0, 1, 2)}
        while not state.is_terminal():
            state.apply(state.random_action(rng))
            if rng.random() > 0.08:
                continue
            for viewer, feed in feeds.items():
                view = table_view(session, Perspective(viewer=viewer), feed)
                if viewer is None:
                    assert view.hand.cards is None and view.focus.obs.hand == () and view.focus.obs.drawn is None
                    assert view.focus.obs.my_kept == () and view.focus.obs.legal_actions == ()
                    assert list(view.log.events) == public_events(state.log)
                else:
                    assert view.focus.obs == state.observation(viewer) and view.hand.cards == state.hand(viewer)
                    assert list(view.log.events) == state.events_for(viewer)
                    for seat, known in enumerate(view.players.collections):
                        if known.unseen_losses == 0:
                            assert set(known.cards) <= set(state.hand(seat))


# ---------------------------------------------------------------- a seat at a server's table


def test_a_seat_at_a_server_s_table_gets_the_same_view_as_the_same_seat_played_here(tmp_path: Path) -> None:
    """The TableSession protocol: a RemoteSession fed by a real server gives the view a local game gives."""
    from biblios_kit.net.remote import RemoteSession
    from biblios_kit.net.store import Store
    from biblios_kit.net.tables import TableHub

    hub = TableHub(Store(tmp_path))
    try:
        invitation = hub.create("biblios", [], 2, ["human", "human"], ["Ann", "Bob"], seed=6, bot_delay=0)
        table = hub.table(invitation.table)
        remote = RemoteSession(None, table.state.ruleset, table.view(0), "en", lambda actions: None)  # type: ignore[arg-type]
        here = GameSession(table.state.ruleset, table.state, ("human", "human"), ("Ann", "Bob"), autosave=False)
        rng = random.Random(2)
        remote_feed, local_feed = EventFeed(remote), EventFeed(here)
        compared = 0
        while not table.finished and compared < 40:
            seat = table.state.current_player
            assert seat is not None
            hub.act(table, seat, [rng.choice(table.view(seat, 10**6)["observation"]["legal_actions"])])
            remote.update(table.view(0, len(remote.remote.events)))
            there = table_view(remote, Perspective(viewer=0), remote_feed)
            mine = table_view(here, Perspective(viewer=0), local_feed)
            assert there.legal == mine.legal and there.actions == mine.actions
            assert (there.hand, there.players, there.focus, there.log, there.notice) == (
                mine.hand,
                mine.players,
                mine.focus,
                mine.log,
                mine.notice,
            )
            compared += 1
        assert compared == 40
    finally:
        hub.store.close()


def test_no_card_of_another_hand_is_named_on_a_viewer_s_table() -> None:
    """Ann keeps a category card: Bob's table (and the public table) never names it."""
    ruleset = load_ruleset("biblios")
    kept = cat(ruleset, "holy-books", "B")
    draw = [kept, cat(ruleset, "monks", "A"), cat(ruleset, "monks", "B"), gold(ruleset, 1)]
    state = position(ruleset, 3, hands=[[], [], []], draw=draw)
    session = local(state, seats=("human", "human", "random"))
    state.apply(KEEP)
    name = card_name(ruleset, kept)
    assert name in everything(session, view_of(session, Perspective(viewer=0)))
    for seen in (Perspective(viewer=1), Perspective(viewer=None, actor=1), Perspective(viewer=2)):
        view = view_of(session, seen)
        assert name not in everything(session, view)
        assert all(event.card != kept for event in view.log.events)


def test_the_view_its_texts_and_the_turns_need_no_textual() -> None:
    """The table's content is computed and rendered without Textual (checked in a fresh interpreter)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import biblios_kit.tui.table_view, biblios_kit.tui.table_text, biblios_kit.tui.table_turns\n"
        "print(sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.')))\n"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "[]"
