"""Hostile input never crashes or hangs: a corpus and hypothesis thrown at every reader and CLI command.

Every case runs under a deadline (SIGALRM) and checks the promises of ``docs/inputs.md``: a
located error (the file's name first), exit status 2 from the CLI, no traceback, and the
bad file left as it was. The corpus lives in ``tests/data/hostile/`` (see ``make_corpus.py``
there); attacks that need a current ruleset hash, or too many bytes to commit, are built here.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import string
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biblios_kit.bounded import MAX_INT_DIGITS, InputError, loads_json
from biblios_kit.cli.app import main
from biblios_kit.engine import new_game
from biblios_kit.engine.actions import format_action, parse_action
from biblios_kit.engine.records import MAX_ACTIONS, MAX_BYTES, from_json, load_record, record_of, replay
from biblios_kit.errors import BibliosError, InvalidActionError, RecordError, RulesetError
from biblios_kit.i18n import set_language
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.loader import Layer, check_document
from biblios_kit.rules.source import parse_text, read_file

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "data" / "hostile"
RECORDS = sorted((HOSTILE / "records").glob("*.json"))
RULESETS = sorted((HOSTILE / "rulesets").glob("*.yaml"))
DEADLINE = 30.0
"""Seconds any one case may take (they take well under one; this only turns a hang into a failure)."""


class Hang(Exception):
    """A case ran past its deadline."""


@contextlib.contextmanager
def deadline(seconds: float = DEADLINE) -> Iterator[None]:
    """Fail the block with :class:`Hang` if it runs longer than ``seconds``."""

    def expire(_signum: int, _frame: FrameType | None) -> None:
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BIBLIOS_KIT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("BIBLIOS_KIT_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("BIBLIOS_LANG", "en")
    set_language("en")


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run ``biblios-kit ARGS`` in this process through its real entry point: (status, stdout, stderr).

    Anything but a clean exit (an exception escaping ``main``) fails the test with its traceback.
    """
    capsys.readouterr()
    with deadline():
        try:
            main([*args, "--lang", "en"])
            status = 0
        except SystemExit as stop:
            status = stop.code if isinstance(stop.code, int) else 1
    out, err = capsys.readouterr()
    return status, out, err


def fingerprint(path: Path) -> tuple[str, int]:
    """The bytes (hashed) and modification time of ``path``: a refused file must keep both."""
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


def assert_refused(status: int, out: str, err: str, where: str) -> None:
    assert status == 2, (status, out, err)
    assert "Traceback" not in out + err, err
    assert err.startswith(f"error: {where}"), err


def good_record_document(players: int = 3, seed: int = 5, moves: int = 12) -> dict[str, Any]:
    """A real record of a game of Biblios (current content hash) after ``moves`` random actions."""
    state = new_game(load_ruleset("biblios"), players, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        state.apply(rng.choice(state.legal_actions()))
    return record_of(state).to_json()


# --------------------------------------------------------------------------- the corpus: records and saves


def test_the_corpus_is_what_make_corpus_writes(tmp_path: Path) -> None:
    import runpy

    module = runpy.run_path(str(HOSTILE / "make_corpus.py"))
    assert sorted(module["RECORDS"]) == [p.name for p in RECORDS]
    assert sorted(module["RULESETS"]) == [p.name for p in RULESETS]
    assert len(RECORDS) >= 35 and len(RULESETS) >= 35


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.name)
def test_replay_refuses_every_hostile_record(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = fingerprint(path)
    assert_refused(*cli(capsys, "replay", str(path)), str(path))
    assert fingerprint(path) == before


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.name)
def test_every_hostile_record_as_the_saved_game_is_a_record_error(path: Path) -> None:
    from biblios_kit.tui.saves import load_game, save_path

    target = save_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, target)
    before = fingerprint(target)
    with deadline(), pytest.raises(RecordError) as caught:
        load_game()
    assert str(caught.value).startswith(str(target))
    assert fingerprint(target) == before


