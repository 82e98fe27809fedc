# SPDX-License-Identifier: MIT
"""The files of plots/compare: its inputs read (a result set directory, with its
figures' statistics) and its table written (compare.csv, COLUMNS).
"""

from figbuild import load_set
from figures import FIGURES
from resultset import SOURCES, is_result_set
from writing import csv_text, write_atomically

COLUMNS = ["figure", "counter", "threads", "median_a", "median_b", "ratio", "ci_low", "ci_high",
           "p_value", "significant", "point", "params", "n_a", "n_b", "p_adj", "test",
           "busy_a", "busy_b"]


class NotAResultSet(Exception):
    pass


def load(path):
    """(ResultSet, machine summary, Figures) of a result set directory:
    NotAResultSet (status 2) when path is none, ResultSetError (status 1, as
    aggregate.py and atlas) when a file of it cannot be read."""
    if not is_result_set(path):
        raise NotAResultSet("%s: not a result set (no directory holding any of %s)"
                            % (path, ", ".join(SOURCES)))
    return load_set(path, FIGURES)


def write_csv(path, rows):
    write_atomically(path, csv_text(COLUMNS, rows))
