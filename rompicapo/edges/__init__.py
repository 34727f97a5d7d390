"""Edge-matching puzzles (Eternity II and any R x C set) and Joshua Blackwood's search.

- :mod:`rompicapo.edges.puzzle`: pieces, boards, clues, score, validation, files, viewer URLs;
- :mod:`rompicapo.edges.generate`: solvable puzzles of any size, with their solution;
- :mod:`rompicapo.edges.blackwood`: fill orders, schedules, candidate tables, ``search`` (one
  thread) and ``solve`` (processes or a Dask cluster);
- :mod:`rompicapo.edges.improve`: ``improve``, adaptive large-neighbourhood search that
  polishes a board (exact region repair in ``_repair_kernel``);
- :mod:`rompicapo.edges.render`: SVG and PNG pictures, heat maps;
- :mod:`rompicapo.edges.verify`: the independent verifier (imports nothing from the search);
- ``_kernel``: the numba search loop.
"""
