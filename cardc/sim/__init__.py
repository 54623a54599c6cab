"""Bulk simulation: play thousands of games with agents and report balance.

* `run`: game i of a run is fixed by (seed, i); games are played in chunks
  inline, on a process pool or on a Dask cluster, with identical results.
* `intervals`: counts that merge and their 95% intervals (Wilson, Newcombe,
  Student's t), the building blocks of `stats` and `quality`.
* `stats`: streaming, mergeable statistics (Wilson intervals, exact
  distributions, paired differences) in constant memory.
* `report`: the JSON summary and its renderings: terminal tables, HTML with
  inline SVG charts, side-by-side comparison of two runs.
* `cli`: the `cardc simulate`, `cardc sweep` and `cardc compare` commands.
"""
