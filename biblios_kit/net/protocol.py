"""The JSON messages of the network API: views, events and results to JSON and back, and their JSON Schema.

Everything here is plain data conversion; what a seat may see is decided in
:mod:`biblios_kit.net.views` from the engine's own redacted views. Cards are card ids
(indices into ``Ruleset.deck``), actions are in the text form of ``docs/engine.md``.
The schema of every message is ``protocol.schema.json`` next to this module.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from operator import attrgetter
from typing import Any

from biblios_kit.bounded import MAX_INT_DIGITS, InputError, decode_utf8, loads_json
from biblios_kit.engine.events import Event, EventKind
from biblios_kit.engine.observation import AuctionView, Observation, PaymentView
from biblios_kit.engine.scoring import BonusAward, CategoryResult, DieAward, GameResult, Placing, WonBy
from biblios_kit.engine.state import Phase
from biblios_kit.i18n import _
from biblios_kit.rules.model import CardKind, TieBreak, TieBreakBy

PROTOCOL_VERSION = 1
"""The version of the messages this module writes (``"protocol"`` in every view)."""

MAX_BODY_BYTES = 16 * 1024
"""Largest HTTP request body the server reads."""
MAX_MESSAGE_BYTES = 8 * 1024
"""Largest WebSocket message the server reads."""
MAX_JSON_DEPTH = 8
"""Deepest nesting of arrays and objects in a client message (the deepest the protocol needs is 2)."""
MAX_VERSION = 10**9
"""A ``version`` or ``since`` a client sends must be below this (a game has a few hundred actions)."""


_LONG_DIGITS = re.compile(rf"[0-9]{{{MAX_INT_DIGITS + 1},}}")


class ProtocolError(ValueError):
    """A message that does not follow the protocol (wrong type, missing field, unknown value)."""


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)
"""One encoder for every message (``json.dumps`` with options builds a new one per call); messages are
trees, so no check for circular references."""


_ONE_SHOT = (
    None
    if c_make_encoder is None
    else c_make_encoder(None, _ENCODER.default, encode_basestring, None, ":", ",", False, False, True)
)
"""The C encoder that :data:`_ENCODER` builds again on every call (same options), built once: the call costs
half as much (1.2 against 2.3 us for a small message; the server writes several per action)."""


def dumps(message: object) -> str:
    """A message as compact JSON text (UTF-8 left as is: the transport encodes it); tuples are written as lists."""
    if _ONE_SHOT is None:  # pragma: no cover - CPython always has its C encoder
        return _ENCODER.encode(message)
    return "".join(_ONE_SHOT(message, 0))


def phase_name(phase: Phase) -> str:
    """The phase as it appears in messages (``"gift"``, ``"bidding"``, ``"game_over"`` ...)."""
    return phase.name.lower()


def event_to_json(event: Event) -> dict[str, Any]:
    """An event as JSON: ``{"kind": "bid", "player": 1, "card": null, "args": [3]}``."""
    return {"kind": event.kind.name.lower(), "player": event.player, "card": event.card, "args": list(event.args)}


_KIND_NAMES = {kind: kind.name.lower() for kind in EventKind}


def event_text(event: Event) -> str:
    """:func:`event_to_json` as compact JSON text, written directly (the server writes several per action)."""
    card = "null" if event.card is None else event.card
    args = ",".join(map(str, event.args))
    return f'{{"kind":"{_KIND_NAMES[event.kind]}","player":{event.player},"card":{card},"args":[{args}]}}'


def event_from_json(data: object) -> Event:
    """The :class:`Event` of :func:`event_to_json` (``ProtocolError`` if malformed)."""
    if not isinstance(data, dict):
        raise ProtocolError(f"expected an event object, got {data!r}")
    try:
        kind = EventKind[str(data["kind"]).upper()]
        card = data["card"]
        return Event(kind, _int(data["player"]), None if card is None else _int(card), tuple(_ints(data["args"])))
    except KeyError as error:
        raise ProtocolError(f"event: missing or unknown {error}") from None


def observation_to_json(obs: Observation, legal: Sequence[str]) -> dict[str, Any]:
    """An observation as JSON (every field of :class:`Observation`; ``legal_actions`` as text)."""
    values = _observation_values(obs)
    data = {name: convert(value) for (name, convert, _text), value in zip(_OBSERVATION_FIELDS, values)}
    data["legal_actions"] = list(legal)
    return data


def _pairs(value: tuple[tuple[int, int], ...]) -> list[list[int]]:
    return list(map(list, value))


def _auction_json(auction: AuctionView | None) -> dict[str, Any] | None:
    if auction is None:
        return None
    return {
        "card": auction.card,
        "currency": auction.currency,
        "high_bid": auction.high_bid,
        "high_bidder": auction.high_bidder,
        "bids": [list(b) for b in auction.bids],
        "out": list(auction.out),
        "excluded": list(auction.excluded),
        "min_bid": auction.min_bid,
        "max_bid": auction.max_bid,
    }


def _payment_json(payment: PaymentView | None) -> dict[str, Any] | None:
    if payment is None:
        return None
    return {
        "payer": payment.payer,
        "bid": payment.bid,
        "currency": payment.currency,
        "paid_gold": list(payment.paid_gold),
        "paid_count": payment.paid_count,
    }


def _unpaid_json(value: tuple[tuple[int, int, int, tuple[int, ...]], ...]) -> list[list[Any]]:
    return [[player, card, bid, list(cards)] for player, card, bid, cards in value]


def _same(value: Any) -> Any:
    return value


def _opt_list(value: tuple[int, ...] | None) -> list[int] | None:
    return None if value is None else list(value)


def _number_text(value: int | None) -> str:
    return "null" if value is None else str(value)


def _bool_text(value: bool) -> str:
    return "true" if value else "false"


def _phase_text(value: Phase) -> str:
    return f'"{phase_name(value)}"'


def _auction_text(value: AuctionView | None) -> str:
    return dumps(_auction_json(value))


def _payment_text(value: PaymentView | None) -> str:
    return dumps(_payment_json(value))


_OBSERVATION_FIELDS: tuple[tuple[str, Any, Any], ...] = (
    ("player", _same, _number_text),
    ("players", _same, _number_text),
    ("ruleset_id", _same, dumps),
    ("ruleset_hash", _same, dumps),
    ("phase", phase_name, _phase_text),
    ("current_player", _same, _number_text),
    ("active_player", _same, _number_text),
    ("hand", list, dumps),
    ("hand_sizes", list, dumps),
    ("public", list, dumps),
    ("dice", list, dumps),
    ("draw_pile", _same, _number_text),
    ("auction_pile", _same, _number_text),
    ("removed", _same, _number_text),
    ("discard", list, dumps),
    ("drawn", _same, _number_text),
    ("kept", _same, _number_text),
    ("kept_hidden", _same, _bool_text),
    ("owed", list, dumps),
    ("church", _opt_list, dumps),
    ("auction", _auction_json, _auction_text),
    ("payment", _payment_json, _payment_text),
    ("my_kept", list, dumps),
    ("my_auction_cards", list, dumps),
    ("revealed", list, dumps),
    ("gold_paid", _pairs, dumps),
    ("cards_paid", list, dumps),
    ("cards_lost", list, dumps),
    ("acquired", _pairs, dumps),
    ("my_buried", list, dumps),
    ("unpaid", _unpaid_json, dumps),
)
"""Each field of an observation's JSON but ``legal_actions`` (text form: given apart): its name (that of the
:class:`Observation` attribute), the function converting the attribute to JSON and the one writing it as JSON
text directly. :func:`observation_to_json` writes them in this order."""

_observation_values = attrgetter(*(name for name, _json, _text in _OBSERVATION_FIELDS))
"""The values of those fields of an observation, as a tuple (read in one call)."""


def observation_changes_text(old: Observation, new: Observation, old_legal: list[str], new_legal: list[str],
                             written: dict[str, tuple[Any, str]] | None = None) -> str:  # fmt: skip
    """The fields of :func:`observation_to_json` whose value differs between ``old`` and ``new``, as ``new`` has
    them, as the text of one JSON object (``legal_actions`` included when the texts differ).

    The observation of an ``update`` message (docs/network.md): a few fields per action
    instead of the thirty of a whole observation. Fields are compared on the engine's tuples
    and only the changed ones are written, straight to text. ``written`` (kept by the caller
    for one seat) remembers the last text of each list field: a list that only grew (the
    cards a seat saw enter hands, the discard ...) is written as that text plus its new
    items, not again from its first item (lists of more than eight items: shorter ones are
    written whole).
    """
    parts = []
    for (name, _json, text), value, before in zip(_OBSERVATION_FIELDS, _observation_values(new),
                                                  _observation_values(old)):  # fmt: skip
        if value == before:
            continue
        if written is not None and type(value) is tuple and len(value) > 8:
            parts.append(f'"{name}":{_grown_text(written, name, value)}')
        else:
            parts.append(f'"{name}":{text(value)}')
    if new_legal != old_legal:
        parts.append(f'"legal_actions":{dumps(new_legal)}')
    return "{" + ",".join(parts) + "}"


def _grown_text(written: dict[str, tuple[Any, str]], name: str, value: tuple[Any, ...]) -> str:
    """The JSON text of the list field ``name`` now ``value``, from its last text in ``written`` when it only grew."""
    last = written.get(name)
    if last is not None and last[0] and len(value) > len(last[0]) and value[: len(last[0])] == last[0]:
        text = f"{last[1][:-1]},{dumps(value[len(last[0]) :])[1:]}"
    else:
        text = dumps(value)
    written[name] = value, text
    return text


def observation_from_json(data: object, legal_actions: Sequence[int] = ()) -> Observation:
    """Rebuild an :class:`Observation` from :func:`observation_to_json` (the client side).

    ``legal_actions`` are the parsed actions (the JSON holds their text form, which only
    a ruleset can parse). ``ProtocolError`` if a field is missing or mistyped.
    """
    if not isinstance(data, dict):
        raise ProtocolError(f"expected an observation object, got {type(data).__name__}")
    try:
        a = data["auction"]
        p = data["payment"]
        church = data["church"]
        return Observation(
            player=_int(data["player"]),
            players=_int(data["players"]),
            ruleset_id=str(data["ruleset_id"]),
            ruleset_hash=str(data["ruleset_hash"]),
            phase=Phase[str(data["phase"]).upper()],
            current_player=_opt_int(data["current_player"]),
            active_player=_int(data["active_player"]),
            hand=_ints(data["hand"]),
            hand_sizes=_ints(data["hand_sizes"]),
            public=_ints(data["public"]),
            dice=_ints(data["dice"]),
            draw_pile=_int(data["draw_pile"]),
            auction_pile=_int(data["auction_pile"]),
            removed=_int(data["removed"]),
            discard=_ints(data["discard"]),
            drawn=_opt_int(data["drawn"]),
            kept=_opt_int(data["kept"]),
            kept_hidden=bool(data["kept_hidden"]),
            owed=_triple(data["owed"]),
            church=None if church is None else _pair(church),
            auction=None
            if a is None
            else AuctionView(
                card=_int(a["card"]),
                currency=str(a["currency"]),
                high_bid=_int(a["high_bid"]),
                high_bidder=_opt_int(a["high_bidder"]),
                bids=tuple(_pair(b) for b in a["bids"]),
                out=_ints(a["out"]),
                excluded=_ints(a["excluded"]),
                min_bid=_int(a["min_bid"]),
                max_bid=_int(a["max_bid"]),
            ),
            payment=None
            if p is None
            else PaymentView(
                payer=_int(p["payer"]),
                bid=_int(p["bid"]),
                currency=str(p["currency"]),
                paid_gold=_ints(p["paid_gold"]),
                paid_count=_int(p["paid_count"]),
            ),
            my_kept=_ints(data["my_kept"]),
            my_auction_cards=_ints(data["my_auction_cards"]),
            revealed=_ints(data["revealed"]),
            gold_paid=tuple(_pair(g) for g in data["gold_paid"]),
            cards_paid=_ints(data["cards_paid"]),
            cards_lost=_ints(data.get("cards_lost", [0] * _int(data["players"]))),  # absent from older servers' views
            acquired=tuple(_pair(g) for g in data["acquired"]),
            my_buried=_ints(data["my_buried"]),
            legal_actions=tuple(legal_actions),
            unpaid=tuple(_unpaid(item) for item in data.get("unpaid", [])),  # absent from older servers' views
        )
    except (KeyError, TypeError) as error:
        raise ProtocolError(f"observation: missing or mistyped field {error}") from None


def _unpaid(item: object) -> tuple[int, int, int, tuple[int, ...]]:
    """One ``[player, card, bid, [cards...]]`` of an observation's ``unpaid`` (``ProtocolError`` if malformed)."""
    if not isinstance(item, list) or len(item) != 4:
        raise ProtocolError(f"observation: unpaid: expected [player, card, bid, cards], got {item!r}"[:200])
    return _int(item[0]), _int(item[1]), _int(item[2]), _ints(item[3])


