#!/usr/bin/python3
"""Reads khost analyze's analysis.json as a script would (json and statistics only, the
standard library of Debian's /usr/bin/python3) and checks its numbers against the run's long
results CSV, recomputed here. docs/ANALYSIS.md documents the model.

    check_analysis_json.py ANALYSIS_JSON RESULTS_CSV

Prints one line per check that failed and exits 1, or prints what it checked and exits 0.
"""
import csv
import json
import math
import statistics
import sys

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def close(a, b):
    return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-15)


def seconds(value, unit):
    return value / 1e9 if unit == "ns" else value


def main():
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    with open(sys.argv[2], newline="") as f:
        rows = list(csv.DictReader(f))

    check(doc["schema"] == "ktune-analysis", "schema is " + str(doc["schema"]))
    check(doc["version"] == 1, "version is " + str(doc["version"]))
    time = doc["time"]["name"]
    check(doc["time"]["unit"] == "s", "the time is in " + doc["time"]["unit"])

    # variant name -> value name -> the values of its valid, measured (not sampling) rows.
    samples = {}
    for r in rows:
        if r["sampling"] != "0" or r["valid"] != "1" or r["status"] not in ("ok", "scaled"):
            continue
        values = samples.setdefault(r["variant"], {}).setdefault(r["name"], [])
        values.append(seconds(float(r["value"]), r["unit"]))

    checked = 0
    ranking = doc["ranking"]
    for i, v in enumerate(ranking):
        check(v["rank"] == i + 1, v["name"] + ": rank " + str(v["rank"]))
        times = samples[v["name"]][time]
        check(v["n"] == len(times), v["name"] + ": n " + str(v["n"]) + " vs " + str(len(times)))
        check(close(v["median"], statistics.median(times)), v["name"] + ": median")
        check(close(v["mean"], statistics.mean(times)), v["name"] + ": mean")
        stdev = statistics.stdev(times)
        check(close(v["stddev"], stdev), v["name"] + ": stddev")
        check(close(v["cv"], stdev / statistics.mean(times)), v["name"] + ": cv")
        low, high = v["ci95"]["low"], v["ci95"]["high"]
        check(low in times and high in times, v["name"] + ": CI bounds are not repetitions")
        check(low <= v["median"] <= high, v["name"] + ": median outside its CI")
        if i:
            check(ranking[i - 1]["median"] <= v["median"], v["name"] + ": ranked out of order")
        checked += 1

    verdict = doc["verdict"]
    if len(ranking) >= 2:
        check(verdict["winner"] == ranking[0]["name"], "verdict: winner")
        check(verdict["runner_up"] == ranking[1]["name"], "verdict: runner-up")
        check(close(verdict["ratio"], ranking[1]["median"] / ranking[0]["median"]), "ratio")
        check(0 <= verdict["test"]["p"] <= 1, "verdict: p")
        check(verdict["decision"] in ("faster", "not distinguishable", "unstable"), "decision")
        check((verdict["decision"] == "faster") == (verdict["test"]["p"] < verdict["alpha"]) or
              verdict["decision"] == "unstable" or verdict["rounds"] is not None,
              "decision against p and alpha")

    for v in doc["variants"]:
        for name, value in v["values"].items():
            got = samples.get(v["name"], {}).get(name, [])
            if v["valid_repetitions"] == 0 or not got:
                continue  # statistics over failed repetitions, or none at all
            check(value["n"] == len(got), v["name"] + " " + name + ": n")
            check(close(value["median"], statistics.median(got)), v["name"] + " " + name)
            check(value["unit"] != "ns", v["name"] + " " + name + ": a time in ns")
            checked += 1

    # Pearson's r across the ranked variants, of each value's median against the time's.
    medians = {v["name"]: v["median"] for v in ranking}
    for c in doc["correlations"]:
        if c["pearson"] is None or c["metric"]:
            continue
        xs = [statistics.median(samples[n][c["name"]]) for n in medians]
        ys = list(medians.values())
        check(c["n"] == len(xs), c["name"] + ": n")
        check(math.isclose(c["pearson"]["r"], statistics.correlation(xs, ys), abs_tol=1e-9),
              c["name"] + ": pearson r")
        checked += 1

    for f in failures:
        print("analysis.json: " + f)
    if failures:
        sys.exit(1)
    print("analysis.json: %d variants ranked, %d numbers checked against the results file"
          % (len(ranking), checked))


main()
