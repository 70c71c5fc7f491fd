"""The server's default limits, apart from the app so that the ``awale`` command shows them without loading it."""

DEFAULT_MAX_GAMES = 16
DEFAULT_MAX_THINK_SECONDS = 5.0
#: Requests waiting for an agent or being answered by one, at once: in all, and from one client (address).
DEFAULT_MAX_QUEUE = 8
DEFAULT_MAX_CLIENT_QUEUE = 2
#: Megabytes of search memory (trees, tables) a worker keeps for the agents of its games.
DEFAULT_MAX_MEMORY_MB = 512
