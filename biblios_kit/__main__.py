"""``python -m biblios_kit``: the same as the ``biblios-kit`` command."""

from biblios_kit.cli.app import main

if __name__ == "__main__":
    main()
