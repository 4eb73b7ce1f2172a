"""Widgets of the table: the dice board, panels and the action bar."""
