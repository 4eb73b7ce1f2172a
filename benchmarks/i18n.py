"""How long the language features take: worked examples per ruleset, rulebook lookups, a French rulebook.

Run: python benchmarks/i18n.py   (prints figures; nothing is asserted)
"""

from __future__ import annotations

import time

from biblios_kit.rulebook import render_rulebook
from biblios_kit.rulebook.examples import find_examples
from biblios_kit.rulebook.search import search
from biblios_kit.rules import load_ruleset

CASES = [("biblios", ()), ("biblios", ("medieval-bluff",)), ("scripts-and-scribes", ()), ("five-six-players", ())]
QUERIES = ["multa", "pila de robo", "enchre", "dé", "plateau de valeurs", "PV", "Medieval Bluff"]


def main() -> None:
    for ruleset_id, options in CASES:
        ruleset = load_ruleset(ruleset_id, options)
        start = time.perf_counter()
        examples = find_examples(ruleset)
        found = time.perf_counter() - start
        start = time.perf_counter()
        render_rulebook(ruleset, "fr")
        rendered = time.perf_counter() - start
        name = "+".join((ruleset_id, *options))
        print(
            f"{name:32} examples {len(examples)} found in {found * 1000:6.1f} ms; fr rulebook {rendered * 1000:6.1f} ms"
        )
    for lang in ("fr", "es"):
        book = render_rulebook(load_ruleset("biblios"), lang)
        for query in QUERIES:
            start = time.perf_counter()
            for _round in range(10):
                hits = search(book, query)
            took = (time.perf_counter() - start) / 10
            print(f"search {lang} {query!r:22} {len(hits):3} hits in {took * 1000:5.1f} ms")


if __name__ == "__main__":
    main()
