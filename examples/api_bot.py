"""Play one seat of a biblios-kit game server with a bot, through the open API (docs/network.md).

    python examples/api_bot.py 'http://127.0.0.1:8765/play/TABLE?token=TOKEN' --bot medium

The bot sees only what the server sends this seat: its view, rebuilt as an engine
Observation. On its turn it chooses, and the action goes back in text form with the
version of the view it answers, so sending it again (after a refusal for speed, or a
lost reply) can never play it twice: a repeat is refused as ``stale_version``.
"""

from __future__ import annotations

import argparse
import asyncio

import aiohttp

from biblios_kit.bots.base import Bot
from biblios_kit.bots.registry import make_bot
from biblios_kit.engine import format_action, parse_action
from biblios_kit.net.client import parse_link
from biblios_kit.net.protocol import observation_from_json
from biblios_kit.rules import load_ruleset


async def play(link: str, spec: str) -> None:
    invitation = parse_link(link)
    bot: Bot | None = None  # made from the first view, which names the ruleset the table plays
    url = invitation.server.replace("http", "ws", 1) + f"/api/tables/{invitation.table}/ws"
    async with aiohttp.ClientSession() as http, http.ws_connect(url) as ws:
        await ws.send_json({"type": "hello", "token": invitation.token})
        last: dict[str, object] | None = None
        async for message in ws:
            data = message.json()
            if data["type"] == "error":
                print("refused:", data["code"], data["message"])
                if data["code"] == "rate_limited" and last is not None:
                    await asyncio.sleep(1)  # too fast for the server: send it again, slower (safe: it has a version)
                    await ws.send_json(last)
                # "stale_version": the game moved on (or this action was already played); the next view says what to do
            if data["type"] != "view":
                continue
            if data["result"] is not None:
                print("game over; winners:", data["result"]["winners"])
                return
            ruleset = load_ruleset(data["ruleset"]["id"], data["ruleset"]["options"])
            if bot is None:
                bot = make_bot(spec, 1, ruleset)
            texts = data["observation"]["legal_actions"]
            if texts:  # our turn
                observation = observation_from_json(data["observation"], [parse_action(ruleset, t) for t in texts])
                action = await asyncio.to_thread(bot.choose, observation)  # think off the event loop
                last = {"type": "action", "action": format_action(ruleset, action), "version": data["version"]}
                await ws.send_json(last)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("link", help="the seat's invitation link")
    parser.add_argument("--bot", default="medium", help="bot spec: random, easy, medium, hard ...")
    arguments = parser.parse_args()
    asyncio.run(play(arguments.link, arguments.bot))