def _record_file(tmp_path: Path, document: object, name: str = "game.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "mutate",
    [
        pytest.param(lambda d: {**d, "actions": [*d["actions"], "bid " + "9" * 150]}, id="bid-150-digits"),
        pytest.param(lambda d: {**d, "actions": [*d["actions"], "bid -1"]}, id="negative-bid"),
        pytest.param(lambda d: {**d, "actions": [*d["actions"], "bid 1e9"]}, id="float-bid"),
        pytest.param(lambda d: {**d, "actions": [*d["actions"], "church " + "x" * 190]}, id="long-church"),
        pytest.param(lambda d: {**d, "actions": ["pass"] * (MAX_ACTIONS + 1)}, id="too-many-actions"),
        pytest.param(lambda d: {**d, "actions": [*d["actions"], "keep\x00"]}, id="nul-in-action"),
        pytest.param(lambda d: {**d, "seed": 10**MAX_INT_DIGITS - 1, "result": {"winners": [0]}}, id="big-seed"),
        pytest.param(lambda d: {**d, "result": {"winners": [[[[1]]]] * 1000}}, id="odd-result"),
        pytest.param(lambda d: {**d, "players": 9}, id="unsupported-players"),
        pytest.param(lambda d: {**d, "ruleset": {**d["ruleset"], "options": ["x" * 150]}}, id="unknown-option"),
        pytest.param(lambda d: {**d, "bots": ["hard:iterations=" + "9" * 100]}, id="bot-spec"),
        pytest.param(
            lambda d: {**d, "version": 2, "reseeds": [{"after": 12, "seed": n} for n in range(100_000)]},
            id="100000-reseeds",
        ),
    ],
)
def test_adversarial_records_of_a_real_game(
    mutate: Callable[[dict[str, Any]], object], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _record_file(tmp_path, mutate(good_record_document()))
    before = fingerprint(path)
    status, out, err = cli(capsys, "replay", str(path))
    if status != 0:  # a bot spec is informative only: that record replays
        assert_refused(status, out, err, str(path))
    assert fingerprint(path) == before


def test_an_oversized_record_is_refused_before_parsing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "big.json"
    text = json.dumps(good_record_document())
    path.write_text(text + " " * (MAX_BYTES + 1 - len(text)), encoding="utf-8")
    assert_refused(*cli(capsys, "replay", str(path)), str(path))
    _status, _out, err = cli(capsys, "replay", str(path))
    assert "larger than 4 MiB" in err


def _special_files(folder: Path) -> dict[str, Path]:
    """A FIFO, a link to /dev/zero, a folder and a dangling link, each named like an input file."""
    folder.mkdir(parents=True, exist_ok=True)
    fifo = folder / "fifo.json"
    os.mkfifo(fifo)
    zero = folder / "zero.json"
    zero.symlink_to("/dev/zero")
    directory = folder / "folder.json"
    directory.mkdir()
    dangling = folder / "dangling.json"
    dangling.symlink_to(folder / "nowhere")
    return {"fifo": fifo, "zero": zero, "folder": directory, "dangling": dangling}


needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(), reason="POSIX only")


@needs_fifo
@pytest.mark.parametrize("kind", ["fifo", "zero", "folder", "dangling"])
def test_special_files_are_refused_without_reading(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _special_files(tmp_path)[kind]
    status, out, err = cli(capsys, "replay", str(path))
    assert_refused(status, out, err, str(path))
    if kind in ("fifo", "zero", "folder"):
        assert "not a regular file" in err
    yaml_path = path.with_suffix(".yaml")
    path.rename(yaml_path)
    status, out, err = cli(capsys, "rules", "validate", str(yaml_path))
    assert status == 2 and "Traceback" not in err and str(yaml_path) in err


@needs_fifo
@pytest.mark.parametrize("kind", ["fifo", "zero", "folder"])
def test_a_special_file_as_the_saved_game_is_a_record_error(kind: str, tmp_path: Path) -> None:
    from biblios_kit.tui.saves import load_game, save_path

    special = _special_files(tmp_path / "specials")[kind]
    target = save_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    special.rename(target)
    with deadline(), pytest.raises(RecordError, match="not a regular file"):
        load_game()


@needs_fifo
def test_special_files_in_the_user_rulesets_folder_hang_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from biblios_kit.resources import user_rulesets_dir

    folder = user_rulesets_dir()
    folder.mkdir(parents=True)
    for name, path in _special_files(tmp_path / "specials").items():
        path.rename(folder / f"{name}.yaml")
    shutil.copyfile(HOSTILE / "rulesets" / "ceiling-1e12.yaml", folder / "ceiling.yaml")
    status, out, err = cli(capsys, "rules", "list")
    assert status == 0, err
    assert out.count("[unreadable") == 4 and "ceiling-1e12" in out  # the FIFO, /dev/zero, folder, dangling link
    status, out, err = cli(capsys, "rules", "show", "--ruleset", "no-such-ruleset")
    assert status == 2 and "unknown ruleset" in err and "Traceback" not in err
    status, out, err = cli(capsys, "simulate", "--ruleset", "ceiling-1e12", "--games", "1")
    assert status == 2 and "1 to 1000" in err


# --------------------------------------------------------------------------- the corpus: rulesets


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: p.name)
def test_rules_validate_refuses_every_hostile_ruleset(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = fingerprint(path)
    status, out, err = cli(capsys, "rules", "validate", str(path))
    assert status == 2, (out, err)
    assert "Traceback" not in err and "OK" not in out
    lines = err.splitlines()
    assert lines[-1].endswith("in 1 file")
    # Every problem is located in a file: this one, or the edition it extends.
    editions = (str(ROOT / "rulesets"), os.path.relpath(ROOT / "rulesets"))
    assert all(line.startswith((str(path), *editions)) for line in lines[:-1] if ": " in line), err
    assert fingerprint(path) == before


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: p.name)
def test_no_hostile_ruleset_can_start_a_game(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _out, err = cli(capsys, "simulate", "--ruleset", str(path), "--games", "1", "--players", "4")
    assert status == 2 and "Traceback" not in err, err
    with deadline(), pytest.raises(BibliosError):
        load_ruleset(path)


# --------------------------------------------------------------------------- the TUI and a bad save


@pytest.mark.parametrize("name", ["deep-arrays.json", "long-seed.json", "not-utf8.json"])
def test_the_tui_reports_a_hostile_save_on_its_setup_screen_and_keeps_working(name: str) -> None:
    import asyncio

    from biblios_kit.tui.app import make_app
    from biblios_kit.tui.saves import save_path
    from biblios_kit.tui.screens.setup import SetupScreen

    target = save_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(HOSTILE / "records" / name, target)
    before = fingerprint(target)

    async def scenario() -> None:
        for resume in (False, True):
            app = make_app(resume=resume, bot_delay=0)
            async with app.run_test(size=(80, 24)) as pilot:
                for _ in range(200):
                    await pilot.pause(0.02)
                    if isinstance(app.screen, SetupScreen) and app.screen.query("#save-message"):
                        break
                assert isinstance(app.screen, SetupScreen)
                message = str(app.screen.query_one("#save-message").render())
                assert "cannot be continued" in message and str(target) in message
                assert not app.screen.query("#continue")

    with deadline(60):
        asyncio.run(scenario())
    assert fingerprint(target) == before


# --------------------------------------------------------------------------- hypothesis

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)
json_ish = st.text(alphabet='[]{}",:0123456789-.eE truefalsn\\u\n', max_size=300)


