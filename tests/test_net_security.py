"""Security of ``play --web`` (access token, Host/Origin, session cap, no listing) and fuzzing of every endpoint."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from net_helpers import bearer, create, running_server

from biblios_kit.net.security import HostPolicy, RateLimiter, bind_warning, is_loopback, same_secret, token_digest
from biblios_kit.net.web import make_play_app

TOKEN = "play-web-access-token"
QUICK = shlex.join([sys.executable, "-c", "pass"])  # a "game" process that ends at once


def _play_client(max_sessions: int = 4) -> TestClient[Any, Any]:
    app = make_play_app(lambda _request: QUICK, TOKEN, max_sessions=max_sessions)
    return TestClient(TestServer(app, host="127.0.0.1"), cookie_jar=aiohttp.CookieJar(unsafe=True))


async def test_play_web_serves_nothing_without_the_token() -> None:
    async with _play_client() as client:
        for path in ("/", "/ws", "/static/js/textual.js"):
            response = await client.get(path)
            assert response.status == 403, path
            assert (await response.json())["error"]["code"] == "bad_token"
        wrong = await client.get("/?token=guess")
        assert wrong.status == 403
        opened = await client.get(f"/?token={TOKEN}", allow_redirects=False)
        assert opened.status == 302 and opened.headers["Location"] == "/"  # the token leaves the address bar
        cookie = opened.cookies["biblios_kit_access"]
        assert cookie["httponly"] and cookie["samesite"] == "Strict"
        page = await client.get("/")
        assert page.status == 200 and "textual-terminal" in await page.text()
        assert page.headers["Referrer-Policy"] == "no-referrer"
        assert (await client.get("/static/js/textual.js")).status == 200
        for folder in ("/static/", "/static", "/static/js/"):
            listing = await client.get(folder)
            assert listing.status in (403, 404), folder  # no directory index


async def test_play_web_checks_host_and_origin() -> None:
    async with _play_client() as client:
        await client.get(f"/?token={TOKEN}")
        rebinding = await client.get("/", headers={"Host": "attacker.example"})
        assert rebinding.status == 421
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await client.ws_connect("/ws", headers={"Origin": "http://attacker.example"})
        assert refused.value.status == 403
        with pytest.raises(aiohttp.WSServerHandshakeError):
            await client.ws_connect("/ws", headers={"Host": "attacker.example:80"})


async def test_play_web_caps_concurrent_sessions() -> None:
    async with _play_client(max_sessions=1) as client:
        await client.get(f"/?token={TOKEN}")
        first = await client.ws_connect("/ws")
        await asyncio.sleep(0.2)
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await client.ws_connect("/ws")
        assert refused.value.status == 503
        await first.close()
        await asyncio.sleep(0.3)
        again = await client.ws_connect("/ws")  # a freed place can be taken again
        await again.close()


async def test_a_browser_session_ends_its_process_and_closes_its_pipes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game that does not quit when its browser leaves is killed, and nothing of its session is left to the
    garbage collector (which may come after the event loop is closed)."""
    import gc
    import os
    import secrets
    import warnings

    from biblios_kit.net import web

    def running(marker: str) -> bool:
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes()
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if marker.encode() in command and state != "Z":
                return True
        return False

    monkeypatch.setattr(web, "END_SECONDS", 0.3)
    marker = secrets.token_hex(8)
    stubborn = shlex.join(
        [sys.executable, "-c", f"import time; print('__GANGLION__', flush=True); time.sleep(60)  # {marker}"]
    )
    app = make_play_app(lambda _request: stubborn, TOKEN, max_sessions=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        async with TestClient(TestServer(app, host="127.0.0.1"), cookie_jar=aiohttp.CookieJar(unsafe=True)) as client:
            await client.get(f"/?token={TOKEN}")
            session = await client.ws_connect("/ws")
            await asyncio.sleep(0.5)
            assert running(marker)
            await session.close()
            for _ in range(40):
                await asyncio.sleep(0.1)
                if not running(marker):
                    break
            assert not running(marker), "the game of a finished session still runs"
        gc.collect()
    assert not [w for w in caught if "unclosed" in str(w.message)], [str(w.message) for w in caught]


def test_tokens_and_hosts() -> None:
    assert same_secret("abc", "abc") and not same_secret("abc", "abd") and not same_secret("abc", "abcd")
    assert len(token_digest("x")) == 64
    policy = HostPolicy.of(["games.example"])
    assert policy.host_ok("127.0.0.1:8000") and policy.host_ok("[::1]:80") and policy.host_ok("localhost")
    assert policy.host_ok("GAMES.example:443") and policy.host_ok("192.168.1.20")
    for bad in (None, "", "evil.example", "127.0.0.1.evil.example", "127.0.0.1:notaport", "a" * 400):
        assert not policy.host_ok(bad), bad
    assert policy.origin_ok(None, "127.0.0.1:1")
    assert policy.origin_ok("http://127.0.0.1:1", "127.0.0.1:1")
    assert not policy.origin_ok("http://127.0.0.1:2", "127.0.0.1:1")
    assert not policy.origin_ok("null", "127.0.0.1:1")
    assert bind_warning("127.0.0.1") is None and bind_warning("::1") is None
    warning = bind_warning("0.0.0.0")
    assert warning is not None and "0.0.0.0" in warning and "\n" not in warning
    assert is_loopback("localhost") and not is_loopback("10.0.0.1")


def test_rate_limiter_refills() -> None:
    limiter = RateLimiter(rate=1000, burst=2, strikes=3)
    assert limiter.allow("k") and limiter.allow("k")
    assert not limiter.allow("k") or True  # may have refilled already at 1000/s
    slow = RateLimiter(rate=0.001, burst=1, strikes=2)
    assert slow.allow("a") and not slow.allow("a") and not slow.allow("a")
    assert slow.exhausted("a") and not slow.exhausted("b") and slow.allow("b")


# ---------------------------------------------------------------------- fuzzing

METHODS = st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH"])
SEGMENTS = st.sampled_from(["api", "tables", "TABLE", "actions", "payment-options", "record", "ws", "play", "static",
                            "..", "%00", "x" * 300, "", "?since=-5", "?since=abc", "?token=", "/", "invite", "settings",
                            "watch", "lobby", "texts", "replay", "1", "0", "-1"])  # fmt: skip
BODIES = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=200).map(str.encode),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=30),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(
                st.sampled_from(
                    [
                        "action",
                        "actions",
                        "pay",
                        "ruleset",
                        "players",
                        "seats",
                        "names",
                        "seed",
                        "bot_delay",
                        "type",
                        "version",
                        "since",
                        "seat",
                        "hints",
                        "spectators",
                        "open",
                        "free_seats",
                    ]
                ),
                inner,
                max_size=4,
            )
        ),
        max_leaves=12,
    ).map(lambda value: json.dumps(value).encode()),
)
HEADERS = st.dictionaries(
    st.sampled_from(["Authorization", "Origin", "Content-Type", "Cookie", "Upgrade", "Connection"]),
    st.sampled_from(
        [
            "Bearer ",
            "Bearer TOKEN",
            "Bearer ADMIN",
            "null",
            "http://evil.example",
            "websocket",
            "Upgrade",
            "application/json",
            "biblios_kit_access=x",
            "\u00e9",
        ]
    ),
    max_size=3,
)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests=st.lists(st.tuples(METHODS, st.lists(SEGMENTS, max_size=4), HEADERS, BODIES), min_size=1, max_size=6))
def test_fuzzing_the_game_server_never_crashes_it(
    tmp_path_factory: pytest.TempPathFactory, requests: list[Any]
) -> None:
    folder = tmp_path_factory.mktemp("fuzz")

    async def scenario() -> None:
        async with running_server(folder, http_rate=10_000, http_burst=10_000, lobby=True) as client:
            reply = await create(client, seats=["human", "human", "human"], free_seats=[2], open=True)
            table, token = reply["table"], reply["seats"][0]["token"]
            admin_acted = False  # the admin may close the table or issue seat 1's link again: both legitimate
            for method, segments, headers, body in requests:
                path = "/" + "/".join(segments).replace("TABLE", table).lstrip("/")
                admin_acted |= method in ("POST", "DELETE") and headers.get("Authorization") == "Bearer ADMIN"
                headers = {
                    k: v.replace("TOKEN", token).replace("ADMIN", "admin-token-for-tests") for k, v in headers.items()
                }
                try:
                    response = await client.request(method, path, data=body, headers=headers, allow_redirects=False)
                except (aiohttp.ClientError, ValueError):
                    continue  # the client library itself refused the request
                text = await response.text()
                assert response.status < 500, (method, path, response.status, text)
                assert "Traceback" not in text
                if response.status >= 400 and response.content_type == "application/json":
                    assert set(json.loads(text)) in ({"error"}, {"error", "view"})  # the view: 409 stale_version
            alive = await client.get(f"/api/tables/{table}", headers=bearer(token))
            assert alive.status == 200 or (admin_acted and alive.status in (403, 404)), alive.status
            assert (await client.get("/api")).status == 200

    asyncio.run(scenario())


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=st.lists(BODIES, min_size=1, max_size=8))
def test_fuzzing_the_websocket_never_crashes_the_server(tmp_path_factory: pytest.TempPathFactory,
                                                        messages: list[bytes]) -> None:  # fmt: skip
    folder = tmp_path_factory.mktemp("fuzz-ws")

    async def scenario() -> None:
        async with running_server(folder) as client:
            reply = await create(client, seats=["human", "human", "human"])
            table, token = reply["table"], reply["seats"][0]["token"]
            ws = await client.ws_connect(f"/api/tables/{table}/ws")
            await ws.send_json({"type": "hello", "token": token})
            assert json.loads((await ws.receive()).data)["type"] == "view"
            for data in messages:
                try:
                    await ws.send_str(data.decode("utf-8", "replace"))
                except ConnectionError:
                    break
            await ws.close()
            alive = await client.get(f"/api/tables/{table}", headers=bearer(token))
            assert alive.status == 200

    asyncio.run(scenario())


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests=st.lists(st.tuples(METHODS, st.lists(SEGMENTS, max_size=3), HEADERS, BODIES), min_size=1, max_size=6))
def test_fuzzing_play_web_never_crashes_it(requests: list[Any]) -> None:
    async def scenario() -> None:
        async with _play_client() as client:
            for method, segments, headers, body in requests:
                path = "/" + "/".join(segments).replace("TABLE", "t").lstrip("/")
                if path.rstrip("/") == "/ws" or "Upgrade" in headers:
                    continue  # a real session would start a process: covered by the cap test
                try:
                    response = await client.request(method, path, data=body, headers=headers, allow_redirects=False)
                except (aiohttp.ClientError, ValueError):
                    continue
                text = await response.text()
                assert response.status < 500, (method, path, response.status, text)
                assert "Traceback" not in text
            assert (await client.get(f"/?token={TOKEN}")).status == 200

    asyncio.run(scenario())


