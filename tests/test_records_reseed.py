"""No peeking ahead: a continued game is reseeded, the reseed is recorded and replays exactly; one save per session."""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from pathlib import Path

import pytest
from conftest import variant
from typer.testing import CliRunner

from biblios_kit.bots.registry import make_bot
from biblios_kit.cli.app import build_app
from biblios_kit.engine.core import PH_BIDDING
from biblios_kit.engine.records import MAX_RESEEDS, from_json, load_record, record_of, replay, save_record
from biblios_kit.engine.reseed import reseed
from biblios_kit.engine.state import GameState, Phase, new_game
from biblios_kit.errors import RecordError
from biblios_kit.resources import SAVE_SESSION_VARIABLE, saved_game_path, saves_dir
from biblios_kit.rules import load_ruleset
from biblios_kit.tui.saves import load_game, save_game
from biblios_kit.tui.session import GameSession, bot_seed


@pytest.fixture(autouse=True)
def _own_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Your own rulesets folder is the test's, never the real one."""
    monkeypatch.setenv("BIBLIOS_KIT_CONFIG_DIR", str(tmp_path / "config"))


SEATS = ("human", "random", "random")
NAMES = ("Ann", "Bob", "Cy")


def played(decisions: int, players: int = 3, seed: int = 4, ruleset: str = "biblios") -> GameState:
    state = new_game(load_ruleset(ruleset), players, seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        state.apply(state.random_action(rng))
    return state


def same_game(a: GameState, b: GameState) -> bool:
    """Every zone, the chance still to come and the decisions taken are the same."""
    return (
        a.history == b.history
        and a.hands == b.hands
        and a.draw == b.draw
        and a.removed == b.removed
        and a.pile == b.pile
        and a.public == b.public
        and a.dice == b.dice
        and a.reseeds == b.reseeds
        and a.rng.getstate() == b.rng.getstate()
    )


# ---------------------------------------------------------------- the engine's reseed


@pytest.mark.parametrize("players", [2, 3, 4])
def test_reseed_deals_only_what_nobody_has_seen(players: int) -> None:
    state = played(25, players)
    before = state.clone()
    reseed(state, 12345)
    assert state.reseeds == ((25, 12345),)
    # Everything a player knows is unchanged ...
    assert state.hands == before.hands and state.public == before.public and state.dice == before.dice
    assert state.discard == before.discard and state.buried == before.buried
    assert (state.cur, state.ph, state.drawn, state.kept) == (before.cur, before.ph, before.drawn, before.kept)
    assert Counter(state.pile) == Counter(before.pile)
    assert [len(g) for g in state.removed] == [len(g) for g in before.removed]
    assert len(state.draw) == len(before.draw)
    # ... the unseen cards are the same cards, dealt again: the draw pile's order changed.
    unseen = sorted(state.draw + [c for g in state.removed for c in g])
    assert unseen == sorted(before.draw + [c for g in before.removed for c in g])
    assert state.draw != before.draw
    # A named removal ("two Gold cards of value 1") is dealt again among the cards it names.
    for group, (count, matches) in zip(state.removed, state.rules.setups[players].named):
        assert len(group) == count and set(group) <= set(matches)
    assert state.legal_actions() == before.legal_actions()


def test_reseed_is_deterministic_and_depends_on_the_seed() -> None:
    a, b, c = played(30), played(30), played(30)
    reseed(a, 1)
    reseed(b, 1)
    reseed(c, 2)
    assert same_game(a, b)
    assert a.draw != c.draw


def test_reseed_in_the_auction_deals_the_unrevealed_pile_again() -> None:
    state = new_game(load_ruleset("biblios"), 3, 8)
    rng = random.Random(8)
    while state.ph != PH_BIDDING or len(state.pile) < 5:
        state.apply(state.random_action(rng))
    orders = set()
    for seed in range(6):
        world = state.clone()
        reseed(world, seed)
        assert Counter(world.pile) == Counter(state.pile) and world.auc_card == state.auc_card
        orders.add(tuple(world.pile))
    assert len(orders) > 1


def test_a_resampled_world_is_not_reseeded() -> None:
    world = played(20).resample(0, random.Random(1))
    with pytest.raises(ValueError, match="resampled"):
        reseed(world, 3)


# ---------------------------------------------------------------- records


def test_the_record_carries_the_reseeds_and_replays_exactly(tmp_path: Path) -> None:
    state = played(20)
    reseed(state, 77)
    rng = random.Random(5)
    for _ in range(30):
        state.apply(state.random_action(rng))
    reseed(state, -9)
    reseed(state, 10**30)  # two reseeds at the same point, the last after the last action
    record = record_of(state)
    # The second deal depends on its seed alone: the first one at that point is void, and dropped.
    assert record.reseeds == ((20, 77), (50, 10**30))
    path = save_record(record, tmp_path / "game.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["version"] == 2
    assert document["reseeds"] == [{"after": 20, "seed": 77}, {"after": 50, "seed": 10**30}]
    assert same_game(replay(load_record(path)), state)
    # A record written before, with both, is the same game.
    older = {
        **document,
        "reseeds": [{"after": 20, "seed": 77}, {"after": 50, "seed": -9}, {"after": 50, "seed": 10**30}],
    }
    again = replay(from_json(older))
    assert same_game(again, state) and again.reseeds == record.reseeds
    out = CliRunner().invoke(build_app(), ["replay", str(path), "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["reseeds"] == document["reseeds"] and not data["ruleset_embedded"]
    # Played to the end, the result is checked too.
    state.playout(rng)
    finished = save_record(record_of(state), tmp_path / "finished.json")
    replayed = replay(load_record(finished))
    assert replayed.result().victory_points == state.result().victory_points


def test_without_its_reseeds_the_record_is_another_game() -> None:
    state = played(20)
    reseed(state, 77)
    rng = random.Random(5)
    for _ in range(40):
        state.apply(state.random_action(rng))
    document = record_of(state).to_json()
    del document["reseeds"]
    try:
        other = replay(from_json(document))
    except RecordError as error:  # the cards drawn since are not where the actions expect them
        assert error.code in ("record-illegal-action", "record-invalid-action")
    else:
        assert not same_game(other, state)


@pytest.mark.parametrize(
    "reseeds",
    [
        {"after": 0, "seed": 1},  # not a list
        [{"after": 5}],
        [{"after": 5, "seed": 1, "more": 2}],
        [{"after": "5", "seed": 1}],
        [{"after": 5, "seed": 1.5}],
        [{"after": -1, "seed": 1}],
        [{"after": 99, "seed": 1}],  # past the last action
        [{"after": 5, "seed": 1}, {"after": 4, "seed": 1}],  # out of order
        [{"after": True, "seed": 1}],
    ],
)
def test_malformed_reseeds_are_refused(reseeds: object) -> None:
    document = record_of(played(10)).to_json()
    document["version"] = 2
    document["reseeds"] = reseeds
    with pytest.raises(RecordError) as caught:
        from_json(document, "game.json")
    assert caught.value.code == "record-bad-reseeds"
    assert "game.json" in str(caught.value) and "'reseeds'" in str(caught.value)


def test_a_record_with_too_many_reseeds_is_refused_at_once() -> None:
    """One reseed per continued game is the only use: 100,000 of them are refused before any is read."""
    document = record_of(played(10)).to_json()
    document["version"] = 2
    document["reseeds"] = [{"after": 10, "seed": seed} for seed in range(100_000)]
    with pytest.raises(RecordError) as caught:
        from_json(document, "game.json")
    assert caught.value.code == "record-too-many-reseeds"
    assert "100000 reseed points for 10 actions" in str(caught.value)
    assert f"at most {MAX_RESEEDS} are allowed" in str(caught.value)
    document["reseeds"] = document["reseeds"][:MAX_RESEEDS]  # an old save continued that often: still read
    assert len(from_json(document).reseeds) == MAX_RESEEDS
    # A long game may hold one per action (and one more), beyond that figure.
    long = {**document, "actions": document["actions"] * 200, "result": None}
    long["reseeds"] = [{"after": after, "seed": 1} for after in range(len(long["actions"]) + 1)]
    assert len(long["reseeds"]) > MAX_RESEEDS and from_json(long).reseeds[-1] == (len(long["actions"]), 1)
    long["reseeds"].append({"after": len(long["actions"]), "seed": 2})
    with pytest.raises(RecordError, match="reseed points for"):
        from_json(long)


def test_replay_deals_once_per_reseed_point_with_constant_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Replay is linear: each point is dealt once, and no reseed copies the list of those before it."""
    import biblios_kit.engine.records as records

    state = new_game(load_ruleset("biblios"), 3, 4)
    rng = random.Random(4)
    for after in range(0, 13, 3):
        reseed(state, 2)
        if after < 12:
            for _ in range(3):
                state.apply(state.random_action(rng))
    document = record_of(state).to_json()
    assert document["reseeds"] == [{"after": after, "seed": 2} for after in range(0, 13, 3)]
    points = [(after, seed) for after in range(0, 13, 3) for seed in (1, 2)]  # two at each point: the last counts
    document["reseeds"] = [{"after": after, "seed": seed} for after, seed in points]
    seen: list[int] = []  # how many earlier points each reseed found (what it copies)
    real = records.reseed

    def counting(game: GameState, seed: int) -> None:
        seen.append(len(game.reseeds))
        real(game, seed)

    monkeypatch.setattr(records, "reseed", counting)
    replayed = replay(from_json(document))
    assert len(seen) == 5 and sum(seen) == 0
    assert replayed.reseeds == tuple((after, 2) for after in range(0, 13, 3))
    assert same_game(replayed, state)


def test_reseeds_in_a_version_1_record_are_refused() -> None:
    """An older program would ignore them and replay another game, so only version 2 carries them."""
    document = record_of(played(10)).to_json()
    assert document["version"] == 1
    document["reseeds"] = [{"after": 3, "seed": 1}]
    with pytest.raises(RecordError, match="'reseeds' needs record format version 2"):
        from_json(document)


# ---------------------------------------------------------------- continuing a saved game


def _save(decisions: int = 24) -> GameState:
    state = played(decisions)
    save_game(state, SEATS, NAMES, "en")
    return state


def test_two_continuations_of_one_save_draw_differently_and_both_replay() -> None:
    original = _save()
    first = GameSession.from_saved(load_game(), entropy=lambda: 1, autosave=False)
    second = GameSession.from_saved(load_game(), entropy=lambda: 2, autosave=False)
    assert first.state.history == second.state.history == original.history
    assert first.state.draw != second.state.draw  # the cards to come differ
    assert first.state.draw != original.draw and second.state.draw != original.draw
    # Each continuation, played on and saved, replays exactly, reseed included.
    for session, seed in ((first, 11), (second, 12)):
        rng = random.Random(seed)
        for _ in range(40):
            session.state.apply(session.state.random_action(rng))
        path = save_game(session.state, SEATS, NAMES, "en", saves_dir() / f"continued-{seed}.json")
        assert same_game(load_game(path).state, session.state)


def test_the_same_entropy_continues_the_same_way() -> None:
    _save()
    a = GameSession.from_saved(load_game(), entropy=lambda: 5, autosave=False)
    b = GameSession.from_saved(load_game(), entropy=lambda: 5, autosave=False)
    assert same_game(a.state, b.state)


def test_continuing_saves_the_reseed_at_once() -> None:
    _save()
    GameSession.from_saved(load_game(), entropy=lambda: 31337)
    record = load_record(saved_game_path())
    assert record.reseeds == ((24, 31337),)
    # Continuing it again before anyone moves deals again: that reseed replaces the first (now void),
    # so a save holds at most one reseed per action, however often it is continued.
    GameSession.from_saved(load_game(), entropy=lambda: 4)
    assert load_record(saved_game_path()).reseeds == ((24, 4),)
    for entropy in range(50):
        GameSession.from_saved(load_game(), entropy=lambda e=entropy: e)
    assert load_record(saved_game_path()).reseeds == ((24, 49),)


def test_a_finished_game_is_not_reseeded() -> None:
    state = played(0)
    state.playout(random.Random(3))
    save_game(state, SEATS, NAMES, "en")
    session = GameSession.from_saved(load_game(), entropy=lambda: 9)
    assert session.state.reseeds == () and load_record(saved_game_path()).reseeds == ()


def test_continued_bots_get_new_seeds() -> None:
    state = new_game(load_ruleset("biblios"), 3, 4)
    rng = random.Random(4)
    while not (state.phase is Phase.BIDDING and state.current_player == 1):
        state.apply(state.random_action(rng))
    save_game(state, SEATS, NAMES, "en")
    sessions = [GameSession.from_saved(load_game(), entropy=lambda e=e: e, autosave=False) for e in (1, 2)]
    observation = sessions[0].observation(1)
    choices = [[session.bots[1].choose(observation) for _ in range(12)] for session in sessions]
    assert choices[0] != choices[1]
    # ... seeded from the new seed, not from the game seed.
    expected = make_bot("random", bot_seed(1, 1), load_ruleset("biblios"))
    assert choices[0] == [expected.choose(observation) for _ in range(12)]


# ---------------------------------------------------------------- one save per session


def test_terminal_and_browser_sessions_have_their_own_saves(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = saved_game_path()
    assert terminal == saves_dir() / "current-game.json"
    monkeypatch.setenv(SAVE_SESSION_VARIABLE, "secret-of-browser-one")
    one = saved_game_path()
    monkeypatch.setenv(SAVE_SESSION_VARIABLE, "secret-of-browser-two")
    two = saved_game_path()
    assert len({terminal, one, two}) == 3
    assert one.parent == saves_dir() and one.name.startswith("browser-") and "secret" not in one.name
    # A browser session's game is saved in its own file and offers no other game.
    save_game(played(10), SEATS, NAMES, "en")
    assert two.is_file() and not one.exists() and not terminal.exists()
    monkeypatch.setenv(SAVE_SESSION_VARIABLE, "secret-of-browser-one")
    with pytest.raises(RecordError, match="no saved game"):
        load_game()


def test_play_web_gives_each_browser_a_session_and_its_games_that_session(monkeypatch: pytest.MonkeyPatch) -> None:
    from aiohttp import web
    from aiohttp.test_utils import TestClient, TestServer

    from biblios_kit.net import web as net_web

    seen: list[dict[str, str] | None] = []

    async def fake_run(self: object, request: web.Request, command: str,
                       secret: dict[str, str] | None = None) -> web.StreamResponse:  # fmt: skip
        seen.append(secret)
        return web.Response(text="ok")

    monkeypatch.setattr(net_web.Sessions, "run", fake_run)

    async def scenario() -> None:
        app = net_web.make_play_app(lambda request: "true", "tok")
        async with TestClient(TestServer(app)) as client:
            page = await client.get("/?token=tok")
            assert page.status == 200
            session = client.session.cookie_jar.filter_cookies(client.make_url("/"))[net_web.SESSION_COOKIE].value
            assert len(session) >= 32
            await client.get("/ws")
            again = await client.get("/")  # the cookie is kept, not replaced
            assert net_web.SESSION_COOKIE not in again.cookies
            await client.get("/ws")
        async with TestClient(TestServer(app)) as other:  # another browser
            await other.get("/?token=tok")
            await other.get("/ws")

    asyncio.run(scenario())
    assert len(seen) == 3 and all(s is not None for s in seen)
    ids = [s[SAVE_SESSION_VARIABLE] for s in seen if s is not None]
    assert ids[0] == ids[1] != ids[2]


def test_a_variant_record_embeds_its_ruleset(tmp_path: Path) -> None:
    """A continued game of your own ruleset replays even where the file is gone (see also test_records_embedded)."""
    ruleset = variant(tmp_path, "auction: {overpay: forbidden}\n")
    state = new_game(ruleset, 3, 2)
    reseed(state, 3)
    record = record_of(state)
    assert record.ruleset_document is not None and record.version == 2


def test_the_app_continues_a_save_with_fresh_chance_and_saves_the_reseed() -> None:
    """Through the real app (Continue / play --resume): the save gets its reseed point at once."""
    from conftest import human_in, prepare_save, run_until

    from biblios_kit.tui.app import make_app
    from biblios_kit.tui.screens.table import TableScreen

    state = prepare_save("biblios", SEATS, 4, human_in(Phase.GIFT))
    draws = []
    for _ in range(2):

        async def scenario() -> None:
            app = make_app(resume=True, bot_delay=0)
            async with app.run_test(size=(100, 30)) as pilot:
                await run_until(pilot, lambda: isinstance(app.screen, TableScreen))
                assert app.session is not None
                draws.append(list(app.session.state.draw))

        asyncio.run(scenario())
        assert len(load_record(saved_game_path()).actions) == len(state.history)  # nobody has played yet
    # Two continuations at the same point: the second replaced the first (its deal depends on its seed alone).
    assert [after for after, _seed in load_record(saved_game_path()).reseeds] == [len(state.history)]
    assert draws[0] != draws[1]  # 63 bits of fresh entropy each time
