"""The browser pages of ``play --web`` and of a seat speak the player's language: ``<html lang>`` and their texts."""

from __future__ import annotations

import html
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer
from net_helpers import create, running_server

from biblios_kit.net.web import make_play_app, page_html

TOKEN = "page-language-token"
QUICK = shlex.join([sys.executable, "-c", "pass"])

TEXTS = {
    "en": ("Start", "Session ended.", "Restart"),
    "fr": ("Commencer", "Session terminée.", "Relancer"),
    "es": ("Empezar", "La sesión ha terminado.", "Volver a empezar"),
}
ENGLISH_ONLY = (">Start<", ">Session ended.<", ">Restart<", "Textual Application")


def _check(page: str, lang: str) -> None:
    assert re.search(r"<html lang=\"(\w+)\">", page).group(1) == lang  # type: ignore[union-attr]
    assert '<meta charset="utf-8" />' in page
    texts = [html.unescape(text) for text in re.findall(r">([^<>]+)</(?:button|div)>", page)]
    for text in TEXTS[lang]:
        assert text in texts, (text, texts)
    if lang != "en":
        for english in ENGLISH_ONLY:
            assert english not in page
    assert "MIT License" in page and "Textualize" in page  # textual-serve's notice travels with its page
    # nothing is fetched from another host: scripts and styles come from the server the game's socket is on
    server = re.search(r'data-session-websocket-url="wss?://([^/"]+)', page).group(1)  # type: ignore[union-attr]
    hosts = set(re.findall(r'(?:src|href)="(?:https?:)?//([^/"]+)', page))
    assert hosts <= {server}, hosts


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
def test_page_html_in_each_language(lang: str) -> None:
    page = page_html("ws://127.0.0.1:1/ws", "http://127.0.0.1:1/static/", "biblios-kit", lang)
    _check(page, lang)
    assert 'data-session-websocket-url="ws://127.0.0.1:1/ws"' in page


def test_an_unknown_language_gives_the_english_page() -> None:
    _check(page_html("ws://h/ws", "http://h/static/", "biblios-kit", "de"), "en")


@pytest.mark.parametrize(
    ("accept", "forced", "lang"),
    [("fr-FR,fr;q=0.9", None, "fr"), ("es-MX", None, "es"), ("de-DE", None, "en"), ("fr", "es", "es")],
)
async def test_play_web_page_speaks_the_games_language(accept: str, forced: str | None, lang: str) -> None:
    def page_language(request: Any) -> str:
        from biblios_kit.net.web import browser_language

        return forced or browser_language(request) or "en"

    app = make_play_app(lambda _request: QUICK, TOKEN, page_language=page_language)
    async with TestClient(TestServer(app, host="127.0.0.1"), cookie_jar=aiohttp.CookieJar(unsafe=True)) as client:
        response = await client.get(f"/?token={TOKEN}", headers={"Accept-Language": accept})
        assert response.status == 200
        _check(await response.text(), lang)


LOADING = {"en": "Loading the table…", "fr": "Chargement de la table…", "es": "Cargando la mesa…"}


@pytest.mark.parametrize(
    ("accept", "query", "lang"),
    [("fr-CA,fr;q=0.8,en;q=0.5", "", "fr"), ("es", "", "es"), ("en-GB", "", "en"), ("de", "", "en"),
     ("en-GB", "?lang=es", "es"), ("fr", "?lang=xx", "fr")],
)  # fmt: skip
async def test_a_seat_page_speaks_the_browsers_language(tmp_path: Path, accept: str, query: str, lang: str) -> None:
    async with running_server(tmp_path) as client:
        reply = await create(client, players=2, seats=["human", "easy"])
        link = reply["seats"][0]["link"]
        path = link[link.index("/play/") :]
        assert (await client.get(path, allow_redirects=False)).status == 302  # the cookie
        response = await client.get(path.split("?")[0] + query, headers={"Accept-Language": accept})
        assert response.status == 200
        page = await response.text()
        assert f'<html lang="{lang}">' in page and LOADING[lang] in page
        texts = await client.get(path.split("?")[0] + f"/texts?lang={lang}&full=1")
        assert (await texts.json())["lang"] == lang
