"""``python -m fleetgen``."""

from fleetgen.quick import main

main()
