"""Agents that play every game of the toolkit (AlphaZero and PPO: the games their networks were trained on): one
protocol, built by name from spec strings.

``make("alphabeta:depth=8")`` builds any registered agent (see :data:`agents.registry.AGENTS`); the search agents'
modules are imported on first use.
"""

from agents.base import Agent, Limit, reset_agent
from agents.registry import AGENTS, AgentEntry, AgentSpecError, format_spec, known_agents, make, parse_spec

__all__ = [
    "AGENTS",
    "AlphaZeroAgent",
    "Agent",
    "AgentEntry",
    "Limit",
    "AgentSpecError",
    "GreedyAgent",
    "RandomAgent",
    "format_spec",
    "known_agents",
    "make",
    "parse_spec",
    "reset_agent",
]


def __getattr__(name: str):
    """``agents.AlphaZeroAgent`` imports numba's search and the simple agents numpy, so they are loaded when first
    asked for: importing the registry alone (``awale bot`` checks its spec before numpy loads) takes the standard
    library."""
    if name == "AlphaZeroAgent":
        from agents.alphazero import AlphaZeroAgent

        return AlphaZeroAgent
    if name in ("GreedyAgent", "RandomAgent"):
        from agents import simple

        return getattr(simple, name)
    raise AttributeError(f"module 'agents' has no attribute {name!r}")
