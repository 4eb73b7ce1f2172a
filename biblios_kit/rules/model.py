"""The frozen, typed ``Ruleset`` that every part of biblios-kit reads.

A ruleset is loaded from YAML (see :mod:`biblios_kit.rules.loader`), validated, then
turned into these immutable dataclasses. Nothing here evaluates YAML: every
behaviour a ruleset names (a penalty kind, a tie-break criterion, a currency) is
one of the string constants below, and the engine owns what it means.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

LANGUAGES: tuple[str, ...] = ("en", "fr", "es")
"""The languages every ruleset text must exist in."""


@dataclass(frozen=True, slots=True)
class Text:
    """A short text in each supported language."""

    en: str
    fr: str
    es: str

    def get(self, lang: str) -> str:
        """Return the text in ``lang`` (a two-letter code), falling back to English."""
        return getattr(self, lang, self.en) if lang in LANGUAGES else self.en


class CardKind(str, enum.Enum):
    """The three kinds of card in the deck."""

    CATEGORY = "category"
    GOLD = "gold"
    CHURCH = "church"


STARTING_CARD_KINDS: tuple[CardKind, ...] = (CardKind.CATEGORY, CardKind.GOLD)
"""Kinds of card a setup may deal by name (``starting_cards``): a church card is never held in a hand."""


class Currency(str, enum.Enum):
    """What bids count in an auction."""

    GOLD = "gold"
    """Bids are amounts of Gold, paid with Gold cards whose values cover the bid."""
    CARDS = "cards"
    """Bids are numbers of cards, paid by discarding that many cards of any kind."""


class PenaltyKind(str, enum.Enum):
    """What happens to an auction winner who does not pay."""

    STANDARD = "standard"
    """Each other player, clockwise from the penalized player's left, takes a random card."""
    MEDIEVAL_BLUFF = "medieval-bluff"
    """The left neighbour removes one random card of the penalized hand from the game."""
    NONE = "none"
    """No card changes hands."""


class ShortDraw(str, enum.Enum):
    """What a gift turn does when the draw pile holds fewer cards than it should draw."""

    PLAY_OUT = "play-out"
    """Play the turn with the cards left; owed destinations shrink in the order public,
    auction pile, keep (a turn with one card left must keep it)."""
    DISCARD = "discard"
    """Remove the remaining cards from the game; the gift phase ends."""


class BiddingStart(str, enum.Enum):
    """Who bids first on a revealed card."""

    LEFT_OF_ACTIVE = "left-of-active"
    ACTIVE = "active"


class Overpay(str, enum.Enum):
    """Whether a Gold payment may exceed the bid."""

    LOST = "lost"
    """Any set of Gold cards covering the bid is accepted; the surplus is lost."""
    FORBIDDEN = "forbidden"
    """The Gold cards must add up to the bid exactly; otherwise the winner cannot pay."""


class AllPass(str, enum.Enum):
    """What happens to a revealed card nobody bids on."""

    DISCARD = "discard"
    """The card is removed from the game."""
    ACTIVE_TAKES = "active-takes"
    """The active player takes it for free."""


class ChurchTargets(str, enum.Enum):
    """Which award dice church/bishop cards may move."""

    ANY = "any"
    FIRST_PLACE = "first-place"


class CategoryTie(str, enum.Enum):
    """How a tie on a category total is settled."""

    EARLIEST_LETTER = "earliest-letter"
    """The tied player holding the earliest letter in the category wins it."""
    NOBODY = "nobody"
    """Nobody wins the category (its award goes unclaimed)."""


class TieBreakBy(str, enum.Enum):
    """One criterion of the final tie-break chain (higher is better unless noted)."""

    GOLD = "gold"
    """Total value of the Gold cards in hand."""
    CATEGORY_TOTAL = "category-total"
    """Total of the named category among the still-tied players."""
    CATEGORY_LETTER = "category-letter"
    """Earliest letter held in the named category (earlier is better; none is worst)."""
    CATEGORY_WON = "category-won"
    """Whether the player won the named category's first-place award."""
    CARDS = "cards"
    """How many cards of the hand match the step's filters (:class:`TieBreak` ``kind``, ``category``, ``value``)."""
    VALUE = "value"
    """The total value of the cards of the hand that match the step's filters."""


COUNT_BY: tuple[TieBreakBy, ...] = (TieBreakBy.CARDS, TieBreakBy.VALUE)
"""The count criteria, written ``most: cards`` or ``fewest: value`` (the others are written ``by: ...``)."""


