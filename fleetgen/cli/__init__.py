"""The command line: typer commands (parse and present), the console entry and the CI report."""
