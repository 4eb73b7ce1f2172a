"""Play over the network: an authoritative game server, its open HTTP/WebSocket API, and remote clients.

* :mod:`biblios_kit.net.protocol`: the JSON messages (views, events, results) and their schema;
* :mod:`biblios_kit.net.views`: what each seat and spectator is sent, built from the engine's views;
* :mod:`biblios_kit.net.storage`: what the server needs of a store, and the choice of one (``host --db``);
* :mod:`biblios_kit.net.store`: persistence (SQLite, one row per accepted action);
* :mod:`biblios_kit.net.pg_store`: persistence in PostgreSQL, shared by several server processes;
* :mod:`biblios_kit.net.tables`: the tables, their seats, tokens, bots and subscribers;
* :mod:`biblios_kit.net.security`: Host/Origin checks, tokens, rate limits (shared with ``play --web``);
* :mod:`biblios_kit.net.server`: the aiohttp application and its routes;
* :mod:`biblios_kit.net.frames`: messages written straight to a WebSocket as frames;
* :mod:`biblios_kit.net.collector`: the server process's garbage collection, on a timer;
* :mod:`biblios_kit.net.client`: an API client (links, HTTP calls, the WebSocket stream);
* :mod:`biblios_kit.net.remote`: the Textual table driven by a server (``biblios-kit join``);
* :mod:`biblios_kit.net.seat_page`: the seat page, a browser client of the API (``/play/{table}``);
* :mod:`biblios_kit.net.web`: ``play --web``, a Textual app per browser session.

See ``docs/network.md``.
"""
