# SPDX-License-Identifier: MIT
"""The figure-data format (DIR/figdata/*.dat), written by aggregate.py and read by
mpl_figures.py and report.py; gnuplot reads the same files.

A .dat file is plain text:
  - comment lines '# key: value' first (figure id, title, axes, units, how the
    statistics were computed, the meaning of the envelope columns); among them
    '# series: A B C' lists the series in block order and
    '# columns: series x n median ...' names the columns; derived lines say
    what was measured ('# measured'), how to draw it ('# draw: points' below
    4 x values, else lines; '# x_values'; '# flat_series' whose runs all agree),
    and per figure what its drawing needs (Fig. 6: '# y_max' shared by both,
    '# bound_values', '# worst_of_n'; latency: '# zero_floor'; '# note');
    '# end_states' says in which mode (the end_state column's `mode` key) the
    runs of each point of an adaptive variant ended, or that the CSV does not
    record it; '# mixed_modes' lists the points (series@x) whose runs ended in
    different modes, and the '# note' the renderers print says so (a bimodal
    band);
  - then one block per series, in that order, blocks separated by two blank
    lines (so gnuplot's 'index i' selects the i-th series), one row per x,
    whitespace-separated; an undefined number is written NaN. The last
    column, marked, is 0 for a point drawn as usual, else the sum of
    plots/marks.py's bits (1 busy, 2 time off, 4 outlier): drawn boxed.
Standard library only.
"""

import math

from writing import write_atomically

COLUMNS = ["series", "x", "n", "median", "min", "max", "mean", "p5", "p95",
           "env_lo", "env_hi", "marked"]


def fmt(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "NaN"
    if isinstance(v, int):
        return str(v)
    if float(v).is_integer() and abs(v) < 1e15:
        return str(int(v))
    return "%.8g" % v


def write_dat(path, header, series_rows):
    """header: list of (key, text); series_rows: list of (series, [row dict])."""
    out = []
    for key, text in header:
        out.append("# %s: %s" % (key, text))
    out.append("# series: %s" % " ".join(s for s, _ in series_rows))
    out.append("# blocks: one per series, in the order of '# series', separated by two "
               "blank lines (gnuplot: index i-1 is the i-th series)")
    out.append("# columns: %s" % " ".join(COLUMNS))
    first = True
    for series, rows in series_rows:
        if not first:
            out.append("")
            out.append("")
        first = False
        for r in rows:
            out.append(" ".join([series] + [fmt(r.get(c)) for c in COLUMNS[1:]]))
    write_atomically(path, "\n".join(out) + "\n")


def _num(text):
    try:
        return float(text)
    except ValueError:
        return text


def read_dat(path):
    """{'meta': {key: text}, 'columns': [...], 'series': [...], 'rows': [dict]}.

    Numbers come back as floats (NaN for undefined), the series name as text."""
    meta = {}
    columns = COLUMNS
    rows = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                continue
            if line.startswith("#"):
                body = line[1:].strip()
                if ":" in body:
                    key, _, value = body.partition(":")
                    meta[key.strip()] = value.strip()
                    if key.strip() == "columns":
                        columns = value.split()
                continue
            fields = line.split()
            row = {"series": fields[0]}
            for c, v in zip(columns[1:], fields[1:]):
                row[c] = _num(v)
            rows.append(row)
    series = meta.get("series", "").split()
    return {"meta": meta, "columns": columns, "series": series, "rows": rows}


def by_series(dat):
    """[(series, [rows sorted by x])] in block order."""
    groups = {}
    for r in dat["rows"]:
        groups.setdefault(r["series"], []).append(r)
    order = list(dat["series"]) + [s for s in groups if s not in dat["series"]]
    return [(s, sorted(groups[s], key=lambda r: r["x"])) for s in order if s in groups]


def read_index(path):
    """figures.tsv: [(figure id, status 'ok'|'skipped', files or reason)]."""
    out = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            parts = line.rstrip("\n").split("\t")
            while len(parts) < 3:
                parts.append("")
            out.append((parts[0], parts[1], parts[2]))
    return out
