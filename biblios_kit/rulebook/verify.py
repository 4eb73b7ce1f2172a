"""Check a rulebook against the game: play games and test every claim of every rule statement.

``rules verify`` uses it. :func:`verify` plays games of a ruleset (every legal player count,
random and medium bots, seeded) and feeds each :class:`~biblios_kit.rulebook.claims.Claim`
of a rendered rulebook the game's events, decisions and result; :func:`report_text` writes
the outcome per section in one language, with each counterexample as a short excerpt of the
game that contradicts the statement and the command that plays it again.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from biblios_kit.bots.seeds import BATCH, bot_seed
from biblios_kit.engine import Event, GameState, new_game
from biblios_kit.i18n import _, format_number, in_language, ngettext, pgettext
from biblios_kit.rulebook.claims import Checker, Claim, Tracker
from biblios_kit.rulebook.model import Rulebook, block_claims, block_lines
from biblios_kit.rules.model import Ruleset
from biblios_kit.sim.runner import game_seed

BOTS: tuple[str, ...] = ("random", "medium")
"""The bots that play: even games all random, odd games alternate medium and random seats."""

NAMES: tuple[str, ...] = ("Ana", "Bruno", "Carla", "Dario", "Elena", "Fabio", "Gina", "Hugo")
"""Player names of the excerpts (they read the same in every language)."""

EXCERPT = 6
"""Events shown before the one that contradicts a statement."""


@dataclass(frozen=True)
class Statement:
    """A rule statement of the rulebook: its section, its text and one of its claims."""

    section: str
    text: str
    claim: Claim


@dataclass
class Counterexample:
    """A game that contradicts a statement: enough to play it again and see where."""

    players: int
    seed: int
    index: int
    """Game number within the run (it fixes the bots and their seeds)."""
    event: int
    """Index of the contradicting event in the game's log (-1: at a decision or at the end)."""
    action: int
    """Actions applied before the contradiction (the whole game when found at the end)."""


@dataclass
class ClaimResult:
    """How one statement's claim fared."""

    statement: Statement
    games: int = 0
    counterexample: Counterexample | None = None
    failures: int = 0


@dataclass
class Report:
    """The outcome of a verification run."""

    ruleset: Ruleset
    results: list[ClaimResult]
    games: int = 0
    events: int = 0
    seconds: float = 0.0
    sections: dict[str, str] = field(default_factory=dict)
    """Section id -> title, in the rulebook's language."""

    @property
    def ok(self) -> bool:
        """Whether no claim was contradicted."""
        return all(result.counterexample is None for result in self.results)


def statements(book: Rulebook) -> list[Statement]:
    """Every (statement, claim) pair of a rulebook, in rulebook order."""
    found: list[Statement] = []
    for section in book.sections:
        for block in section.blocks:
            text = " ".join(block_lines(block))
            for claim in block_claims(block):
                found.append(Statement(section.id, text, claim))
    return found


