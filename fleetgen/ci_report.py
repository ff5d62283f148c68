"""``python -m fleetgen.ci_report``: the pull-request report of fleetgen's CI action (docs/ci.md),
kept at this path for the action and the CI templates that call it; see `fleetgen.cli.ci_report`."""

if __name__ == "__main__":
    from fleetgen.cli.ci_report import main

    main()