class PointsRule(str, enum.Enum):
    """What an award die is worth to the player who takes it."""

    DIE = "die"
    """The die's face, in victory points (the printed rule)."""
    DIE_TIMES_CARDS = "die-times-cards"
    """The die's face times the number of cards the player holds in the die's category."""
    DIE_TIMES_VALUE = "die-times-value"
    """The die's face times the player's total (sum of card values) in the die's category."""


@dataclass(frozen=True, slots=True)
class AwardDie:
    """One award die of a category: the player ranked ``place`` takes its face as points."""

    place: int
    start: int
    min: int
    max: int


@dataclass(frozen=True, slots=True)
class Category:
    """A category of cards, in board order (``index`` 0 is first on the board)."""

    id: str
    index: int
    name: Text
    colour: str
    """A ``#rrggbb`` colour for displays."""
    colour_name: Text
    glyph: str
    """A short colour-independent symbol, so the category can be told apart without colour."""
    dice: tuple[AwardDie, ...]
    """Award dice, ordered by place (first place first)."""


@dataclass(frozen=True, slots=True)
class DieTarget:
    """One die a church/bishop card moves, when the card names its dice one by one."""

    place: int | None
    """The award place of the die (1 for a first-place die); ``None`` for any die."""
    optional: bool = False
    """Whether the owner may leave this die unmoved while moving the card's other dice."""


@dataclass(frozen=True, slots=True)
class ChurchEffect:
    """What a church/bishop card does when acquired."""

    id: str
    signs: tuple[int, ...]
    """The steps the owner may choose from (``(1,)``, ``(-1,)`` or ``(1, -1)``)."""
    dice: int
    """How many different dice move by the chosen step (all by the same step)."""
    targets: tuple[DieTarget, ...] = ()
    """One target per die when the card names the place of each die it moves (``dice`` of them);
    empty when any ``dice`` different dice allowed by :attr:`ChurchRules.targets` may move."""


@dataclass(frozen=True, slots=True)
class Card:
    """One physical card. ``id`` is its index in :attr:`Ruleset.deck`."""

    id: int
    kind: CardKind
    value: int
    """The value of a category or Gold card (0 for a church card)."""
    category: str | None = None
    """Category id of a category card."""
    letter: str | None = None
    """Tie-break letter of a category card (``"A"`` is the earliest)."""
    effect: ChurchEffect | None = None
    """Effect of a church card."""


@dataclass(frozen=True, slots=True)
class Removal:
    """Named cards at setup: cards taken out face down before the random removals, or
    (in :attr:`Setup.starting_cards`) cards dealt to each player."""

    kind: CardKind
    count: int
    value: int | None = None
    category: str | None = None
    effect: str | None = None


@dataclass(frozen=True, slots=True)
class Setup:
    """The setup for one supported player count."""

    players: int
    remove: tuple[Removal, ...]
    remove_random: int
    starting_hand: int
    """Random cards dealt face down to each player before the gift phase (after :attr:`starting_cards`)."""
    gift_cards: int
    """Cards the active player draws on a gift turn (at least ``players + 1``)."""
    short_draw: ShortDraw
    starting_cards: tuple[Removal, ...] = ()
    """Named cards dealt openly to every player before the random :attr:`starting_hand`: each
    player receives ``count`` cards of each item (Gold or category cards)."""


@dataclass(frozen=True, slots=True)
class ChurchRules:
    """How church/bishop cards are used."""

    optional: bool
    """Whether the owner may decline to use the card."""
    targets: ChurchTargets


@dataclass(frozen=True, slots=True)
class AuctionRules:
    """How the auction phase runs."""

    bidding_starts: BiddingStart
    opening_bid: int
    """The lowest legal first bid."""
    currency: Mapping[CardKind, Currency]
    gold_ceiling: int
    """Highest legal bid in Gold (a finite bound so legal bids can be listed); with
    :attr:`gold_ceiling_hand`, the bound of the whole deck."""
    cards_ceiling: int
    """Highest legal bid in number of cards; with :attr:`cards_ceiling_hand`, the bound of the whole deck."""
    overpay: Overpay
    all_pass: AllPass
    refuse_to_pay: bool
    """Whether a winner who could pay may decline and take the penalty instead."""
    gold_ceiling_hand: bool = False
    """Whether each bidder's ceiling in Gold is what they can pay: the total value of the Gold in their hand."""
    cards_ceiling_hand: bool = False
    """Whether each bidder's ceiling in cards is what they can pay: the number of cards in their hand."""


