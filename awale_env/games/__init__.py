"""The other games of the toolkit, one module each with its rules flags and ``State``: ``oware`` and ``hawalis``.

``from awale_env.games import oware, hawalis``; the two-colour Awale stays ``awale_env.State``.
"""
