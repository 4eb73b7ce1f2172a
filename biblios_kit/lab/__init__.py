"""The balance lab: compare, sweep and tune rulesets with bots, with statistics, reports and Dask scale-out.

Modules, one job each: :mod:`.plan` (experiments, cells, seeds, jobs), :mod:`.metrics` (what one
game measures), :mod:`.restrict` (restricted-play bots), :mod:`.stats` (each cell's estimates and tests),
:mod:`.backends` (in-process and Dask), :mod:`.results` (the results file and resuming),
:mod:`.runner` (running an experiment), :mod:`.overrides` (``--set`` sweeps), :mod:`.names`
(metric names in the user's language), :mod:`.report` (terminal, JSON, CSV and HTML output),
:mod:`.summary` (the report's first screen, in plain words) and :mod:`.tune` (``lab tune``:
successive halving toward a balance target). Games are played by ``simulate``'s batch runner
(:mod:`biblios_kit.sim.runner`) and the intervals and tests are ``simulate``'s too
(:mod:`biblios_kit.sim.stats`).
See ``docs/lab.md``.
"""
