"""Shared fixtures and helpers of the test suite.

* Every test runs with its own empty data folder and in English (the autouse :func:`data_dir`).
* Engine helpers: cards by category and letter, scripted positions, variants written to a
  temporary file, the invariants every state keeps, a snapshot of a state's public API.
* TUI helpers: a complete game configuration, a Pilot driver that plays a person's seat
  through the keys (:func:`play_turn`), waiting for the app (:func:`run_until`), the text on
  screen, and saved positions to resume.

Test modules import the helpers with ``from conftest import ...``.
"""

from __future__ import annotations

import asyncio
import difflib
import html
import itertools
import os
import random
import re
import signal
import textwrap
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from net_helpers import HostProcess
from textual.pilot import Pilot
from tiers import mark_slow_tiers

from biblios_kit.engine import GameState, new_game
from biblios_kit.engine import perft as perft_module
from biblios_kit.engine.actions import BID, KEEP, PASS, PICK, TO_AUCTION, TO_PUBLIC
from biblios_kit.engine.state import Phase
from biblios_kit.i18n import set_language
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import CardKind, Ruleset
from biblios_kit.tui.app import BibliosApp
from biblios_kit.tui.config import GameConfig
from biblios_kit.tui.dialogs.church import ChurchDialog
from biblios_kit.tui.dialogs.payment import PaymentDialog
from biblios_kit.tui.saves import save_game
from biblios_kit.tui.screens.curtain import CurtainScreen
from biblios_kit.tui.screens.end import EndScreen
from biblios_kit.tui.screens.table import TableScreen

# ---------------------------------------------------------------- engine helpers

_counter = itertools.count()


def cards_of(
    ruleset: Ruleset,
    kind: str,
    *,
    category: str | None = None,
    value: int | None = None,
    letter: str | None = None,
    effect: str | None = None,
) -> list[int]:
    """Ids of the deck's cards matching the description, ascending."""
    out = []
    for card in ruleset.deck:
        if card.kind is not CardKind(kind):
            continue
        if category is not None and card.category != category:
            continue
        if value is not None and card.value != value:
            continue
        if letter is not None and card.letter != letter:
            continue
        if effect is not None and (card.effect is None or card.effect.id != effect):
            continue
        out.append(card.id)
    return out


def cat(ruleset: Ruleset, category: str, letter: str) -> int:
    """The category card with this letter."""
    (card,) = cards_of(ruleset, "category", category=category, letter=letter)
    return card


def gold(ruleset: Ruleset, value: int, nth: int = 0) -> int:
    """The ``nth`` Gold card of ``value``."""
    return cards_of(ruleset, "gold", value=value)[nth]


def church_card(ruleset: Ruleset, effect: str, nth: int = 0) -> int:
    """The ``nth`` church card with this effect id."""
    return cards_of(ruleset, "church", effect=effect)[nth]


def die(ruleset: Ruleset, name: str) -> int:
    """Index of the die named ``name`` (``monks``, ``monks:2``)."""
    from biblios_kit.engine.compiled import compile_rules

    return compile_rules(ruleset).die_names.index(name)


def position(
    ruleset: Ruleset,
    players: int,
    *,
    hands: list[list[int]] | None = None,
    draw: list[int] | None = None,
    pile: list[int] | None = None,
    dice: dict[str, int] | None = None,
    active: int = 0,
) -> GameState:
    """A consistent scripted position, every card accounted for.

    With ``draw``: a gift turn of ``active`` starts, drawing ``draw`` in order. Otherwise
    the auction phase is under way with ``pile`` revealed in order (first card first).
    Cards not named go out of the game (the random setup removals).
    """
    state = new_game(ruleset, players, seed=0)
    hands = [list(h) for h in (hands or [[] for _ in range(players)])]
    named = [c for h in hands for c in h] + list(draw or []) + list(pile or [])
    assert len(named) == len(set(named)), "a card is named twice"
    state.hands = hands
    state.gold = [sum(ruleset.deck[c].value for c in h if ruleset.deck[c].kind is CardKind.GOLD) for h in hands]
    state.public, state.discard, state.buried, state.church_q = [], [], [], []
    state.kept = state.drawn = -1
    state.removed = [[] for _ in state.removed]
    state.removed[-1] = [c for c in range(len(ruleset.deck)) if c not in set(named)]
    state.log, state.history = [], []
    for name, value in (dice or {}).items():
        state.dice[die(ruleset, name)] = value
    state.active = state.first = active
    if draw is not None:
        state.draw = list(reversed(draw))
        state.pile = []
        state._start_gift()
    else:
        state.draw = []
        state.pile = list(reversed(pile or []))
        state._reveal()
    return state