def test_data_dir_admin_token_is_private(tmp_path: Path) -> None:
    from biblios_kit.net.server import admin_token_of

    token = admin_token_of(tmp_path / "d")
    assert admin_token_of(tmp_path / "d") == token and len(token) >= 40
    assert (tmp_path / "d" / "admin-token").stat().st_mode & 0o077 == 0


def test_play_web_warns_when_exposed_and_checks_its_flags(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess

    from net_helpers import free_port

    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "BIBLIOS_KIT_DATA_DIR": str(tmp_path), "BIBLIOS_LANG": "en"}
    bad = subprocess.run([sys.executable, "-m", "biblios_kit", "play", "--web", "--max-sessions", "0"], cwd=root,
                         env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert bad.returncode == 2 and "--max-sessions must be at least 1" in bad.stderr
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "biblios_kit", "play", "--web", "--bind", "0.0.0.0", "--port",
                               str(port)], cwd=root, env=env, stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
    try:
        assert server.stderr is not None
        first = server.stderr.readline().decode()
        second = server.stderr.readline().decode()
    finally:
        os.killpg(server.pid, signal.SIGINT)
        server.wait(15)
        server.stderr.close()
    assert first.startswith("warning: listening on 0.0.0.0")
    assert f"http://127.0.0.1:{port}/?token=" in second


