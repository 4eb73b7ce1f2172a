"""Language choice (option, BIBLIOS_LANG, system locale, fallback), one warning, thread-local languages and Babel formatting."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from biblios_kit import i18n
from biblios_kit.i18n import (
    _,
    choose_language,
    current_language,
    format_decimal,
    format_list,
    format_number,
    format_percent,
    in_language,
    ngettext,
    normalize_language,
    set_language,
    translator,
    use_language,
)

LOCALE_VARIABLES = ("BIBLIOS_LANG", "LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")


@pytest.fixture(autouse=True)
def english_afterwards(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Start each test with no locale variables and leave the process in English."""
    for name in LOCALE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(i18n, "_warned", set())
    yield
    set_language("en")


@pytest.mark.parametrize(
    ("code", "expected"),
    [("fr_CA.UTF-8", "fr"), ("es-MX", "es"), ("EN", "en"), ("de_DE@euro", "de"), ("fr", "fr"), (" es_ES ", "es")],
)
def test_regional_codes_map_to_their_language(code: str, expected: str) -> None:
    assert normalize_language(code) == expected


def test_explicit_option_wins_over_everything() -> None:
    env = {"BIBLIOS_LANG": "es", "LC_ALL": "fr_FR.UTF-8", "LANG": "fr_FR.UTF-8"}
    choice = choose_language("fr_CA", env)
    assert (choice.language, choice.source, choice.unsupported) == ("fr", "option", False)


def test_biblios_lang_wins_over_the_system_locale() -> None:
    choice = choose_language(None, {"BIBLIOS_LANG": "es-MX", "LC_ALL": "fr_FR.UTF-8"})
    assert (choice.language, choice.source) == ("es", "BIBLIOS_LANG")


def test_system_locale_follows_posix_precedence() -> None:
    assert choose_language(None, {"LC_ALL": "es_ES.UTF-8", "LC_MESSAGES": "fr_FR", "LANG": "en_US"}).language == "es"
    assert choose_language(None, {"LC_MESSAGES": "fr_FR.UTF-8", "LANG": "es_ES"}).language == "fr"
    choice = choose_language(None, {"LANG": "fr_BE.UTF-8"})
    assert (choice.language, choice.source) == ("fr", "LANG")
    # An empty variable does not count.
    assert choose_language(None, {"LC_ALL": "", "LANG": "es_AR.UTF-8"}).language == "es"


def test_c_locale_means_english_without_warning() -> None:
    for value in ("C", "C.UTF-8", "POSIX"):
        choice = choose_language(None, {"LC_ALL": value, "LANG": "fr_FR.UTF-8"})
        assert (choice.language, choice.unsupported) == ("en", False)


def test_nothing_set_means_english() -> None:
    choice = choose_language(None, {})
    assert (choice.language, choice.requested, choice.source, choice.unsupported) == ("en", None, "default", False)


@pytest.mark.parametrize("env", [{"BIBLIOS_LANG": "de"}, {"LANG": "de_DE.UTF-8"}, {"LC_ALL": "pt_BR"}])
def test_unsupported_language_falls_back_to_english(env: dict[str, str]) -> None:
    choice = choose_language(None, env)
    assert choice.language == "en"
    assert choice.unsupported is True
    assert choice.requested == next(iter(env.values()))


def test_unsupported_option_falls_back_even_if_environment_is_supported() -> None:
    choice = choose_language("klingon", {"BIBLIOS_LANG": "fr"})
    assert (choice.language, choice.unsupported, choice.source) == ("en", True, "option")


