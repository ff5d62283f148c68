"""The committed fleet repository of `tests.diff.test_diff`, as a fixture for every diff test."""

from tests.diff.test_diff import repo  # noqa: F401
