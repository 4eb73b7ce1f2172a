"""Sentences for the errors the lower layers raise as data, in the user's language.

The engine raises :class:`~biblios_kit.errors.CodedError` subclasses carrying a code and
fields, never a sentence; the CLI and the TUI (and ``str()`` of such an error) call
:func:`explain`, which picks the template of the code and fills it in the active
language, or in ``lang``. The ruleset reader and checks (``biblios_kit.rules``) report
:class:`~biblios_kit.errors.Problem` objects the same way: :func:`explain_problem` makes
their sentence (``Problem.message`` and ``str()`` call it). Every template is a catalog message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple

from biblios_kit.bounded import InputError
from biblios_kit.errors import CodedError, Hint, Problem, RecordError, set_explainer, set_problem_explainer
from biblios_kit.i18n import N_, _, current_language, format_list, format_number, in_language, ngettext


class Plural(NamedTuple):
    """A template with a singular and a plural form, chosen by the number in field ``number``."""

    singular: str
    plural: str
    number: str


TEMPLATES: dict[str, str | Plural] = {
    # game set-up (engine.state.new_game)
    "unsupported-players": N_("ruleset {ruleset!r} has no setup for {players} players (supported: {supported})"),
    "setup-short-kind": N_("setup for {players} players removes {count} cards of a kind the deck has {available} of"),
    "setup-short-deal": N_(
        "setup for {players} players deals {count} cards of a kind the deck has {available} of to the players"
    ),
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
    "record-too-many-reseeds": N_(
        "{key} holds {count} reseed points for {actions} actions; at most {limit} are allowed "
        "(one each time the game was continued)"
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
    "bot-no-factory": N_("module {module} has no create_bot(name, seed, params, ruleset)"),
    "bot-no-params": N_("this bot takes no parameters, got {names}"),
    "bot-unknown-params": N_("unknown parameter(s) {names}; known: {known}"),
    "bot-param-not-number": N_("parameter {name} expects a number, got {value}"),
    "bot-param-not-whole": N_("parameter {name} expects a whole number, got {value}"),
    "bot-param-above": N_("parameter {name} must be more than {low}, got {value}"),
    "bot-param-between": N_("parameter {name} must lie between {low} and {high}, got {value}"),
    "bot-param-at-least": N_("parameter {name} must be at least {low}, got {value}"),
    # reading a ruleset file (rules.source)
    "yaml-syntax": N_("YAML syntax error: {detail}"),
    # what PyYAML or libyaml found (rules.source.yaml_problem): their English never reaches the reader
    "yaml-colon-here": N_(
        "a 'key:' is not allowed here: put each key on its own line, or quote a text that holds ': '"
    ),
    "yaml-complex-key": N_("a '?' complex key is not allowed here"),
    "yaml-dash-here": N_(
        "a list item ('- ') is not allowed here: start the list on the next line, indented under its key"
    ),
    "yaml-no-colon": N_("a ':' was expected after a key; each line of a mapping is 'key: value'"),
    "yaml-tab": N_("a tab character; YAML indents with spaces"),
    "yaml-bad-start": N_("the character {char} cannot start a value here; quote the text"),
    "yaml-unclosed": N_("the file ends inside a quoted text: its closing quote is missing"),
    "yaml-separator-in-text": N_(
        "a document separator ('---' or '...') inside a quoted text: its closing quote is probably missing"
    ),
    "yaml-bad-escape": N_(
        "an unknown backslash escape in a double-quoted text: write \\\\ for a backslash, or use single quotes"
    ),
    "yaml-bad-hex-escape": N_(
        "an invalid \\x, \\u or \\U escape in a double-quoted text (hexadecimal digits expected)"
    ),
    "yaml-expected-key": N_("a 'key: value' line was expected here: check the indentation of this line"),
    "yaml-expected-item": N_("a list item ('- ') was expected here: check the indentation of this line"),
    "yaml-flow-sequence": N_("a ',' or a closing ']' was expected here, in a list written in brackets"),
    "yaml-flow-mapping": N_("a ',' or a closing '}}' was expected here, in a mapping written in braces"),
    "yaml-expected-value": N_("a value was expected here"),
    "yaml-several-documents": N_("a second YAML document ('---') starts here; a ruleset file holds only one"),
    "yaml-after-end": N_("there is more text after the end of the document"),
    "yaml-colon-in-flow": N_(
        "a ':' inside brackets or braces must be followed by a space; quote the text if the colon belongs to it"
    ),
    "yaml-block-header": N_(
        "a malformed header for a block of text: write '|' or '>' at the end of the line (optionally with "
        "'-', '+' or a digit from 1 to 9)"
    ),
    "yaml-directive-or-tag": N_(
        "a malformed YAML directive ('%') or tag ('!'); rulesets need neither: remove it, or quote the text"
    ),
    "yaml-unknown-tag": N_("a tag ('!...') that rulesets do not use: remove it, or quote the text"),
    "yaml-anchor-name": N_("'&' and '*' start anchors and aliases, which rulesets do not use: quote the text"),
    "yaml-control": N_("the control character {char} is not allowed in YAML; remove it"),
    "yaml-invalid": N_("this is not valid YAML"),
    "yaml-in-key": N_("(the key that starts on line {line}, column {column})"),
    "yaml-in-mapping": N_("(in the mapping that starts on line {line}, column {column})"),
    "yaml-in-list": N_("(in the list that starts on line {line}, column {column})"),
    "yaml-in-quoted": N_("(the quoted text that starts on line {line}, column {column})"),
    "yaml-in-block-text": N_("(the block of text that starts on line {line}, column {column})"),
    "yaml-in-directive": N_("(the directive that starts on line {line}, column {column})"),
    "yaml-in-tag": N_("(the tag that starts on line {line}, column {column})"),
    "yaml-in-anchor": N_("(the anchor or alias that starts on line {line}, column {column})"),
    "yaml-in-value": N_("(in the value that starts on line {line}, column {column})"),
    "yaml-in-part": N_("(in the part that starts on line {line}, column {column})"),
    "not-utf8": N_("byte 0x{byte:02x} is not valid UTF-8; save the file as UTF-8 text"),
    "yaml-alias": N_("aliases (*{name}) are not allowed in rulesets; write the value out"),
    "yaml-anchor": N_("anchors (&{name}) are not allowed in rulesets; write the value out"),
    "too-deep": N_("nesting is deeper than {limit} levels; a ruleset needs far fewer"),
    "plain-keys-only": N_("only plain keys are allowed here (no lists, mappings or '<<' merge keys as keys)"),
    "duplicate-key": N_("duplicate key {key!r} (first set on line {first}); keep only one"),
    "number-too-long": N_("a number has more than {limit} digits"),
    "empty-file": N_("the file is empty; expected a ruleset mapping"),
    "unreadable-value": N_(
        "the value {value} cannot be read (an impossible date such as 2024-02-30, or a '!!' tag that does not fit "
        "it); quote it to make it a text"
    ),
    "unreadable-document": N_(
        "a value cannot be read (an impossible date such as 2024-02-30, or a '!!' tag that does not fit it); "
        "quote it to make it a text"
    ),
    "not-a-mapping": N_("the file must hold a mapping of fields (like 'id: ...')"),
    "file-too-large": N_("the file is larger than {limit} KiB; a ruleset is a few KiB"),
    "unreadable-file": "{detail}",  # made by the shared bounded reader
    "no-such-ruleset": N_("no such file, and no ruleset has this id or alias"),
    "empty-folder": N_("the folder holds no ruleset files (*.yaml)"),
    # the ruleset schema (rules.schema)
    "unknown-name-close": N_("unknown {what} {name!r}; did you mean {close!r}?"),
    "unknown-name-none": N_("unknown {what} {name!r}; none is defined here"),
    "unknown-name": N_("unknown {what} {name!r}; expected one of: {known}"),
    "invalid-key": N_("the key {key!r} is not valid here: expected {hint}"),
    "missing-field": N_("missing required field {name!r}"),
    "wrong-type": N_("{value} is {actual}; expected {expected}"),
    "wrong-type-found": N_("expected {expected}, found {found}"),
    "found-null": N_("an empty value"),
    "found-boolean": N_("the yes/no value {value}"),
    "not-in-choices": N_("{value} is not allowed; expected one of: {choices}"),
    "did-you-mean": N_("(did you mean {close!r}?)"),
    "not-allowed-expected": N_("{value} is not allowed; expected {expected}"),
    "too-small": N_("{value} is too small; expected at least {limit}"),
    "too-large": N_("{value} is too large; expected at most {limit}"),
    "empty-text": N_("must not be empty"),
    "too-long": Plural(
        "{value} is too long; expected at most {limit} character",
        "{value} is too long; expected at most {limit} characters",
        "limit",
    ),
    "no-match": N_("{value} is not valid here: expected {hint}"),
    "list-too-short": Plural(
        "the list is too short; expected at least {count} item",
        "the list is too short; expected at least {count} items",
        "count",
    ),
    "too-few-entries": Plural("expected at least {count} entry", "expected at least {count} entries", "count"),
    "list-too-long": Plural(
        "the list is too long; expected at most {count} item",
        "the list is too long; expected at most {count} items",
        "count",
    ),
    "too-many-entries": Plural(
        "too many entries; expected at most {count} entry",
        "too many entries; expected at most {count} entries",
        "count",
    ),
    "repeated-item": N_("the list repeats an item; each item may appear only once"),
    "schema-other": "{detail}",  # jsonschema's own words for a keyword the format does not use
    "hint-id": N_("an id (lowercase letters, digits and hyphens, like 'holy-books')"),
    "hint-number": N_("a whole number from 1 to 99 (like 2)"),
    "hint-letters": N_("a run of capital letters, one per card (like 'ABCD')"),
    "hint-colour": N_("a colour written #rrggbb (like '#c0392b')"),
    "hint-pattern": N_("text matching {pattern}"),
    "expect-value": "{value}",
    "expect-one-of": N_("one of: {choices}"),
    "expect-any": "{alternatives}",
    "expect-range": N_("{kind} from {low} to {high}"),
    "expect-at-least": N_("{kind} of at least {low}"),
    "kind": "{kind}",
    "raw": "{text}",
    # semantic checks of a ruleset (rules.checks)
    "deck-too-large": N_("the deck has {count} cards; a ruleset may have at most {limit}"),
    "alias-repeats-id": N_("the alias {alias!r} repeats the id"),
    "order-taken": N_("order {order} is also used by category {other!r}; each category needs its own place"),
    "no-cards": N_("the category has no cards"),
    "letter-repeated": N_(
        "the letter {letter!r} is used by {count} cards of this category; each letter breaks ties, so it must be unique"
    ),
    "place-taken": N_("place {place} already has an award die (item {first}); one die per place"),
    "min-above-max": N_("min {low} is above max {high}; expected min <= max"),
    "start-out-of-bounds": N_("the die starts at {start}, outside its bounds {low}..{high}"),
    "places-gap": N_("award places must run 1, 2, 3... without gaps; missing: {places}"),
    "no-signs": N_("no step to choose from; expected [1], [-1] or [1, -1]"),
    "too-many-dice": Plural(
        "the card moves {count} different dice but only {movable} die can be targeted",
        "the card moves {count} different dice but only {movable} dice can be targeted",
        "movable",
    ),
    "targets-count": Plural(
        "names {count} die but the card moves {dice}; expected one target per die",
        "names {count} dice but the card moves {dice}; expected one target per die",
        "count",
    ),
    "no-die-of-place": N_(
        "no category has an award die of place {place} (the board's dice are of place {places}); aim this target "
        "at a place the board has, or add a die of place {place} to 'dice'"
    ),
    "extend-variant-with-place": N_("(or extend a variant that has one: {variants})"),
    "church-too-many-uses": N_(
        "the church effect {effect!r} would have {uses} different uses (the sets of dice it can move, times its "
        "steps), more than the {cap} allowed; move fewer dice ('dice'), name the place of each die ('targets') or "
        "use fewer award dice"
    ),
    "too-few-dice-of-place": N_(
        "the card needs {count} different dice of this place but the board has only {available}"
    ),
    "removal-field": N_("{field!r} does not apply to {kind!r} cards; expected only: {allowed}"),
    "players-unsupported": N_("{players} players is not supported; expected {low} to {high}"),
    "removal-exceeds": Plural(
        "removes {count} card but the deck has only {left} of that kind",
        "removes {count} cards but the deck has only {left} of that kind",
        "count",
    ),
    "starting-cards-exceed": Plural(
        "deals {count} such card to each of {players} players, {need} in all, but only {left} are left after the "
        "named removals",
        "deals {count} such cards to each of {players} players, {need} in all, but only {left} are left after the "
        "named removals",
        "count",
    ),
    "starting-cards-exceed-deck": Plural(
        "deals {count} such card to each of {players} players, {need} in all, but the deck has only {left}",
        "deals {count} such cards to each of {players} players, {need} in all, but the deck has only {left}",
        "count",
    ),
    "no-gold-of-value": N_("the deck has no {gold} card of value {value}; its {gold} cards are worth {values}"),
    "no-category-card-of-value": N_(
        "the category {category!r} has no card of value {value}; its cards are worth {values}"
    ),
    "no-category-card-of-value-any": N_("no category has a card of value {value}; the values are {values}"),
    "random-removal-exceeds": N_("removes {count} random cards but only {left} are left after the named removals"),
    "hands-exceed": N_("{players} hands of {hand} cards need {need} cards but only {left} are left after the removals"),
    "gift-turn-too-small": N_(
        "a turn of {gift} cards in {the_gift_phase} is too small for {players} players: one card is kept, one goes to {the_auction_pile} and each other player takes one, so expected at least {need}"
    ),
    "no-gift-turn": N_(
        "only {left} cards are left for {the_gift_phase}, fewer than one turn of {gift}; remove fewer cards"
    ),
    "deck-ceiling-too-high": N_(
        "'deck' gives a ceiling of {ceiling}, above the highest allowed, {limit}; give a number"
    ),
    "hand-ceiling-too-high": N_(
        "'hand' allows bids up to {ceiling}, all of the deck, above the highest allowed, {limit}; give a number"
    ),
    "deck-ceiling-below-bid": N_(
        "'deck' gives a ceiling of {ceiling}, below the opening bid {bid}: no bid would be legal"
    ),
    "ceiling-below-bid": N_("the ceiling {ceiling} is below the opening bid {bid}: no bid would be legal"),
    "tiebreak-by-or-each": N_("each step needs exactly one of 'by', 'most', 'fewest' or 'each_category'"),
    "tiebreak-filter-with-each": N_("{field!r} narrows a count step ('most' or 'fewest'), not 'each_category'"),
    "criterion-takes-no-filter": N_(
        "the criterion {criterion!r} takes no {field!r}: count steps ('most' or 'fewest') narrow the cards they count"
    ),
    "count-most-or-fewest": N_("a count needs exactly one of 'most' or 'fewest'"),
    "count-gold-in-category": N_(
        "a category holds no {gold} card: count either the {gold} cards ('kind') or a 'category', not both"
    ),
    "no-card-of-value": N_("no card of the deck has the value {value}; the values are {values}"),
    "bonus-at-least-too-high": N_(
        "asks for at least {at_least} categories of a set of {count}: no player could win the bonus"
    ),
    "tiebreak-category-with-each": N_("'category' goes with 'by', not with 'each_category'"),
    "not-a-category-criterion": N_("{criterion!r} does not look at a category; expected one of: {choices}"),
    "criterion-needs-category": N_("the criterion {criterion!r} needs a 'category'"),
    "criterion-takes-no-category": N_("the criterion {criterion!r} takes no category"),
    "option-changes-identity": N_("an option cannot change {field!r}"),
    # extends, variants and options (rules.loader, rules.merge)
    "bad-extends": N_("expected the id, alias or relative path of a ruleset"),
    "extends-cycle": N_("'extends' makes a cycle: {chain}"),
    "extends-itself": N_(
        "'extends' names this very file: a variant extends the ruleset it changes, such as one of the editions: {known}"
    ),
    "variant-needs-own": N_("a variant must set its own {field!r} (it is not inherited)"),
    "new-option-needs": N_("(a new option needs 'title', 'description' and 'changes')"),
    "remove-missing-close": N_("{base} has no {what} {name!r} to remove; did you mean {close!r}?"),
    "remove-missing": N_("{base} has no {what} {name!r} to remove; it has: {known}"),
    "remove-missing-none": N_("{base} has no {what} {name!r} to remove; it has none"),
    "remove-missing-setup": N_("{base} has no setup for {name} players to remove; it has setups for {counts} players"),
    "no-such-entry": N_("{base} has no {what} {name!r}; did you mean {close!r}?"),
    "field-among-entries": N_(
        "'{name}' is a field of each entry of '{parent}', not an entry: it sits one level too far left; indent it "
        "under the entry it belongs to"
    ),
    "targets-per-card": N_(
        "(to name the place of each die a card moves, give that card its own 'targets', such as {example})"
    ),
    "entry-above": N_("(probably {previous!r}, the entry above it)"),
    "empty-entry": N_(
        "'{written}' has nothing after it; write '{removal}' to remove it from {base}, or indent its fields under it"
    ),
    "empty-entry-beside": N_(
        "'{written}' has nothing under it, and the fields after it ({fields}) sit beside it instead of under it; "
        "indent them one level further: {nesting} (or write '{removal}' to remove it from {base})"
    ),
    "empty-mapping": N_(
        "'{written}' changes nothing; write '{removal}' to remove it, or put the fields to change inside"
    ),
    "empty-field": N_("'{written}' has no value; give it one, or write '{removal}' to remove it"),
}
"""The sentence of each error code; ``{field}`` placeholders name the error's fields."""

