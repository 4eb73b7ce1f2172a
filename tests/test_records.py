"""Game records: atomic save, load, replay, and a clear error for every kind of bad record."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import snapshot
from typer.testing import CliRunner

from biblios_kit.cli.app import build_app
from biblios_kit.engine import new_game
from biblios_kit.engine.records import FORMAT, VERSION, GameRecord, load_record, record_of, replay, save_record
from biblios_kit.errors import RecordError
from biblios_kit.i18n import use_language
from biblios_kit.rules import load_ruleset


@pytest.fixture(autouse=True)
def _english(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BIBLIOS_KIT_CONFIG_DIR", str(tmp_path / "config"))
    use_language("en")


def finished(name: str = "biblios", options: tuple[str, ...] = (), players: int = 3, seed: int = 5):
    state = new_game(load_ruleset(name, options), players, seed)
    state.playout(random.Random(seed))
    return state


def test_save_load_replay_round_trip(tmp_path: Path) -> None:
    state = finished(options=("medieval-bluff",))
    record = record_of(state, ["random", "random", "human"])
    path = save_record(record, tmp_path / "games" / "one.json")
    assert sorted(p.name for p in path.parent.iterdir()) == ["one.json"]  # no temporary file left
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["format"] == FORMAT and document["version"] == 1  # no reseeds, no embedded ruleset: version 1
    assert VERSION == 2
    assert document["ruleset"] == {
        "id": "biblios",
        "content_hash": state.ruleset.content_hash,
        "options": ["medieval-bluff"],
    }
    assert document["actions"][0] in ("keep", "auction", "public")
    assert document["result"]["winners"] == list(state.result().winners)
    loaded = load_record(path)
    assert loaded == record
    again = replay(loaded)
    assert snapshot(again) == snapshot(state)


def test_unfinished_game_records_and_replays(tmp_path: Path) -> None:
    state = new_game(load_ruleset("scripts-and-scribes"), 2, seed=1)
    for _ in range(30):
        state.apply(state.legal_actions()[-1])
    record = record_of(state)
    assert record.result is None and len(record.actions) == 30
    assert snapshot(replay(load_record(save_record(record, tmp_path / "r.json")))) == snapshot(state)


def test_save_overwrites_atomically(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text("old", encoding="utf-8")
    save_record(record_of(finished()), path, durable=False)
    assert load_record(path).players == 3


def _write(tmp_path: Path, document: object) -> Path:
    path = tmp_path / "bad.json"
    path.write_text(document if isinstance(document, str) else json.dumps(document), encoding="utf-8")
    return path


def _good() -> dict:
    return record_of(finished()).to_json()


@pytest.mark.parametrize(
    "mutate,message",
    [
        (lambda d: '{"format": "biblios-kit-game", "vers', "invalid or truncated JSON"),
        (lambda d: [1, 2], "expected a JSON object"),
        (lambda d: {**d, "format": "chess"}, "not a game record"),
        (lambda d: {**d, "version": 99}, "unsupported record version 99"),
        (lambda d: {**d, "players": "three"}, "'players' must be a positive integer"),
        (lambda d: {**d, "seed": None}, "'seed' must be an integer"),
        (lambda d: {**d, "actions": "keep"}, "'actions' must be a list"),
        (lambda d: {**d, "ruleset": {**d["ruleset"], "content_hash": "0" * 64}}, "has changed since"),
        (lambda d: {**d, "ruleset": {**d["ruleset"], "id": "no-such-ruleset"}}, "cannot load ruleset"),
        (lambda d: {**d, "actions": d["actions"][:3] + ["bid 3"] + d["actions"][4:]}, "action 4 ('bid 3')"),
        (lambda d: {**d, "actions": d["actions"][:2] + ["fly"]}, "action 3 ('fly')"),
        (lambda d: {**d, "actions": d["actions"][:-1]}, "not over"),
        (lambda d: {**d, "result": {"winners": [9], "victory_points": [0, 0, 0]}}, "the record says"),
        (lambda d: {**d, "players": 9}, "9 players"),
    ],
)
def test_bad_records_raise_record_error(tmp_path: Path, mutate, message: str) -> None:
    path = _write(tmp_path, mutate(_good()))
    with pytest.raises(RecordError, match=message.replace("(", r"\(").replace(")", r"\)")):
        replay(load_record(path), where=str(path))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="cannot read"):
        load_record(tmp_path / "nothing.json")


def test_resampled_state_has_no_record() -> None:
    state = new_game(load_ruleset("biblios"), 3, seed=1)
    with pytest.raises(RecordError):
        record_of(state.resample(1, random.Random(0)))


def test_cli_replay_text_json_and_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    state = finished()
    path = save_record(record_of(state), tmp_path / "g.json")
    result = runner.invoke(build_app(), ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert "actions replayed, all legal" in result.output and "Place 1" in result.output
    result = runner.invoke(build_app(), ["replay", str(path), "--json"])
    data = json.loads(result.output)
    assert data["finished"] and data["result"]["winners"] == list(state.result().winners)
    bad = _write(tmp_path, "{ truncated")
    result = runner.invoke(build_app(), ["replay", str(bad)])
    assert result.exit_code == 2
    assert "invalid or truncated JSON" in result.output and "Traceback" not in result.output
    result = runner.invoke(build_app(), ["replay", str(_write(tmp_path, {**_good(), "version": 3}))])
    assert result.exit_code == 2 and "unsupported record version" in result.output
    result = runner.invoke(build_app(), ["replay", str(path), "--lang", "fr"])
    assert result.exit_code == 0


def test_record_dataclass_fields() -> None:
    record = GameRecord("biblios", "a" * 64, (), 3, 1, ("keep",))
    assert record.to_json()["actions"] == ["keep"] and "bots" not in record.to_json()
