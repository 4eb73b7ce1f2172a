"""Helpers shared by the engine tests: card lookup, scripted positions, variants, invariants."""

from __future__ import annotations

import itertools
import textwrap
from collections import Counter
from pathlib import Path

from biblios_kit.engine import GameState, new_game
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import CardKind, Ruleset

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
]
"""Every shipped ruleset, and each of its options alone and together: (ruleset, options)."""
