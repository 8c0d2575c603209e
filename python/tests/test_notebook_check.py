"""notebooks/run_notebook.py's comparison of a `rounding-level` cell: integers exactly, other numbers within a
factor of 2, the rest of the text exactly (names with digits in them are text)."""
import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "run_notebook", Path(__file__).resolve().parents[2] / "notebooks" / "run_notebook.py")
run_notebook = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run_notebook)
same = run_notebook.same_at_rounding_level


def test_rounding_level_digits_may_differ():
    assert same(["fp64      flash1      9.02e-16     4.1      2367\n"],
                ["fp64      flash1      7.90e-16     3.6      2367\n"])


def test_an_order_of_magnitude_or_a_count_may_not():
    assert not same(["fp64 flash1 9.02e-16 4.1 2367\n"], ["fp64 flash1 9.02e-14 4.1 2367\n"])
    assert not same(["max grew 2367"], ["max grew 9999"])
    assert not same(["max grew 2367"], ["max grew 2368"])  # counts exactly
    assert not same(["x 3.4 y"], ["x 7.0 y"])
    assert not same(["x 0 y"], ["x 1e-9 y"])


def test_names_with_digits_are_text():
    assert not same(["fp64 flash1 9.02e-16\n"], ["fp64 flash2 9.02e-16\n"])
    assert not same(["fp32 flash1 9.02e-16\n"], ["fp64 flash1 9.02e-16\n"])
