"""CLI command ``replay``: replay a game record, checking every action, and print the result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from biblios_kit.cli.common import LangOption, error_prefix, fail, start
from biblios_kit.i18n import _, format_list, format_number, ngettext


def register(app: typer.Typer) -> None:
    """Add ``replay`` to ``app``."""
    app.command("replay", help=_("Replay a game record, checking that every action is legal, and print the result."))(
        replay
    )


def replay(
    file: Annotated[Path, typer.Argument(help=_("The game record (JSON)."), show_default=False)],
    as_json: Annotated[bool, typer.Option("--json", help=_("Print the result as one JSON object."))] = False,
    log: Annotated[
        bool, typer.Option("--log", help=_("Print the whole game's event log in the chosen language, then the result."))
    ] = False,
    player: Annotated[
        int | None,
        typer.Option(
            "--player",
            help=_("With --log: the log as this player (1 for the first seat) saw it; by default, as a spectator."),
            show_default=False,
        ),
    ] = None,
    everything: Annotated[
        bool,
        typer.Option(
            "--all", help=_("With --log: name every card, the hidden ones too (everything the record holds).")
        ),
    ] = False,
    lang: LangOption = None,
) -> None:
    """Replay FILE and print its result."""
    start(lang)
    if player is not None and not log:
        fail(_("--player needs --log"))
    if everything and not log:
        fail(_("--all needs --log"))
    if everything and player is not None:
        fail(_("--all and --player are two different views: choose one"))
    from biblios_kit.engine.records import load_record
    from biblios_kit.engine.records import replay as replay_record
    from biblios_kit.errors import RecordError

    try:
        record = load_record(file)
        state = replay_record(record, where=str(file))
    except RecordError as error:
        fail(f"{error_prefix()} {error}")
    data: dict[str, Any] = {
        "ruleset": record.ruleset,
        "options": list(record.options),
        "players": record.players,
        "seed": record.seed,
        "reseeds": [{"after": after, "seed": seed} for after, seed in record.reseeds],
        "ruleset_embedded": record.ruleset_document is not None,
        "actions": len(record.actions),
        "finished": state.is_terminal(),
        "result": state.result().to_dict() if state.is_terminal() else None,
    }
    if player is not None and not 1 <= player <= record.players:
        fail(
            ngettext(
                "--player {player} is not a seat of this game: it has {count} player",
                "--player {player} is not a seat of this game: choose 1 to {count}",
                record.players,
            ).format(player=player, count=record.players)
        )
    if log:
        data["log"] = game_log(state, None if player is None else player - 1, everything=everything)
    if as_json:
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return
    if log:
        print("\n".join(data["log"]))
        print()
    print(render_text(data, state))


def game_log(state: Any, seat: int | None = None, *, everything: bool = False) -> list[str]:
    """The whole game's events as sentences in the active language.

    Seen by ``seat`` (0-based: its own hidden cards named, the others' not), else by a
    spectator (a card named only when every player sees it), or with ``everything`` every
    card named, the hidden ones too.
    """
    from biblios_kit.engine.events import to_event
    from biblios_kit.rulebook.describe import describe_events
    from biblios_kit.rulebook.examples import spectator_events

    names = [_("Player {number}").format(number=number + 1) for number in range(state.players)]
    if everything:
        events = [to_event(raw) for raw in state.log]
    else:
        events = spectator_events(state) if seat is None else state.events_for(seat)
    return describe_events(state.ruleset, events, names)


def _tiebreak_text(by: str, category: str, terms: dict[str, str]) -> str:
    """A tie-break criterion in words (``by`` is a ``TieBreakBy`` value; ``terms`` the edition's term forms)."""
    if by == "gold":
        return _("most {gold}").format(**terms)
    if by == "category-total":
        return _("highest {category} total").format(category=category)
    if by == "category-letter":
        return _("earliest {category} letter").format(category=category)
    return _("winning {category}").format(category=category)


def render_text(data: dict[str, Any], state: Any) -> str:
    """The human-readable replay report, in the active language."""
    ruleset = state.ruleset
    from biblios_kit.i18n import current_language
    from biblios_kit.rulebook.grammar import capitalize, term_values

    lang = current_language()
    lines = [
        ngettext(
            "{ruleset} with {players} player, seed {seed}.",
            "{ruleset} with {players} players, seed {seed}.",
            data["players"],
        ).format(ruleset=ruleset.title.get(lang), players=data["players"], seed=data["seed"])
        + " "
        + ngettext(
            "{actions} action replayed, all legal.", "{actions} actions replayed, all legal.", data["actions"]
        ).format(actions=format_number(data["actions"]))
    ]
    if data["options"]:
        titles = [ruleset.options[option].title.get(lang) for option in data["options"] if option in ruleset.options]
        lines.append(_("Options: {options}").format(options=format_list(titles)))
    result = data["result"]
    if result is None:
        lines.append(_("The game is not finished."))
        return "\n".join(lines)
    vp_term = ruleset.term("victory_points", lang)
    for category, entry in zip(ruleset.categories, result["categories"]):
        awards = []
        for award in entry["awards"]:
            if award["winner"] is None:
                awards.append(_("die {value}: nobody").format(value=award["value"]))
            elif award["by"] == "letter":
                awards.append(
                    _("die {value}: player {player} (tie settled by letter)").format(
                        value=award["value"], player=award["winner"] + 1
                    )
                )
            else:
                awards.append(
                    _("die {value}: player {player}").format(value=award["value"], player=award["winner"] + 1)
                )
        totals = format_list(format_number(total) for total in entry["totals"])
        lines.append(
            "  "
            + _("{category} (totals {totals}): {awards}").format(
                category=category.name.get(lang), totals=totals, awards=format_list(awards)
            )
        )
    lines.append(
        _("{term}: {points}").format(
            term=capitalize(vp_term), points=format_list(format_number(v) for v in result["victory_points"])
        )
    )
    for placing in result["ranking"]:
        players = format_list(format_number(p + 1) for p in placing["players"])
        by = placing["by"]
        if by is None:
            reason = vp_term
        elif by["by"] in ("cards", "value"):  # a count step (GameResult.to_dict gives its filters)
            from biblios_kit.rulebook.scoring_words import describe_count
            from biblios_kit.rules.model import CardKind, TieBreak, TieBreakBy

            step = TieBreak(
                TieBreakBy(by["by"]),
                by["category"],
                fewest=bool(by.get("fewest")),
                kind=None if by.get("kind") is None else CardKind(by["kind"]),
                value=by.get("value"),
            )
            reason = describe_count(step, ruleset, lang)
        else:
            reason = _tiebreak_text(
                by["by"],
                ruleset.category(by["category"]).name.get(lang) if by["category"] else "",
                term_values(ruleset, lang),
            )
        if len(placing["players"]) > 1:
            lines.append(
                _("Place {place}: players {players}, shared (decided by {reason})").format(
                    place=placing["place"], players=players, reason=reason
                )
            )
        else:
            lines.append(
                _("Place {place}: player {players} (decided by {reason})").format(
                    place=placing["place"], players=players, reason=reason
                )
            )
    return "\n".join(lines)
