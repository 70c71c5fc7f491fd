"""Deprecated: the compiled game kernels moved into each game's package (``awale_env.games.<name>.kernels`` and
``.batch``), the cross-game helpers to :mod:`awale_env.kernels`. The modules here re-export them with a warning."""
