"""``python -m biblios_kit`` and the ``biblios-kit`` command.

The command's code is imported inside :func:`run`, so that a Ctrl+C pressed while it starts
up ends it as quietly as one pressed later (status 130, no traceback).
"""

from __future__ import annotations

import sys

from biblios_kit.errors import INTERRUPTED_STATUS  # loaded with the package already


def run() -> None:
    """Start the ``biblios-kit`` command (:func:`biblios_kit.cli.app.main`)."""
    try:
        from biblios_kit.cli.app import main
    except KeyboardInterrupt:
        sys.exit(INTERRUPTED_STATUS)
    main()


if __name__ == "__main__":
    run()