def result_to_json(result: GameResult) -> dict[str, Any]:
    """A :class:`GameResult` as JSON (every field, so the client can show the whole end screen)."""
    return {
        "players": result.players,
        "winners": list(result.winners),
        "victory_points": list(result.victory_points),
        "gold": list(result.gold),
        "categories": [
            {
                "category": c.category,
                "totals": list(c.totals),
                "best_letters": list(c.best_letters),
                "awards": [
                    {
                        "die": a.die,
                        "category": a.category,
                        "place": a.place,
                        "value": a.value,
                        "winner": a.winner,
                        "by": a.by.value,
                        "multiplier": a.multiplier,
                    }
                    for a in c.awards
                ],
            }
            for c in result.categories
        ],
        "ranking": [
            {
                "place": p.place,
                "players": list(p.players),
                "by": None if p.by is None else _tiebreak_json(p.by),
            }
            for p in result.ranking
        ],
        "bonuses": [{"bonus": b.bonus, "points": b.points, "players": list(b.players)} for b in result.bonuses],
    }


def _tiebreak_json(step: TieBreak) -> dict[str, Any]:
    """A tie-break step: ``by`` and ``category``, plus a count step's ``fewest``, ``kind`` and ``value``."""
    data: dict[str, Any] = {"by": step.by.value, "category": step.category}
    if step.counts:
        data |= {"fewest": step.fewest, "kind": None if step.kind is None else step.kind.value, "value": step.value}
    return data