@dataclass(frozen=True, slots=True)
class PenaltyRules:
    """What happens to an auction winner who does not pay."""

    kind: PenaltyKind
    exclude_from_reauction: bool
    """Whether a penalized player stays out of the re-auction of the same card."""


@dataclass(frozen=True, slots=True)
class TieBreak:
    """One concrete step of the final tie-break chain.

    The count steps (``by`` :attr:`TieBreakBy.CARDS` or :attr:`TieBreakBy.VALUE`) count or add up
    the cards of a hand that match every filter given (``kind``, ``category``, ``value``; none:
    every card of the hand), the most first unless ``fewest``.
    """

    by: TieBreakBy
    category: str | None = None
    fewest: bool = False
    """For a count step: fewer (or a lower total) is better."""
    kind: CardKind | None = None
    """For a count step: only cards of this kind (a ``category`` implies category cards)."""
    value: int | None = None
    """For a count step: only cards of this value."""

    @property
    def counts(self) -> bool:
        """Whether this is a count step (cards or value over a filtered hand)."""
        return self.by is TieBreakBy.CARDS or self.by is TieBreakBy.VALUE

    def matches(self, card: Card) -> bool:
        """Whether ``card`` of a hand is counted by this count step."""
        if self.kind is not None and card.kind is not self.kind:
            return False
        if self.category is not None and card.category != self.category:
            return False
        return self.value is None or card.value == self.value


@dataclass(frozen=True, slots=True)
class SetBonus:
    """Extra victory points for winning a set of categories (taking their first-place dice)."""

    categories: tuple[str, ...]
    """The categories of the set, in board order."""
    points: int
    at_least: int
    """How many categories of the set a player must win (all of them unless fewer are asked)."""


@dataclass(frozen=True, slots=True)
class ScoringRules:
    """How categories and the game are won."""

    category_tie: CategoryTie
    final_tiebreak: tuple[TieBreak, ...]
    """Applied in order to players tied on victory points; what stays tied shares the result."""
    points: PointsRule = PointsRule.DIE
    """What an award die is worth to the player who takes it."""
    bonus: tuple[SetBonus, ...] = ()
    """Set bonuses, each scored by every player who wins enough of its categories."""


@dataclass(frozen=True, slots=True)
class Option:
    """A switchable rule change declared by a ruleset."""

    id: str
    title: Text
    description: Text
    default: bool
    changes: Mapping[str, object]
    """The YAML-shaped patch merged into the ruleset when the option is on."""


class Gender(str, enum.Enum):
    """The grammatical gender of a term in French or Spanish (English ignores it)."""

    MASCULINE = "masculine"
    FEMININE = "feminine"


class GrammaticalNumber(str, enum.Enum):
    """Whether a term is a singular or a plural noun phrase ("Points de Victoire" is plural)."""

    SINGULAR = "singular"
    PLURAL = "plural"


FRENCH_VOWELS = frozenset("aeiouyàâäéèêëîïôöùûüÿæœ")
"""Letters before which French elides *le*/*la*/*de* by default (a word starting with *h* must say so)."""


def default_elision(text: str, lang: str) -> bool:
    """Whether ``text`` elides its article by default: French before a vowel (not *h*), never otherwise.

    French "l'étape", "d'Or" but "le Hall" unless the ruleset states ``elision: true``
    (an *h muet*: "l'heure"). In Spanish ``elision`` means a feminine noun with a stressed
    *a-* that takes *el*/*un* ("el agua"); it is never assumed.
    """
    return lang == "fr" and text[:1].casefold() in FRENCH_VOWELS


@dataclass(frozen=True, slots=True)
class TermForm:
    """A term in one language with the grammar sentences need to place it.

    A ruleset writes a term as a plain string (masculine, singular, elision by the first
    letter) or as ``{text, gender, number, elision, coined, one}``.
    """

    text: str
    gender: Gender = Gender.MASCULINE
    number: GrammaticalNumber = GrammaticalNumber.SINGULAR
    elision: bool = False
    """French: the article and *de* elide before it ("l'étape", "d'Or"). Spanish: a feminine
    noun taking *el* ("el agua")."""
    coined: bool = False
    """The term is this project's own word: no published rulebook in this language gives it."""
    one: str | None = None
    """For a plural term, its text after a count the language treats as one ("1 Victory
    Point"; in French 0 and 1: "1 Point de Victoire"). ``None``: the text serves every count."""

    @property
    def feminine(self) -> bool:
        """Whether the term is feminine."""
        return self.gender is Gender.FEMININE

    @property
    def plural(self) -> bool:
        """Whether the term is a plural noun phrase."""
        return self.number is GrammaticalNumber.PLURAL