def variant(tmp_path: Path, body: str, options: tuple[str, ...] = ()) -> Ruleset:
    """Load a variant of biblios written from ``body`` (YAML merged over the edition)."""
    name = f"test-variant-{next(_counter)}"
    path = tmp_path / f"{name}.yaml"
    head = f"""
    extends: biblios
    id: {name}
    version: "1.0"
    title: {{en: T, fr: T, es: T}}
    description: {{en: T, fr: T, es: T}}
    """
    path.write_text(textwrap.dedent(head) + textwrap.dedent(body), encoding="utf-8")
    return load_ruleset(path, options)


def check_invariants(state: GameState) -> None:
    """Every card in exactly one zone; dice within bounds; no church card in a hand."""
    zones = state.zones()
    counts = Counter(c for cards in zones.values() for c in cards)
    assert sorted(counts) == list(range(len(state.ruleset.deck))), "a card is missing"
    assert all(n == 1 for n in counts.values()), [c for c, n in counts.items() if n > 1]
    rules = state.rules
    for d, value in enumerate(state.dice):
        assert rules.die_min[d] <= value <= rules.die_max[d]
    for hand in state.hands:
        assert not any(rules.is_church[c] for c in hand)
    for p, hand in enumerate(state.hands):
        assert state.gold[p] == sum(rules.value[c] for c in hand if rules.kind[c] == 1)


def snapshot(state: GameState) -> tuple[object, ...]:
    """Everything that defines a state, for equality checks."""
    return (
        state.ph, state.cur, [h[:] for h in state.hands], state.draw[:], state.public[:], state.pile[:],
        [g[:] for g in state.removed], state.discard[:], state.buried[:], state.dice[:], state.active,
        state.drawn, state.kept, state.church_q[:], state.auc_card, state.high, state.high_bidder, state.out,
        state.excluded, state.payer, state.pay_sum, state.pay_n, state.log[:], state.history[:],
        state.rng.getstate(),
    )  # fmt: skip


SHIPPED_CHOICES: list[tuple[str, tuple[str, ...]]] = [
    ("biblios", ()),
    ("biblios", ("medieval-bluff",)),
    ("biblios", ("refuse-to-pay",)),
    ("biblios", ("medieval-bluff", "refuse-to-pay")),
    ("scripts-and-scribes", ()),
    ("second-place-dice", ()),
    ("five-six-players", ()),
    ("five-six-players", ("refuse-to-pay",)),
    ("five-players-italian", ()),
    ("bid-within-means", ()),
    ("bid-within-means", ("refuse-to-pay",)),
    ("ties-counting-cards", ()),
    ("complete-library", ()),
    ("complete-library", ("count-the-books",)),
]
"""Every shipped ruleset, and each of its options alone and together: (ruleset, options)."""


PERFT_FILE = Path(__file__).parent / "data" / "perft.txt"


def perft_rows() -> list[tuple[str, int, int, str, int, int, int]]:
    """The rows of ``tests/data/perft.txt``: (ruleset[+options], players, seed, phase, occurrence, depth, count)."""
    rows = []
    for line in PERFT_FILE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        spec, players, seed, phase, occurrence, depth, count = line.split()
        rows.append((spec, int(players), int(seed), phase, int(occurrence), int(depth), int(count)))
    return rows


