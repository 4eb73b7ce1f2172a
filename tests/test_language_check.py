"""The language check: render every screen text, event message, rulebook section and the main CLI outputs
(rules list/search/show, replay --log, simulate) in French and Spanish for both editions, the shipped
variants and the options, and fail on known defect patterns.

Patterns: "de el" / "a el" (Spanish contractions), French "de"/"le"/"la"/"que" before a vowel (elision),
a French ``: ; ! ?`` without its narrow no-break space, a plural after the number 1 ("1 cartes"),
a Spanish question without "¿", a ``{placeholder}`` left in the text, and an English sentence left
untranslated in a catalog.
"""

from __future__ import annotations

import io
import random
import re
from collections.abc import Iterator
from functools import cache

import pytest
from babel.messages.pofile import read_po
from conftest import SHIPPED_CHOICES
from rich.console import Console

from biblios_kit.engine import new_game
from biblios_kit.engine.state import GameState
from biblios_kit.i18n import in_language, use_language
from biblios_kit.resources import locales_dir
from biblios_kit.rulebook import diff_rulesets, render_rulebook
from biblios_kit.rulebook.describe import (
    EventDescriber,
    action_label,
    award_reason,
    placing_text,
    result_summary,
    tiebreak_text,
)
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import Ruleset

CASES = SHIPPED_CHOICES
LANGS = ("fr", "es")
NAMES = ("Ana", "Bruno", "Inès", "Olga", "Ugo", "Émile")

VOWEL_WORD = r"[aeiouyàâäéèêëîïôöùûüœæ][\w'-]*"
PATTERNS: dict[str, list[tuple[str, re.Pattern[str]]]] = {
    "es": [
        ("'de el' instead of 'del'", re.compile(r"\bde el\b", re.IGNORECASE)),
        ("'a el' instead of 'al'", re.compile(r"(?<![\w'])a el\b", re.IGNORECASE)),
        (
            "a question without '¿'",
            re.compile(r"(?:^|(?<=[.!?\n]))[^¿.!?\n]*\?(?!\w+=)"),
        ),  # a URL's ?key= is no question
        (
            "'tú' where the texts say 'usted'",
            re.compile(r"\b(tienes|puedes|quieres|debes|tus?)\b"),
        ),
    ],
    "fr": [
        (
            "no elision before a vowel",
            re.compile(rf"(?<![\w'’-])(de|le|la|que|ne|se|je)\s+{VOWEL_WORD}", re.IGNORECASE),
        ),
        ("'du'/'au' before a vowel", re.compile(rf"(?<![\w'’-])(du|au)\s+{VOWEL_WORD}", re.IGNORECASE)),
        ("a ': ; ! ?' without a narrow no-break space", re.compile(r"(?<![\u202f\d/])[:;!?](?=\s|$)")),
        ("a space inside « » that is not narrow", re.compile(r"« |\u00a0»| »")),
    ],
}
COMMON: list[tuple[str, re.Pattern[str]]] = [
    (
        "a plural after 1",
        re.compile(
            r"(?<![\d.,\u202f])\b1\s+(cartes|cards|cartas|joueurs|jugadores|dés|dados|actions|acciones|lignes|"
            r"líneas|différences|diferencias|tours|turnos)\b"
        ),
    ),
    ("a placeholder left in the text", re.compile(r"\{[a-z_]+(![rsa])?\}")),
]
EXCEPTIONS = {
    # letters, option ids and English words quoted from a ruleset are not French words
    "fr": re.compile(r"\b(de|le|la|que)\s+([A-I]\b|auction\b|enchères\b)"),
}


def defects(text: str, lang: str) -> list[str]:
    """Every known defect in ``text`` (one rendered line or message) written in ``lang``."""
    found = []
    allowed = EXCEPTIONS.get(lang)
    for name, pattern in PATTERNS.get(lang, []) + COMMON:
        for match in pattern.finditer(text):
            if allowed is not None and allowed.match(text, match.start()):
                continue
            start = max(0, match.start() - 30)
            found.append(f"{name}: …{text[start : match.end() + 30]}…")
    return found


@pytest.mark.parametrize(
    ("lang", "bad"),
    [
        ("es", "Ana toma Oro 2 de el espacio público."),
        ("es", "Ana pone una carta a el mazo."),
        ("es", "Quiere pagar?"),
        ("fr", "Tour de Ana : 4 cartes."),
        ("fr", "Tour d'Ana: 4 cartes."),
        ("fr", "Il prend le plus de Or."),
        ("fr", "Il pose la carte au étape Donation."),
        ("fr", "« Refus de payer »"),
        ("fr", "Ana a choisi 1 cartes sur 3."),
        ("es", "Ana prend {card}."),
        ("es", "No tienes ningún pago que hacer."),
    ],
)
def test_the_check_catches_each_defect(lang: str, bad: str) -> None:
    assert defects(bad, lang), bad


@pytest.mark.parametrize(
    ("lang", "good"),
    [
        ("es", "Ana toma Oro 2 del espacio público. ¿Quiere pagar?"),
        ("fr", "Tour d'Ana\u202f: 4 cartes («\u202fRefus de payer\u202f»)\u202f; la lettre de A à I."),
        ("fr", "Ana a choisi 1 carte sur 3, soit 10\u202f000 cartes."),
    ],
)
def test_the_check_accepts_good_text(lang: str, good: str) -> None:
    assert defects(good, lang) == []


@cache
def played(ruleset_id: str, options: tuple[str, ...], players: int, seed: int) -> tuple[Ruleset, list[GameState]]:
    """A whole game with random legal moves, and a clone of the state at every step."""
    ruleset = load_ruleset(ruleset_id, options)
    state = new_game(ruleset, players=players, seed=seed)
    rng = random.Random(seed)
    states = [state.clone()]
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
        states.append(state.clone())
    return ruleset, states


