"""The applications on top of the toolkit: the ``awale`` command (:mod:`awale_apps.cli`) and the web page of
``awale serve`` (:mod:`awale_apps.web`). They use ``awale_env``, ``agents``, ``competition`` and ``training``; nothing
imports them. Importing this package imports none of them, so that ``awale bot`` (:mod:`awale_apps.launch`) can
answer from its opening book before they load."""

from __future__ import annotations

from pathlib import Path

#: The packages of this distribution under generic names, which a user's folder of the same name could hide.
GENERIC_PACKAGES = ("agents", "competition", "training")


def shipped_by_ray(folder: Path) -> bool:
    """Whether ``folder`` is a package Ray unpacked on its node from a runtime environment (``py_modules``,
    ``working_dir``: each in a ``_ray_pkg_<hash>`` folder of the node's ``runtime_resources``), the copy a Ray job
    ships on purpose (docs/distributed.md, "Shipping the package"), in front of any installed one."""
    return folder.parent.name.startswith("_ray_pkg_") and "runtime_resources" in folder.parts


def check_packages() -> None:
    """ImportError naming the folder and the way out when Python would import ``agents``, ``competition`` or
    ``training`` from somewhere else than beside this package: a folder of that name in the working directory
    (``python -m``, ``python -c``, a notebook) or beside the user's script comes first on ``sys.path``. A copy
    shipped by a Ray runtime environment is the toolkit's own, wherever it was unpacked."""
    from awale_env.import_paths import imported_from  # standard library only

    home = Path(__file__).resolve().parent.parent
    for name in GENERIC_PACKAGES:
        place = imported_from(name)
        if place is not None and place.resolve() != home / name and not shipped_by_ray(place.resolve()):
            raise ImportError(
                f"Python imports {name!r} from {place}, which hides the installed package {name!r} "
                f"({home / name}); rename it, or run from another directory"
            )
