"""The bots' decisions are pinned: games of every level replay to the same digests.

The digests were computed with the bots as they were before their speed-up (issue 18), so
this checks that observations made incrementally, estimates reused between decisions and
the rewritten valuations changed no decision. A deliberate change of play must update them
(and re-measure strength: benchmarks/bots.py), as the three-player hard game below did.
"""

from __future__ import annotations

import hashlib

import pytest

from biblios_kit.bots.registry import make_bot
from biblios_kit.engine import new_game
from biblios_kit.rules import load_ruleset
from biblios_kit.sim.runner import game_seed

GAMES = [
    ("biblios", (), 4, ("medium",), 2, "dab592add36ecc34"),
    ("biblios", ("medieval-bluff",), 3, ("easy", "medium"), 2, "b2cd72707603b3e7"),
    ("biblios", ("refuse-to-pay",), 2, ("medium", "easy"), 2, "cbd3def75084bb48"),
    ("scripts-and-scribes", (), 3, ("medium",), 1, "9c988cd9a61bdc49"),
    ("second-place-dice", (), 3, ("medium", "easy"), 1, "363da376ce3278b9"),
    ("five-six-players", (), 5, ("medium",), 1, "b877aa04dfa81d47"),
    # hard's tree (the default until hard searched its bids to the end of the game): its worlds
    # no longer deal a church card into a rival's hand (a bug: 152 of the 324 worlds of this
    # game held one); the digest before the fix was 13052cbc460f9bc9, then cd102a1894231b67 until
    # the worlds stopped dealing the unseen cards of a named removal's kind more often into the
    # last zones filled (the random removals) than into the draw pile (issue 27: the engine's
    # model now matches the true odds, tests/test_engine_worlds.py), then 911d4ef9f005ad02 until the
    # worlds were mixed to the odds of every consistent deal and their draw pile shuffled (unseen
    # church cards were all dealt to its bottom; tests/test_engine_worlds_enumerated.py)
    ("biblios", (), 2, ("hard:paired=0:iterations=6", "medium"), 1, "613e9f6d3985649d"),
    # hard's default: its style, with the bids searched by games played to the end (a deliberate
    # change); 90241edad58b33c6 before the named-removal fix above, 02244300ea0c1cf3 before the mixing
    ("biblios", (), 2, ("hard:iterations=6", "medium"), 1, "7b2380dc79cccd46"),
    # the tree plays its own moves in STRONG_MULTI from three players on (a deliberate change:
    # STRONG loses against medium there); the digest before it was 5cdae4bccd6990f4, then
    # 9c9cfaefbcb75b96 until the church fix above (116 of its 345 worlds held a church card),
    # then cb9e89eb6208df6f until the named-removal fix above, then 6a96f40df51e1147 until worlds
    # remembered that a winner could not pay (issue 27: three easy winners could not pay in this
    # game, and 12 of hard's decisions came after one of them), then 1203737d75c73c65 until the mixing,
    # then fef29a1a19733fcc until worlds counted the cards a rival lost in a penalty the bot did not see
    ("biblios", (), 3, ("hard:paired=0:iterations=3:model=1", "easy"), 1, "4900772d18c2e3fc"),
]


def digest(name: str, options: tuple[str, ...], players: int, specs: tuple[str, ...], games: int) -> str:
    """A digest of the actions and scores of ``games`` bot games."""
    ruleset = load_ruleset(name, list(options))
    h = hashlib.sha256()
    for index in range(games):
        seed = game_seed(18, index)
        state = new_game(ruleset, players, seed)
        bots = [make_bot(specs[seat % len(specs)], game_seed(seed, seat), ruleset) for seat in range(players)]
        while state.cur >= 0:
            state.apply(bots[state.cur].choose(state.observation(state.cur)))
        h.update(repr((state.actions, state.result().victory_points)).encode())
    return h.hexdigest()[:16]


@pytest.mark.parametrize("name,options,players,specs,games,expected", GAMES)
def test_bot_games_replay_to_their_pinned_digest(
    name: str, options: tuple[str, ...], players: int, specs: tuple[str, ...], games: int, expected: str
) -> None:
    assert digest(name, options, players, specs, games) == expected


if __name__ == "__main__":
    for row in GAMES:
        print(row[:5], digest(*row[:5]))
