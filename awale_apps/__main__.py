"""``python -m awale_apps``: the ``awale`` command without its console script."""

from awale_apps.launch import main

main()
