"""Sentences for the errors the lower layers raise as data, in the user's language.

The engine raises :class:`~biblios_kit.errors.CodedError` subclasses carrying a code and
fields, never a sentence; the CLI and the TUI (and ``str()`` of such an error) call
:func:`explain`, which picks the template of the code and fills it in the active
language, or in ``lang``. Every template is a catalog message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

from biblios_kit.bounded import InputError
from biblios_kit.errors import CodedError, RecordError, set_explainer
from biblios_kit.i18n import N_, _, format_list, in_language, ngettext


class Plural(NamedTuple):
    """A template with a singular and a plural form, chosen by the number in field ``number``."""

    singular: str
    plural: str
    number: str


TEMPLATES: dict[str, str | Plural] = {
    # game set-up (engine.state.new_game)
    "unsupported-players": N_("ruleset {ruleset!r} has no setup for {players} players (supported: {supported})"),
    "setup-short-kind": N_("setup for {players} players removes {count} cards of a kind the deck has {available} of"),
    "setup-short-deck": N_("setup for {players} players needs {need} cards, the deck has {left} left"),
    "bad-players": N_("expected a number of players, got {value!r}"),
    "bad-seed": N_("expected an integer seed, got {value!r}"),
    # applying actions (engine.state.GameState.apply)
    "not-an-action": N_("not an action: {action!r}"),
    "game-over": N_("the game is over; no action is legal (got {action!r})"),
    "illegal": N_("illegal action {text!r} for player {seat} at this point ({phase})"),
    # actions and their text form (engine.actions)
    "action-no-card": N_("action {action!r} names no card"),
    "action-not-bid": N_("action {action!r} is not a bid"),
    "action-unknown-die": N_("action {action!r} names a die this ruleset does not have"),
    "text-not-number": N_("expected a number in {original!r}, got {text!r}"),
    "text-not-text": N_("expected action text, got {text!r}"),
    "text-empty": N_("empty action text"),
    "text-needs-number": N_("expected '{word} <number>', got {text!r}"),
    "text-bid-range": N_("bid out of range in {text!r}"),
    "text-no-card": N_("no card {number} in this ruleset (cards 0..{last}): {text!r}"),
    "text-church-empty": N_("expected 'church decline' or 'church <die>+1 ...', got {text!r}"),
    "text-church-word": N_("expected '<die>+1' or '<die>-1', got {word!r} in {text!r}"),
    "text-unknown-die": N_("unknown die {name!r} in {text!r}; dice: {dice}"),
    "text-die-twice": N_("die {name!r} named twice in {text!r}"),
    "text-mixed-signs": N_("all dice must move the same way in {text!r}"),
    "text-unknown": N_("unknown action {text!r}"),
    # simulations (sim.runner)
    "sim-players": N_("ruleset {ruleset!r} supports {counts} players, not {players}"),
    # game records (engine.records)
    "record-not-object": N_("expected a JSON object"),
    "record-bad-format": N_("not a game record (format must be {format})"),
    "record-bad-version": N_("missing or non-integer {key}"),
    "record-unsupported-version": N_(
        "unsupported record version {version} (this program reads versions 1 to {supported})"
    ),
    "record-bad-ruleset": N_("{key} must be an object with id, content_hash and options"),
    "record-empty-string": N_("{key} must be a non-empty string"),
    "record-bad-hash": N_("{key} must be a SHA-256 hex string"),
    "record-not-strings": N_("{key} must be a list of strings"),
    "record-too-long": N_("{key} is too long"),
    "record-bad-ruleset-id": N_("{key} must be a ruleset id (lowercase letters, digits and hyphens), got {value}"),
    "record-not-positive": N_("{key} must be a positive integer"),
    "record-above-limit": N_("{key} must be at most {limit}"),
    "record-not-integer": N_("{key} must be an integer"),
    "record-too-many-digits": N_("{key} has more than {limit} digits"),
    "record-too-many-actions": N_("{key} holds {count} actions; a record holds at most {limit}"),
    "record-action-too-long": N_("action {number} is {length} characters long; an action has at most {limit}"),
    "record-not-mapping": N_("{key} must be an object"),
    "record-ruleset-unloadable": N_("cannot load ruleset {ruleset}: {error}"),
    "record-invalid-action": N_("action {number} ({action}) is not a valid action: {reason}"),
    "record-illegal-action": N_("action {number} ({action}) is not legal at that point of the game: {reason}"),
    "record-not-over": N_("the record has a result but the game is not over after its actions"),
    "record-result-differs": N_("replay gives {replayed}, the record says {stored}"),
    "record-resampled": N_("a resampled state has no record (its hidden cards were re-dealt)"),
    "record-setup": "{reason}",  # the engine's own explanation of a setup it cannot deal
    "record-player-count": Plural(
        "ruleset {ruleset} cannot be played by {players} player (player counts: {choices})",
        "ruleset {ruleset} cannot be played by {players} players (player counts: {choices})",
        "players",
    ),
    "record-ruleset-changed": N_(
        "ruleset {ruleset} has changed since this game was recorded (content hash {current}, record has {recorded})"
    ),
    "record-located": "{message}",
    "record-bad-reseeds": N_(
        "{key} must be a list of objects with 'after' (a number of actions of the record, in order) and 'seed'"
    ),
    "record-needs-version-2": N_("{key} needs record format version 2 (this record says version 1)"),
    "record-embedded-mismatch": N_(
        "the ruleset embedded in the record is not ruleset {ruleset} with the record's options"
    ),
    "record-embedded-invalid": N_("the ruleset {ruleset} embedded in the record is not valid:\n{problems}"),
    # bot specs (bots.registry, bots.params)
    "bot-spec-empty": N_("empty bot spec {spec!r}"),
    "bot-unknown": N_("unknown bot {name!r}; known: {known}"),
    "bot-spec-item": N_("expected key=value in bot spec {spec!r}, got {item!r}"),
    "bot-spec-bad": N_("bad bot spec {spec!r}: {reason}"),
    "bot-unavailable": N_("the {name!r} bot is not available (module {module} is missing)"),
    "bot-no-factory": N_("module {module} has no create_bot(name, seed, params)"),
    "bot-no-params": N_("this bot takes no parameters, got {names}"),
    "bot-unknown-params": N_("unknown parameter(s) {names}; known: {known}"),
    "bot-param-not-number": N_("parameter {name} expects a number, got {value}"),
    "bot-param-not-whole": N_("parameter {name} expects a whole number, got {value}"),
    "bot-param-above": N_("parameter {name} must be more than {low}, got {value}"),
    "bot-param-between": N_("parameter {name} must lie between {low} and {high}, got {value}"),
    "bot-param-at-least": N_("parameter {name} must be at least {low}, got {value}"),
}
"""The sentence of each error code; ``{field}`` placeholders name the error's fields."""

