"""Load a ruleset by id, alias or path: read YAML, follow ``extends``, check, apply options, build.

Loading is: locate and read every file of the ``extends`` chain (:mod:`.source`), merge
them (:mod:`.merge`), validate the merged document against the JSON Schema
(:mod:`.schema`), run the semantic checks (:mod:`.checks`), then apply the requested
options, check again, and build the frozen :class:`~biblios_kit.rules.model.Ruleset`.
A ruleset is checked with every combination of the options it declares wherever it is
loaded. Every problem is reported as a :class:`~biblios_kit.errors.Problem` located in the file
that set the offending value (a variant, the edition it extends, or an option's
``changes``), and all of them are raised together in one :class:`RulesetError`.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from biblios_kit.errors import Hint, Problem, RulesetError, UnknownOptionError, UnknownRulesetError
from biblios_kit.resources import rulesets_dir, user_rulesets_dir
from biblios_kit.rules.merge import deep_merge, empty_values, patch_issues
from biblios_kit.rules.source import FieldPath, Issue, LocatedDocument, display_path, dotted, parse_bytes, read_bytes

if TYPE_CHECKING:
    from biblios_kit.rules.model import Ruleset

# The model and its builder are imported by load_ruleset() only: listing and reading ruleset
# files (the TUI's setup screen, ``rules list``) does not need them.

_CACHE_SIZE = 64


@dataclass(frozen=True)
class RulesetEntry:
    """A ruleset file found on disk: its id, aliases, where it lives and where it comes from."""

    id: str
    aliases: tuple[str, ...]
    path: Path
    origin: str
    """``"edition"``, ``"variant"`` (shipped in ``rulesets/variants``) or ``"user"``."""


class UnknownOptionsError(RulesetError, UnknownOptionError):
    """Options asked for that the ruleset does not declare: a :class:`RulesetError` with located problems
    that is also an :class:`UnknownOptionError` (``name`` is the first unknown option)."""

    def __init__(self, problems: list[Problem], names: list[str], ruleset_id: str, known: list[str]) -> None:
        self.problems = list(problems)
        self.names = names
        self.name = names[0]
        self.ruleset_id = ruleset_id
        self.known = known
        Exception.__init__(self, self.problems)


class Added(NamedTuple):
    """An entry a variant adds to a collection of its base (``categories``, ``church.cards``...).

    If the entry is incomplete and its key is close to one the base has, it was meant as a
    patch of that one: the checks then report the misspelt key instead of its missing fields.
    """

    path: FieldPath
    what: str
    """What the collection holds (a ``WHAT_WORDS`` key of ``biblios_kit.messages``)."""
    base: str
    """The id of the ruleset extended."""
    known: tuple[str, ...]
    """The keys the base's collection has."""


class Layer(NamedTuple):
    """One source of values in a merged document: a file, or the ``changes`` of an option in a file."""

    source: LocatedDocument
    prefix: FieldPath = ()
    """Where the patch sits inside the file (``("options", id, "changes")`` for an option)."""


@dataclass
class Composed:
    """A ruleset file merged over the files it extends, before any check."""

    document: dict[str, Any]
    """The merged document (without ``extends``)."""
    layers: list[Layer]
    """The files that contributed, the file itself first, its root edition last."""
    chain: tuple[str, ...] = ()
    """Ids of the rulesets extended, nearest first."""
    problems: list[Problem] = field(default_factory=list)
    """Problems found in the variant files themselves (unknown fields, missing own id...)."""
    added: list[Added] = field(default_factory=list)
    """Entries the file adds to a collection of its base (a category, a church card...)."""

    @property
    def files(self) -> tuple[Path, ...]:
        """Every file involved, for cache keys."""
        return tuple(layer.source.path for layer in self.layers if layer.source.path is not None)


# --------------------------------------------------------------------------- reading


