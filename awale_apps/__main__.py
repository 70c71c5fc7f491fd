"""``python -m awale_apps``: the ``awale`` command without its console script."""

from awale_apps.cli import main

main()