def seats(index: int, players: int) -> tuple[str, ...]:
    """The bots of game ``index``: all random, or medium and random seats alternating."""
    if index % 2 == 0:
        return ("random",) * players
    return tuple(BOTS[(seat + index // 2) % 2] for seat in range(players))


def play(ruleset: Ruleset, players: int, seed: int, bots: Sequence[str],
         on_decision: Callable[[GameState], None] | None = None, stop: int | None = None) -> GameState:  # fmt: skip
    """Play one game with ``bots`` (specs), bot ``k`` seeded from (``seed``, ``k``); stop after ``stop`` actions."""
    from biblios_kit.bots.registry import make_bot

    state = new_game(ruleset, players, seed)
    made = [
        make_bot(spec, bot_seed(seed, seat, BATCH), ruleset) if spec != "random" else None
        for seat, spec in enumerate(bots)
    ]
    rngs = [random.Random(game_seed(seed, seat)) for seat in range(players)]
    while not state.is_terminal():
        if stop is not None and state.decision_count >= stop:
            break
        if on_decision is not None:
            on_decision(state)
        p = state.current_player
        assert p is not None
        bot = made[p]
        state.apply(state.random_action(rngs[p]) if bot is None else bot.choose(state.observation(p)))
    return state


def verify(book: Rulebook, ruleset: Ruleset, games: int = 20, seed: int = 0,
           players: Sequence[int] | None = None, first: int = 0) -> Report:  # fmt: skip
    """Play ``games`` games per player count of ``ruleset`` and check every claim of ``book`` on each.

    ``book`` is usually the rulebook of ``ruleset`` itself; a test may render it from another
    ruleset to show that a drift between the prose and the rules is caught. ``first`` is the
    number of the first game (to replay one game of a run).
    """
    started = time.perf_counter()
    results = [ClaimResult(statement) for statement in statements(book)]
    report = Report(ruleset, results, sections={s.id: s.title for s in book.sections})
    claims = [result.statement.claim for result in results]
    counts = list(players) if players is not None else sorted(ruleset.setups)
    for n in counts:
        for index in range(first, first + games):
            failed, events = check_game(ruleset, claims, n, seed, index)
            report.games += 1
            report.events += events
            for result, failure in zip(results, failed):
                result.games += 1
                if failure is not None:
                    result.failures += 1
                    if result.counterexample is None:
                        if failure.event >= 0:
                            game = game_seed(seed, index * 100 + n)
                            failure.action = action_of(ruleset, n, game, seats(index, n), failure.event)
                        result.counterexample = failure
    report.seconds = time.perf_counter() - started
    return report


def check_game(ruleset: Ruleset, claims: Sequence[Claim], players: int, seed: int,
               index: int) -> tuple[list[Counterexample | None], int]:  # fmt: skip
    """Play game ``index`` of a run and check each claim on it: a counterexample or ``None`` per claim, and the
    number of events of the game."""
    game = game_seed(seed, index * 100 + players)
    checkers: list[Checker] = [claim.checker() for claim in claims]
    failed: list[Counterexample | None] = [None] * len(claims)
    watch = [i for i, claim in enumerate(claims) if claim.decisions]

    def on_decision(state: GameState) -> None:
        for i in watch:
            if failed[i] is None and checkers[i].decision(state):
                failed[i] = Counterexample(players, seed, index, -1, state.decision_count)

    state = play(ruleset, players, game, seats(index, players), on_decision)
    events = state.events
    tracker = Tracker(state)
    listening = [(i, checker) for i, checker in enumerate(checkers) if checker.wants_events]
    for position, event in enumerate(events):
        for i, checker in listening:
            if failed[i] is None and checker.event(tracker, event):
                failed[i] = Counterexample(players, seed, index, position, -1)
        tracker.update(event)
    for i, checker in enumerate(checkers):
        if failed[i] is None and checker.end(state, tracker):
            failed[i] = Counterexample(players, seed, index, -1, state.decision_count)
    return failed, len(events)


def action_of(ruleset: Ruleset, players: int, seed: int, bots: Sequence[str], event: int) -> int:
    """How many actions of a game were applied when its log reached event ``event`` (replays it)."""
    count = [0]

    def on_decision(state: GameState) -> None:
        if count[0] == 0 and len(state.events) > event:
            count[0] = state.decision_count

    state = play(ruleset, players, seed, bots, on_decision)
    return count[0] or state.decision_count


def excerpt(ruleset: Ruleset, counterexample: Counterexample, lang: str) -> list[str]:
    """The events around a counterexample, as sentences in ``lang`` (the contradicting one last)."""
    from biblios_kit.rulebook.describe import describe_events

    n = counterexample.players
    game = game_seed(counterexample.seed, counterexample.index * 100 + n)
    state = play(ruleset, n, game, seats(counterexample.index, n))
    events: list[Event] = state.events
    end = counterexample.event + 1 if counterexample.event >= 0 else len(events)
    if counterexample.event < 0 and counterexample.action < state.decision_count:
        # a decision the rules offered against the rulebook: show up to the action taken there
        cut = play(ruleset, n, game, seats(counterexample.index, n), stop=counterexample.action + 1)
        end = len(cut.events)
    lines = describe_events(ruleset, events[:end], NAMES[:n], lang)
    return [line for line in lines if line][-EXCERPT:]


def report_text(report: Report, lang: str, command: str) -> str:
    """The report in ``lang``: per section, the claims checked and any counterexample with a replay command.

    ``command`` is how the user named the ruleset (with its options), for the replay line.
    """
    with in_language(lang):
        lines: list[str] = []
        by_section: dict[str, list[ClaimResult]] = {}
        for result in report.results:
            by_section.setdefault(result.statement.section, []).append(result)
        for section, results in by_section.items():
            title = report.sections.get(section, section)
            bad = [r for r in results if r.counterexample is not None]
            games = max(r.games for r in results)
            head = ngettext(
                "{section}: {count} claim checked on {games} games",
                "{section}: {count} claims checked on {games} games",
                len(results),
            ).format(section=title, count=len(results), games=format_number(games))
            if bad:
                head += " " + ngettext(
                    "({bad} contradicted)", "({bad} contradicted)", len(bad)
                ).format(bad=len(bad))  # fmt: skip
            lines.append(head)
            for result in bad:
                lines.extend(_counterexample_lines(report, result, lang, command))
        total = len(report.results)
        lines.append("")
        lines.append(
            ngettext(
                "{count} claim checked on {games} games, {events} events, in {seconds} s.",
                "{count} claims checked on {games} games, {events} events, in {seconds} s.",
                total,
            ).format(
                count=total,
                games=format_number(report.games),
                events=format_number(report.events),
                seconds=format_number(round(report.seconds, 1)),
            )
        )
        if report.ok:
            lines.append(_("No statement of the rulebook is contradicted by these games."))
        else:
            bad_count = sum(1 for r in report.results if r.counterexample is not None)
            lines.append(
                ngettext(
                    "{count} statement of the rulebook is contradicted by the game.",
                    "{count} statements of the rulebook are contradicted by the game.",
                    bad_count,
                ).format(count=bad_count)
            )
        return "\n".join(lines) + "\n"


def _counterexample_lines(report: Report, result: ClaimResult, lang: str, command: str) -> list[str]:
    example = result.counterexample
    assert example is not None
    quoted = pgettext("quotation", "“{text}”").format(text=result.statement.text)
    lines = [
        "  "
        + _("Counterexample to {statement} (claim {claim}):").format(statement=quoted, claim=result.statement.claim.id)
    ]
    if example.event >= 0:
        where = _("game {game}, {players} players, seed {seed}, after action {action}:")
    else:
        where = _("game {game}, {players} players, seed {seed}, at action {action}:")
    lines.append(
        "    " + where.format(game=example.index, players=example.players, seed=example.seed, action=example.action)
    )
    lines += ["      " + line for line in excerpt(report.ruleset, example, lang)]
    lines.append(
        "    "
        + _("Play this game again: {command}").format(
            command=f"biblios-kit rules verify {command} --players {example.players} --seed {example.seed} "
            f"--first {example.index} --games 1"
        )
    )
    lines.append(
        "    "
        + ngettext(
            "This statement is contradicted in {count} game.", "This statement is contradicted in {count} games.",
            result.failures,
        ).format(count=result.failures)
    )  # fmt: skip
    return lines
