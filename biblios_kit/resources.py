"""Where biblios-kit finds its shipped data (rulesets, catalogs) and the user's own files."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def _data_dir(name: str) -> Path:
    # An installed wheel carries the data inside the package (biblios_kit/_data/NAME);
    # a source checkout (or an editable install) reads the top-level folder of the repository.
    packaged = _PACKAGE_DIR / "_data" / name
    if packaged.is_dir():
        return packaged
    return _PACKAGE_DIR.parent / name


@cache
def rulesets_dir() -> Path:
    """The folder of the shipped rulesets (``biblios.yaml``, ``variants/`` ...)."""
    return _data_dir("rulesets")


@cache
def locales_dir() -> Path:
    """The folder of the gettext catalogs (``<lang>/LC_MESSAGES/biblios_kit.po`` and ``.mo``)."""
    return _data_dir("locales")


def user_config_dir() -> Path:
    """The user's configuration folder (``BIBLIOS_KIT_CONFIG_DIR`` overrides it)."""
    override = os.environ.get("BIBLIOS_KIT_CONFIG_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_config_dir("biblios-kit", appauthor=False))


def user_rulesets_dir() -> Path:
    """The user's own rulesets folder: variant files there are found by id like shipped ones."""
    return user_config_dir() / "rulesets"


def user_data_dir() -> Path:
    """The user's data folder, for saved games (``BIBLIOS_KIT_DATA_DIR`` overrides it)."""
    override = os.environ.get("BIBLIOS_KIT_DATA_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_data_dir("biblios-kit", appauthor=False))


SAVED_GAME_NAME = "current-game.json"
"""File name of the terminal's game in progress, inside :func:`saves_dir`."""
SAVE_SESSION_VARIABLE = "BIBLIOS_KIT_SAVE_SESSION"
"""Set by ``play --web`` in each browser session's process: the session's own save (see :func:`saved_game_path`)."""


def saves_dir() -> Path:
    """The folder of saved games (``<user data dir>/saves``; ``BIBLIOS_KIT_DATA_DIR`` overrides the data dir)."""
    return user_data_dir() / "saves"


def saved_game_path() -> Path:
    """The file of this session's saved game (known here, so finding it does not import the engine).

    A terminal game is saved in ``current-game.json``. A browser session of ``play --web``
    (:data:`SAVE_SESSION_VARIABLE` set to the session's secret id) has its own file,
    ``browser-<digest>.json``, named by a digest of the id, so it never offers another
    session's game and the file name does not give the id away.
    """
    session = os.environ.get(SAVE_SESSION_VARIABLE)
    if session:
        import hashlib

        digest = hashlib.sha256(session.encode("utf-8", "surrogateescape")).hexdigest()[:32]
        return saves_dir() / f"browser-{digest}.json"
    return saves_dir() / SAVED_GAME_NAME
