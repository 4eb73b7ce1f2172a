"""CLI commands ``rules show``, ``rules search``, ``rules diff`` and ``rules verify``: the rulebook of any ruleset, in three languages."""

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal, NoReturn

import typer

from biblios_kit.cli.common import LangOption, fail, start
from biblios_kit.cli.options import RULESET, OptionOption
from biblios_kit.i18n import SUPPORTED, _, format_list, ngettext, normalize_language, pgettext

if TYPE_CHECKING:
    from biblios_kit.rules.model import Ruleset


def _fail(message: str) -> NoReturn:
    fail(f"{_('error:')} {message}")


def _start(lang: str | None) -> str:
    """Activate the language; an explicit unsupported ``--lang`` is an error here (exit status 2)."""
    if lang is not None and normalize_language(lang) not in SUPPORTED:
        _fail(
            _("unknown language {code}; choose one of: {choices}").format(code=repr(lang), choices=", ".join(SUPPORTED))
        )
    return start(lang)


def parse_spec(spec: str) -> tuple[str, list[str]]:
    """Split a ruleset spec ``name+option+option`` (a path to an existing file is taken whole)."""
    if Path(spec).is_file():
        return spec, []
    name, *options = spec.split("+")
    return name, [option for option in options if option]


def load(name: str, options: list[str]) -> "Ruleset":
    """Load a ruleset with options, turning every loading problem into a clear message and exit status 2."""
    from biblios_kit.errors import RulesetError, UnknownOptionError, UnknownRulesetError
    from biblios_kit.rules import load_ruleset

    try:
        return load_ruleset(name, options)
    except UnknownRulesetError as error:
        _fail(
            _("unknown ruleset {name}; choose one of: {choices}").format(
                name=repr(error.name), choices=", ".join(error.known)
            )
        )
    except UnknownOptionError as error:
        choices = ", ".join(error.known) if error.known else _("(this ruleset has no options)")
        _fail(
            _("unknown option {name} for ruleset {ruleset}; choose from: {choices}").format(
                name=repr(error.name), ruleset=error.ruleset_id, choices=choices
            )
        )
    except RulesetError as error:
        _fail(_("ruleset {name} cannot be loaded:\n{problems}").format(name=repr(name), problems=str(error)))
    except (OSError, ValueError, KeyError, TypeError) as error:
        _fail(_("ruleset {name} cannot be loaded: {reason}").format(name=repr(name), reason=str(error)))