PHASE_WORDS: tuple[str, ...] = (N_("gift"), N_("pick"), N_("church"), N_("bidding"), N_("payment"), N_("game over"))
"""A word for each phase (``Phase`` value order) in messages."""


WHAT_WORDS: dict[str, str] = {
    "field": N_("field"),
    "category": N_("category"),
    "church effect": N_("church effect"),
    "option": N_("option"),
    "ruleset": N_("ruleset"),
    "card value": N_("card value"),
    "Gold value": N_("Gold value"),
    "player count": N_("player count"),
}
"""What a ruleset name names (field ``what`` of the ruleset problems): ``unknown {what} 'x'``."""

KIND_WORDS: dict[str, str] = {
    "null": N_("null"),
    "boolean": N_("true or false"),
    "integer": N_("a whole number"),
    "decimal": N_("a decimal number"),
    "number": N_("a number"),
    "string": N_("a text"),
    "array": N_("a list"),
    "object": N_("a mapping of fields"),
    "date": N_("a date (quote it to make it a text)"),
    "list": N_("a list"),
    "mapping": N_("a mapping"),
    "value": N_("a value"),
}
"""Kinds of YAML value and of expected value (fields ``kind`` and ``actual``), in words."""


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
    "uses": lambda value: format_number(value) if isinstance(value, int) else value,
    "cap": lambda value: format_number(value) if isinstance(value, int) else value,
}
"""How a field that is not shown as it is becomes text (lists, the phase word)."""