def test_unsupported_language_warns_once(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIBLIOS_LANG", "de_DE")
    assert use_language() == "en"
    assert use_language() == "en"  # the CLI chooses twice: before building commands, then in the command
    assert use_language(None) == "en"
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "'de_DE'" in err and "BIBLIOS_LANG" in err and "en, fr, es" in err


def test_warning_can_be_silenced(capsys: pytest.CaptureFixture[str]) -> None:
    assert use_language("it", warn=False) == "en"
    assert capsys.readouterr().err == ""


def test_use_language_activates_the_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANG", "es_MX.UTF-8")
    assert use_language() == "es"
    assert current_language() == "es"
    assert _("Scoring") == "Puntuación"
    assert use_language("fr") == "fr"
    assert _("Scoring") == "Décompte"


def test_french_plural_rule_treats_zero_as_singular() -> None:
    with in_language("fr"):
        assert ngettext("{count} difference.", "{count} differences.", 0) == "{count} différence."
        assert ngettext("{count} difference.", "{count} differences.", 2) == "{count} différences."
    with in_language("es"):
        assert ngettext("{count} difference.", "{count} differences.", 0) == "{count} diferencias."


def test_in_language_leaves_the_global_language_alone() -> None:
    set_language("es")
    with in_language("fr_FR.UTF-8") as code:
        assert code == "fr"
        assert current_language() == "fr"
        assert _("Penalties") == "Pénalités"
    assert current_language() == "es"
    assert _("Penalties") == "Penalizaciones"


def test_in_language_is_local_to_its_thread() -> None:
    set_language("en")
    seen: list[str] = []
    inside = threading.Event()
    release = threading.Event()

    def worker() -> None:
        with in_language("fr"):
            inside.set()
            release.wait(5)
            seen.append(_("Penalties"))

    thread = threading.Thread(target=worker)
    thread.start()
    inside.wait(5)
    assert _("Penalties") == "Penalties"  # the main thread is unaffected while the worker is in French
    release.set()
    thread.join(5)
    assert seen == ["Pénalités"]


def test_translator_for_an_explicit_language() -> None:
    set_language("en")
    tr = translator("es_ES")
    assert tr.language == "es"
    assert tr.gettext("Final ties") == "Empates finales"
    assert tr.ngettext("{count} difference.", "{count} differences.", 3) == "{count} diferencias."
    assert translator("xx").language == "en"
    assert current_language() == "en"


def test_format_list_per_language() -> None:
    items = {
        "en": ["Monks", "Pigments", "Holy Books"],
        "fr": ["Moines", "Pigments", "Livres Sacrés"],
        "es": ["Monjes", "Pigmentos", "Libros Sagrados"],
    }
    expected = {
        "en": "Monks, Pigments, and Holy Books",
        "fr": "Moines, Pigments et Livres Sacrés",
        "es": "Monjes, Pigmentos y Libros Sagrados",
    }
    for lang, words in items.items():
        with in_language(lang):
            assert format_list(words) == expected[lang]
    with in_language("fr"):
        assert format_list(["2", "3", "4"], style="or") == "2, 3 ou 4"
    assert format_list([]) == ""


def test_number_and_percent_formatting() -> None:
    with in_language("en"):
        assert format_number(1234567) == "1,234,567"
        assert format_decimal(3.5) == "3.50"
        assert format_percent(0.256) == "26%"
        assert format_percent(0.256, digits=1) == "25.6%"
    with in_language("fr"):
        assert format_number(1234) == "1\u202f234"
        assert format_decimal(3.5) == "3,50"
        assert format_percent(0.25) == "25\u00a0%"
    with in_language("es"):
        assert format_decimal(12345.5, digits=1) == "12.345,5"
        assert format_percent(0.5) == "50\u00a0%"
    assert translator("fr").format_decimal(0.125, 3) == "0,125"


def test_compiled_catalog_cache(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gettext
    import io
    import shutil

    from biblios_kit.resources import locales_dir

    monkeypatch.setenv("BIBLIOS_KIT_CACHE_DIR", str(tmp_path / "cache"))
    po = tmp_path / "fr.po"
    shutil.copy(locales_dir() / "fr" / "LC_MESSAGES" / "biblios_kit.po", po)
    first = i18n._compiled_po(po, "fr")
    cached = list((tmp_path / "cache" / "catalogs").glob("fr-*.mo"))
    assert len(cached) == 1 and cached[0].read_bytes() == first
    assert gettext.GNUTranslations(io.BytesIO(first)).gettext("Scoring") == "Décompte"
    assert i18n._compiled_po(po, "fr") == first
    # Editing the catalog compiles again and replaces the stale cache entry.
    po.write_text(po.read_text(encoding="utf-8").replace('msgstr "Décompte"', 'msgstr "Score final"'), encoding="utf-8")
    second = i18n._compiled_po(po, "fr")
    assert gettext.GNUTranslations(io.BytesIO(second)).gettext("Scoring") == "Score final"
    assert len(list((tmp_path / "cache" / "catalogs").glob("fr-*.mo"))) == 1


def test_english_is_the_source_language() -> None:
    assert i18n.translations("en").gettext("Scoring") == "Scoring"
    assert type(i18n.translations("en")).__name__ == "NullTranslations"


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_starting_the_cli_does_not_import_babel(tmp_path, lang: str) -> None:
    """Catalogs come from a cached .mo, so start-up pays neither Babel's import nor its .po parsing."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in LOCALE_VARIABLES}
    env.update(BIBLIOS_LANG=lang, BIBLIOS_KIT_CACHE_DIR=str(tmp_path))
    command = [sys.executable, "-X", "importtime", "-m", "biblios_kit", "--help"]
    subprocess.run(command, capture_output=True, env=env, check=True, timeout=60)  # warms the cache
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=True, timeout=60)
    imported = {
        line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines() if line.startswith("import time:")
    }
    assert not {name for name in imported if name.split(".")[0] == "babel"}
