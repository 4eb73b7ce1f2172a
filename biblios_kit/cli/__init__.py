"""The ``biblios-kit`` command line (Typer): thin commands over the library modules."""
