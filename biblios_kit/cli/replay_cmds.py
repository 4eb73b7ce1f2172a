"""CLI command ``replay``: replay a game record, checking every action, and print the result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from biblios_kit.cli.common import LangOption, error_prefix, fail, start
from biblios_kit.i18n import _


def register(app: typer.Typer) -> None:
    """Add ``replay`` to ``app``."""
    app.command("replay", help=_("Replay a game record, checking that every action is legal, and print the result."))(
        replay
    )


def replay(
    file: Annotated[Path, typer.Argument(help=_("The game record (JSON)."), show_default=False)],
    as_json: Annotated[bool, typer.Option("--json", help=_("Print the result as one JSON object."))] = False,
    lang: LangOption = None,
) -> None:
    """Replay FILE and print its result."""
    start(lang)
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
        "actions": len(record.actions),
        "finished": state.is_terminal(),
        "result": state.result().to_dict() if state.is_terminal() else None,
    }
    if as_json:
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return
    print(render_text(data, state))


def _tiebreak_text(by: str, category: str, gold: str) -> str:
    """A tie-break criterion in words (``by`` is a ``TieBreakBy`` value)."""
    if by == "gold":
        return _("most {gold}").format(gold=gold)
    if by == "category-total":
        return _("highest {category} total").format(category=category)
    if by == "category-letter":
        return _("earliest {category} letter").format(category=category)
    return _("winning {category}").format(category=category)


def render_text(data: dict[str, Any], state: Any) -> str:
    """The human-readable replay report, in the active language."""
    ruleset = state.ruleset
    from biblios_kit.i18n import current_language

    lang = current_language()
    lines = [
        _("{ruleset} with {players} players, seed {seed}: {actions} actions replayed, all legal.").format(
            ruleset=ruleset.title.get(lang), players=data["players"], seed=data["seed"], actions=data["actions"]
        )
    ]
    if data["options"]:
        lines.append(_("Options: {options}").format(options=", ".join(data["options"])))
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
        totals = ", ".join(str(t) for t in entry["totals"])
        lines.append(f"  {category.name.get(lang)} [{totals}]: " + "; ".join(awards))
    lines.append(_("{term}: {points}").format(term=vp_term, points=", ".join(str(v) for v in result["victory_points"])))
    for placing in result["ranking"]:
        players = ", ".join(str(p + 1) for p in placing["players"])
        by = placing["by"]
        if by is None:
            reason = vp_term
        else:
            reason = _tiebreak_text(
                by["by"],
                ruleset.category(by["category"]).name.get(lang) if by["category"] else "",
                ruleset.term("gold", lang),
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
