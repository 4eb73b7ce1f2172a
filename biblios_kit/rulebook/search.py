"""Search a rendered rulebook: accent- and case-insensitive, with the matched spans of each line."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from biblios_kit.rulebook.model import Rulebook


@dataclass(frozen=True, slots=True)
class Hit:
    """One line of a section that matches: ``spans`` are ``(start, end)`` offsets into ``text``."""

    section_id: str
    section_title: str
    text: str
    spans: tuple[tuple[int, int], ...]


def _fold_with_map(text: str) -> tuple[str, list[int]]:
    """``text`` folded (case, accents removed) and, for each folded character, its index in ``text``."""
    folded: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        decomposed = unicodedata.normalize("NFD", char.casefold())
        for part in decomposed:
            if unicodedata.combining(part):
                continue
            folded.append(part)
            origin.append(index)
    return "".join(folded), origin


def query_words(query: str) -> list[str]:
    """The folded words of a query (duplicates removed, order kept)."""
    words = _fold_with_map(query)[0].split()
    return list(dict.fromkeys(words))


def find_spans(text: str, words: list[str]) -> tuple[tuple[int, int], ...]:
    """Merged ``(start, end)`` spans of ``text`` where any of the folded ``words`` occurs."""
    folded, origin = _fold_with_map(text)
    spans: list[tuple[int, int]] = []
    for word in words:
        start = folded.find(word)
        while start != -1:
            end = start + len(word)
            spans.append((origin[start], origin[end - 1] + 1))
            start = folded.find(word, end)
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return tuple(merged)


def search(rulebook: Rulebook, query: str) -> list[Hit]:
    """Every line of every section where the query matches, in rulebook order.

    A section matches when each word of the query occurs somewhere in it (title
    included); its lines holding any of the words are returned with their spans.
    Case and accents are ignored: ``penalite`` finds "pénalité". Sections whose title
    matches come first, then the others by number of matching lines (most first), ties in
    rulebook order. An empty query finds nothing.
    """
    words = query_words(query)
    if not words:
        return []
    found: list[tuple[int, int, int, list[Hit]]] = []
    for order, section in enumerate(rulebook.sections):
        lines = list(section.lines())
        whole = _fold_with_map("\n".join(lines))[0]
        if not all(word in whole for word in words):
            continue
        hits = [Hit(section.id, section.title, line, spans) for line in lines if (spans := find_spans(line, words))]
        title_match = 0 if find_spans(section.title, words) else 1
        found.append((title_match, -len(hits), order, hits))
    found.sort(key=lambda item: item[:3])
    return [hit for *_rank, hits in found for hit in hits]


def highlight(hit: Hit, before: str = "[", after: str = "]") -> str:
    """The hit's text with each matched span wrapped in ``before``/``after`` markers."""
    parts: list[str] = []
    cursor = 0
    for start, end in hit.spans:
        parts += [hit.text[cursor:start], before, hit.text[start:end], after]
        cursor = end
    parts.append(hit.text[cursor:])
    return "".join(parts)
