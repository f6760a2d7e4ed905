"""Shared pytest options."""


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/ from the rule engine's current output (review the diff!)")