def test_play_web_on_a_port_in_use_says_so_and_shows_no_link(tmp_path: Path) -> None:
    """The link is printed once the server listens: a port another program holds gets the error alone."""
    import os
    import socket
    import subprocess

    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "BIBLIOS_KIT_DATA_DIR": str(tmp_path), "BIBLIOS_LANG": "en"}
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "biblios_kit", "play", "--web", "--port", str(port)], cwd=root,
                              env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "token=" not in done.stderr and "Serving" not in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("header", "expected"),
    [("es-ES,es;q=0.9,en;q=0.8", "es"), ("de-DE, fr-CA;q=0.8", "fr"), ("de, it", None), ("", None), (",,;q=1", None)],
)
def test_browser_language(header: str, expected: str | None) -> None:
    from aiohttp.test_utils import make_mocked_request

    from biblios_kit.net.web import browser_language

    assert browser_language(make_mocked_request("GET", "/", headers={"Accept-Language": header})) == expected


def test_static_files_of_play_web_are_files_of_the_folder_only() -> None:
    """A name the file system refuses, a way out of the folder or a folder is a 404, never a 500 or a listing."""
    from aiohttp.test_utils import TestClient, TestServer

    from biblios_kit.net.web import make_play_app

    async def scenario() -> None:
        async with TestClient(TestServer(make_play_app(lambda request: "true", "tok"), host="127.0.0.1")) as client:
            host = {"Host": f"127.0.0.1:{client.port}"}
            for path, status in (
                ("/static/" + "x" * 5000, 404),
                ("/static/../../../etc/passwd", 404),
                ("/static/%00name", 404),
                ("/static/js", 404),
                ("/static/js/textual.js", 200),
            ):
                response = await client.get(path, params={"token": "tok"}, headers=host)
                assert response.status == status, path[:40]

    asyncio.run(scenario())
