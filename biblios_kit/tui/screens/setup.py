"""The setup screen: edition or variant, its options, language, players, each seat (person or bot) and a name.

The form's values live in a :class:`SetupForm`, so the screen can be recomposed at any
time (another ruleset, another player count, another language) without losing them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Checkbox, Footer, Input, Label, Static

from biblios_kit.i18n import SUPPORTED, _, current_language
from biblios_kit.names import clean_name, hidden
from biblios_kit.tui.config import AUTOPLAY_MODES, BOT_LEVELS, DEFAULT_AUTOPLAY, DEFAULT_BOT, HUMAN, GameConfig
from biblios_kit.tui.localize import LANGUAGE_NAMES, seat_kind_label, set_bindings
from biblios_kit.tui.widgets.checkbox import SignedCheckbox
from biblios_kit.tui.widgets.choice import Choice
from biblios_kit.tui.widgets.form_button import FormButton

if TYPE_CHECKING:
    from biblios_kit.rules.model import Ruleset


def autoplay_choices() -> list[tuple[str, str]]:
    """The values of the *forced moves* setting, in the active language."""
    labels = {
        "picks-payments": _("played for me: picks and payments"),
        "all": _("played for me: all of them"),
        "off": _("I play them myself"),
    }
    return [(labels[mode], mode) for mode in AUTOPLAY_MODES]


def available_levels() -> tuple[str, ...]:
    """The bot levels offered for a seat (a level whose module is missing is reported when the game starts)."""
    return BOT_LEVELS


@dataclass
class SetupForm:
    """The values on the setup screen."""

    ruleset: str = "biblios"
    options: set[str] = field(default_factory=set)
    players: int = 3
    seats: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    seed: str = ""
    autoplay: str = DEFAULT_AUTOPLAY

    @classmethod
    def from_config(cls, config: GameConfig) -> SetupForm:
        """Pre-fill the form from the command line."""
        return cls(
            ruleset=config.ruleset,
            options=set(config.options),
            players=config.players,
            seats=list(config.seat_specs()),
            names=list(config.names[: config.players]),
            seed="" if config.seed is None else str(config.seed),
            autoplay=config.autoplay,
        )

    def fit(self, players: int) -> None:
        """Resize the seat lists to ``players`` (new seats get the default bot)."""
        self.players = players
        while len(self.seats) < players:
            self.seats.append(HUMAN if not self.seats else DEFAULT_BOT)
        del self.seats[players:]
        del self.names[players:]

    def default_name(self, seat: int) -> str:
        """The name used when the field is left empty."""
        if self.seats[seat] == HUMAN:
            return _("Player {number}").format(number=seat + 1)
        return _("Bot {number}").format(number=seat + 1)

    def to_config(self, lang: str) -> GameConfig:
        """The game described by the form (``ValueError`` with a message for a bad seed)."""
        seed: int | None = None
        if self.seed.strip():
            try:
                seed = int(self.seed.strip())
            except ValueError:
                raise ValueError(_("The seed must be a whole number.")) from None
        names = tuple(
            clean_name(self.names[i] if i < len(self.names) else "", self.default_name(i)) for i in range(self.players)
        )
        return GameConfig(
            ruleset=self.ruleset,
            options=tuple(sorted(self.options)),
            players=self.players,
            seats=tuple(self.seats),
            names=names,
            seed=seed,
            lang=lang,
            autoplay=self.autoplay,
        )


class SetupScreen(Screen[None]):
    """Choose the game; "Start" (or "Continue" for a saved game) hands over to the app."""

    AUTO_FOCUS = "#start"

    def __init__(self, form: SetupForm, save_state: str, save_message: str = "",
                 save_note: Callable[[], str] | None = None) -> None:  # fmt: skip
        """``save_note`` gives, in the active language, what to say about where the game is saved (another
        window using the usual save), shown above the buttons."""
        super().__init__(id="setup")
        self.form = form
        self.save_state = save_state
        """``"none"``, ``"ok"`` (an unfinished game can be continued) or ``"bad"`` (unreadable)."""
        self.save_message = save_message
        self.save_note = save_note
        self.entries: list[tuple[str, dict[str, str], bool]] = []
        """(id, title per language, is a variant) of every ruleset found, without loading them; listed
        after the first frame, with the ruleset shown (see :meth:`_prepare_in_thread`)."""
        self._loaded: dict[str, Ruleset] = {}
        self.complete = False
        """Whether the form shows everything (the rulesets are listed, the one shown is loaded and drawn)."""
        self._localize_bindings()

    @staticmethod
    def _find_rulesets(shown: str) -> list[tuple[str, dict[str, str], bool]]:
        """(id, title per language, is a variant) of every ruleset found, read without checking or building them.

        ``shown`` (the form's ruleset) is listed even when it is not found by id, e.g. a path.
        """
        from biblios_kit.rules.loader import available_rulesets, read_document

        entries = []
        seen = set()
        for entry in available_rulesets():
            if entry.id in seen:
                continue
            seen.add(entry.id)
            try:
                title = read_document(entry.path).get("title")
            except Exception:
                title = None
            titles = {k: str(v) for k, v in title.items()} if isinstance(title, dict) else {}
            entries.append((entry.id, titles, entry.origin != "edition"))
        if shown not in seen:
            entries.append((shown, {}, True))
        return entries

    def _ruleset_choices(self) -> list[tuple[str, str]]:
        """The values of the "Game" choice: each ruleset's title (``*`` marks a variant); "…" until they are listed."""
        if not self.entries:
            return [("…", self.form.ruleset)]
        lang = current_language()
        return [((titles.get(lang) or titles.get("en") or rid) + (" *" if variant else ""), rid)
                for rid, titles, variant in self.entries]  # fmt: skip

    @property
    def ruleset(self) -> Ruleset:
        """The ruleset chosen in the form, loaded on first use (only the one shown is loaded: a faster first frame)."""
        from biblios_kit.errors import BibliosError
        from biblios_kit.rules import load_ruleset

        key = self.form.ruleset
        if key not in self._loaded:
            try:
                self._loaded[key] = load_ruleset(key)
            except BibliosError as error:
                self.notify(str(error), severity="error", timeout=8)
                self.form.ruleset = "biblios"
                return self.ruleset
        return self._loaded[key]

    def compose(self) -> ComposeResult:
        lang = current_language()
        # The first frame does not wait for the rulesets (YAML, schema and checks: about 0.2 s):
        # until they are listed and the one shown is loaded (see on_mount), the game's title,
        # description and options are not shown yet.
        ruleset = self._loaded.get(self.form.ruleset)
        if ruleset is not None:
            if self.form.players not in ruleset.player_counts:
                self.form.fit(min(ruleset.player_counts, key=lambda n: abs(n - self.form.players)))
            self.form.options &= set(ruleset.options)
        counts = ruleset.player_counts if ruleset is not None else (self.form.players,)
        levels = available_levels()
        yield Static(Text.assemble(("biblios-kit", "bold #e0b050"), "  ", (_("New game"), "bold")), id="setup-title")
        with VerticalScroll(id="setup-body"):
            with Horizontal(classes="row"):
                yield Label(_("Game"), classes="field")
                yield Choice(self._ruleset_choices(), self.form.ruleset, id="ruleset")
            description = ruleset.description.get(lang) if ruleset is not None else "…"
            yield Static(Text(description, style="italic grey62"), id="ruleset-description")
            if ruleset is not None and ruleset.options:
                yield self._options_row(ruleset)
            with Horizontal(classes="row"):
                yield Label(_("Language"), classes="field")
                yield Choice([(LANGUAGE_NAMES[code], code) for code in SUPPORTED], lang, id="language")
                yield Label(_("Players"), classes="field short")
                yield Choice([(str(n), n) for n in counts], self.form.players, id="players")
                yield Label(_("Seed"), classes="field short")
                yield Input(self.form.seed, placeholder=_("random"), id="seed", compact=True, type="integer")
            for seat in range(self.form.players):
                with Horizontal(classes="row seat"):
                    yield Label(_("Seat {number}").format(number=seat + 1), classes="field")
                    kinds = [HUMAN, *levels]
                    if self.form.seats[seat] not in kinds:
                        kinds.append(self.form.seats[seat])
                    yield Choice([(seat_kind_label(k), k) for k in kinds], self.form.seats[seat], id=f"kind-{seat}")
                    name = self.form.names[seat] if seat < len(self.form.names) else ""
                    yield Input(name, placeholder=self.form.default_name(seat), id=f"name-{seat}", compact=True,
                                max_length=20)  # fmt: skip
            with Horizontal(classes="row"):
                yield Label(_("Forced moves"), classes="field")
                yield Choice(autoplay_choices(), self.form.autoplay, id="autoplay")
            if self.save_message:
                yield Static(Text(self.save_message, style="bold #e74c3c"), id="save-message")
            note = self.save_note() if self.save_note is not None else ""
            if note:
                yield Static(Text(note, style="bold #e0b050"), id="save-note")
        with Horizontal(classes="buttons", id="setup-buttons"):
            yield FormButton(_("Start"), "success", id="start")
            if self.save_state == "ok":
                yield FormButton(_("Continue the saved game"), "primary", id="continue")
            yield FormButton(_("Quit"), id="quit")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#start", Button).focus()
        # After the first frame: a worker started now would share the interpreter with the
        # drawing of that frame and delay it by most of its own time.
        self.call_after_refresh(self._prepare_in_thread, self.form.ruleset)

    @work(thread=True, group="ruleset")
    def _prepare_in_thread(self, ruleset_id: str) -> None:
        """List the rulesets and load the one shown, then complete the form on the UI thread."""
        from biblios_kit.errors import BibliosError
        from biblios_kit.rules import load_ruleset

        entries = self._find_rulesets(ruleset_id)
        try:
            loaded = load_ruleset(ruleset_id)
        except BibliosError:
            loaded = None  # self.ruleset reports it and falls back to the default edition
        # Textual types the callback as returning ``T | Awaitable[T]``, which mypy cannot solve for a coroutine.
        self.app.call_from_thread(self._complete_form, entries, ruleset_id, loaded)  # type: ignore[arg-type]

    def _options_row(self, ruleset: Ruleset) -> Horizontal:
        """The row of option checkboxes of ``ruleset`` (hover one for its description)."""
        lang = current_language()
        boxes = []
        for option in ruleset.options.values():
            box = SignedCheckbox(option.title.get(lang), option.id in self.form.options, id=f"option-{option.id}",
                                 compact=True)  # fmt: skip
            box.tooltip = option.description.get(lang)
            boxes.append(box)
        return Horizontal(Label(_("Options"), classes="field"), *boxes, classes="row options")

    async def _complete_form(self, entries: list[tuple[str, dict[str, str], bool]], ruleset_id: str,
                             loaded: Ruleset | None) -> None:  # fmt: skip
        """After the first frame: fill in the rulesets' titles and the shown one's description, options and
        player counts, in place.

        Nothing is rebuilt (a key pressed meanwhile, such as Ctrl+S, must not lose its target);
        only a player count the ruleset does not support makes the seats be laid out again.
        """
        if not self.is_attached or self not in self.app.screen_stack:
            return  # a game started before the ruleset was loaded: this screen is gone
        self.entries = entries
        if loaded is not None:
            self._loaded.setdefault(ruleset_id, loaded)
        ruleset = self.ruleset  # loads it (or falls back to the default edition, with a message)
        if self.form.players not in ruleset.player_counts or self.form.ruleset not in self._loaded:
            await self.recompose()
            self._refocus("start")
        else:
            self.form.options &= set(ruleset.options)
            lang = current_language()
            self.query_one("#ruleset-description", Static).update(
                Text(ruleset.description.get(lang), style="italic grey62")
            )
            if ruleset.options and not self.query(".options"):
                await self.query_one("#setup-body", VerticalScroll).mount(
                    self._options_row(ruleset), after=self.query_one("#ruleset-description")
                )
            players = self.query_one("#players", Choice)
            players.set_options([(str(n), n) for n in ruleset.player_counts], self.form.players)
            self.query_one("#ruleset", Choice).set_options(self._ruleset_choices(), self.form.ruleset)
        self.call_after_refresh(self._mark_complete)

    def _mark_complete(self) -> None:
        """The whole form is drawn (and laid out): tests and clicks may rely on where things are."""
        self.complete = True

    def _refocus(self, widget_id: str | None) -> None:
        """Focus the widget with this id again after a recompose (the Start button if it is gone)."""
        matches = self.query(f"#{widget_id}") if widget_id else None
        if matches and isinstance(matches.first(), (Button, Checkbox, Input)):
            matches.first().focus()
        else:
            self.query_one("#start", Button).focus()

    def _localize_bindings(self) -> None:
        # A browser keeps Ctrl+S and Ctrl+R for itself: F9 and F8 do the same everywhere.
        bindings = [
            Binding("f9", "start", _("Start"), key_display="F9"),
            Binding("ctrl+s", "start", _("Start"), show=False),
            Binding("escape", "quit_game", _("Quit")),
        ]
        if self.save_state == "ok":
            bindings.append(Binding("f8", "continue_game", _("Continue"), key_display="F8"))
            bindings.append(Binding("ctrl+r", "continue_game", _("Continue"), show=False))
        set_bindings(self, bindings)

    async def relocalize(self) -> None:
        """Rebuild the screen in the active language, keeping the form."""
        await self.recompose()
        self._localize_bindings()
        self._refocus("language")

    # ------------------------------------------------------------------ form changes

    async def on_choice_changed(self, event: Choice.Changed) -> None:
        """Update the form; another ruleset, player count or language rebuilds the screen."""
        select_id = event.choice.id or ""
        value: Any = event.value
        if select_id == "ruleset" and value != self.form.ruleset:
            self.form.ruleset = str(value)
            self.ruleset  # noqa: B018 - load it now, so the screen shows its options at once
            await self.recompose()
            self._refocus("ruleset")
        elif select_id == "players" and value != self.form.players:
            self.form.fit(int(value))
            await self.recompose()
            self._refocus("players")
        elif select_id == "language" and value != current_language():
            await self.app.switch_language(str(value))  # type: ignore[attr-defined]
        elif select_id == "autoplay":
            self.form.autoplay = str(value)
        elif select_id.startswith("kind-"):
            seat = int(select_id[5:])
            if self.form.seats[seat] != value:
                self.form.seats[seat] = str(value)
                self.query_one(f"#name-{seat}", Input).placeholder = self.form.default_name(seat)

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        """Switch an option on or off."""
        option = (event.checkbox.id or "")[len("option-") :]
        if event.value:
            self.form.options.add(option)
        else:
            self.form.options.discard(option)

    def on_input_changed(self, event: Input.Changed) -> None:
        """Keep names and seed in the form."""
        input_id = event.input.id or ""
        if input_id == "seed":
            self.form.seed = event.value
        elif input_id.startswith("name-"):
            seat = int(input_id[5:])
            if any(map(hidden, event.value)):  # pasted control or invisible characters never stay on screen
                event.input.value = "".join(c for c in event.value if not hidden(c))
                return  # the new value comes back as another Changed message
            while len(self.form.names) <= seat:
                self.form.names.append("")
            self.form.names[seat] = event.value

    # ------------------------------------------------------------------ buttons

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Start, continue or quit."""
        event.stop()
        if event.button.id == "start":
            self.action_start()
        elif event.button.id == "continue":
            self.action_continue_game()
        elif event.button.id == "quit":
            self.action_quit_game()

    def action_start(self) -> None:
        """Start a new game with the form's values."""
        if HUMAN not in self.form.seats:
            self.notify(_("At least one seat must be a person."), severity="error")
            return
        try:
            config = self.form.to_config(current_language())
        except ValueError as error:
            self.notify(str(error), severity="error")
            return
        self.app.request_new_game(config)  # type: ignore[attr-defined]

    def action_continue_game(self) -> None:
        """Continue the saved game."""
        if self.save_state == "ok":
            self.app.resume_game()  # type: ignore[attr-defined]

    def action_quit_game(self) -> None:
        """Leave the program."""
        self.app.exit()

    def help_section(self) -> str:
        """The rulebook section F1 opens here."""
        return "overview"

    def help_ruleset(self) -> Ruleset:
        """The ruleset whose rules F1 shows here."""
        from biblios_kit.rules import load_ruleset

        return load_ruleset(self.form.ruleset, sorted(self.form.options))
