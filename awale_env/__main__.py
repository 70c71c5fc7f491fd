"""``python -m awale_env``: the ``awale`` command (:mod:`awale_apps.cli`), as ``python -m awale_apps``. An entry
point, run and never imported: ``import awale_env`` does not load the applications."""

from awale_apps.cli import main

main()