def perft_position(spec: str, players: int, seed: int, phase: str, occurrence: int) -> GameState:
    """The position of a perft row (see :func:`biblios_kit.engine.perft.position`)."""
    ruleset_id, *options = spec.split("+")
    return perft_module.position(new_game(load_ruleset(ruleset_id, options), players, seed), seed, phase, occurrence)


# ---------------------------------------------------------------- TUI helpers

GIFT_KEYS = {KEEP: "k", TO_AUCTION: "a", TO_PUBLIC: "p"}
FULL = frozenset({"ruleset", "players", "seats"})


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl+C reaches the commands the tests start, even when the suite runs as a background job.

    A shell starts a background job (``make test &``, ``nohup``) with SIGINT ignored, and a
    process inherits an ignored signal through ``exec``: Python then installs no handler of
    its own, and the tests that press Ctrl+C in a child would wait for it forever. A handled
    signal is reset to the default in an ``exec``'d child, so handling it here restores it there.
    """
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """``make check`` leaves the whole-app modules, sweeps and many-game tests of tiers.py to ``make test``."""
    mark_slow_tiers(items)


@pytest.fixture(autouse=True)
def data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Every test gets its own empty data folder (saves, user rulesets) and starts in English."""
    folder = tmp_path / "data"
    monkeypatch.setenv("BIBLIOS_KIT_DATA_DIR", str(folder))
    set_language("en")
    return folder


def game_config(ruleset: str = "biblios", seats: tuple[str, ...] = ("human", "random", "random"), seed: int = 7,
                options: tuple[str, ...] = (), names: tuple[str, ...] = ()) -> GameConfig:  # fmt: skip
    """A complete configuration (the setup screen is skipped)."""
    return GameConfig(ruleset=ruleset, options=options, players=len(seats), seats=seats, names=names, seed=seed,
                      lang="en", explicit=FULL)  # fmt: skip


