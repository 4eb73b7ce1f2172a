"""Golden playthroughs: text transcripts of fixed games, regenerated and diffed by the tests.

Run ``python -m biblios_kit.engine.golden [FOLDER]`` (default ``tests/golden``) to rewrite
them after a deliberate rule change, then review the diff. Each line shows the state
before a decision (phase, whose decision, dice, pile sizes, hand sizes, public space),
the legal actions and the action a seeded random player chose; the file ends with the
result.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from biblios_kit.engine.actions import BID, format_action
from biblios_kit.engine.state import GameState, new_game

CASES: tuple[tuple[str, tuple[str, ...], int, int], ...] = (
    ("biblios", (), 2, 1),
    ("biblios", ("medieval-bluff", "refuse-to-pay"), 3, 2),
    ("scripts-and-scribes", (), 3, 3),
    ("scripts-and-scribes", (), 4, 4),
    ("five-players-italian", (), 5, 5),
    ("bid-within-means", (), 3, 6),
)
"""(ruleset, options, players, seed) of each golden game."""


def file_name(ruleset: str, options: tuple[str, ...], players: int, seed: int) -> str:
    """The transcript file name of a case."""
    extra = "".join(f"+{o}" for o in options)
    return f"{ruleset}{extra}-p{players}-s{seed}.txt"


def _legal_text(state: GameState) -> str:
    legal = state.legal_actions()
    bids = [a - BID for a in legal if a >= BID and a < BID + 100_000]
    others = [format_action(state.rules, a) for a in legal if not BID <= a < BID + 100_000]
    if len(bids) > 3 and bids == list(range(bids[0], bids[-1] + 1)):
        others.append(f"bid {bids[0]}..{bids[-1]}")
    else:
        others += [f"bid {b}" for b in bids]
    return ", ".join(others)


def _summary(state: GameState) -> str:
    public = " ".join(map(str, state.public)) or "-"
    hands = "/".join(str(len(h)) for h in state.hands)
    dice = "".join(map(str, state.dice))
    extra = ""
    if state.auc_card >= 0:
        extra = f" card={state.auc_card} high={state.high}"
    return (
        f"{state.phase.name.lower()} p{state.cur} active={state.active} dice={dice} draw={len(state.draw)} "
        f"pile={len(state.pile)} hands={hands} public={public}{extra}"
    )


def transcript(ruleset_name: str, options: tuple[str, ...], players: int, seed: int) -> str:
    """The transcript of one golden game (its actions drawn from ``random.Random(seed)``)."""
    from biblios_kit.rules import load_ruleset

    ruleset = load_ruleset(ruleset_name, options)
    state = new_game(ruleset, players, seed)
    rng = random.Random(seed)
    lines = [f"# {ruleset.id} options={','.join(options) or '-'} players={players} seed={seed}"]
    step = 0
    while not state.is_terminal():
        step += 1
        action = state.random_action(rng)
        lines.append(f"{step} {_summary(state)} | {_legal_text(state)} | {format_action(ruleset, action)}")
        state.apply(action)
    result = state.result()
    for category in result.categories:
        awards = ", ".join(
            f"place {a.place}: {a.winner if a.winner is not None else '-'} ({a.by.value}, {a.value})"
            for a in category.awards
        )
        lines.append(f"= {category.category} totals={list(category.totals)} {awards}")
    lines.append(f"= victory points {list(result.victory_points)} gold {list(result.gold)}")
    for placing in result.ranking:
        by = "victory points" if placing.by is None else f"{placing.by.by.value} {placing.by.category or ''}".strip()
        lines.append(f"= place {placing.place}: {list(placing.players)} by {by}")
    return "\n".join(lines) + "\n"


def write_all(folder: Path) -> list[Path]:
    """Regenerate every golden transcript into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for case in CASES:
        path = folder / file_name(*case)
        path.write_text(transcript(*case), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("tests/golden")
    for written in write_all(target):
        print(written)