# Parsed files by (path, shown name), keyed on a digest of their bytes: re-reading a few KiB
# costs microseconds, parsing costs milliseconds, and a digest (unlike a modification time,
# which has a coarse clock tick) never misses a change.
_read_cache: dict[tuple[Path, str], tuple[bytes, LocatedDocument]] = {}


def read_located(path: Path, file: str | None = None) -> LocatedDocument:
    """Read a ruleset file with positions, reusing the last parse while the file's bytes are unchanged."""
    path = path.resolve()
    shown = file if file is not None else display_path(path)
    raw = read_bytes(path, shown)
    digest = hashlib.blake2b(raw, digest_size=16).digest()
    cached = _read_cache.get((path, shown))
    if cached is not None and cached[0] == digest:
        return cached[1]
    document = parse_bytes(raw, shown, path)
    document.digest = digest
    if len(_read_cache) >= 4 * _CACHE_SIZE:
        _read_cache.clear()
    _read_cache[(path, shown)] = (digest, document)
    return document


def read_document(path: Path) -> dict[str, Any]:
    """Read one YAML ruleset file into plain data (mapping keys as strings); raise :class:`RulesetError`."""
    return read_located(path).data  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- finding rulesets


def _scan(folder: Path, origin: str) -> list[RulesetEntry]:
    entries: list[RulesetEntry] = []
    if not folder.is_dir():
        return entries
    for path in sorted(folder.glob("*.yaml")) + sorted(folder.glob("*.yml")):
        try:
            head = read_located(path).data
        except RulesetError:
            continue  # an unreadable file is not a ruleset; `rules validate` says why
        if isinstance(head.get("id"), str):
            aliases = tuple(a for a in head.get("aliases") or () if isinstance(a, str))
            entries.append(RulesetEntry(head["id"], aliases, path.resolve(), origin))
    return entries


def ruleset_files(folder: Path) -> list[Path]:
    """The YAML files of a rulesets folder (``*.yaml``, ``*.yml``), sorted."""
    if not folder.is_dir():
        return []
    return sorted(folder.glob("*.yaml")) + sorted(folder.glob("*.yml"))


def available_rulesets() -> list[RulesetEntry]:
    """Every ruleset found by id: shipped editions, shipped variants, then the user's own files."""
    shipped = rulesets_dir()
    return _scan(shipped, "edition") + _scan(shipped / "variants", "variant") + _scan(user_rulesets_dir(), "user")


def resolve_ruleset(name: str | Path, relative_to: Path | None = None) -> Path:
    """Find the file of a ruleset given by id, alias or path (relative paths from ``relative_to``)."""
    text = str(name)
    looks_like_path = isinstance(name, Path) or text.endswith((".yaml", ".yml")) or "/" in text or "\\" in text
    if looks_like_path:
        candidate = Path(text)
        if not candidate.is_absolute() and relative_to is not None:
            candidate = relative_to / candidate
        if candidate.is_file():
            return candidate.resolve()
    entries = available_rulesets()
    for entry in entries:
        if text == entry.id or text in entry.aliases:
            return entry.path
    raise UnknownRulesetError(text, sorted({entry.id for entry in entries}))


# --------------------------------------------------------------------------- extends


