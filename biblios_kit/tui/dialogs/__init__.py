"""Modal dialogs of the game: church/bishop resolution, payment, confirmation."""
