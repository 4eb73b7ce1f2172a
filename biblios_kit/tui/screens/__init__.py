"""Full screens of the game: setup, table, hand-over curtain, rules help and the end of the game."""
