"""The examples in the package's docstrings run and give what they show."""

import doctest

import rns


def test_docstring_examples():
    result = doctest.testmod(rns)
    assert result.attempted >= 10 and result.failed == 0
