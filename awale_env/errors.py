"""Exceptions shared by the rules, the notation and game records."""


class IllegalMoveError(ValueError):
    """A move that is malformed, not legal in the position, or played on a finished game."""


class RecordError(ValueError):
    """A game record that cannot be read or replayed."""