@FUZZ
@given(text=st.one_of(st.text(max_size=300), json_ish))
def test_loads_json_raises_only_input_errors(text: str) -> None:
    with deadline(5):
        try:
            loads_json(text)
        except InputError as error:
            assert error.message
            assert not PARSER_ENGLISH.search(error.message), error.message  # every parser message has our words


PARSER_ENGLISH = re.compile(r"Expecting|Invalid|Unterminated|Extra data|Illegal")


@pytest.mark.parametrize(
    ("text", "line", "column", "expected"),
    [
        ('{"seed" 1}', 1, 9, {"fr": "un deux-points était attendu ici", "es": "se esperaban dos puntos aquí"}),
        (
            '{"seed": 1 "players": 2}',
            1,
            12,
            {"fr": "une virgule était attendue ici", "es": "se esperaba una coma aquí"},
        ),
        ('{"seed": 1}\n{"seed": 2}', 2, 1, {"fr": "du texte suit la fin des données", "es": "hay más texto"}),
        ('{"seed": "12', 1, 10, {"fr": "une chaîne commence ici", "es": "una cadena empieza aquí"}),
        ('{"seed": ', 1, 10, {"fr": "une valeur était attendue ici", "es": "se esperaba un valor aquí"}),
    ],
)
@pytest.mark.parametrize("lang", ["fr", "es"])
def test_json_syntax_errors_are_located_and_in_the_players_language(
    text: str, line: int, column: int, expected: dict[str, str], lang: str
) -> None:
    set_language(lang)
    try:
        with pytest.raises(InputError) as caught:
            loads_json(text)
    finally:
        set_language("en")
    assert (caught.value.line, caught.value.column) == (line, column)
    assert expected[lang] in caught.value.message
    assert not PARSER_ENGLISH.search(caught.value.message)


@FUZZ
@given(depth=st.integers(min_value=0, max_value=20_000), digits=st.integers(min_value=1, max_value=6_000))
def test_deep_or_long_json_is_refused_or_read(depth: int, digits: int) -> None:
    text = "[" * depth + "1" * digits + "]" * depth
    with deadline(5):
        try:
            value = loads_json(text, max_depth=8)
        except InputError as error:
            assert error.line == 1 and error.column >= 1
            assert depth > 8 or digits > MAX_INT_DIGITS
        else:
            assert depth <= 8 and digits <= MAX_INT_DIGITS
            for _ in range(depth):
                value = value[0]
            assert value == int("1" * digits)


@FUZZ
@given(data=st.binary(max_size=400))
def test_any_bytes_as_a_record_file_give_a_record_error(data: bytes, tmp_path_factory: pytest.TempPathFactory) -> None:
    path = tmp_path_factory.mktemp("bytes") / "record.json"
    path.write_bytes(data)
    with deadline(5), pytest.raises(RecordError):
        replay(load_record(path), where=str(path))