def _tiebreak(data: dict[str, Any]) -> TieBreak:
    """The :class:`TieBreak` of :func:`_tiebreak_json` (a count step's filters absent from older servers)."""
    kind = data.get("kind")
    value = data.get("value")
    return TieBreak(
        TieBreakBy(data["by"]),
        None if data["category"] is None else str(data["category"]),
        fewest=data.get("fewest", False) is True,
        kind=None if kind is None else CardKind(kind),
        value=None if value is None else _int(value),
    )


def result_from_json(data: object) -> GameResult:
    """Rebuild the :class:`GameResult` of :func:`result_to_json` (``ProtocolError`` if malformed)."""
    if not isinstance(data, dict):
        raise ProtocolError("expected a result object")
    try:
        categories = tuple(
            CategoryResult(
                category=str(c["category"]),
                totals=_ints(c["totals"]),
                best_letters=tuple(None if x is None else str(x) for x in c["best_letters"]),
                awards=tuple(
                    DieAward(
                        _int(a["die"]),
                        str(a["category"]),
                        _int(a["place"]),
                        _int(a["value"]),
                        _opt_int(a["winner"]),
                        WonBy(a["by"]),
                        _int(a.get("multiplier", 1)),
                    )
                    for a in c["awards"]
                ),
            )
            for c in data["categories"]
        )
        ranking = tuple(
            Placing(
                _int(p["place"]),
                _ints(p["players"]),
                None if p["by"] is None else _tiebreak(p["by"]),
            )
            for p in data["ranking"]
        )
        return GameResult(
            players=_int(data["players"]),
            categories=categories,
            victory_points=_ints(data["victory_points"]),
            gold=_ints(data["gold"]),
            ranking=ranking,
            bonuses=tuple(
                BonusAward(_int(b["bonus"]), _int(b["points"]), _ints(b["players"])) for b in data.get("bonuses", [])
            ),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise ProtocolError(f"result: missing or mistyped field {error}") from None


def error_message(code: str, message: str) -> dict[str, Any]:
    """An error message: ``{"type": "error", "code": ..., "message": ...}``."""
    return {"type": "error", "code": code, "message": message}


def parse_json_object(data: str | bytes) -> dict[str, Any]:
    """Decode a client message that must be a JSON object (``ProtocolError`` with a translated message otherwise).

    The parse is bounded (:mod:`biblios_kit.bounded`): nesting deeper than
    :data:`MAX_JSON_DEPTH` or an integer over 40 digits is refused before Python's parser
    sees it, so no message can raise ``RecursionError``.
    """
    try:
        text = decode_utf8(data) if isinstance(data, bytes) else data
        value = _small_json(text)
        if value is None:
            value = loads_json(text, MAX_JSON_DEPTH)
    except InputError as error:
        if error.line:
            reason = _("line {line}, column {column}: {reason}").format(
                line=error.line, column=error.column, reason=error.message
            )
        else:
            reason = error.message
        raise ProtocolError(_("malformed JSON: {reason}").format(reason=reason)) from None
    if not isinstance(value, dict):
        raise ProtocolError(_("expected a JSON object"))
    return value


def _small_json(text: str) -> Any:
    """The value of ``text`` when it certainly is within the bounds of :func:`parse_json_object`, else ``None``.

    The fast path for what clients send all the time (an action is ``{"type": "action", ...}``,
    one bracket): at most :data:`MAX_JSON_DEPTH` opening brackets anywhere cannot nest deeper,
    and no run of more than ``MAX_INT_DIGITS`` digits anywhere means no integer that long, so
    Python's parser reads it directly; anything else (and any syntax error, for its located
    message) goes through :func:`~biblios_kit.bounded.loads_json`.
    """
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH or _LONG_DIGITS.search(text):
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def is_count(value: object) -> bool:
    """Whether a JSON value is an integer from 0 to :data:`MAX_VERSION` (``true`` and ``1.0`` are not)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < MAX_VERSION


def expected_version(message: Mapping[str, Any]) -> int | None:
    """The ``version`` an action request expects the table to be at (``None`` when it names none).

    ``ProtocolError`` when it is there but not an integer from 0 on.
    """
    if "version" not in message:
        return None
    version = message["version"]
    if not is_count(version):
        raise ProtocolError(_('"version" must be the version of the view the action answers (an integer from 0)'))
    assert isinstance(version, int)
    return version


def action_texts(message: Mapping[str, Any]) -> list[str]:
    """The actions of an action request: ``{"action": "bid 3"}`` or ``{"actions": ["pay 41", "pay 42"]}``."""
    if "action" in message and "actions" not in message:
        texts: object = [message["action"]]
    elif "actions" in message and "action" not in message:
        texts = message["actions"]
    else:
        raise ProtocolError(_('expected "action" (a string) or "actions" (a list of strings)'))
    if (
        not isinstance(texts, list)
        or not texts
        or len(texts) > 64
        or not all(isinstance(t, str) and 0 < len(t) <= 200 for t in texts)
    ):
        raise ProtocolError(_('"action" must be a non-empty string, "actions" a list of 1 to 64 of them'))
    return texts


@cache
def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of every message, from ``protocol.schema.json``."""
    text = resources.files("biblios_kit.net").joinpath("protocol.schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def validate(message: object, definition: str) -> None:
    """Check ``message`` against ``$defs/<definition>`` of the schema (``ProtocolError`` listing the problems)."""
    validator = _validator(definition)
    problems = [
        f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in validator.iter_errors(message)
    ]
    if problems:
        raise ProtocolError("; ".join(problems[:5]))


@cache
def _validator(definition: str) -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator({**schema(), "$ref": f"#/$defs/{definition}"})


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"expected an integer, got {value!r}")
    return value


def _opt_int(value: object) -> int | None:
    return None if value is None else _int(value)


def _ints(value: object) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise TypeError(f"expected a list, got {value!r}")
    return tuple(_int(v) for v in value)


def _pair(value: object) -> tuple[int, int]:
    items = _ints(value)
    if len(items) != 2:
        raise TypeError(f"expected two integers, got {value!r}")
    return items[0], items[1]


def _triple(value: object) -> tuple[int, int, int]:
    items = _ints(value)
    if len(items) != 3:
        raise TypeError(f"expected three integers, got {value!r}")
    return items[0], items[1], items[2]
