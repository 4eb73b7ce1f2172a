"""Benchmark of the table screen in process (headless Textual), from a late auction-phase position.

* key to table: ``+`` (raise the bid) pressed through Textual's pilot until the table is redrawn
  and idle; the "Now" panel, the action bar and the footer change;
* full redraw: every panel but the log drawn again from the view (what F2 does besides translating and
  writing the log again).

Wall time and CPU time (``time.process_time``) are printed; on a shared machine the CPU time moves
much less with the load. Run from a checkout: ``.venv/bin/python benchmarks/tui_table.py
[--presses N] [--players P]``; run the same file from another checkout's folder to compare
(``cd ../main && ../wt/.venv/bin/python ../wt/benchmarks/tui_table.py``: the package is imported
from the current folder). Figures go in docs/performance.md (TUI section).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.getcwd())  # measure the checkout we are run from


def prepare(players: int, data_dir: Path) -> None:
    """Play random moves until the person in seat 0 bids late in the auction phase; save that game."""
    from biblios_kit.engine.state import Phase, new_game
    from biblios_kit.rules import load_ruleset
    from biblios_kit.tui.saves import save_game

    state = new_game(load_ruleset("biblios"), players, seed=4)
    rng = random.Random(1)
    while not (state.phase is Phase.BIDDING and state.current_player == 0 and state.decision_count > 160):
        state.apply(state.random_action(rng))
    seats = ("human",) + ("random",) * (players - 1)
    save_game(state, seats, tuple(f"P{i + 1}" for i in range(players)), "en", data_dir / "saves" / "current-game.json")


async def measure(presses: int, size: tuple[int, int]) -> tuple[list[float], list[float], list[float], list[float]]:
    """(wall, cpu) per key press, then (wall, cpu) per full redraw, in milliseconds."""
    from biblios_kit.tui.app import make_app
    from biblios_kit.tui.widgets.table_log import TableLog

    app = make_app(resume=True, bot_delay=0)
    key_wall, key_cpu, draw_wall, draw_cpu = [], [], [], []
    async with app.run_test(size=size) as pilot:
        while not (getattr(app.screen, "my_legal", None) and app.screen.my_legal()):  # type: ignore[attr-defined]
            await pilot.pause()
        table = app.screen
        for index in range(presses):
            key = "plus" if index % 2 == 0 else "minus"
            wall, cpu = time.perf_counter(), time.process_time()
            await pilot.press(key)
            await pilot.pause()
            key_wall.append((time.perf_counter() - wall) * 1000)
            key_cpu.append((time.process_time() - cpu) * 1000)
        for _ in range(presses):
            for panel in table.query("*"):  # every panel but the log forgets its part: all are drawn again
                if hasattr(panel, "part") and not isinstance(panel, TableLog):
                    panel.part = None
            wall, cpu = time.perf_counter(), time.process_time()
            table.update_view()  # type: ignore[attr-defined]
            await pilot.pause()
            draw_wall.append((time.perf_counter() - wall) * 1000)
            draw_cpu.append((time.process_time() - cpu) * 1000)
    return key_wall, key_cpu, draw_wall, draw_cpu


def main(argv: list[str] | None = None) -> int:
    """Run the measurements and print a summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=40, help="key presses and full redraws measured (default 40)")
    parser.add_argument("--players", type=int, default=4, help="players at the table (default 4)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        os.environ["BIBLIOS_KIT_DATA_DIR"] = folder
        prepare(args.players, Path(folder))
        print(f"checkout {os.getcwd()}, python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}")
        for size in ((80, 24), (120, 40)):
            key_wall, key_cpu, draw_wall, draw_cpu = asyncio.run(measure(args.presses, size))
            print(f"{size[0]}x{size[1]}, {args.players} players, {args.presses} each:")
            print(f"  key press to idle table  wall median {statistics.median(key_wall):6.1f} ms"
                  f"   cpu median {statistics.median(key_cpu):6.1f} ms")  # fmt: skip
            print(f"  full redraw              wall median {statistics.median(draw_wall):6.1f} ms"
                  f"   cpu median {statistics.median(draw_cpu):6.1f} ms")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
