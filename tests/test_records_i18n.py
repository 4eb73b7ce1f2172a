"""Game-record and save errors speak the player's language (French, Spanish), translated when raised."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from biblios_kit.cli.app import build_app
from biblios_kit.engine import new_game
from biblios_kit.engine.actions import format_action
from biblios_kit.engine.records import from_json, load_record, record_of, replay
from biblios_kit.errors import RecordError
from biblios_kit.i18n import current_language, in_language, use_language
from biblios_kit.rules import load_ruleset
from biblios_kit.tui.saves import load_game, save_game, save_path


@pytest.fixture(autouse=True)
def _english_again(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Each test starts in English and leaves the process in English (the CLI switches it)."""
    monkeypatch.setenv("BIBLIOS_KIT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("BIBLIOS_KIT_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("BIBLIOS_LANG", raising=False)
    use_language("en")
    yield
    use_language("en")


def _document(decisions: int = 12, seed: int = 3) -> dict[str, Any]:
    """A valid record of a 3-player Biblios game after ``decisions`` random actions."""
    state = new_game(load_ruleset("biblios"), 3, seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        state.apply(state.random_action(rng))
    return record_of(state).to_json()


def _write(path: Path, content: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


def _record_error(path: Path) -> str:
    """The message of the RecordError that loading and replaying ``path`` raises."""
    with pytest.raises(RecordError) as caught:
        replay(load_record(path), where=str(path))
    return str(caught.value)


Mutation = Callable[[dict[str, Any]], object]

# (how the record is broken, expected English, French and Spanish fragments)
BROKEN_RECORDS: list[tuple[str, Mutation, dict[str, str]]] = [
    (
        "truncated",
        lambda d: json.dumps(d)[:40],
        {"en": "invalid or truncated JSON", "fr": "JSON invalide ou tronqué", "es": "JSON no válido o truncado"},
    ),
    (
        "unknown-version",
        lambda d: {**d, "version": 99},
        {
            "en": "unsupported record version 99 (this program reads versions 1 to 2)",
            "fr": "version d'enregistrement 99 non prise en charge (ce programme lit les versions 1 à 2)",
            "es": "versión de registro 99 no admitida (este programa lee las versiones 1 a 2)",
        },
    ),
    (
        "not-a-record",
        lambda d: {**d, "format": "chess"},
        {
            "en": "not a game record (format must be 'biblios-kit-game')",
            "fr": "ce n'est pas un enregistrement de partie (le format doit être 'biblios-kit-game')",
            "es": "no es un registro de partida (el formato debe ser 'biblios-kit-game')",
        },
    ),
    (
        "bad-field",
        lambda d: {**d, "seed": "five"},
        {"en": "'seed' must be an integer", "fr": "'seed' doit être un entier", "es": "'seed' debe ser un entero"},
    ),
    (
        "changed-ruleset",
        lambda d: {**d, "ruleset": {**d["ruleset"], "content_hash": "0" * 64}},
        {
            "en": "ruleset 'biblios' has changed since this game was recorded",
            "fr": "les règles 'biblios' ont changé depuis l'enregistrement de cette partie",
            "es": "el reglamento 'biblios' ha cambiado desde que se registró esta partida",
        },
    ),
    (
        "player-count",
        lambda d: {**d, "players": 9},
        {
            "en": "ruleset 'biblios' cannot be played by 9 players (player counts: 2, 3, or 4)",
            "fr": "les règles 'biblios' ne se jouent pas à 9 joueurs (nombres de joueurs\u202f: 2, 3 ou 4)",
            "es": "el reglamento 'biblios' no se juega con 9 jugadores (número de jugadores: 2, 3 o 4)",
        },
    ),
    (
        "one-player",
        lambda d: {**d, "players": 1},
        {
            "en": "cannot be played by 1 player (player counts",
            "fr": "ne se jouent pas à 1 joueur (nombres de joueurs",
            "es": "no se juega con 1 jugador (número de jugadores",
        },
    ),
    (
        "malformed-action",
        lambda d: {**d, "actions": d["actions"][:2] + ["fly"]},
        {
            "en": "action 3 ('fly') is not a valid action: ",
            "fr": "l'action 3 ('fly') n'est pas une action valable\u202f: ",
            "es": "la acción 3 ('fly') no es una acción válida: ",
        },
    ),
    (
        "unfinished-with-result",
        lambda d: {**d, "result": {"winners": [0], "victory_points": [1, 0, 0]}},
        {
            "en": "the record has a result but the game is not over",
            "fr": "l'enregistrement contient un résultat, mais la partie n'est pas terminée",
            "es": "el registro tiene un resultado, pero la partida no ha terminado",
        },
    ),
]


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
@pytest.mark.parametrize(("case", "mutate", "expected"), BROKEN_RECORDS, ids=[case[0] for case in BROKEN_RECORDS])
def test_record_errors_in_each_language(
    tmp_path: Path, lang: str, case: str, mutate: Mutation, expected: dict[str, str]
) -> None:
    path = _write(tmp_path / f"{case}.json", mutate(_document()))
    use_language(lang)
    message = _record_error(path)
    assert message.startswith(str(path)), message  # the file name stays as it is
    assert expected[lang] in message, message
    if lang != "en":
        assert expected["en"] not in message


def test_illegal_action_in_french() -> None:
    state = new_game(load_ruleset("biblios"), 3, 3)
    assert "pass" not in {format_action(state.rules, a) for a in state.legal_actions()}  # the game opens with a gift
    broken = {**_document(), "actions": ["pass"]}
    use_language("fr")
    with pytest.raises(
        RecordError, match=r"^enregistrement de partie\u202f: l'action 1 \('pass'\) n'est pas permise à ce moment"
    ):
        replay(from_json(broken))


@pytest.mark.parametrize(
    "lang,action,expected",
    [
        ("fr", "pass", "action 'pass' illégale pour le joueur 1 à ce stade (don)"),
        ("es", "pass", "acción 'pass' no permitida para el jugador 1 en este momento (regalo)"),
        ("fr", "bid x", "nombre attendu dans 'bid x', reçu 'x'"),
        ("es", "church monks+1 wizards+1", "dado desconocido 'wizards' en 'church monks+1 wizards+1'"),
    ],
)
def test_the_reason_an_action_is_refused_is_translated_too(lang: str, action: str, expected: str) -> None:
    """The engine's own explanation (bad action text, or not legal now) follows the language."""
    broken = {**_document(decisions=0), "actions": [action]}
    use_language(lang)
    with pytest.raises(RecordError) as caught:
        replay(from_json(broken))
    assert expected in str(caught.value)


def test_default_location_is_translated() -> None:
    """Without a file name the message starts with the words "game record" in the current language."""
    for lang, words in (
        ("en", "game record: "),
        ("fr", "enregistrement de partie\u202f: "),
        ("es", "registro de partida: "),
    ):
        use_language(lang)
        with pytest.raises(RecordError) as caught:
            from_json([1, 2])
        assert str(caught.value).startswith(words), str(caught.value)


def test_translated_when_raised_not_when_imported(tmp_path: Path) -> None:
    """The modules were imported in English; switching language changes the very next error."""
    path = _write(tmp_path / "v.json", {**_document(), "version": 7})
    use_language("en")
    english = _record_error(path)
    use_language("es")
    spanish = _record_error(path)
    use_language("fr")
    french = _record_error(path)
    assert "unsupported record version 7" in english
    assert "versión de registro 7 no admitida" in spanish
    assert "version d'enregistrement 7 non prise en charge" in french


def test_in_language_block_is_followed(tmp_path: Path) -> None:
    """A TUI worker renders with ``in_language`` without touching the process-wide language."""
    path = _write(tmp_path / "t.json", "{ truncated")
    with in_language("fr"):
        message = _record_error(path)
    assert "JSON invalide ou tronqué" in message and current_language() == "en"


# --- the TUI's saved game --------------------------------------------------------------------


def _no_save() -> None:
    """Leave the saves folder empty."""


def _save_not_utf8() -> None:
    save_path().parent.mkdir(parents=True)
    save_path().write_bytes(b"\xff\xfe\x00garbage")


def _save_truncated() -> None:
    _write(save_path(), '{"format": "biblios-kit-game", "vers')


def _save_with_two_seats_for_three_players() -> None:
    _write(save_path(), {**_document(), "bots": ["human", "random"]})


SAVE_ERRORS: list[tuple[Callable[[], None], dict[str, str]]] = [
    (_no_save, {"fr": "aucune partie sauvegardée", "es": "no hay ninguna partida guardada"}),
    (_save_not_utf8, {"fr": "ce n'est pas du texte UTF-8", "es": "no es texto UTF-8"}),
    (_save_truncated, {"fr": "JSON invalide ou tronqué", "es": "JSON no válido o truncado"}),
    (
        _save_with_two_seats_for_three_players,
        {
            "fr": "'bots' doit indiquer 3 sièges, un par joueur (il en indique 2)",
            "es": "'bots' debe indicar 3 asientos, uno por jugador (indica 2)",
        },
    ),
]


@pytest.mark.parametrize("lang", ["fr", "es"])
@pytest.mark.parametrize(
    ("prepare", "expected"), SAVE_ERRORS, ids=[case[0].__name__.strip("_") for case in SAVE_ERRORS]
)
def test_save_errors_in_french_and_spanish(lang: str, prepare: Callable[[], None], expected: dict[str, str]) -> None:
    prepare()
    use_language(lang)
    with pytest.raises(RecordError) as caught:
        load_game()
    message = str(caught.value)
    assert message.startswith(str(save_path())) and expected[lang] in message, message


def test_save_without_names_gets_localized_seat_names() -> None:
    state = new_game(load_ruleset("biblios"), 2, 8)
    save_game(state, ("human", "random"), ("Ann", "Bob"), None)
    document = json.loads(save_path().read_text(encoding="utf-8"))
    del document["table"]
    _write(save_path(), document)
    use_language("es")
    assert load_game().names == ("Jugador 1", "Jugador 2")
    use_language("fr")
    assert load_game().names == ("Joueur 1", "Joueur 2")


# --- the CLI ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "prefix", "fragment"),
    [
        ("fr", "erreur\u202f:", "JSON invalide ou tronqué"),
        ("es", "error:", "JSON no válido o truncado"),
    ],
)
def test_cli_replay_of_a_corrupt_record_is_localized(tmp_path: Path, lang: str, prefix: str, fragment: str) -> None:
    path = _write(tmp_path / "corrupt.json", json.dumps(_document())[:60])
    result = CliRunner().invoke(build_app(), ["replay", str(path), "--lang", lang])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"{prefix} {path}:1:"), result.stderr
    assert fragment in result.stderr and "invalid or truncated" not in result.stderr
    assert "Traceback" not in result.output


def test_cli_replay_of_an_unknown_version_in_french(tmp_path: Path) -> None:
    path = _write(tmp_path / "v3.json", {**_document(), "version": 3})
    result = CliRunner().invoke(build_app(), ["replay", str(path), "--lang", "fr"])
    assert result.exit_code == 2
    assert "version d'enregistrement 3 non prise en charge (ce programme lit les versions 1 à 2)" in result.stderr
