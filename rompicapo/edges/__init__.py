"""Edge-matching puzzles (Eternity II and any R x C set): model, files, Blackwood's search."""