def _section_choices(
    ruleset: "Ruleset", lang: str, ids: "tuple[str, ...] | None" = None, style: 'Literal["standard", "or"]' = "standard"
) -> str:
    """The sections ``ids`` (all by default) as "id (title)", listed in the active language."""
    from biblios_kit.rulebook.model import SECTION_IDS
    from biblios_kit.rulebook.render import section_title

    return format_list(
        (_("{id} ({title})").format(id=sid, title=section_title(sid, ruleset, lang)) for sid in ids or SECTION_IDS),
        style,
    )


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def register(app: typer.Typer) -> None:
    """Add ``show``, ``search`` and ``diff`` to the ``rules`` group (help texts in the active language)."""
    RulesetOption = Annotated[str, RULESET]

    def show(
        section: Annotated[
            str | None,
            typer.Argument(
                help=_(
                    "A section to show (in English, French or Spanish: auction, enchères, subasta...); all when omitted."
                )
            ),
        ] = None,
        ruleset: RulesetOption = "biblios",
        option: OptionOption = None,
        lang: LangOption = None,
        fmt: Annotated[str, typer.Option("--format", "-f", help=_("Output format: text or markdown."))] = "text",
    ) -> None:
        """Show the rules of a ruleset, whole or one section, in your language."""
        code = _start(lang)
        from biblios_kit.rulebook import FORMATS, UnknownSectionError, format_rulebook, render_rulebook, section_id

        if fmt not in FORMATS:
            _fail(
                _("unknown format {name}; choose one of: {choices}").format(name=repr(fmt), choices=", ".join(FORMATS))
            )
        loaded = load(ruleset, list(option or []))
        book = render_rulebook(loaded, code)
        sections = None
        if section is not None:
            try:
                sections = [book.section(section_id(section, loaded))]
            except UnknownSectionError as error:
                shown = section if len(section) <= 60 else section[:59] + "…"
                if error.candidates:
                    _fail(
                        _("section {name} is ambiguous; did you mean {candidates}?").format(
                            name=repr(shown), candidates=_section_choices(loaded, code, error.candidates, "or")
                        )
                    )
                _fail(
                    _("unknown section {name}; choose one of: {choices}").format(
                        name=repr(shown), choices=_section_choices(loaded, code)
                    )
                )
        sys.stdout.write(format_rulebook(book, fmt, sections))

    def search_cmd(
        query: Annotated[str, typer.Argument(help=_("Words to look for (case and accents do not matter)."))],
        ruleset: RulesetOption = "biblios",
        option: OptionOption = None,
        lang: LangOption = None,
    ) -> None:
        """Search the rulebook; shows each matching section with the matches highlighted."""
        code = _start(lang)
        from biblios_kit.rulebook import highlight, render_rulebook, search
        from biblios_kit.rulebook.grammar import name_forms

        loaded = load(ruleset, list(option or []))
        book = render_rulebook(loaded, code)
        hits = search(book, query)
        if not hits:
            print(
                _(
                    "Nothing matches {query} in the rules of {ruleset}. Try fewer or shorter words, or read a whole "
                    "section with 'rules show SECTION'; the sections are: {sections}."
                ).format(
                    query=pgettext("quotation", "“{text}”").format(text=query),
                    **name_forms("ruleset", loaded.title.get(code), code),
                    sections=_section_choices(loaded, code),
                ),
                file=sys.stderr,
            )
            raise typer.Exit(1)
        tty = sys.stdout.isatty()
        console = None
        if tty:
            from rich.console import Console

            console = Console(highlight=False)
        sections = list(dict.fromkeys((hit.section_id, hit.section_title) for hit in hits))
        count = len(hits)
        summary = ngettext(
            "{query}: {count} matching line in {sections}.", "{query}: {count} matching lines in {sections}.", count
        ).format(
            query=pgettext("quotation", "“{text}”").format(text=query),
            count=count,
            sections=format_list([title for _id, title in sections]),
        )
        for index, (sid, title) in enumerate(sections):
            heading = _("{title} ({id})").format(title=title, id=sid)
            if console is not None:
                console.print(f"[bold underline]{_escape(heading)}[/]")
            else:
                print(heading)
            for hit in hits:
                if hit.section_id != sid:
                    continue
                if console is not None:
                    from rich.text import Text

                    text = Text("  " + hit.text)
                    for begin, end in hit.spans:
                        text.stylize("bold reverse", begin + 2, end + 2)
                    console.print(text)
                else:
                    print("  " + highlight(hit, "[", "]"))
            if index < len(sections) - 1:
                print()
        print()
        print(summary)

    def diff(
        a: Annotated[
            str,
            typer.Argument(
                help=_("First ruleset: an id, alias, path or variant, with options after '+' (biblios+medieval-bluff).")
            ),
        ],
        b: Annotated[str, typer.Argument(help=_("Second ruleset, written the same way."))],
        lang: LangOption = None,
    ) -> None:
        """List, in words, every rule that differs between two rulesets, variants or option sets."""
        code = _start(lang)
        from biblios_kit.rulebook import diff_rulesets

        left = load(*parse_spec(a))
        right = load(*parse_spec(b))
        differences = diff_rulesets(left, right, code)
        from biblios_kit.rulebook.describe import ruleset_label

        if ruleset_label(left, code) != ruleset_label(right, code):  # by their titles, unless they share one
            a, b = ruleset_label(left, code), ruleset_label(right, code)
        if not differences:
            print(_("No difference: {a} and {b} have the same rules.").format(a=a, b=b))
            return
        print(_("Rules that differ between {a} and {b}:").format(a=a, b=b))
        for difference in differences:
            print()
            print(f"* {difference.topic}")
            print("    " + _("{ruleset}: {rule}").format(ruleset=a, rule=difference.left))
            print("    " + _("{ruleset}: {rule}").format(ruleset=b, rule=difference.right))
        print()
        print(ngettext("{count} difference.", "{count} differences.", len(differences)).format(count=len(differences)))

    def verify_cmd(
        ruleset: Annotated[
            str,
            typer.Argument(
                help=_("The ruleset: an id, alias or file, with options after '+' (biblios+medieval-bluff)."),
                show_default=False,
            ),
        ],
        option: OptionOption = None,
        games: Annotated[
            int, typer.Option("--games", "-g", help=_("Games to play per player count."), min=1, max=10_000)
        ] = 20,
        players: Annotated[
            list[int] | None,
            typer.Option(
                "--players", "-p", help=_("Play only this number of players (repeatable)."), show_default=False
            ),
        ] = None,
        seed: Annotated[int, typer.Option("--seed", "-s", help=_("Seed: the same seed gives the same games."))] = 0,
        first: Annotated[
            int, typer.Option("--first", help=_("Number of the first game (to play one game of a run again)."), min=0)
        ] = 0,
        lang: LangOption = None,
    ) -> None:
        """Play games of a ruleset and check every statement of its rulebook against them."""
        code = _start(lang)
        from biblios_kit.rulebook import render_rulebook
        from biblios_kit.rulebook.verify import report_text, verify

        name, spec_options = parse_spec(ruleset)
        loaded = load(name, spec_options + list(option or []))
        counts = sorted(set(players or []))
        wrong = [n for n in counts if n not in loaded.setups]
        if wrong:
            _fail(
                _("{ruleset} is not played by {players} players; choose from: {choices}").format(
                    ruleset=loaded.id,
                    players=format_list([str(n) for n in wrong], style="or"),
                    choices=", ".join(str(n) for n in sorted(loaded.setups)),
                )
            )
        book = render_rulebook(loaded, code)
        report = verify(book, loaded, games=games, seed=seed, players=counts or None, first=first)
        shown = "+".join([ruleset, *(option or [])])
        sys.stdout.write(report_text(report, code, shown))
        if not report.ok:
            raise typer.Exit(1)

    app.command("show", help=_("Show the rules of a ruleset, whole or one section, in your language."))(show)
    app.command("verify", help=_("Play games of a ruleset and check every statement of its rulebook against them."))(
        verify_cmd
    )
    app.command("search", help=_("Search the rules (case and accents do not matter) and highlight the matches."))(
        search_cmd
    )
    app.command(
        "diff", help=_("List, in words, every rule that differs between two rulesets, variants or option sets.")
    )(diff)
