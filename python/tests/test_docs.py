"""The examples in the package's docstrings run and give what they show."""

import doctest

import rns


def test_docstring_examples():
    result = doctest.testmod(rns)
    assert result.attempted >= 10 and result.failed == 0


def test_every_public_function_and_class_shows_an_example_that_runs():
    """Every name of rns.__all__ but the exceptions has a doctest example, and each runs
    (the compiled module's too: `backends` lives in rns._rns)."""
    for name in rns.__all__:
        obj = getattr(rns, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            continue
        assert ">>>" in (obj.__doc__ or ""), f"rns.{name} has no example"
        tests = doctest.DocTestFinder(recurse=False).find(obj, f"rns.{name}", globs=dict(vars(rns)))
        for t in tests:
            result = doctest.DocTestRunner().run(t)
            assert result.failed == 0, f"rns.{name}'s example failed"
