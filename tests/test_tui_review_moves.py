"""The review names each decision as the log does, from the player's own view (no Textual needed)."""

from __future__ import annotations

from types import SimpleNamespace

from biblios_kit.bots.hints import ReviewItem
from biblios_kit.bots.registry import make_bot
from biblios_kit.engine import new_game
from biblios_kit.engine.events import EventKind, to_event
from biblios_kit.i18n import in_language
from biblios_kit.rulebook.describe import EventDescriber
from biblios_kit.rules import load_ruleset
from biblios_kit.tui.dialogs.hint import move_sentences, review_lines

NAMES = ["Ana", "Bo", "Cy"]


def played_game(seed: int = 4):  # type: ignore[no-untyped-def]
    ruleset = load_ruleset("biblios")
    state = new_game(ruleset, 3, seed)
    bots = [make_bot("random", seed + seat, ruleset) for seat in range(3)]
    while not state.is_terminal():
        state.apply(bots[state.current_player].choose(state.observation(state.current_player)))
    return ruleset, state


def test_each_move_is_named_by_its_log_sentence_as_its_player_saw_it() -> None:
    ruleset, state = played_game()
    with in_language("en"):
        moves = move_sentences(ruleset, 3, state.seed, state.history, range(len(state.history)), NAMES)
        logs = [EventDescriber(ruleset, NAMES).describe_all(state.events_for(seat)) for seat in range(3)]
        replay = new_game(ruleset, 3, state.seed)
        hidden_named = 0
        for index, action in enumerate(state.history):
            player = replay.current_player
            start = len(replay.log)
            replay.apply(action)
            if index not in moves:
                continue
            assert moves[index] in logs[player]  # a sentence of that player's own log
            first = to_event(replay.log[start], player)
            if first.kind in (EventKind.KEPT, EventKind.TO_AUCTION_PILE):
                assert first.card is not None
                assert moves[index] not in logs[(player + 1) % 3]  # the others' logs hide the card
                assert moves[index].startswith(f"{NAMES[player]} ") and " face down" not in moves[index]
                hidden_named += 1
        assert hidden_named > 10
        assert len(moves) > len(state.history) // 2


def test_a_review_item_starts_with_the_move_named_as_in_the_log() -> None:
    ruleset, state = played_game()
    replay = new_game(ruleset, 3, state.seed)
    index = 0
    while len(replay.legal_actions()) < 2:
        replay.apply(state.history[index])
        index += 1
    player = replay.current_player
    observation = replay.observation(player)
    played = state.history[index]
    other = next(a for a in replay.legal_actions() if a != played)
    hint = SimpleNamespace(action=other, reasons=(), win_chance=0.5)  # what review_lines reads of a Hint
    item = ReviewItem(index, player, observation.phase, played, 0.25, observation, hint)  # type: ignore[arg-type]
    with in_language("en"):
        move = move_sentences(ruleset, 3, state.seed, state.history, [index], NAMES)[index]
        lines = review_lines(ruleset, item, move)
        assert lines[0] == move and move.startswith(NAMES[player])
        assert lines[1].startswith(f"Decision {index + 1} (")
        assert review_lines(ruleset, item)[0] == lines[1]


def test_a_continued_game_replays_with_its_new_deals() -> None:
    import random

    from biblios_kit.engine.reseed import reseed
    from biblios_kit.tui.replay_view import GameReplay

    ruleset = load_ruleset("biblios")
    state = new_game(ruleset, 3, 5)
    rng = random.Random(2)
    for _ in range(20):
        state.apply(state.random_action(rng))
    reseed(state, 99)  # continued from a save: dealt again
    while not state.is_terminal():
        state.apply(state.random_action(rng))
    replay = GameReplay(state)
    assert replay.events == state.events
    for step in (replay.moves, 3, replay.moves):
        final = replay.position(step)
    assert [final.hand(p) for p in range(3)] == [state.hand(p) for p in range(3)]
    with in_language("en"):
        moves = move_sentences(ruleset, 3, state.seed, state.history, range(len(state.history)), NAMES,
                               state.reseeds)  # fmt: skip
        logs = [EventDescriber(ruleset, NAMES).describe_all(state.events_for(seat)) for seat in range(3)]
    assert all(any(line in log for log in logs) for line in moves.values())
    assert len(moves) > len(state.history) // 2
