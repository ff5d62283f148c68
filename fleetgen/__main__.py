"""``python -m fleetgen``."""

from fleetgen.cli.quick import main

main()
