"""The table's panels as one object: found once, then handed their parts of each new view."""

from __future__ import annotations

from typing import NamedTuple

from textual.dom import DOMNode

from biblios_kit.tui.table_view import TableView
from biblios_kit.tui.widgets.action_bar import ActionBar
from biblios_kit.tui.widgets.dice import DiceRow
from biblios_kit.tui.widgets.table_log import TableLog
from biblios_kit.tui.widgets.table_panels import FocusBox, HandPanel, NoticePanel, PlayersPanel, PublicPanel, StatusBar


class TablePanels(NamedTuple):
    """Every panel of the table screen (looked up once: nine DOM queries per update cost about 1 ms at 120x40)."""

    status: StatusBar
    dice: DiceRow
    hand: HandPanel
    public: PublicPanel
    focus: FocusBox
    players: PlayersPanel
    log: TableLog
    notice: NoticePanel
    actions: ActionBar

    @classmethod
    def find(cls, screen: DOMNode) -> TablePanels:
        """The panels under ``screen`` (``NoMatches`` when one is missing)."""
        query = screen.query_one
        return cls(query(StatusBar), query(DiceRow), query(HandPanel), query(PublicPanel), query(FocusBox),
                   query(PlayersPanel), query(TableLog), query(NoticePanel), query(ActionBar))  # fmt: skip

    @property
    def attached(self) -> bool:
        """Whether the panels are still on screen (not while the app closes)."""
        return self.actions.is_attached

    def show(self, view: TableView) -> None:
        """Hand each panel its part of ``view`` (a panel whose part is unchanged does nothing)."""
        self.status.part = view.status
        self.dice.part = view.dice
        self.hand.part = view.hand
        self.public.part = view.public
        self.focus.part = view.focus
        self.players.part = view.players
        self.log.part = view.log
        self.notice.part = view.notice
        self.actions.part = view.actions