def compose(path: Path, file: str | None = None, _stack: tuple[Path, ...] = ()) -> Composed:
    """Read ``path`` and merge it over the chain of rulesets it ``extends``.

    Raises :class:`RulesetError` for unreadable files, unknown ``extends`` targets and
    cycles; problems of the variant's own fields are collected in :attr:`Composed.problems`.
    """
    from biblios_kit.rules.schema import unknown_fields, unknown_name

    path = path.resolve()
    source = read_located(path, file)
    raw: dict[str, Any] = source.data
    if "extends" not in raw:
        # An edition removes nothing, except in its options' changes: an empty value there is a slip too.
        changes = {path for path in source.empties if path[:1] == ("options",) and path[2:3] == ("changes",)}
        own_id = raw.get("id")
        name = own_id if isinstance(own_id, str) else source.file
        empty, document = empty_values(dict(raw), changes, name, changes_only=True)
        return Composed(document, [Layer(source)], problems=[locate([Layer(source)], issue) for issue in empty])
    parent = raw["extends"]
    if not isinstance(parent, str) or not parent:
        raise RulesetError([source.problem(("extends",), "bad-extends")])
    try:
        parent_path = resolve_ruleset(parent, relative_to=path.parent)
    except UnknownRulesetError as error:
        code, fields = unknown_name("ruleset", parent, error.known)
        raise RulesetError([source.problem(("extends",), code, fields)]) from None
    if parent_path == path:
        editions = sorted(entry.id for entry in available_rulesets() if entry.origin == "edition")
        raise RulesetError([source.problem(("extends",), "extends-itself", {"known": editions})])
    if parent_path in _stack:
        # Reported where the cycle starts (the file validated, for a -> b -> a).
        files = [*_stack, path]
        cycle = files[files.index(parent_path) :]
        first = read_located(parent_path)
        chain = [display_path(p) for p in (*cycle, parent_path)]
        raise RulesetError([first.problem(("extends",), "extends-cycle", {"chain": chain})])
    base = compose(parent_path, _stack=(*_stack, path))

    problems = list(base.problems)
    layer = Layer(source)
    for issue in unknown_fields({k: v for k, v in raw.items() if k != "extends"}):
        problems.append(locate([layer], issue))
    for name in ("id", "title", "description"):
        if name not in raw:
            problems.append(source.problem((), "variant-needs-own", {"field": name}))
    base_options = base.document.get("options")
    declared = base_options if isinstance(base_options, dict) else {}
    patch = {k: v for k, v in raw.items() if k != "extends"}
    own_options = raw.get("options")
    if isinstance(own_options, dict):
        for option_id, body in own_options.items():
            if option_id not in declared and isinstance(body, dict) and "title" not in body:
                code, fields = unknown_name("option", option_id, declared)
                fields["note"] = Hint("new-option-needs")
                problems.append(locate([layer], Issue(("options", option_id), code, fields, at_key=True)))
                # Reported once here; leaving it out of the merge avoids "missing title" noise.
                patch["options"] = {k: v for k, v in patch["options"].items() if k != option_id}
    parent_id = base.document.get("id")
    base_name = parent_id if isinstance(parent_id, str) else display_path(parent_path)
    empty, patch = empty_values(patch, source.empties, base_name)
    problems += [locate([layer], issue) for issue in empty]
    removals, added = patch_issues(base.document, patch, base_name)
    problems += [locate([layer], issue) for issue in removals]
    merged = deep_merge(base.document, patch)
    for name in ("aliases", "rulebook_title"):  # they name one file's game: a variant does not inherit them
        if name not in raw:
            merged.pop(name, None)
    extended = (base_name, *base.chain)
    return Composed(merged, [layer, *base.layers], extended, problems, [Added(*entry) for entry in added])


# --------------------------------------------------------------------------- locating problems


