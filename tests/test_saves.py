"""The saved game: an ordinary engine record (plus names and language), written atomically, every problem a RecordError."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from biblios_kit.engine.records import load_record, replay
from biblios_kit.engine.state import GameState, new_game
from biblios_kit.errors import RecordError
from biblios_kit.rules import load_ruleset
from biblios_kit.tui.config import AUTOPLAY_MODES, DEFAULT_AUTOPLAY
from biblios_kit.tui.saves import delete_save, has_save, load_game, save_game, save_path, saves_dir, set_aside
from biblios_kit.tui.session import GameSession

SEATS = ("human", "random", "easy")
NAMES = ("Ann", "Bob", "Cy")


def played(decisions: int, seed: int = 4) -> GameState:
    state = new_game(load_ruleset("biblios", ["medieval-bluff"]), 3, seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        state.apply(state.random_action(rng))
    return state


def test_save_goes_to_the_userdata_dir(data_dir: Path) -> None:
    assert saves_dir() == data_dir / "saves"
    assert not has_save()
    path = save_game(played(10), SEATS, NAMES, "fr")
    assert path == save_path() and has_save()


def test_round_trip_keeps_seats_names_language_and_position() -> None:
    state = played(60)
    save_game(state, SEATS, NAMES, "es")
    saved = load_game()
    assert saved.state.actions == state.actions
    assert saved.state.observation(0) == state.observation(0)
    assert saved.seats == SEATS and saved.names == NAMES and saved.lang == "es" and not saved.finished


@pytest.mark.parametrize("mode", AUTOPLAY_MODES)
def test_round_trip_keeps_the_forced_moves_setting(mode: str) -> None:
    save_game(played(20), SEATS, NAMES, "en", autoplay=mode)
    assert json.loads(save_path().read_text(encoding="utf-8"))["table"]["autoplay"] == mode
    assert load_game().autoplay == mode


@pytest.mark.parametrize("stored", ["absent", "sometimes", ["off"], 0, None, "no table"])
def test_a_save_without_a_known_forced_moves_setting_gets_the_default(stored: object) -> None:
    """Saves written before the setting was saved have none; a value this version does not know is ignored too."""
    assert DEFAULT_AUTOPLAY != "off"
    save_game(played(20), SEATS, NAMES, "fr", autoplay="off")
    document = json.loads(save_path().read_text(encoding="utf-8"))
    if stored == "no table":
        del document["table"]
    elif stored == "absent":
        del document["table"]["autoplay"]
    else:
        document["table"]["autoplay"] = stored
    save_path().write_text(json.dumps(document), encoding="utf-8")
    saved = load_game()
    assert saved.autoplay == DEFAULT_AUTOPLAY
    assert saved.lang == ("fr" if stored != "no table" else None)  # the rest of the table key still counts


def test_an_unknown_forced_moves_setting_is_not_saved() -> None:
    with pytest.raises(ValueError, match="forced-moves"):
        save_game(played(1), SEATS, NAMES, "en", autoplay="sometimes")
    assert not has_save()


def test_a_continued_game_keeps_its_forced_moves_setting_and_saves_it_again() -> None:
    save_game(played(20), SEATS, NAMES, "en", autoplay="all")
    session = GameSession.from_saved(load_game(), entropy=lambda: 3)  # saves the reseed point at once
    assert session.autoplay == "all"
    assert load_game().autoplay == "all"
    overridden = GameSession.from_saved(load_game(), entropy=lambda: 4, autoplay="off")  # play --forced-moves off
    assert overridden.autoplay == "off"
    assert load_game().autoplay == "off"


def test_the_save_is_an_ordinary_game_record() -> None:
    state = played(30)
    path = save_game(state, SEATS, NAMES, "en")
    record = load_record(path)
    assert record.bots == SEATS and record.players == 3
    assert replay(record).actions == state.actions


def test_a_finished_game_saves_its_result() -> None:
    state = played(0)
    state.playout(random.Random(1))
    save_game(state, SEATS, NAMES, "en")
    saved = load_game()
    assert saved.finished
    assert json.loads(save_path().read_text(encoding="utf-8"))["result"]["winners"] == list(state.result().winners)


def test_writes_are_atomic(monkeypatch: pytest.MonkeyPatch) -> None:
    save_game(played(5), SEATS, NAMES, "en")
    before = save_path().read_bytes()

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        save_game(played(40), SEATS, NAMES, "en")
    assert save_path().read_bytes() == before  # the old save is intact
    assert [p.name for p in saves_dir().iterdir()] == [save_path().name]  # no temporary file left behind


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"format": "biblios-kit-game", "vers', "invalid or truncated JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"format": "biblios-kit-game", "version": 99}', "unsupported record version"),
        (b"\xff\xfe\x00garbage", "not UTF-8"),
    ],
)
def test_unreadable_saves_raise_record_errors(content: str | bytes, message: str) -> None:
    save_path().parent.mkdir(parents=True)
    if isinstance(content, bytes):
        save_path().write_bytes(content)
    else:
        save_path().write_text(content, encoding="utf-8")
    with pytest.raises(RecordError, match=message):
        load_game()


def test_changed_rules_and_illegal_actions_raise_record_errors() -> None:
    save_game(played(20), SEATS, NAMES, "en")
    document = json.loads(save_path().read_text(encoding="utf-8"))
    changed = dict(document, ruleset=dict(document["ruleset"], content_hash="f" * 64))
    save_path().write_text(json.dumps(changed), encoding="utf-8")
    with pytest.raises(RecordError, match="has changed since"):
        load_game()
    illegal = dict(document, actions=[*document["actions"][:3], "bid 5"])
    save_path().write_text(json.dumps(illegal), encoding="utf-8")
    with pytest.raises(RecordError, match="action 4"):
        load_game()


def test_missing_save_and_set_aside() -> None:
    with pytest.raises(RecordError, match="no saved game"):
        load_game()
    assert set_aside() is None
    save_game(played(3), SEATS, NAMES, "en")
    content = save_path().read_bytes()
    moved = set_aside()
    assert moved is not None and moved.read_bytes() == content and not has_save()
    save_game(played(3), SEATS, NAMES, "en")
    delete_save()
    assert not has_save()


def test_names_must_match_the_players() -> None:
    with pytest.raises(ValueError):
        save_game(played(1), SEATS, NAMES[:2], "en")
