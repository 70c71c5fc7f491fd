"""Every setting of AlphaZero's search, declared and checked once (:class:`SearchConfig`): the trainer's options
(``awale train alphazero`` takes each as ``--<name>``), what a checkpoint records and the agent plays by, and what
self-play workers receive.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal, get_args

from agents.bounds import Bounds, field_bounds, setting

#: The selection rules of the search: AlphaZero's PUCT, and Gumbel AlphaZero's (Danihelka et al., ICLR 2022).
Rule = Literal["puct", "gumbel"]
RULES: tuple[str, ...] = get_args(Rule)


#: The settings a network plays by as it was trained (a checkpoint records them; the agent takes them as defaults,
#: the simulations for a move given no time): the others are self-play's noise, and ``leaves``, how one process
#: batches its network calls (self-play fills a batch with many games, the agent's one game with several leaves).
PLAYED = ("search", "c_puct", "fpu_reduction", "considered_actions", "value_scale", "visit_scale", "simulations")


@dataclass
class SearchConfig:
    """How the search chooses (its rule and constants) and how much it searches by default. Built once, checked once
    (:meth:`check`, also when built); :meth:`replace` gives a checked copy with some settings changed."""

    simulations: int = setting(100, Bounds(1, 1_000_000))
    """simulations per move (visits shared among the root's children; the root's own evaluation comes on top)"""
    search: Rule = "puct"
    """the selection rule: puct (AlphaZero's) or gumbel (Gumbel-top-k of the root's moves, sequential halving over
    the simulations, completed Q-values: strong with few simulations)"""
    c_puct: float = setting(1.5, Bounds(0, open=True))
    """PUCT: exploration weight of the prior"""
    fpu_reduction: float = setting(0.2, Bounds(-2, 2))
    """PUCT: unvisited children are valued at the parent's mean value minus this (first-play urgency)"""
    dirichlet_alpha: float = setting(0.5, Bounds(0, open=True))
    """PUCT self-play: Dirichlet noise concentration at the root, ~10 / typical number of legal moves"""
    noise_fraction: float = setting(0.25, Bounds(0, 1))
    """PUCT self-play: share of the root prior replaced by Dirichlet noise"""
    considered_actions: int = setting(16, Bounds(1, 256))
    """Gumbel: the root's moves sampled (Gumbel-top-k) and halved down to two over the simulations"""
    gumbel_scale: float = setting(1.0, Bounds(0, 100))
    """Gumbel self-play: scale of the Gumbel noise added to the root's logits (the agent plays without)"""
    value_scale: float = setting(0.1, Bounds(0, 100, open=True))
    """Gumbel: weight of the completed Q-values against the logits, per visit (mctx's value_scale)"""
    visit_scale: float = setting(50.0, Bounds(0, 1e6))
    """Gumbel: visits added to the most visited child's in that weight (mctx's maxvisit_init)"""
    leaves: int = setting(1, Bounds(1, 1024))
    """leaves each position sends per network call, kept apart by a virtual loss (a single game fills a batch)"""

    def __post_init__(self) -> None:
        self.check()

    def check(self, name_of: Callable[[str], str] = str) -> None:
        """ValueError naming the first bad setting (as ``name_of(setting)``: ``--c-puct`` on a command line) and what
        it allows."""
        for name, bounds in field_bounds(SearchConfig).items():
            value = getattr(self, name)
            refusal = bounds.refusal(value, integer=isinstance(getattr(SearchConfig, name), int))
            if refusal is not None:
                raise ValueError(f"{name_of(name)} {refusal}, got {value!r}")
        if self.search not in RULES:
            raise ValueError(f"{name_of('search')} must be one of {', '.join(RULES)}, got {self.search!r}")

    def replace(self, **changes: Any) -> SearchConfig:
        """A copy with ``changes`` (checked)."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def of(cls, options: Any, **changes: Any) -> SearchConfig:
        """The search settings of ``options`` (an object with a field of each: a trainer's configuration), with
        ``changes``."""
        return cls(**{item.name: getattr(options, item.name) for item in fields(cls)} | changes)