def _show(value: object) -> str:
    """A value of a ruleset as messages quote it: texts quoted, ``null``, ``true``/``false``, kinds in words."""
    if isinstance(value, Hint):
        return hint_text(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    return str(value)


def _word(table: Mapping[str, str]) -> Callable[[object], object]:
    return lambda key: _(table[key]) if isinstance(key, str) and key in table else key


def _expand_terms(fields: dict[str, object]) -> None:
    """Replace field ``terms`` (term key -> the term as the ruleset writes it) by the term's forms
    in the active language (``the_gift_phase``, ``of_the_hand`` ...)."""
    terms = fields.pop("terms", None)
    if not isinstance(terms, Mapping):
        return
    from biblios_kit.rulebook.grammar import term_forms
    from biblios_kit.rules.model import build_term

    lang = current_language()
    for key, raw in terms.items():
        fields.update(term_forms(key, build_term(raw).form(lang), lang))


_RULESET_FIELD_TEXT: Mapping[str, Callable[[object], object]] = {
    "value": _show,
    "what": _word(WHAT_WORDS),
    "kind": _word(KIND_WORDS),
    "actual": _word(KIND_WORDS),
    "choices": lambda value: ", ".join(_show(v) for v in value) if isinstance(value, (tuple, list)) else value,
    "alternatives": lambda value: (
        _(" or ").join(_show(v) for v in value) if isinstance(value, (tuple, list)) else value
    ),
    "known": _list,
    "allowed": _list,
    "places": _list,
    "variants": _list,
    "values": lambda value: format_list([str(v) for v in value]) if isinstance(value, (tuple, list)) else value,
    "fields": lambda value: format_list([str(v) for v in value]) if isinstance(value, (tuple, list)) else value,
    "chain": lambda value: " -> ".join(str(v) for v in value) if isinstance(value, (tuple, list)) else value,
    "counts": lambda value: format_list([str(v) for v in value]) if isinstance(value, (tuple, list)) else value,
    "uses": _FIELD_TEXT["uses"],
    "cap": _FIELD_TEXT["cap"],
}
"""How a field of a ruleset problem becomes text (values quoted as YAML, words translated, lists joined)."""


def hint_text(hint: Hint) -> str:
    """The words of a :class:`~biblios_kit.errors.Hint` (what was expected, a note) in the active language."""
    return _sentence(hint.code, dict(hint.fields), _RULESET_FIELD_TEXT)


def explain_problem(problem: Problem, lang: str | None = None) -> str:
    """What is wrong in a ruleset, as ``problem.message`` shows it, in ``lang`` (the active language by default).

    The sentence of its code, then its note (a suggestion); ``with option x:`` in front when
    options cause it, and ``(via file:line:column)`` after it when a file it extends is involved.
    """
    if lang is not None:
        with in_language(lang):
            return explain_problem(problem)
    fields = dict(problem.fields)
    note = fields.pop("note", None)
    _expand_terms(fields)
    text = _sentence(problem.code, fields, _RULESET_FIELD_TEXT)
    if isinstance(note, Hint):
        text += " " + hint_text(note)
    if problem.options:
        names = ", ".join(problem.options)
        text = ngettext("with option {name}: ", "with options {name}: ", len(problem.options)).format(name=names) + text
    if problem.via is not None:
        file, line, column = problem.via
        text += " " + _("(via {where})").format(where=f"{file}:{line}:{column}")
    return text


def unknown_name_message(what: str, name: str, candidates: Iterable[str]) -> str:
    """``unknown <what> 'x'; did you mean 'y'?`` (or the names there are) in the active language.

    ``what`` is a key of :data:`WHAT_WORDS` (``"ruleset"``, ``"option"`` ...).
    """
    from biblios_kit.rules.schema import unknown_name

    code, fields = unknown_name(what, name, candidates)
    return hint_text(Hint(code, fields))


def _sentence(
    code: str, fields: dict[str, object], conversions: Mapping[str, Callable[[object], object]] | None = None
) -> str:
    """The sentence of ``code`` with ``fields`` in the active language (the code and fields if unknown)."""
    template = TEMPLATES.get(code)
    if template is None:
        details = ", ".join(f"{key}={value!r}" for key, value in fields.items())
        return f"{code} ({details})" if details else code
    count = fields.get(template.number) if isinstance(template, Plural) else None
    for key, convert in (_FIELD_TEXT if conversions is None else conversions).items():
        if key in fields:
            fields[key] = convert(fields[key])
    for key, value in fields.items():
        if isinstance(value, CodedError):  # a nested cause, explained in the same language
            fields[key] = explain(value)
        elif isinstance(value, Hint):  # a part of the sentence given as data
            fields[key] = hint_text(value)
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
set_problem_explainer(explain_problem)