async def run_until(pilot: Pilot[None], done: Callable[[], bool], limit: float = 30.0) -> None:
    """Let the app run (bots think in threads) until ``done()`` or fail after ``limit`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not done():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting; screen is {pilot.app.screen!r}")
        await asyncio.sleep(0.002)  # cheaper than pilot.pause(), which waits for a full refresh


def visible_text(app: BibliosApp) -> str:
    """The text on screen now (from the SVG screenshot), spaces normalised."""
    svg = app.export_screenshot()
    return html.unescape("".join(re.findall(r"<text[^>]*>(.*?)</text>", svg))).replace("\xa0", " ")


def waiting_for_person(app: BibliosApp) -> bool:
    """Whether the UI waits for a person (a dialog, the curtain, the end, or a legal action on the table)."""
    screen = app.screen
    if isinstance(screen, (ChurchDialog, PaymentDialog, CurtainScreen, EndScreen)):
        return True
    return isinstance(screen, TableScreen) and bool(screen.my_legal())


def press(app: BibliosApp, *keys: str) -> None:
    """Queue key presses without waiting for the app to go idle (``pilot.press`` waits ~0.1 s per key)."""
    for key in keys:
        app.simulate_key(key)


async def play_turn(pilot: Pilot[None], rng: random.Random) -> bool:
    """Make one decision through the UI as a person would (keys only); ``False`` once the end screen shows."""
    app = pilot.app
    assert isinstance(app, BibliosApp)
    await run_until(pilot, lambda: waiting_for_person(app))
    screen = app.screen
    if isinstance(screen, EndScreen):
        return False
    if isinstance(screen, CurtainScreen):
        press(app, "enter")
        await run_until(pilot, lambda: app.screen is not screen)
        return True
    if isinstance(screen, ChurchDialog):
        press(app, *["down"] * rng.randrange(len(screen.choices)), "enter")
        await run_until(pilot, lambda: app.screen is not screen)
        return True
    if isinstance(screen, PaymentDialog):
        chosen = len(screen.chosen)
        press(app, "enter")  # add the highlighted card, or confirm once complete
        await run_until(pilot, lambda: app.screen is not screen or len(screen.chosen) != chosen)
        return True
    assert isinstance(screen, TableScreen)
    legal = screen.my_legal()
    phase = screen.session.phase
    before = screen.session.state.decision_count
    if phase is Phase.GIFT:
        press(app, GIFT_KEYS[rng.choice(legal)])
    elif phase is Phase.PICK:
        picks = [a for a in legal if PICK <= a < PICK + 1000]
        press(app, str(rng.randrange(len(picks)) + 1))
    elif phase is Phase.BIDDING:
        bids = [a for a in legal if a >= BID]
        if bids and rng.random() < 0.3:
            press(app, *["plus"] * rng.randrange(3), "b")
        else:
            assert PASS in legal
            press(app, "x")
    elif phase is Phase.CHURCH:
        press(app, "c")
        await run_until(pilot, lambda: isinstance(app.screen, ChurchDialog))
        return True
    elif phase is Phase.PAYMENT:
        press(app, "y")
        await run_until(pilot, lambda: isinstance(app.screen, PaymentDialog))
        return True
    # the key must have played: the engine has one more decision
    await run_until(pilot, lambda: screen.session.state.decision_count > before, limit=10)
    return True


def prepare_save(ruleset: str, seats: tuple[str, ...], seed: int, until: Callable[[GameState], bool],
                 options: tuple[str, ...] = (), names: tuple[str, ...] = (), rng_seed: int = 1,
                 lang: str = "en", path: Path | None = None, autoplay: str = "picks-payments") -> GameState:  # fmt: skip
    """Play random legal moves from a seeded deal until ``until(state)``, then save it as the game in progress."""
    state = new_game(load_ruleset(ruleset, options), len(seats), seed)
    rng = random.Random(rng_seed)
    while not until(state):
        assert not state.is_terminal(), "the game ended before the wanted position"
        state.apply(state.random_action(rng))
    save_game(state, seats, names or tuple(f"P{i + 1}" for i in range(len(seats))), lang, path, autoplay=autoplay)
    return state


def human_in(phase: Phase, seat: int = 0) -> Callable[[GameState], bool]:
    """A predicate: ``seat`` must decide in ``phase``."""
    return lambda state: state.current_player == seat and state.phase is phase


# ---------------------------------------------------------------- network helpers


@pytest.fixture
def host(tmp_path: Path) -> Iterator[HostProcess]:
    """A ``biblios-kit host`` process on a free loopback port, stopped after the test."""
    server = HostProcess(tmp_path / "server")
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


# ---------------------------------------------------------------------------- golden screenshots

UPDATE_GOLDEN = os.environ.get("BIBLIOS_UPDATE_GOLDEN") == "1"
"""``BIBLIOS_UPDATE_GOLDEN=1`` rewrites the golden screenshots instead of comparing them."""


def normalise_svg(svg: str) -> str:
    """Remove what may vary between runs: the hash-derived ids of the SVG's styles and clip paths."""
    return re.sub(r"terminal-\d+", "terminal", svg)


def compare_golden(svg: str, golden: Path) -> None:
    """Compare a screenshot (normalised SVG text) with its golden file, or write it when updating."""
    if UPDATE_GOLDEN or not golden.exists():
        if not UPDATE_GOLDEN:
            pytest.fail(f"no golden file {golden.name}; run with BIBLIOS_UPDATE_GOLDEN=1 to create it")
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(svg, encoding="utf-8")
        return
    expected = golden.read_text(encoding="utf-8")
    if svg != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), svg.splitlines(True), "golden", "now", n=1))
        pytest.fail(f"{golden.name} differs (BIBLIOS_UPDATE_GOLDEN=1 regenerates it):\n{diff[:3000]}")
