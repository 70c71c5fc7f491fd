"""Training and evaluation: the arena (round robins, Elo) and, later, the trainers."""