@dataclass(frozen=True, slots=True)
class Term:
    """An edition term in each supported language, with its grammar."""

    en: TermForm
    fr: TermForm
    es: TermForm

    def form(self, lang: str) -> TermForm:
        """The term and its grammar in ``lang`` (English when ``lang`` is not supported)."""
        return getattr(self, lang) if lang in LANGUAGES else self.en

    def get(self, lang: str) -> str:
        """The bare text of the term in ``lang`` (English when ``lang`` is not supported)."""
        return self.form(lang).text


def term_form(raw: str | Mapping[str, object], lang: str) -> TermForm:
    """Build a :class:`TermForm` from a ruleset value: a string, or ``{text, gender, number, elision, coined, one}``."""
    if isinstance(raw, str):
        return TermForm(raw, elision=default_elision(raw, lang))
    text = str(raw["text"])
    elision = raw.get("elision")
    return TermForm(
        text=text,
        gender=Gender(raw.get("gender", Gender.MASCULINE.value)),
        number=GrammaticalNumber(raw.get("number", GrammaticalNumber.SINGULAR.value)),
        elision=default_elision(text, lang) if elision is None else bool(elision),
        coined=bool(raw.get("coined", False)),
        one=str(raw["one"]) if raw.get("one") is not None else None,
    )


def build_term(raw: Mapping[str, str | Mapping[str, object]]) -> Term:
    """Build a :class:`Term` from a ruleset's ``{en, fr, es}`` mapping of term values."""
    return Term(**{lang: term_form(raw[lang], lang) for lang in LANGUAGES})


TERM_KEYS: tuple[str, ...] = (
    "board",
    "gold",
    "church",
    "gift_phase",
    "auction_phase",
    "public_space",
    "auction_pile",
    "draw_pile",
    "hand",
    "victory_points",
)
"""The edition-specific terms every ruleset defines in every language."""


@dataclass(frozen=True, slots=True)
class Ruleset:
    """A loaded, validated ruleset with its options applied. Immutable and hashable by id."""

    id: str
    aliases: tuple[str, ...]
    version: str
    title: Text
    rulebook_title: Mapping[str, str]
    """The name on the rulebook's title page where it is not :attr:`title` (by language; see :meth:`rulebook_name`)."""
    description: Text
    provenance: tuple[str, ...]
    terms: Mapping[str, Term]
    """The edition's words (:data:`TERM_KEYS`), with their grammar in each language."""
    categories: tuple[Category, ...]
    """In board order."""
    deck: tuple[Card, ...]
    """Every card; ``deck[i].id == i``."""
    setups: Mapping[int, Setup]
    """Setup per supported player count."""
    church: ChurchRules
    auction: AuctionRules
    penalty: PenaltyRules
    scoring: ScoringRules
    options: Mapping[str, Option]
    """Every option this ruleset declares, on or off."""
    active_options: frozenset[str]
    """The options applied to this ruleset."""
    content_hash: str
    """SHA-256 of the merged, options-applied document: changes whenever a rule changes."""
    source: str = ""
    """Where the ruleset was loaded from (a path), for messages."""
    extends: tuple[str, ...] = ()
    """The chain of rulesets this one extends, nearest first (ids)."""
    document: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}), repr=False, compare=False)
    """The merged YAML-shaped document (read-only), for renderers and diffs."""
    church_names: Mapping[str, Term] = field(default_factory=lambda: MappingProxyType({}))
    """The edition's own name of a church/bishop card, by effect id ("+2" in Scripts & Scribes);
    effects without one are named by their symbol."""

    @property
    def player_counts(self) -> tuple[int, ...]:
        """Supported player counts, ascending."""
        return tuple(sorted(self.setups))

    def category(self, category_id: str) -> Category:
        """Return the category with this id (``KeyError`` if unknown)."""
        for category in self.categories:
            if category.id == category_id:
                return category
        raise KeyError(category_id)

    def rulebook_name(self, lang: str) -> str:
        """The name on the rulebook's title page in ``lang``: the official gloss where there is one, else the title."""
        return self.rulebook_title.get(lang) or self.title.get(lang)

    def term(self, key: str, lang: str) -> str:
        """Return the edition's term ``key`` (one of :data:`TERM_KEYS`) in ``lang``."""
        return self.terms[key].get(lang)

    def term_form(self, key: str, lang: str) -> TermForm:
        """Return the edition's term ``key`` in ``lang`` with its gender, number and elision."""
        return self.terms[key].form(lang)

    def __hash__(self) -> int:
        return hash(self.content_hash)