PHASE_WORDS: tuple[str, ...] = (N_("gift"), N_("pick"), N_("church"), N_("bidding"), N_("payment"), N_("game over"))
"""A word for each phase (``Phase`` value order) in messages."""


def _list(value: object) -> str:
    return ", ".join(str(item) for item in value) if isinstance(value, (tuple, list)) else str(value)


_FIELD_TEXT: Mapping[str, Callable[[object], object]] = {
    "supported": _list,
    "counts": _list,
    "dice": _list,
    "names": _list,
    "known": _list,
    "choices": lambda value: format_list([str(v) for v in value], "or") if isinstance(value, (tuple, list)) else value,
    "low": lambda value: f"{value:g}" if isinstance(value, float) else value,
    "high": lambda value: f"{value:g}" if isinstance(value, float) else value,
    "phase": lambda phase: _(PHASE_WORDS[int(phase)]) if isinstance(phase, int) else phase,
}
"""How a field that is not shown as it is becomes text (lists, the phase word)."""


def _sentence(code: str, fields: dict[str, object]) -> str:
    """The sentence of ``code`` with ``fields`` in the active language (the code and fields if unknown)."""
    template = TEMPLATES.get(code)
    if template is None:
        details = ", ".join(f"{key}={value!r}" for key, value in fields.items())
        return f"{code} ({details})" if details else code
    count = fields.get(template.number) if isinstance(template, Plural) else None
    for key, convert in _FIELD_TEXT.items():
        if key in fields:
            fields[key] = convert(fields[key])
    for key, value in fields.items():
        if isinstance(value, CodedError):  # a nested cause, explained in the same language
            fields[key] = explain(value)
    player = fields.get("player")
    if isinstance(player, int):
        fields["seat"] = player + 1  # sentences number players from 1
    if isinstance(template, Plural):
        n = count if isinstance(count, int) else 2
        english = template.singular if n == 1 else template.plural
        translated = ngettext(template.singular, template.plural, n)
    else:
        english = translated = template
        translated = _(template)
    try:
        return translated.format(**fields)
    except (KeyError, IndexError, ValueError):  # a translation with a broken placeholder: fall back to English
        return english.format(**fields)


def explain(error: CodedError, lang: str | None = None) -> str:
    """The sentence for ``error`` in ``lang`` (the active language by default).

    A :class:`~biblios_kit.errors.RecordError` is prefixed with where the record came from (the
    file, or "game record"). An unknown code (a newer engine than this module knows) still
    gives a readable line: the code and the fields.
    """
    if lang is not None:
        with in_language(lang):
            return explain(error)
    fields = dict(error.fields)
    if not isinstance(error, RecordError):
        return _sentence(error.code, fields)
    where = fields.pop("where", None)
    place = where if isinstance(where, str) else _("game record")
    reason = fields.get("reason")
    if isinstance(reason, InputError):  # a file that could not be read: its own line and column
        return reason.located(place)
    return _("{where}: {message}").format(where=place, message=_sentence(error.code, fields))


set_explainer(explain)
