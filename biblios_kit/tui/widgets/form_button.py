"""A compact button for the setup form, with a small stylesheet of its own.

Textual's ``Button`` brings a 7 KB stylesheet (flat, ANSI and full-size styles in five
variants) that is parsed before any button is drawn: about a fifth of all the CSS the setup
screen's first frame waits for. :class:`FormButton` is a ``Button`` (same keys, clicks and
messages; ``isinstance`` and queries by ``Button`` find it) that keeps only the compact
default style the forms use, with the same colours, in the default, primary and success
variants. Not inheriting that stylesheet also means that CSS rules must name it
``FormButton``: a ``Button`` type selector does not match it.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Button
from textual.widgets.button import ButtonVariant


class FormButton(Button, inherit_css=False):
    """A compact ``Button`` that does not load Textual's whole button stylesheet."""

    # The rules of Textual's ``Button.-style-default`` (compact: no borders), one class
    # level shallower throughout, so that they keep their relative precedence.
    DEFAULT_CSS = """
    FormButton {
        width: auto;
        min-width: 16;
        height: auto;
        line-pad: 1;
        text-align: center;
        content-align: center middle;
        pointer: pointer;
        text-style: bold;
        color: $button-foreground;
        background: $surface;
        border: none;

        &:disabled {
            text-opacity: 0.6;
            pointer: not-allowed;
        }
        &:focus {
            text-style: $button-focus-text-style;
            background-tint: $foreground 5%;
        }
        &:hover {
            background: $surface-darken-1;
        }
        &.-active {
            background: $surface;
            tint: $background 30%;
        }
        &.-primary {
            color: $button-color-foreground;
            background: $primary;
            &:hover {
                background: $primary-darken-2;
            }
            &.-active {
                background: $primary;
            }
        }
        &.-success {
            color: $button-color-foreground;
            background: $success;
            &:hover {
                background: $success-darken-2;
            }
            &.-active {
                background: $success;
            }
        }
    }
    """

    def __init__(self, label: str | Text, variant: ButtonVariant = "default", *, id: str | None = None,
                 classes: str | None = None) -> None:  # fmt: skip
        super().__init__(label, variant, id=id, classes=classes, compact=True)
