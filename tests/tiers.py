"""Which tests ``make check`` (the inner loop, under two minutes) leaves to ``make test``.

``make test`` runs every test; ``make check`` runs those not marked ``slow``. Besides the tests marked
in their own module, three kinds are marked here, in one place, by :func:`mark_slow_tiers`:

* modules whose every test drives a whole Textual app, a browser or a server process (the table's
  content is also checked without Textual, in the fast tier);
* sweeps: a test run over every shipped ruleset, rule field or language keeps its first case in
  ``make check`` and runs its other cases in ``make test``;
* single tests that play many whole games to check one property.
"""

from __future__ import annotations

import pytest

WHOLE_APP_MODULES = frozenset(
    {
        "test_language_tui",
        "test_net_clock_page",
        "test_net_join",
        "test_net_lobby_cli",
        "test_net_postgres",
        "test_save_lock",
        "test_tui_dialogs_church",
        "test_tui_dialogs_golden",
        "test_tui_dialogs_in_view",
        "test_tui_dialogs_payment",
        "test_tui_end",
        "test_tui_features",
        "test_tui_golden",
        "test_tui_hot_seat_bids",
        "test_tui_table_golden",
        "test_tui_table_play",
        "test_tui_table_redraw",
        "test_variant_template",
    }
)

SWEEPS = frozenset(
    {
        "test_bots.py::test_every_level_plays_legal_moves_and_repeats_its_game_for_a_seed",
        "test_bots_hidden.py::test_worlds_never_put_a_church_card_in_a_hand",
        "test_engine_worlds.py::test_hidden_cards_are_dealt_with_their_true_conditional_odds",
        "test_engine_worlds.py::test_worlds_keep_what_the_payments_proved",
        "test_engine_worlds_enumerated.py::test_worlds_have_the_odds_of_every_consistent_deal_counted",
        "test_language_check.py::test_rulebooks_screens_and_events_have_no_known_defect",
        "test_rules_verify.py::test_a_rulebook_of_other_rules_is_caught",
        "test_rules_verify.py::test_changing_a_rule_field_without_the_prose_is_caught",
        "test_rules_verify.py::test_verify_passes_on_every_shipped_ruleset_and_option",
    }
)

MANY_GAMES = frozenset(
    {
        "test_net_hidden.py::test_no_message_names_a_card_hidden_from_its_reader",
        "test_net_updates.py::test_updates_make_exactly_the_whole_views",
        "test_net_api.py::test_assembled_view_texts_are_the_views_of_the_whole_log",
        "test_net_seat_page_http.py::test_the_texts_never_name_a_card_the_seats_view_does_not_show",
        "test_rules_verify.py::test_random_house_rules_agree_with_their_rulebook",
    }
)


def mark_slow_tiers(items: list[pytest.Item]) -> None:
    """Mark the tests above ``slow`` (the first case of each sweep stays in the fast tier)."""
    first_case_seen: set[str] = set()
    for item in items:
        module = item.path.stem
        function = f"{item.path.name}::{item.originalname if isinstance(item, pytest.Function) else item.name}"
        if module in WHOLE_APP_MODULES or function in MANY_GAMES:
            item.add_marker(pytest.mark.slow)
        elif function in SWEEPS:
            if function in first_case_seen:
                item.add_marker(pytest.mark.slow)
            first_case_seen.add(function)
