"""``python -m fleetgen``."""

from fleetgen.cli import main

main()
