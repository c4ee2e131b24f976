"""The optimal-cut solver: a Numba dynamic-programming kernel and its pure-Python twin.

:mod:`.solver` dispatches between them. This package imports no other stage (an import-linter
contract in pyproject.toml).
"""
