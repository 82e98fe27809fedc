# SPDX-License-Identifier: MIT
"""Latency percentiles from pooled histograms: a sidecar with known buckets.
CAS at 1 thread: run 0 has 100 increments in [10, 12) ns, run 1 has 100 in
[30, 32); pooled, the p50 is rank 100 -> 11 ns, the p99 rank 198 -> 31 ns,
while the runs' own p50s and p99s are 11 and 31 (min, max; mean 21). Every
other run: 100 in [5, 7) -> 6 ns."""
import os
import re
import shutil

import pytest

from plotsets import FIXTURE, aggregate, lines


def mklat(d, sidecar, keep=lambda line: True):
    """The fixture's latency.csv in D and a made-up sidecar at D/SIDECAR (the
    lines KEEP accepts); D aggregated, its output returned."""
    os.makedirs(os.path.dirname(os.path.join(d, sidecar)), exist_ok=True)
    for f in ("latency.csv", "latency.csv.meta.json"):
        shutil.copy(os.path.join(FIXTURE, f), d)
    out = ["counter,threads,run,bucket_low_ns,bucket_high_ns,count"]
    for row in lines(os.path.join(FIXTURE, "latency.csv"))[1:]:
        f = row.split(",")
        if f[0] == "CAS" and f[2] == "1":
            out.append("%s,%s,%s,%s,100" % (f[0], f[2], f[3], "10,12" if f[3] == "0" else "30,32"))
        else:
            out.append("%s,%s,%s,5,7,100" % (f[0], f[2], f[3]))
    with open(os.path.join(d, sidecar), "w") as g:
        g.write("\n".join(ln for ln in out if keep(ln)) + "\n")
    log = []
    aggregate(d, log)
    return log[0]


def starts(d, name, prefix):
    return any(ln.startswith(prefix) for ln in lines(os.path.join(d, "figdata", name)))


@pytest.fixture(scope="module")
def lat(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("lat"))
    mklat(d, "latency.csv.latency.csv")
    return d


def test_latency_pooled_p50(lat):
    assert starts(lat, "latency-p50.dat", "CAS 1 2 11 11 31 21 ")


def test_latency_pooled_p99(lat):
    assert starts(lat, "latency-p99.dat", "CAS 1 2 31 11 31 21 ")


def test_latency_pooled_others(lat):
    assert starts(lat, "latency-p999.dat", "Scalable 2 2 6 6 6 6 ")


def test_latency_header_says_pooled(lat):
    assert starts(lat, "latency-p999.dat",
                  "# latency_percentile: pooled: the median column is the p99.9 of all")


def test_latency_drawn_says_pooled(lat):
    assert starts(lat, "latency-p50.dat", "# drawn: line: percentile of all increments")


def test_latency_pooled_from_parts(tmp_path):
    """run-all.sh keeps each invocation's part and its sidecar under parts/latency/."""
    mklat(str(tmp_path), "parts/latency/t1.csv.latency.csv")
    assert starts(str(tmp_path), "latency-p99.dat", "CAS 1 2 31 11 31 21 ")


def test_latency_without_sidecar_per_run(rs):
    """Without a sidecar (the fixture, a schema-1 set): per-run percentiles, said so."""
    assert starts(rs, "latency-p99.dat",
                  "# latency_percentile: per run: no latency histogram sidecar")


def test_latency_mixed_said(tmp_path):
    """A sidecar that lacks some runs: those points keep the per-run median, and a
    note says so."""
    log = mklat(str(tmp_path), "latency.csv.latency.csv",
                lambda ln: not ln.startswith("Scalable,"))
    assert starts(str(tmp_path), "latency-p50.dat", "# latency_percentile: mixed: ")
    assert re.search(r"note: latency: .* without a histogram", log), log
