"""The rulebook's sections in parts: :mod:`.base` (shared helpers and the claims), :mod:`.auction`."""
