# SPDX-License-Identifier: MIT
"""The result CSV's columns as scbench declares them (harness/csv.h,
CSV_COLUMNS): each column's type ("text", "int", "real" or "0/1"), its range
and a text column's allowed values; and the registry's baseline variants
(SC_VARIANTS, origin "baseline"). They are read from csv_schema.json beside
this file, which is scbench's own output (`scbench --list=json`, its member
"csv_schema") written by

    scbench --list=json | python3 plots/schema.py > plots/csv_schema.json

(`make csv-schema`); tests/test_csv_schema.sh fails when the file differs from
what the scbench being tested says. Standard library only.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = os.path.join(HERE, "csv_schema.json")
INF = float("inf")


def load(path=PATH):
    """The schema object of path: {"columns": [...], "event_suffix": ...,
    "latency_columns": [...]} (harness/csv.h, out_csv_schema_json)."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def ranges(schema):
    """Every numeric column (fixed and --latency) -> (integer?, min, max), an
    unbounded side as -inf or inf."""
    out = {}
    for c in schema["columns"] + schema["latency_columns"]:
        if c["type"] == "text":
            continue
        lo = -INF if c["min"] is None else c["min"]
        hi = INF if c["max"] is None else c["max"]
        out[c["name"]] = (c["type"] in ("int", "0/1"), lo, hi)
    return out


def text_columns(schema):
    """The text columns -> their allowed values (an empty tuple: any text)."""
    return {c["name"]: tuple(c["allowed"]) for c in schema["columns"] if c["type"] == "text"}


def main():
    """Standard input: scbench --list=json; standard output: its csv_schema,
    one column per line (the form csv_schema.json is kept in), with the
    baseline variants in registry order as its member "baselines"."""
    listing = json.load(sys.stdin)
    schema = listing["csv_schema"]
    out = ['{"columns": [']
    for key in ("columns", "latency_columns"):
        if key == "latency_columns":
            out.append('],\n "event_suffix": %s, "latency_columns": ['
                       % json.dumps(schema["event_suffix"]))
        out.append(",\n".join("  " + json.dumps(c) for c in schema[key]))
    out.append('],\n "baselines": %s}' % json.dumps(
        [v["name"] for v in listing["variants"] if "baseline" in v["origin"]]))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
