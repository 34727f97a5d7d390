"""Jump-grid paths: fill an R x C grid visiting every cell once with leaper moves."""

from rompicapo.paths.moves import CASELLE, KNIGHT, MoveSet, parse_moves

__all__ = ["CASELLE", "KNIGHT", "MoveSet", "parse_moves"]