def locate(layers: list[Layer], issue: Issue, options: tuple[str, ...] = ()) -> Problem:
    """Turn an :class:`Issue` of a merged document into a :class:`Problem` in the file that set it.

    The layer (file or option) holding the deepest part of the issue's path wins; on a tie,
    the most derived one (a variant over its edition). When that is a file the validated one
    extends (a base the author may not be able to edit), the problem is reported in the
    validated file, with ``via`` pointing at the base's line: as the issue's
    :attr:`~Issue.mirror` (the other side of a collision) if the validated file sets its path,
    else at a path of its :attr:`~Issue.related` the validated file sets, else at the deepest
    part of the issue's own path it sets, else at its ``extends``.
    """
    best: tuple[int, Layer, tuple[int, int]] | None = None
    for layer in layers:
        known = layer.source
        for end in range(len(issue.path), -1, -1):
            position = known.at(layer.prefix + issue.path[:end], key=issue.at_key and end == len(issue.path))
            if position is None:
                continue
            if best is None or end > best[0]:
                best = (end, layer, position)
            break
    path = dotted(issue.path)
    if best is None:
        return Problem(layers[-1].source.file, 1, 1, path, issue.code, issue.fields, options)
    _depth, layer, (line, column) = best
    top = next((candidate.source for candidate in layers if not candidate.prefix), layer.source)
    if layer.source is top:
        return Problem(layer.source.file, line, column, path, issue.code, issue.fields, options)
    via = (layer.source.file, line, column)
    if issue.mirror is not None and (mirrored := top.at(issue.mirror[0])) is not None:
        mirror_path, mirror_fields = issue.mirror
        return Problem(top.file, *mirrored, dotted(mirror_path), issue.code, mirror_fields, options, via)
    here = next((found for related in issue.related if (found := top.at(related, key=True)) is not None), None)
    if here is None:
        prefix, here = top.position(issue.path, key=issue.at_key)
        if not prefix:  # the validated file sets nothing on the way: point at its 'extends'
            here = top.at(("extends",), key=True) or (1, 1)
    return Problem(top.file, here[0], here[1], path, issue.code, issue.fields, options, via)


def check_document(
    document: dict[str, Any],
    layers: list[Layer],
    options: tuple[str, ...] = (),
    added: Iterable[Added] = (),
) -> list[Problem]:
    """Schema and semantic checks of a merged document; every problem, located through ``layers``.

    The semantic checks that read a part with schema problems are skipped; the others run in
    the same pass. An incomplete entry in ``added`` whose key is close to one of the base's
    is reported as that misspelt key, in place of its missing fields.
    """
    from biblios_kit.rules.checks import semantic_issues
    from biblios_kit.rules.schema import schema_issues

    issues = _misplaced_fields(document, layers, _misspelt_entries(schema_issues(document), added))
    broken = {str(issue.path[0]) if issue.path else str(issue.fields.get("name", "")) for issue in issues}
    if not any(not issue.path and issue.code != "missing-field" for issue in issues):
        issues += [_with_way_out(issue) for issue in semantic_issues(document, broken)]
    return [locate(layers, issue, options) for issue in issues]


def _with_way_out(issue: Issue) -> Issue:
    """A church target at a place no die has: name the shipped rulesets that have such a die (extend one)."""
    if issue.code != "no-die-of-place":
        return issue
    variants = _variants_with_place(issue.fields["place"])
    if not variants:
        return issue
    return issue._replace(fields={**issue.fields, "note": Hint("extend-variant-with-place", {"variants": variants})})


def _variants_with_place(place: object) -> list[str]:
    """The ids of the shipped rulesets whose shared ``dice`` have a die of ``place`` (a way out to offer)."""
    found: list[str] = []
    for entry in available_rulesets():
        if entry.origin == "user":
            continue
        try:
            dice = read_located(entry.path).data.get("dice")
        except RulesetError:  # pragma: no cover - the shipped files are valid
            continue
        if isinstance(dice, list) and any(isinstance(die, dict) and die.get("place") == place for die in dice):
            found.append(entry.id)
    return found


def _collection_paths(document: dict[str, Any]) -> Iterable[FieldPath]:
    """The concrete paths of the collections (``setup``, ``categories.monks.cards``...) the document has."""
    from biblios_kit.rules.merge import COLLECTIONS

    for pattern, _what in COLLECTIONS:
        found: list[tuple[FieldPath, Any]] = [((), document)]
        for step in pattern:
            found = [
                ((*path, key), value[key])
                for path, value in found
                if isinstance(value, dict)
                for key in (value if step == "*" else (step,))
                if key in value
            ]
        yield from (path for path, value in found if isinstance(value, dict))


