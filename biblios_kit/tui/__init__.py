"""The Textual terminal UI: setup, the table, dialogs, rules help; start it with :func:`biblios_kit.tui.app.make_app`."""
