"""Write the hostile-input corpus of ``tests/test_fuzz_inputs.py`` (run from the repository root).

Each file is one attack on a reader: records and saves (JSON) under ``records/``, rulesets
(YAML) under ``rulesets/``. The files are committed; this script documents how they were
made and rewrites them: ``python tests/data/hostile/make_corpus.py``. Attacks that need a
real game (a current content hash) or too many bytes to commit are built by the tests.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
HEADER = {"format": "biblios-kit-game", "version": 1}
RULESET = {"id": "biblios", "content_hash": "0" * 64, "options": []}
BASE = {**HEADER, "ruleset": RULESET, "players": 3, "seed": 1, "actions": []}


def record(**changes: object) -> str:
    return json.dumps({**BASE, **changes})


RECORDS: dict[str, str | bytes] = {
    "empty.json": "",
    "whitespace.json": " \n\t\n",
    "bom-only.json": b"\xef\xbb\xbf",
    "truncated.json": record(actions=["keep"])[:57],
    "not-utf8.json": b'{"format": "biblios-kit-game", "version": 1, "x": "\xff\xfe"}',
    "utf16.json": record().encode("utf-16"),
    "null.json": "null",
    "array.json": "[1, 2, 3]",
    "string.json": '"biblios-kit-game"',
    "number.json": "123",
    "deep-arrays.json": "[" * 20_000 + "]" * 20_000,
    "deep-objects.json": '{"a": ' * 10_000 + "1" + "}" * 10_000,
    "deep-in-actions.json": record(actions=[]).replace("[]", "[" * 5_000 + "]" * 5_000),
    "unbalanced-brackets.json": "[" * 3 + "]" * 5,
    "long-seed.json": record(seed=0).replace('"seed": 0', '"seed": ' + "9" * 5_000),
    "long-negative-seed.json": record(seed=0).replace('"seed": 0', '"seed": -' + "1" * 4_301),
    "long-players.json": record(players=0).replace('"players": 0', '"players": ' + "3" * 400),
    "long-version.json": record().replace('"version": 1', '"version": 1' + "0" * 100),
    "float-seed.json": record(seed=0).replace('"seed": 0', '"seed": 1e999999'),
    "nan-seed.json": record(seed=0).replace('"seed": 0', '"seed": NaN'),
    "bool-players.json": record(players=True),
    "zero-players.json": record(players=0),
    "many-players.json": record(players=1000),
    "actions-not-strings.json": record(actions=[1, 2, 3]),
    "actions-object.json": record(actions={"keep": 1}),
    "long-action.json": record(actions=["bid " + "1" * 10_000]),
    "control-characters.json": record(actions=["keep\u0000\u001b[2J\u0007"]),
    "lone-surrogate.json": record(actions=["\ud800"], ruleset={**RULESET, "id": "\udfff"}),
    "unknown-ruleset.json": record(ruleset={**RULESET, "id": "../../etc/passwd"}),
    "ruleset-id-huge.json": record(ruleset={**RULESET, "id": "x" * 10_000}),
    "ruleset-not-object.json": record(ruleset="biblios"),
    "short-hash.json": record(ruleset={**RULESET, "content_hash": "abc"}),
    "options-not-strings.json": record(ruleset={**RULESET, "options": [None]}),
    "bots-wrong.json": record(bots=[{"name": "hard"}]),
    "result-not-object.json": record(result=[1]),
    "wrong-format.json": json.dumps({**BASE, "format": "chess"}),
    "future-version.json": json.dumps({**BASE, "version": 99}),
    "duplicate-keys.json": '{"format": "biblios-kit-game", "format": "x"}',
    "trailing-garbage.json": record() + "\x00" * 10,
}

BIBLIOS_HEAD = """extends: biblios
id: {id}
title: {{en: Hostile, fr: Hostile, es: Hostil}}
description: {{en: An attack on the reader., fr: Une attaque du lecteur., es: Un ataque al lector.}}
"""


def variant(name: str, body: str) -> str:
    return BIBLIOS_HEAD.format(id=name) + body


RULESETS: dict[str, str | bytes] = {
    "empty.yaml": "",
    "not-a-mapping.yaml": "- just\n- a list\n",
    "ceiling-1e12.yaml": variant("ceiling-1e12", "auction: {ceiling: {gold: 1000000000000}}\n"),
    "ceiling-1e6.yaml": variant("ceiling-1e6", "auction: {ceiling: {gold: 1000000, cards: 1000000}}\n"),
    "gold-worth-1e20.yaml": variant("gold-worth-1e20", "gold: {100000000000000000000: 11}\n"),
    "gold-too-rich-for-deck-ceiling.yaml": variant("gold-rich", "gold: {99: 20, 98: 20}\n"),
    "long-integer.yaml": variant("long-integer", "auction: {opening_bid: " + "7" * 5_000 + "}\n"),
    "long-integer-key.yaml": variant("long-integer-key", "setup: {" + "4" * 5_000 + ": {remove_random: 1}}\n"),
    "long-hex-integer.yaml": variant("long-hex", "auction: {opening_bid: 0x" + "f" * 4_000 + "}\n"),
    "long-sexagesimal.yaml": variant("long-sexagesimal", "auction:\n  opening_bid: 1" + ":59" * 3_000 + "\n"),
    "huge-float.yaml": variant("huge-float", "auction: {opening_bid: 1e999999}\n"),
    "negative-count.yaml": variant("negative-count", "setup: {4: {remove_random: -5}}\n"),
    "big-remove-random.yaml": variant("big-remove-random", "setup: {4: {remove_random: 100000000}}\n"),
    "many-players.yaml": variant("many-players", "setup: {1000: {remove_random: 0}}\n"),
    "huge-hand.yaml": variant("huge-hand", "setup: {4: {starting_hand: 1000000}}\n"),
    "huge-gift.yaml": variant("huge-gift", "setup: {4: {gift_cards: 1000000}}\n"),
    "deck-too-large.yaml": variant(
        "deck-too-large", "gold: {1: 200, 2: 200, 3: 200}\nauction: {ceiling: {gold: 100, cards: 100}}\n"
    ),
    "many-letters.yaml": variant(
        "many-letters",
        "categories:\n  monks: {cards: {2: ABCDEFGHIJKLMNOPQRSTUVWXYZA}}\n",
    ),
    "many-dice.yaml": variant(
        "many-dice", "dice:\n" + "".join(f"  - {{place: {i}, start: 1, min: 1, max: 6}}\n" for i in range(1, 40))
    ),
    "die-faces-huge.yaml": variant("die-faces-huge", "dice:\n  - {place: 1, start: 3, min: 1, max: 1000000}\n"),
    "church-moves-many.yaml": variant(
        "church-moves-many", "church: {cards: {raise-two: {count: 2, signs: [1], dice: 1000}}}\n"
    ),
    "church-uses-many.yaml": variant(
        "church-uses-many",
        "dice:\n"
        + "".join(f"  - {{place: {i}, start: 3, min: 1, max: 6}}\n" for i in range(1, 7))
        + "church:\n  targets: any\n  cards:\n    raise-two: {count: 2, signs: [1, -1], dice: 10}\n",
    ),
    "many-options.yaml": variant(
        "many-options",
        "options:\n"
        + "".join(
            f"  opt-{i}:\n    title: {{en: O, fr: O, es: O}}\n    description: {{en: O, fr: O, es: O}}\n"
            f"    changes: {{auction: {{opening_bid: 1}}}}\n"
            for i in range(12)
        ),
    ),
    "options-break-together.yaml": variant(
        "options-break-together",
        "auction: {ceiling: {gold: 20, cards: deck}}\n"
        "options:\n"
        "  high-opening:\n"
        "    title: {en: High opening bid, fr: Mise d'ouverture haute, es: Puja inicial alta}\n"
        "    description: {en: Bids open at 15., fr: Les enchères commencent à 15., es: Las pujas empiezan en 15.}\n"
        "    changes: {auction: {opening_bid: 15}}\n"
        "  low-ceiling:\n"
        "    title: {en: Low ceiling, fr: Plafond bas, es: Techo bajo}\n"
        "    description: {en: Bids stop at 10., fr: Les enchères s'arrêtent à 10., es: Las pujas paran en 10.}\n"
        "    changes: {auction: {ceiling: {gold: 10}}}\n",
    ),
    "deep-flow.yaml": variant("deep-flow", "provenance: " + "[" * 10_000 + "]" * 10_000 + "\n"),
    "deep-block.yaml": variant(
        "deep-block", "provenance:\n" + "".join("  " * i + "- \n" for i in range(1, 200)).replace("- \n", "-\n")
    ),
    "alias-bomb.yaml": "a: &a [x, x, x, x, x, x, x, x, x]\n"
    + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(8)),
    "long-key.yaml": variant("long-key", "k" * 20_000 + ": 1\n"),
    "long-string.yaml": variant("long-string", "version: '" + "9" * 100_000 + "'\n"),
    "python-tag.yaml": "!!python/object/apply:os.system ['echo pwned']\n",
    "binary-tag.yaml": variant("binary-tag", "version: !!binary aGVsbG8=\n"),
    "timestamp-out-of-range.yaml": variant("timestamp", "version: 2001-13-45\n"),
    "not-utf8.yaml": b"id: \xff\xfe\n",
    "nul-bytes.yaml": "id: a\x00b\n",
    "extends-itself.yaml": "extends: extends-itself.yaml\nid: loop\n",
    "extends-dev-zero.yaml": "extends: /dev/zero\nid: zero\n",
    "extends-far.yaml": "extends: ../../../../../../../../etc/passwd.yaml\nid: far\n",
}


def main() -> None:
    for folder, files in (("records", RECORDS), ("rulesets", RULESETS)):
        target = HERE / folder
        target.mkdir(exist_ok=True)
        for name, content in files.items():
            data = content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass")
            (target / name).write_bytes(data)


if __name__ == "__main__":
    main()