def _misplaced_fields(document: dict[str, Any], layers: list[Layer], issues: list[Issue]) -> list[Issue]:
    """A field of a collection's entries written among the entries (``gift_cards: 4`` right under ``setup``,
    one level too far left) is reported once as such, in place of its schema problems."""
    from biblios_kit.rules.schema import field_names

    for path in _collection_paths(document):
        entries: Any = document
        for step in path:
            entries = entries[step]
        for key, value in entries.items():
            here = (*path, key)
            if isinstance(value, dict) or key not in (field_names(here) or ()):
                continue
            fields: dict[str, object] = {"name": key, "parent": dotted(path)}
            above = _entry_above(entries, here, layers)
            if above is not None:
                fields["note"] = Hint("entry-above", {"previous": above})
            issues = [issue for issue in issues if issue.path[: len(here)] != here]
            issues.append(Issue(here, "field-among-entries", fields, at_key=True))
    return issues


def _entry_above(entries: dict[str, Any], here: FieldPath, layers: list[Layer]) -> str | None:
    """The entry written just above ``here`` in the file that sets it (the one it was probably meant for)."""
    for layer in layers:
        line = layer.source.keys.get(layer.prefix + here)
        if line is None:
            continue
        above = [
            (position[0], key)
            for key, value in entries.items()
            if isinstance(value, dict)
            and (position := layer.source.keys.get(layer.prefix + (*here[:-1], key))) is not None
            and position[0] < line[0]
        ]
        return max(above)[1] if above else None
    return None


def _misspelt_entries(issues: list[Issue], added: Iterable[Added]) -> list[Issue]:
    from biblios_kit.rules.schema import suggestion

    for entry in added:
        incomplete = any(issue.code == "missing-field" and issue.path == entry.path for issue in issues)
        name = str(entry.path[-1])
        close = suggestion(name, entry.known) if incomplete else None
        if close is None:
            continue
        inside = [issue for issue in issues if issue.path[: len(entry.path)] == entry.path]
        fields = {"base": entry.base, "what": entry.what, "name": name, "close": close}
        issues = [issue for issue in issues if issue not in inside]
        issues.append(Issue(entry.path, "no-such-entry", fields, at_key=True))
    return issues


def _unique(problems: Iterable[Problem]) -> list[Problem]:
    """Problems without repeats, grouped by file and in reading order."""
    return sorted(dict.fromkeys(problems), key=lambda p: (p.file, p.line, p.column))


def _option_layers(composed: Composed, option_id: str) -> list[Layer]:
    prefix: FieldPath = ("options", option_id, "changes")
    return [Layer(layer.source, prefix) for layer in composed.layers if layer.source.has(prefix)]


def apply_option(document: dict[str, Any], option_id: str) -> dict[str, Any]:
    """Merge the ``changes`` of one declared option into ``document`` (a new dict)."""
    changes = document["options"][option_id].get("changes", {})
    return deep_merge(document, changes)  # type: ignore[no-any-return]


def check_options(composed: Composed, option_ids: Iterable[str]) -> tuple[dict[str, Any], list[Problem]]:
    """Apply options (declared order) to a checked document and check the result; return both.

    An option's ``changes`` follow the merge rules of a variant: a ``null`` removing a key the
    document does not have is a problem too.
    """
    document = composed.document
    layers = list(composed.layers)
    wanted = set(option_ids)
    removals: list[Issue] = []
    name = str(document.get("id", "?"))
    for option_id in document.get("options", {}):
        if option_id in wanted:
            removals += patch_issues(document, document["options"][option_id].get("changes", {}), name)[0]
            document = apply_option(document, option_id)
            layers = _option_layers(composed, option_id) + layers
    if not wanted:
        return document, []
    options = tuple(sorted(wanted))
    located = [locate(layers, issue, options) for issue in removals]
    return document, located + check_document(document, layers, options)


def option_sets(option_ids: Iterable[str]) -> list[tuple[str, ...]]:
    """Every non-empty combination of ``option_ids`` (in their order), the smallest first."""
    ids = list(option_ids)
    return [combo for size in range(1, len(ids) + 1) for combo in itertools.combinations(ids, size)]


