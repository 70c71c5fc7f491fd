"""Exceptions shared by the rules, the notation, game records and checkpoints."""


class IllegalMoveError(ValueError):
    """A move that is malformed, not legal in the position, or played on a finished game."""


class RecordError(ValueError):
    """A game record that cannot be read or replayed."""


class CheckpointError(ValueError):
    """A file that is not a usable checkpoint: missing, truncated, corrupted, foreign, oversized, mismatched, or
    carrying serialized Python objects (which a checkpoint never holds, since loading them could run code)."""