def screen_texts(ruleset: Ruleset, states: list[GameState], lang: str) -> Iterator[str]:
    """The table's panels, the action labels, the end screen and every event, as plain text."""
    from biblios_kit.tui.render import focus_text, hand_table, piles_text, players_table, public_text
    from biblios_kit.tui.screens.end import result_renderable

    console = Console(file=io.StringIO(), width=160, color_system=None)
    names = NAMES[: states[0].players]
    with in_language(lang):
        for state in states[:: max(1, len(states) // 60)] + [states[-1]]:
            if state.is_terminal():
                continue
            seat = state.current_player
            obs = state.observation(seat)
            yield focus_text(ruleset, obs, names, seat).plain
            yield piles_text(ruleset, obs).plain
            yield public_text(ruleset, obs.public).plain
            with console.capture() as capture:
                console.print(hand_table(ruleset, obs.hand))
                console.print(players_table(names, ["human"] * len(names), [3] * len(names), seat, seat, seat))
            yield capture.get()
            currency = obs.auction.currency if obs.auction is not None else "gold"
            for action in state.legal_actions():
                yield action_label(ruleset, action, obs.dice, currency)
        final = states[-1]
        result = final.result()
        yield result_summary(ruleset, result, names)
        for placing in result.ranking:
            yield placing_text(ruleset, placing, names)
            yield tiebreak_text(ruleset, placing.by)
        for category in result.categories:
            for award in category.awards:
                yield award_reason(ruleset, award, category.totals, category.best_letters, names)
        with console.capture() as capture:
            console.print(result_renderable(ruleset, result, names))
        yield capture.get()
        for viewer in range(final.players):
            yield from EventDescriber(ruleset, names).describe_all(final.events_for(viewer))


def rulebook_lines(ruleset: Ruleset, lang: str) -> Iterator[str]:
    book = render_rulebook(ruleset, lang)
    yield book.title
    yield book.subtitle
    for section in book.sections:
        yield section.title
        yield from section.lines()


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(
    ("ruleset_id", "options"), CASES, ids=lambda value: value if isinstance(value, str) else "+".join(value) or "-"
)
def test_rulebooks_screens_and_events_have_no_known_defect(
    ruleset_id: str, options: tuple[str, ...], lang: str
) -> None:
    use_language("en")
    ruleset = load_ruleset(ruleset_id, options)
    problems = [problem for line in rulebook_lines(ruleset, lang) for problem in defects(line, lang)]
    counts = ruleset.player_counts
    for players in sorted({counts[0], counts[-1]}):  # the smallest and the largest table
        ruleset, states = played(ruleset_id, options, players, seed=7 + players)
        problems += [problem for text in screen_texts(ruleset, states, lang) for problem in defects(text, lang)]
    assert problems == [], "\n".join(dict.fromkeys(problems))


@pytest.mark.parametrize("lang", LANGS)
def test_edition_diff_has_no_known_defect(lang: str) -> None:
    differences = diff_rulesets(load_ruleset("biblios"), load_ruleset("scripts-and-scribes"), lang)
    problems = [
        problem
        for difference in differences
        for text in (difference.topic, difference.left, difference.right)
        for problem in defects(text, lang)
    ]
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("lang", LANGS)
def test_catalog_messages_have_no_known_defect(lang: str) -> None:
    with (locales_dir() / lang / "LC_MESSAGES" / "biblios_kit.po").open("rb") as handle:
        catalog = read_po(handle, locale=lang)
    problems = []
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in strings:
            # placeholders are filled in later: check the words around them only
            words = re.sub(r"\{[^{}]*\}", "X", text)
            problems += [f"{ids[0]!r}: {problem}" for problem in defects(words, lang) if "placeholder" not in problem]
            english = re.findall(r"[A-Za-z]{3,}", re.sub(r"\{[^{}]*\}|'[^']*'|--[\w-]+", "", ids[0]))
            if text == ids[0] and len(english) >= 3:
                problems.append(f"{ids[0]!r}: left in English")
    assert problems == [], "\n".join(problems)


@pytest.fixture(scope="module")
def record_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A finished Scripts & Scribes game record (random legal moves)."""
    from biblios_kit.engine.records import record_of, save_record

    _ruleset, states = played("scripts-and-scribes", (), 3, 10)
    return str(save_record(record_of(states[-1]), tmp_path_factory.mktemp("records") / "game.json"))


@pytest.mark.parametrize("lang", LANGS)
def test_cli_outputs_have_no_known_defect(lang: str, record_file: str) -> None:
    from typer.testing import CliRunner

    from biblios_kit.cli.app import build_app

    commands = [
        ["rules", "list"],
        ["rules", "search", "licorne", "--ruleset", "scripts-and-scribes"],
        ["rules", "search", "enchère pénalité", "--ruleset", "biblios", "--option", "medieval-bluff"],
        ["rules", "show", "ties", "--ruleset", "scripts-and-scribes"],
        ["replay", record_file, "--log"],
        ["simulate", "--ruleset", "scripts-and-scribes", "--players", "3", "--games", "4", "--bots", "random"],
    ]
    problems = []
    for command in commands:
        result = CliRunner().invoke(build_app(), [*command, "--lang", lang])
        assert result.exit_code in (0, 1), (command, result.output)
        problems += [
            f"{command[:2]}: {problem}" for line in result.output.splitlines() for problem in defects(line, lang)
        ]
    assert problems == [], "\n".join(dict.fromkeys(problems))