def check_option_sets(composed: Composed) -> list[Problem]:
    """Check a schema-valid composed ruleset with every combination of the options it declares.

    A ruleset may declare at most 6 options (63 combinations). A combination that contains
    one already found broken is skipped, so each break is reported once, with the
    smallest set of options that causes it.
    """
    declared = composed.document.get("options")
    if not isinstance(declared, dict) or not declared:
        return []
    broken: list[frozenset[str]] = []
    problems: list[Problem] = []
    for combo in option_sets(declared):
        chosen = frozenset(combo)
        if any(known <= chosen for known in broken):
            continue
        _document, found = check_options(composed, combo)
        if found:
            broken.append(chosen)
            problems += found
    return problems


def check_file(path: Path, file: str | None = None) -> list[Problem]:
    """Every problem of a ruleset file: reading, ``extends``, schema, semantics, and each option on its own."""
    try:
        composed = compose(path, file)
    except RulesetError as error:
        return error.problems
    problems = list(composed.problems)
    plain = check_document(composed.document, composed.layers, added=composed.added)
    problems += plain
    if not plain:
        problems += check_option_sets(composed)
    return _unique(problems)


# --------------------------------------------------------------------------- loading


_built: dict[tuple[Any, ...], Ruleset] = {}
_options_checked: set[tuple[Any, ...]] = set()
"""The file versions (paths and digests) whose every option combination has been checked."""


def _requested_options(composed: Composed, options: Iterable[str], source: LocatedDocument) -> list[str]:
    from biblios_kit.rules.schema import unknown_name

    declared = composed.document.get("options", {})
    requested = list(dict.fromkeys(options))
    unknown = [name for name in requested if name not in declared]
    if unknown:
        problems = []
        for name in unknown:
            where = ("options",) if source.has(("options",)) else ()
            code, fields = unknown_name("option", name, declared)
            issue = Issue(where, code, fields)
            problems.append(locate(composed.layers, issue))
        raise UnknownOptionsError(problems, unknown, str(composed.document.get("id", "?")), sorted(declared))
    defaults = [name for name, body in declared.items() if body.get("default", False)]
    return [name for name in declared if name in requested or name in defaults]


def load_ruleset(name: str | Path = "biblios", options: Iterable[str] = ()) -> Ruleset:
    """Load a ruleset by id, alias or path, with the named options switched on (plus those on by default).

    Raises :class:`UnknownRulesetError` if nothing has that name, :class:`RulesetError`
    (with every located problem) if the ruleset or an option is invalid, and
    :class:`UnknownOptionsError` (a :class:`RulesetError` and an
    :class:`~biblios_kit.errors.UnknownOptionError`) for options it does not declare.
    Results are cached while none of the files involved changes.
    """
    path = resolve_ruleset(name)
    composed = compose(path)
    requested = tuple(sorted(set(options)))
    # compose() has just read every file of the chain, so the cached digests are current.
    key = (tuple((layer.source.path, layer.source.digest) for layer in composed.layers), requested)
    cached = _built.get(key)
    if cached is not None:
        return cached
    problems = _unique([*composed.problems, *check_document(composed.document, composed.layers, added=composed.added)])
    if problems:
        raise RulesetError(problems)
    # Every combination of options is checked, not only the one asked for: a ruleset that
    # breaks with some option on is refused with any options, as `rules validate` refuses it.
    files = key[0]
    if files not in _options_checked:
        problems = _unique(check_option_sets(composed))
        if problems:
            raise RulesetError(problems)
        if len(_options_checked) >= _CACHE_SIZE:
            _options_checked.clear()
        _options_checked.add(files)
    active = _requested_options(composed, requested, composed.layers[0].source)
    document, problems = check_options(composed, active)
    if problems:
        raise RulesetError(_unique(problems))
    from biblios_kit.rules.build import build_ruleset

    document = dict(document)
    document["active_options"] = sorted(active)
    ruleset = build_ruleset(document, active_options=active, source=str(path), extends=composed.chain)
    if len(_built) >= _CACHE_SIZE:
        _built.clear()
    _built[key] = ruleset
    return ruleset
