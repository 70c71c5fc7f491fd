"""What a trainer's ``--help`` says of each option: after its help, its default and what it allows (:class:`Hint`),
whether the option's bounds are tyro metadata of the trainer's field (:func:`training.options.bounded`) or a setting
of the agents' layer, which knows no tyro (:func:`agents.bounds.setting`: AlphaZero's search settings); and each
help as one paragraph, however its docstring is wrapped in the source. :data:`REGISTRY` is what tyro applies.
"""

from __future__ import annotations

import contextvars
import dataclasses
from dataclasses import dataclass
from typing import Annotated

import tyro
from tyro.constructors import ConstructorRegistry, StructConstructorSpec, StructFieldSpec, StructTypeInfo

from agents.bounds import Bounds, field_bounds

#: The name of the trainer whose options tyro reads (``awale train NAME``), for the options every trainer shares:
#: ``--run-dir``'s default names it (:func:`training.runs.parse` sets it).
TRAINER = contextvars.ContextVar("trainer", default="<trainer>")


@dataclass(frozen=True)
class Hint:
    """What ``--help`` says after an option's help: its default (``default``: a text for one computed when the run
    starts, ``<trainer>`` in it the :data:`TRAINER`'s name; else tyro's label of the value) and what it allows
    (``bounds``)."""

    default: str | None = None
    bounds: Bounds | None = None
    integer: bool = True

    def __call__(self, label: str) -> str:
        notes = [f"default: {self.default.replace('<trainer>', TRAINER.get()) if self.default else label}"]
        if self.bounds is not None:
            notes.append(self.bounds.words(self.integer))
        return f"({'; '.join(notes)})"


def paragraph(help: str | None) -> str | None:
    """A field's docstring as one paragraph (tyro keeps the break before each indented line of a wrapped one)."""
    return None if help is None else " ".join(help.split())


#: tyro's rules for the trainers' configurations: :func:`_shown`.
REGISTRY = ConstructorRegistry()
_expanding = contextvars.ContextVar("expanding", default=False)


@REGISTRY.struct_rule
def _shown(info: StructTypeInfo) -> StructConstructorSpec | None:
    """A dataclass's fields as tyro's own rule makes them, each help one paragraph and each field of bounds declared
    by :func:`agents.bounds.setting` with its :class:`Hint`."""
    if _expanding.get() or not dataclasses.is_dataclass(info.type):
        return None
    token = _expanding.set(True)  # tyro's own rule, below this one
    try:
        spec = ConstructorRegistry.get_struct_spec(info)
    finally:
        _expanding.reset(token)
    if not isinstance(spec, StructConstructorSpec):
        return spec
    bounds = field_bounds(info.type)

    def shown(item: StructFieldSpec) -> StructFieldSpec:
        help = item.helptext() if callable(item.helptext) else item.helptext
        kind = item.type
        if item.name in bounds:
            hint = Hint(bounds=bounds[item.name], integer=kind is int)
            kind = Annotated[kind, tyro.conf.arg(help_behavior_hint=hint)]
        return dataclasses.replace(item, type=kind, helptext=paragraph(help))

    return dataclasses.replace(spec, fields=tuple(shown(item) for item in spec.fields))