GOOD = good_record_document(moves=20)


@FUZZ
@given(key=st.sampled_from(sorted(GOOD) + ["ruleset.id", "ruleset.options", "ruleset.content_hash"]), value=json_values)
def test_a_record_with_any_field_replaced_replays_or_is_a_record_error(key: str, value: object) -> None:
    document = json.loads(json.dumps(GOOD))
    if key.startswith("ruleset."):
        document["ruleset"][key.split(".")[1]] = value
    else:
        document[key] = value
    with deadline(10):
        try:
            replay(from_json(document, "fuzz.json"), where="fuzz.json")
        except RecordError as error:
            assert str(error).startswith("fuzz.json: ")


action_texts = st.one_of(
    st.text(max_size=40),
    st.builds(
        lambda word, number: f"{word} {number}",
        st.sampled_from(["bid", "keep", "public", "auction", "pay", "church", "take", "pass", "gold"]),
        st.integers(min_value=-(10**60), max_value=10**60),
    ),
    st.text(alphabet=string.ascii_lowercase + string.digits + " -+:,", max_size=60),
    # digits of other scripts and superscripts: str.isdigit() accepts them, int() refuses or reads them
    st.builds(
        lambda word, number: f"{word} {number}",
        st.sampled_from(["bid", "pick", "pay"]),
        st.text(alphabet="0123456789\u00b2\u00b9\u2070\u0661\u0662\u096a\uff13\U0001d7d9", min_size=1, max_size=4),
    ),
)


@FUZZ
@given(texts=st.lists(action_texts, min_size=1, max_size=5))
def test_any_action_text_in_a_record_replays_or_is_a_record_error(texts: list[str]) -> None:
    document = {**GOOD, "actions": [*GOOD["actions"], *texts]}
    with deadline(10):
        try:
            replay(from_json(document, "fuzz.json"), where="fuzz.json")
        except RecordError as error:
            assert str(error).startswith("fuzz.json: ")


@FUZZ
@given(text=action_texts)
def test_parse_action_raises_only_invalid_action_errors(text: str) -> None:
    rules = new_game(load_ruleset("biblios"), 3, 1).rules
    with deadline(5):
        try:
            action = parse_action(rules, text)
        except InvalidActionError:  # the one error the server and the CLI turn into a message
            return
    assert parse_action(rules, format_action(rules, action)) == action


yaml_ish = st.text(alphabet=string.printable + "&*!|>%@`", max_size=300)


@FUZZ
@given(text=yaml_ish)
def test_any_yaml_text_gives_a_document_or_a_ruleset_error(text: str) -> None:
    with deadline(5):
        try:
            parse_text(text, "fuzz.yaml")
        except RulesetError as error:
            assert error.problems and all(p.file == "fuzz.yaml" for p in error.problems)


BIBLIOS = read_file(ROOT / "rulesets" / "biblios.yaml")


