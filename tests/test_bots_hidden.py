"""Bots see no hidden card: the observation type, and determinizations that never contradict it."""

from __future__ import annotations

import ast
import dataclasses
import enum
import inspect
import random
import sys
import typing
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import SHIPPED_CHOICES

from biblios_kit.bots.base import Bot
from biblios_kit.bots.heuristic import HeuristicBot
from biblios_kit.bots.ismcts import ISMCTSBot
from biblios_kit.engine import AuctionView, Observation, PaymentView, compile_rules, new_game
from biblios_kit.engine.state import GameState
from biblios_kit.engine.worlds import Worlds
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import ShortDraw

PLAIN = (int, str, bool, type(None))
PUBLIC_FIELDS = (
    "phase", "current_player", "active_player", "hand", "hand_sizes", "public", "dice", "draw_pile",
    "auction_pile", "removed", "discard", "drawn", "kept", "kept_hidden", "owed", "church", "legal_actions",
)  # fmt: skip


def _walk(value: object) -> list[object]:
    """Every leaf value inside an observation (tuples and views opened)."""
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _walk(item)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [leaf for f in dataclasses.fields(value) for leaf in _walk(getattr(value, f.name))]
    return [value]


def _source_type_hints(cls: type, method: str) -> dict[str, object]:
    """``typing.get_type_hints`` of ``cls.method``, read from the module's ``.py`` source.

    A method compiled by mypyc carries no ``__annotations__``, so the annotations are taken from
    the source the module was built from (the file beside the extension), and evaluated in the
    loaded module's namespace, as ``get_type_hints`` does: the same answer for both builds.
    """
    module = sys.modules[cls.__module__]
    assert module.__file__ is not None
    source = Path(module.__file__).with_name(cls.__module__.rpartition(".")[2] + ".py")
    tree = ast.parse(source.read_text(encoding="utf-8"))
    (class_def,) = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == cls.__name__]
    (function,) = [
        node
        for node in class_def.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == method
    ]
    arguments = [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
    arguments += [a for a in (function.args.vararg, function.args.kwarg) if a is not None]
    namespace = vars(module)
    hints = {a.arg: eval(ast.unparse(a.annotation), namespace) for a in arguments if a.annotation is not None}
    if function.returns is not None:
        hints["return"] = eval(ast.unparse(function.returns), namespace)
    return hints


def test_the_bot_protocol_takes_an_observation_only() -> None:
    for cls in (HeuristicBot, ISMCTSBot):
        hints = _source_type_hints(cls, "choose")
        assert hints["observation"] is Observation
        assert set(hints) == {"observation", "return"}
        assert list(inspect.signature(cls.choose).parameters) == ["self", "observation"]
        assert isinstance(cls(1, load_ruleset("biblios")), Bot)
        if not (sys.modules[cls.__module__].__file__ or "").endswith(".py"):
            continue  # compiled: what is checked above is read from the source it was compiled from
        assert hints == typing.get_type_hints(cls.choose)


def test_observation_holds_plain_values_and_no_state() -> None:
    for cls in (Observation, AuctionView, PaymentView):
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
    ruleset = load_ruleset("biblios")
    state = new_game(ruleset, 3, 5)
    rng = random.Random(5)
    for _ in range(150):
        state.apply(state.random_action(rng))
    for player in range(3):
        observation = state.observation(player)
        for leaf in _walk(observation):
            assert isinstance(leaf, (PLAIN, enum.Enum)), type(leaf)
        assert not any(isinstance(v, GameState) for v in vars(type(observation)).values())


def _largest_tables() -> list[tuple[str, list[str], int]]:
    """Every shipped ruleset and option choice at its largest table."""
    return [(name, list(options), max(load_ruleset(name, list(options)).setups)) for name, options in SHIPPED_CHOICES]


@pytest.mark.parametrize(
    "name,options,players", [("biblios", [], 2), ("biblios", ["medieval-bluff"], 3), *_largest_tables()]
)
def test_observation_never_names_a_card_hidden_from_its_player(name: str, options: list[str], players: int) -> None:
    ruleset = load_ruleset(name, options)
    state = new_game(ruleset, players, 21)
    rng = random.Random(21)
    seen: list[set[int]] = [set() for _ in range(players)]
    while not state.is_terminal():
        for p in range(players):
            observation = state.observation(p)
            seen[p] |= {c for _, c in observation.acquired}
            hidden = {c for q in range(players) if q != p for c in state.hands[q]} - seen[p]
            hidden |= set(state.draw)
            cards = (
                set(observation.hand) | set(observation.public) | set(observation.discard) | set(observation.revealed)
            )
            cards |= {c for _, c in observation.acquired} | {c for _, c in observation.gold_paid}
            cards |= set(observation.my_auction_cards) | set(observation.my_kept) | set(observation.my_buried)
            cards |= {x for x in (observation.drawn, observation.kept) if x is not None}
            cards |= {c for _who, card, _bid, entered in observation.unpaid for c in (card, *entered)}
            assert not cards & hidden
        state.apply(state.random_action(rng))


CASES = [
    ("biblios", [], 2),
    ("biblios", ["refuse-to-pay"], 2),
    ("second-place-dice", [], 3),
    *_largest_tables(),
]


@pytest.mark.parametrize("name,options,players", CASES)
def test_determinizations_never_contradict_the_observation(name: str, options: list[str], players: int) -> None:
    ruleset = load_ruleset(name, options)
    rules = compile_rules(ruleset)
    setup = rules.setups[players]
    for seed in range(3):
        state = new_game(ruleset, players, seed)
        rng = random.Random(seed)
        step = 0
        while not state.is_terminal():
            step += 1
            if step % 7 == 0:
                p = state.current_player
                assert p is not None
                observation = state.observation(p)
                det = Worlds(rules, observation)
                for _ in range(2):
                    world = det.sample(rng)
                    mirror = world.observation(p)
                    for field in PUBLIC_FIELDS:
                        assert getattr(mirror, field) == getattr(observation, field), field
                    # The same cards are hidden, dealt differently.
                    true_hidden = sorted(c for q in range(players) if q != p for c in state.hands[q])
                    true_hidden += state.draw + state.pile + [c for g in state.removed for c in g] + state.buried
                    world_hidden = sorted(c for q in range(players) if q != p for c in world.hands[q])
                    world_hidden += world.draw + world.pile + [c for g in world.removed for c in g] + world.buried
                    assert sorted(true_hidden) == sorted(world_hidden)
                    # Cards seen going into a rival's hand stay there while nothing says they may have left
                    # (no card paid face down, none lost in a penalty this player did not see).
                    shown = [sum(1 for c, q in det.holder.items() if q == r) for r in range(players)]
                    for c, q in det.holder.items():
                        if (
                            q != p
                            and not observation.cards_paid[q] + observation.cards_lost[q]
                            and shown[q] <= observation.hand_sizes[q]
                        ):
                            assert c in world.hands[q]
                    # Named setup removals only hold cards of their kind, never a card ever seen.
                    seen = {c for _, c in observation.acquired} | set(observation.revealed) | set(observation.my_kept)
                    for (count, matches), group in zip(setup.named, world.removed):
                        assert len(group) == count and set(group) <= set(matches)
                        assert not set(group) & seen
                    assert not set(world.removed[-1]) & seen
                    assert not set(world.draw) & seen
                    # The world plays on to the end.
                    clone = world.clone()
                    r = random.Random(1)
                    while not clone.is_terminal():
                        clone.apply(clone.random_action(r))
            state.apply(state.random_action(rng))


def test_determinizations_vary() -> None:
    ruleset = load_ruleset("biblios")
    state = new_game(ruleset, 2, 3)
    rng = random.Random(3)
    for _ in range(40):
        state.apply(state.random_action(rng))
    det = Worlds(compile_rules(ruleset), state.observation(state.current_player or 0))
    hands = {tuple(sorted(det.sample(rng).hands[1 - (state.current_player or 0)])) for _ in range(10)}
    assert len(hands) > 1


@pytest.mark.parametrize(
    "name,options", [("biblios", []), ("biblios", ["medieval-bluff"]), ("scripts-and-scribes", [])]
)
def test_rivals_in_a_world_remember_the_public_history(name: str, options: list[str]) -> None:
    """A rival deciding inside a determinization knows what it openly saw us take and what was revealed."""
    ruleset = load_ruleset(name, options)
    rules = compile_rules(ruleset)
    checked = 0
    for seed in range(4):
        state = new_game(ruleset, 2, seed)
        rng = random.Random(seed)
        step = 0
        while not state.is_terminal():
            step += 1
            p = state.current_player
            assert p is not None
            if step % 5 == 0:
                r = 1 - p
                world = Worlds(rules, state.observation(p)).sample(rng)
                real, imagined = state.observation(r), world.observation(r)
                assert imagined.revealed == real.revealed
                assert sorted(c for q, c in imagined.acquired if q == p) == sorted(
                    c for q, c in real.acquired if q == p
                )
                checked += 1
            state.apply(state.random_action(rng))
    assert checked > 50


def _church_slots(world: GameState, rules: object, players: int) -> tuple[list[int], list[int]]:
    """Church cards dealt into a hand or a kept card, and church cards among the face-down discards."""
    is_church = rules.is_church  # type: ignore[attr-defined]
    held = [c for q in range(players) for c in world.hands[q] if is_church[c]]
    held += [world.kept] if world.kept >= 0 and is_church[world.kept] else []
    return held, [c for c in world.buried if is_church[c]]


@pytest.mark.parametrize("name,options,players", [*CASES, ("biblios", [], 3), ("biblios", [], 4)])
def test_worlds_never_put_a_church_card_in_a_hand(name: str, options: list[str], players: int) -> None:
    """Church cards are resolved at once: no determinization (bots' or engine's) holds one in a hand.

    Nor among the face-down discards, unless the ruleset discards a short draw pile (the only
    way a church card leaves the game unseen); every world keeps each hidden zone's size.
    """
    ruleset = load_ruleset(name, options)
    rules = compile_rules(ruleset)
    checked = 0
    for seed in range(4):
        state = new_game(ruleset, players, 100 + seed)
        rng = random.Random(seed)
        step = 0
        while not state.is_terminal():
            step += 1
            p = state.current_player
            assert p is not None
            if step % 3 == 0:
                observation = state.observation(p)
                det = Worlds(rules, observation)
                short = rules.setups[players].short_discard
                for world in [det.sample(rng) for _ in range(4)] + [state.resample(p, rng) for _ in range(2)]:
                    held, buried = _church_slots(world, rules, players)
                    assert not held, (seed, step, held)
                    if not short:
                        assert not buried, (seed, step, buried)
                    assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
                    assert (len(world.draw), len(world.pile), len(world.buried)) == (
                        len(state.draw), len(state.pile), len(state.buried)
                    )  # fmt: skip
                    assert [len(g) for g in world.removed] == [len(g) for g in state.removed]
                    assert sorted(world.hands[p]) == sorted(state.hands[p])
                    mirror = world.observation(p)
                    for field in PUBLIC_FIELDS:
                        assert getattr(mirror, field) == getattr(observation, field), field
                    checked += 1
            state.apply(state.random_action(rng))
    assert checked > 100


def test_a_church_card_may_be_among_the_discarded_short_draw_pile_only() -> None:
    """With ``short_draw: discard`` the last cards of the draw pile leave unseen: a church card may be there.

    Biblios for two with 19 random removals leaves 62 cards, 20 gift turns of 3 and two
    cards discarded face down: worlds put church cards among those two, never elsewhere.
    """
    ruleset = load_ruleset("biblios")
    setup = replace(ruleset.setups[2], remove_random=19, short_draw=ShortDraw.DISCARD)
    ruleset = replace(ruleset, setups={**ruleset.setups, 2: setup}, content_hash="test-short-discard")
    rules = compile_rules(ruleset)
    buried_church = 0
    checked = 0
    for seed in range(6):
        state = new_game(ruleset, 2, seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            p = state.current_player
            assert p is not None
            if len(state.draw) <= 4:  # the last gift turn, then the auction after the discard
                det = Worlds(rules, state.observation(p))
                for world in [det.sample(rng) for _ in range(6)] + [state.resample(p, rng) for _ in range(2)]:
                    held, buried = _church_slots(world, rules, 2)
                    assert not held
                    assert len(buried) <= (2 if not state.draw else 0)
                    assert len(world.buried) == len(state.buried)
                    buried_church += len(buried)
                    checked += 1
            state.apply(state.random_action(rng))
    assert checked > 100
    assert buried_church  # the discarded cards were never seen: church cards can be there