def _numbers(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _numbers(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _numbers(item, (*path, index))
    elif isinstance(value, int) and not isinstance(value, bool):
        yield path


NUMBER_PATHS = sorted(_numbers(BIBLIOS.data), key=str)
big_numbers = st.one_of(
    st.integers(min_value=-5, max_value=1_200),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([10**6, 10**12, 10**20, 2**63, -(2**63)]),
)


@FUZZ
@given(changes=st.lists(st.tuples(st.sampled_from(NUMBER_PATHS), big_numbers), min_size=1, max_size=4))
def test_any_numbers_in_a_ruleset_are_checked_and_a_passing_one_plays_quickly(
    changes: list[tuple[tuple[Any, ...], int]],
) -> None:
    import copy

    from biblios_kit.rules.build import build_ruleset

    document = copy.deepcopy(BIBLIOS.data)
    for path, number in changes:
        node = document
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = number
    with deadline(10):
        problems = check_document(document, [Layer(BIBLIOS)])
        if problems:
            return
        ruleset = build_ruleset(dict(document, active_options=[]), source="fuzz")
        state = new_game(ruleset, 4, 1)
        state.playout([random.Random(seat) for seat in range(4)])
        assert state.is_terminal()


# --------------------------------------------------------------------------- a few promises on their own


@pytest.mark.parametrize("options", [[], ["high-opening"], ["low-ceiling"]])
def test_a_ruleset_broken_only_by_two_options_together_is_refused_with_any_options(options: list[str]) -> None:
    path = HOSTILE / "rulesets" / "options-break-together.yaml"
    with pytest.raises(RulesetError) as caught:
        load_ruleset(path, options)
    (problem,) = caught.value.problems
    assert Path(problem.file).resolve() == path and problem.path == "auction.ceiling.gold"
    assert problem.message.startswith("with options high-opening, low-ceiling: the ceiling 10 is below")


def test_play_refuses_a_seed_that_no_save_could_hold(capsys: pytest.CaptureFixture[str]) -> None:
    status, _out, err = cli(capsys, "play", "--seed", "9" * (MAX_INT_DIGITS + 1))
    assert status == 2 and err == f"error: --seed must have at most {MAX_INT_DIGITS} digits\n"


@pytest.mark.parametrize("digits", ["\u00b2", "\u0663", "1\u00b9"], ids=["superscript", "arabic-indic", "mixed"])
@pytest.mark.parametrize(
    "command",
    [
        ["lab", "compare", "biblios", "-p", "{n}", "-b", "random", "-g", "2", "--in-process"],
        ["host", "--lang", "en", "new", "--players", "3", "--seat", "{n}=medium"],
        ["host", "--lang", "en", "new", "--players", "3", "--name", "{n}=Ana"],
        ["lab", "sweep", "biblios", "--set", "dice.{n}.start=2", "-p", "3", "-b", "random", "-g", "2", "--in-process"],
    ],
    ids=["lab --players", "host new --seat", "host new --name", "lab --set"],
)
def test_counts_written_with_other_digits_are_refused_with_status_2(
    command: list[str], digits: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """str.isdigit() accepts superscripts and other scripts' digits, which int() refuses or reads as numbers."""
    args = [part.replace("{n}", digits) for part in command]
    if args[0] == "host":  # ``host new`` takes the language before ``new``
        capsys.readouterr()
        with pytest.raises(SystemExit) as stop:
            main(args)
        status, (out, err) = stop.value.code, capsys.readouterr()
    else:
        status, out, err = cli(capsys, *args)
    assert status == 2 and "Traceback" not in out + err and "internal error" not in err, (status, err)
    assert "expected" in err or "--players" in err or "no field" in err, err


def test_join_never_echoes_a_hostile_link_raw(capsys: pytest.CaptureFixture[str]) -> None:
    status, _out, err = cli(capsys, "join", "\x1b]0;pwned\x07\x1b[2Jnot-a-link\u202e")
    assert status == 2 and "not an invitation link: ]0;pwned[2Jnot-a-link" in err
    assert not any(unicodedata.category(c).startswith("C") for c in err.replace("\n", ""))


# --------------------------------------------------------------------------- a church card with millions of uses

CHURCH_USES_MANY = HOSTILE / "rulesets" / "church-uses-many.yaml"
"""Any 10 of 30 dice with two steps: 60,090,030 uses, which the engine once listed for minutes."""

USES_SENTENCE = {
    "en": "the church effect 'raise-two' would have 60,090,030 different uses",
    "fr": "l'effet d'Église 'raise-two' aurait 60\u202f090\u202f030 utilisations différentes",
    "es": "el efecto de Iglesia 'raise-two' tendría 60.090.030 usos distintos",
}
CAP_SENTENCE = {"en": "5,000", "fr": "5\u202f000", "es": "5000"}


@pytest.mark.parametrize("lang", sorted(USES_SENTENCE))
@pytest.mark.parametrize(
    "command",
    [["rules", "validate"], ["simulate", "--players", "2", "--games", "1", "--bots", "random,random", "--ruleset"]],
    ids=["validate", "simulate"],
)
def test_a_church_card_with_millions_of_uses_is_a_located_problem_not_a_hang(lang: str, command: list[str]) -> None:
    import subprocess
    import sys

    env = dict(os.environ, BIBLIOS_LANG=lang)
    # A separate process with a generous timeout: before the check, simulate ran for minutes.
    child = subprocess.run(
        [sys.executable, "-m", "biblios_kit", *command, str(CHURCH_USES_MANY)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
    )
    assert child.returncode == 2, (child.stdout, child.stderr)
    assert "Traceback" not in child.stderr
    where = os.path.relpath(CHURCH_USES_MANY, ROOT)  # the file as the user named it, relative to the folder
    assert f"{where}:15:49: church.cards.raise-two.dice: {USES_SENTENCE[lang]}" in child.stderr
    assert CAP_SENTENCE[lang] in child.stderr and "'targets'" in child.stderr


def test_the_engine_refuses_a_card_with_millions_of_uses_that_skipped_the_checks() -> None:
    """Defence in depth: a ruleset built without its checks is refused when compiled, not listed for minutes."""
    import copy

    from biblios_kit.engine.compiled import compile_rules
    from biblios_kit.errors import EngineError
    from biblios_kit.messages import explain
    from biblios_kit.rules.build import build_ruleset

    document = copy.deepcopy(BIBLIOS.data)
    document["dice"] = [{"place": place, "start": 3, "min": 1, "max": 6} for place in range(1, 7)]
    document["church"]["cards"]["raise-two"] = {"count": 2, "signs": [1, -1], "dice": 10}
    problems = check_document(document, [Layer(BIBLIOS)])
    assert [problem.code for problem in problems] == ["church-too-many-uses"]
    ruleset = build_ruleset(dict(document, active_options=[]), source="unchecked")
    with deadline(), pytest.raises(EngineError) as caught:
        compile_rules(ruleset)
    assert caught.value.code == "church-too-many-uses"
    assert caught.value.fields == {"effect": "raise-two", "uses": 60_090_030, "cap": 5000}
    with deadline(), pytest.raises(EngineError):
        new_game(ruleset, 2, 1)
    for lang, sentence in USES_SENTENCE.items():
        assert explain(caught.value, lang).startswith(sentence)


def test_ten_any_targets_on_fifteen_dice_compile_without_trying_every_order(tmp_path: Path) -> None:
    """3,003 uses (any 10 of 15 dice), but 15!/5! (10^10) ways to fill ten ``any`` targets one by one:
    the engine fills each (target, dice already chosen) once, so it lists the uses at once."""
    from biblios_kit.engine.compiled import compile_rules

    path = tmp_path / "ten-targets.yaml"
    path.write_text(
        "extends: biblios\nid: ten-targets\n"
        "title: {en: Ten targets, fr: Dix cibles, es: Diez objetivos}\n"
        "description: {en: Ten dice move., fr: Dix dés bougent., es: Se mueven diez dados.}\n"
        "dice:\n"
        + "".join(f"  - {{place: {place}, start: 3, min: 1, max: 6}}\n" for place in (1, 2, 3))
        + "church:\n  cards:\n    raise-two:\n      dice: 10\n      targets: ["
        + ", ".join(["{place: any}"] * 10)
        + "]\n",
        encoding="utf-8",
    )
    with deadline():
        ruleset = load_ruleset(path)
        rules = compile_rules(ruleset)
        card = next(card for card in ruleset.deck if card.effect is not None and card.effect.id == "raise-two")
        assert len(rules.church_choices[(rules.church_group[card.id], 1)]) == 3003
        state = new_game(ruleset, 2, 1)
        state.playout([random.Random(seat) for seat in range(2)])
        assert state.is_terminal()


# --------------------------------------------------------------------------- lab results files


def _lab_args(results: Path) -> list[str]:
    return ["lab", "compare", "biblios", "-p", "3", "-b", "random", "-g", "2", "--batch", "1", "--in-process",
            "--json", "--results", str(results)]  # fmt: skip


@needs_fifo
@pytest.mark.parametrize("kind", ["fifo", "zero", "folder", "dangling"])
@pytest.mark.parametrize("resume", [False, True], ids=["new", "resume"])
def test_a_special_file_as_lab_results_is_refused_without_hanging(
    kind: str, resume: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _special_files(tmp_path)[kind]
    status, out, err = cli(capsys, *_lab_args(path), *(["--resume"] if resume else []))
    assert status == 2 and "Traceback" not in out + err and "internal error" not in err, (status, err)
    assert err.startswith(f"error: results file {path}"), err


@pytest.fixture(scope="module")
def lab_results(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A sound results file of the experiment :func:`_lab_args` describes (a header and two games)."""
    set_language("en")
    path = tmp_path_factory.mktemp("lab") / "r.jsonl"
    with pytest.raises(SystemExit) as stop:
        main([*_lab_args(path), "--lang", "en"])
    assert stop.value.code in (None, 0)
    return path.read_bytes()


@FUZZ
@given(line=st.one_of(st.binary(max_size=300), json_values.map(lambda v: json.dumps(v).encode())))
def test_any_line_in_a_lab_results_file_is_refused_at_its_line_or_read(
    line: bytes, lab_results: bytes, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    header, first, _second = lab_results.splitlines(keepends=True)
    path = tmp_path_factory.mktemp("lab") / "r.jsonl"
    path.write_bytes(header + line.replace(b"\n", b" ") + b"\n" + first)
    status, out, err = cli(capsys, *_lab_args(path), "--resume")
    if status != 0:
        assert status == 2 and "Traceback" not in out + err and "internal error" not in err, err
        assert err.startswith(f"error: results file {path}:2: "), err


# --------------------------------------------------------------------------- the game server (docs/network.md)

DEEP_HTTP = b"[" * 5000 + b"]" * 5000
"""10,000 bytes (under the 16 KiB body cap) nesting 5,000 deep: Python's parser alone raises RecursionError."""
DEEP_WS = "[" * 4000 + "]" * 4000
"""The same under the WebSocket's 8 KiB message cap."""


def server_request(
    method: str, path: str, body: object, *, token: str | None = None, table_kind: str = "humans"
) -> tuple[int, dict[str, Any]]:
    """Send one request to a fresh server with one table (``TABLE``, ``TOKEN`` and ``ADMIN`` replaced in ``path``
    and ``token``); returns the status and the JSON reply (a reply that is not JSON fails the test)."""
    import asyncio

    from net_helpers import ADMIN, bearer, create, running_server

    async def scenario(folder: Path) -> tuple[int, dict[str, Any]]:
        async with running_server(folder) as client:
            reply = await create(client, seats=["human", "human", "human"], seed=7)
            seat_token = reply["seats"][0]["token"]
            names = {"TOKEN": seat_token, "ADMIN": ADMIN}
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            response = await client.request(
                method,
                path.replace("TABLE", reply["table"]),
                data=data,
                headers=bearer(names.get(token or "", token)),
            )
            text = await response.text()
            assert "Traceback" not in text
            return response.status, json.loads(text)

    folder = Path(os.environ["BIBLIOS_KIT_DATA_DIR"]) / "server"
    with deadline():
        return asyncio.run(scenario(folder))


@pytest.mark.parametrize(
    ("method", "path", "body", "token", "status", "code"),
    [
        ("POST", "/api/tables/TABLE/actions", DEEP_HTTP, "TOKEN", 400, "malformed_json"),
        ("POST", "/api/tables/TABLE/payment-options", DEEP_HTTP, "TOKEN", 400, "malformed_json"),
        ("POST", "/api/tables", DEEP_HTTP, "ADMIN", 400, "malformed_json"),
        ("POST", "/api/tables", b'{"seed": ' + b"[" * 3000 + b"]" * 3000 + b"}", "ADMIN", 400, "malformed_json"),
        ("POST", "/api/tables/TABLE/actions", {"action": "bid \u00b2"}, "TOKEN", 400, "invalid_action"),
        ("POST", "/api/tables/TABLE/actions", {"action": "pick \u00b2"}, "TOKEN", 400, "invalid_action"),
        ("POST", "/api/tables/TABLE/actions", {"action": "pay \u00b9"}, "TOKEN", 400, "invalid_action"),
        ("POST", "/api/tables/TABLE/actions", {"action": "bid \u0663"}, "TOKEN", 400, "invalid_action"),
        ("POST", "/api/tables/TABLE/actions", {"actions": ["keep", "pay \u00b9"]}, "TOKEN", 400, "invalid_action"),
        ("GET", "/api/tables/TABLE?since=\u00b2", b"", None, 400, "bad_request"),
        ("GET", "/api/tables/TABLE?since=\u0661\u0662", b"", None, 400, "bad_request"),
        ("GET", "/api/tables/TABLE?since=1.0", b"", None, 400, "bad_request"),
        ("GET", "/api/tables/TABLE?since=+1", b"", None, 400, "bad_request"),
        ("GET", "/api/tables/TABLE?since=9999999999", b"", None, 400, "bad_request"),
        ("POST", "/api/tables", {"seed": 2**63}, "ADMIN", 400, "bad_seed"),
        ("POST", "/api/tables", {"seed": 10**39}, "ADMIN", 400, "bad_seed"),
        ("POST", "/api/tables", {"seed": -1}, "ADMIN", 400, "bad_seed"),
        ("POST", "/api/tables", b'{"seed": 1' + b"0" * 45 + b"}", "ADMIN", 400, "malformed_json"),
        ("POST", "/api/tables", {"seed": True}, "ADMIN", 400, "bad_request"),
        ("POST", "/api/tables", {"seed": 7.0}, "ADMIN", 400, "bad_request"),
        ("POST", "/api/tables", {"players": True}, "ADMIN", 400, "bad_request"),
        ("POST", "/api/tables", {"bot_delay": True}, "ADMIN", 400, "bad_request"),
        ("POST", "/api/tables", b'{"bot_delay": NaN}', "ADMIN", 400, "bad_bot_delay"),
        ("POST", "/api/tables/TABLE/actions", {"action": "keep", "version": True}, "TOKEN", 400, "bad_request"),
        ("POST", "/api/tables/TABLE/actions", {"action": "keep", "version": 0.0}, "TOKEN", 400, "bad_request"),
        ("POST", "/api/tables/TABLE/actions", {"action": "keep", "version": -1}, "TOKEN", 400, "bad_request"),
        ("POST", "/api/tables/TABLE/actions", {"action": "keep", "version": "0"}, "TOKEN", 400, "bad_request"),
        ("POST", "/api/tables/TABLE/actions", {"action": "keep", "version": 10**12}, "TOKEN", 400, "bad_request"),
        ("POST", "/api/tables/TABLE/actions", {"action": "keep", "version": 3}, "TOKEN", 409, "stale_version"),
    ],
)
def test_hostile_requests_to_the_game_server_get_a_clear_4xx(
    method: str, path: str, body: object, token: str | None, status: int, code: str
) -> None:
    got, reply = server_request(method, path, body, token=token)
    assert (got, reply["error"]["code"]) == (status, code), reply
    assert reply["error"]["message"] and "Traceback" not in reply["error"]["message"]


def test_a_seed_the_store_can_hold_is_accepted() -> None:
    status, reply = server_request("POST", "/api/tables", {"seed": 2**63 - 1, "players": 2}, token="ADMIN")
    assert status == 201, reply


@pytest.mark.parametrize(
    "failure",
    [sqlite3.OperationalError("database or disk is full"), OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))],
    ids=["sqlite-full", "enospc"],
)
def test_creating_a_table_on_a_full_disk_is_503_and_the_server_goes_on(
    failure: Exception, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    from net_helpers import ADMIN, bearer, running_server

    from biblios_kit.net.store import Store

    def full(_self: Store, _table: object) -> None:
        raise failure

    async def scenario(folder: Path) -> None:
        async with running_server(folder) as client:
            with monkeypatch.context() as patched:
                patched.setattr(Store, "create", full)
                response = await client.post("/api/tables", json={"players": 3}, headers=bearer(ADMIN))
                reply = await response.json()
                assert (response.status, reply["error"]["code"]) == (503, "storage_error"), reply
            hub_tables = await client.post("/api/tables", json={"players": 3}, headers=bearer(ADMIN))
            assert hub_tables.status == 201  # the disk has room again: nothing was left half made
            created = await hub_tables.json()
            assert (await client.get(f"/api/tables/{created['table']}")).status == 200

    with deadline():
        asyncio.run(scenario(Path(os.environ["BIBLIOS_KIT_DATA_DIR"]) / "server"))


def test_hostile_websocket_messages_get_an_error_message_and_the_socket_stays_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import asyncio

    from net_helpers import create, running_server

    from biblios_kit.net.tables import Table, TableHub

    async def scenario(folder: Path) -> list[str]:
        async with running_server(folder) as client:
            reply = await create(client, seats=["human", "human", "human"], seed=7)
            # A deep hello gets a message before the connection closes (it was a 500 written into the socket).
            hello = await client.ws_connect(f"/api/tables/{reply['table']}/ws")
            await hello.send_str(DEEP_WS)
            first = await asyncio.wait_for(hello.receive(), 10)
            assert first.type == aiohttp.WSMsgType.TEXT and json.loads(first.data)["code"] == "malformed_json"
            assert (await hello.receive()).type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
            with monkeypatch.context() as patched:  # a bug while checking the hello: a clean close, code 1011

                def failing(*_args: object) -> None:
                    raise RuntimeError("a bug")

                patched.setattr(Table, "seat_of", failing)
                hello = await client.ws_connect(f"/api/tables/{reply['table']}/ws")
                await hello.send_json({"type": "hello", "token": "x"})
                closed = await asyncio.wait_for(hello.receive(), 10)
                assert (closed.type, closed.data) == (aiohttp.WSMsgType.CLOSE, 1011), closed
            ws = await client.ws_connect(f"/api/tables/{reply['table']}/ws")
            await ws.send_json({"type": "hello", "token": reply["seats"][0]["token"]})
            assert json.loads((await ws.receive()).data)["type"] == "view"

            async def ask(message: str) -> dict[str, Any]:
                await ws.send_str(message)
                answer = await asyncio.wait_for(ws.receive(), 10)
                assert answer.type == aiohttp.WSMsgType.TEXT, answer  # not closed, not a 500 in the socket
                data: dict[str, Any] = json.loads(answer.data)
                return data

            codes = []
            for message in [
                DEEP_WS,
                json.dumps({"type": "action", "action": "bid \u00b2"}),
                json.dumps({"type": "action", "action": "pick \u00b2"}),
                json.dumps({"type": "action", "action": "pay \u00b9"}),
                json.dumps({"type": "action", "action": "keep", "version": True}),
                json.dumps({"type": "payment_options", "pay": ["pay \u00b9"]}),
                '{"type": "ping", "n": 1' + "0" * 50 + "}",
            ]:
                codes.append((await ask(message))["code"])
            with monkeypatch.context() as patched:  # a bug in the server: an error message, not a dead socket

                def broken(*_args: object) -> None:
                    raise RuntimeError("a bug")

                patched.setattr(TableHub, "act", broken)
                codes.append((await ask(json.dumps({"type": "action", "action": "keep"})))["code"])
            assert (await ask('{"type": "ping"}')) == {"type": "pong"}
            await ws.close()
            return codes

    import aiohttp

    with deadline():
        codes = asyncio.run(scenario(Path(os.environ["BIBLIOS_KIT_DATA_DIR"]) / "server"))
    assert codes == ["malformed_json", "invalid_action", "invalid_action", "invalid_action", "bad_request",
                     "not_your_turn", "malformed_json", "internal"]  # fmt: skip
