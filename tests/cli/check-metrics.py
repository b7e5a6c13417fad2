#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check-metrics.py [--dashboard-rules FILE]

Holds the documentation and the monitoring files against the metrics the
daemon can write: the textfile that $DUMP_PROMETHEUS (tests/unit/
dump-prometheus.c) prints, a status in which every metric has samples.

 - docs/metrics.md's table lists every metric with its type and labels, and
   no other;
 - damon-tierd.conf(5) names every metric;
 - README.md, docs/, man/ and monitoring/ name no metric that does not
   exist;
 - the alert rules and the Grafana dashboard select only labels the metric
   has (or the scrape's instance and job) and only label values it writes
   (direction, goal); their legends and annotations use only labels of
   the metrics they query;
 - the dashboard is valid JSON whose panels have unique ids, fit the
   24-column grid without overlapping, and query the dashboard's data
   source variable.

Prints PASS/FAIL lines and "N passed, M failed"; exits 1 if a check failed.
With --dashboard-rules FILE it only writes the dashboard's queries as a
Prometheus rule file (Grafana's variables replaced), for test-promtool.sh
to parse with promtool.
"""
import json
import os
import re
import subprocess
import sys

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DASHBOARD = os.path.join(TOP, "monitoring", "damon-tierd-dashboard.json")
ALERTS = os.path.join(TOP, "monitoring", "damon-tierd-alerts.yml")
SCRAPE_LABELS = {"instance", "job"}
# Label values the daemon writes from a fixed set (node and version vary).
ENUM_LABELS = {"direction", "goal"}
METRIC_RE = re.compile(r"\bdamon_tierd_[a-z0-9_]+")
SELECTOR_RE = re.compile(r"\b(damon_tierd_[a-z0-9_]+)\s*\{([^}]*)\}")
MATCHER_RE = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*"([^"]*)"')
GROUPING_RE = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)")

passed = failed = 0


def ok(msg):
    global passed
    passed += 1
    print(f"PASS: {msg}")


def bad(msg):
    global failed
    failed += 1
    print(f"FAIL: {msg}")


def check(cond, msg):
    ok(msg) if cond else bad(msg)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def rel(path):
    return os.path.relpath(path, TOP)


def written_metrics():
    """{name: {"type": t, "labels": {label: {values}}}} from the textfile."""
    exe = os.environ.get("DUMP_PROMETHEUS")
    if not exe:
        sys.exit("check-metrics: DUMP_PROMETHEUS is not set (meson test sets it)")
    text = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
    metrics = {}
    for line in text.splitlines():
        m = re.match(r"# TYPE (\S+) (\S+)$", line)
        if m:
            metrics[m.group(1)] = {"type": m.group(2), "labels": {}}
            continue
        if not line or line.startswith("#"):
            continue
        m = re.match(r"([a-z0-9_]+)(?:\{([^}]*)\})? \S+$", line)
        if not m or m.group(1) not in metrics:
            bad(f"textfile line without its # TYPE: {line}")
            continue
        for k, _, v in MATCHER_RE.findall(m.group(2) or ""):
            metrics[m.group(1)]["labels"].setdefault(k, set()).add(v)
    return metrics


def documented_metrics():
    """{name: (type, {labels})} from docs/metrics.md's table."""
    doc = {}
    for line in read(os.path.join(TOP, "docs", "metrics.md")).splitlines():
        m = re.match(r"\| `(damon_tierd_[a-z0-9_]+)` \| (\w+) \| ([^|]*) \|", line)
        if m:
            doc[m.group(1)] = (m.group(2), set(re.findall(r"`(\w+)`", m.group(3))))
    return doc


def check_doc(metrics):
    doc = documented_metrics()
    for name, info in sorted(metrics.items()):
        if name not in doc:
            bad(f"docs/metrics.md: {name} (written by the daemon) is not in the table")
            continue
        typ, labels = doc[name]
        check(typ == info["type"], f"docs/metrics.md: {name} is a {info['type']} (table: {typ})")
        check(labels == set(info["labels"]),
              f"docs/metrics.md: {name} has labels {sorted(info['labels'])} (table: {sorted(labels)})")
    for name in sorted(set(doc) - set(metrics)):
        bad(f"docs/metrics.md: {name} is in the table but the daemon never writes it")
    man = read(os.path.join(TOP, "man", "damon-tierd.conf.5"))
    missing = sorted(n for n in metrics if n not in man)
    check(not missing, f"damon-tierd.conf(5) names every metric (missing: {', '.join(missing) or 'none'})")


def files_naming_metrics():
    paths = [os.path.join(TOP, "README.md")]
    for d in ("docs", "man", "monitoring"):
        for root, _, names in os.walk(os.path.join(TOP, d)):
            paths += [os.path.join(root, n) for n in sorted(names)]
    return paths


def check_names(metrics):
    for path in files_naming_metrics():
        unknown = sorted(set(METRIC_RE.findall(read(path))) - set(metrics))
        check(not unknown, f"{rel(path)} names only metrics the daemon writes"
              + (f" (unknown: {', '.join(unknown)})" if unknown else ""))


def query_labels(expr, metrics, where):
    """Check the selectors and groupings of one query; returns the labels
    its metrics can carry (for legends and annotations)."""
    names = set(METRIC_RE.findall(expr))
    labels = set(SCRAPE_LABELS)
    for n in names & set(metrics):
        labels |= set(metrics[n]["labels"])
    good = True
    for name, body in SELECTOR_RE.findall(expr):
        if name not in metrics:
            continue  # reported by check_names
        have = metrics[name]["labels"]
        for k, op, v in MATCHER_RE.findall(body):
            if k not in have and k not in SCRAPE_LABELS:
                bad(f"{where}: {name} has no label {k} (its labels: {sorted(have)})")
                good = False
            elif k in ENUM_LABELS and op == "=" and v not in have[k]:
                bad(f"{where}: {name}{{{k}=\"{v}\"}} matches nothing (values: {sorted(have[k])})")
                good = False
    for group in GROUPING_RE.findall(expr):
        for k in (x.strip() for x in group.split(",") if x.strip()):
            if k not in labels:
                bad(f"{where}: grouping label {k} is on none of {sorted(names)}")
                good = False
    return labels, good


def check_alerts(metrics):
    text = read(ALERTS)
    # The rules file is checked by promtool; here its queries as a whole.
    exprs = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"(\s*)expr:\s*(.*)$", line)
        if not m:
            continue
        if m.group(2) in (">-", "|", ">", "|-"):
            body = []
            for nxt in lines[i + 1:]:
                ind = len(nxt) - len(nxt.lstrip())
                if nxt.strip() and ind <= len(m.group(1)):
                    break
                body.append(nxt.strip())
            exprs.append(" ".join(body))
        else:
            exprs.append(m.group(2))
    check(len(exprs) >= 5, f"{rel(ALERTS)}: {len(exprs)} alert queries found")
    labels, good = set(SCRAPE_LABELS), True
    for e in exprs:
        lab, g = query_labels(e, metrics, rel(ALERTS))
        labels |= lab
        good &= g
    check(good, f"{rel(ALERTS)}: the selectors use existing labels and label values")
    used = set(re.findall(r"\$labels\.(\w+)", text))
    check(used <= labels, f"{rel(ALERTS)}: annotations use only labels of the queried metrics"
          + (f" (unknown: {sorted(used - labels)})" if used - labels else ""))


def dashboard():
    try:
        return json.loads(read(DASHBOARD))
    except ValueError as e:
        bad(f"{rel(DASHBOARD)} is not valid JSON: {e}")
        return None


def panels_of(d):
    for p in d.get("panels", []):
        yield p
        yield from p.get("panels", [])


def check_dashboard(metrics, d):
    where = rel(DASHBOARD)
    ok(f"{where} is valid JSON")
    variables = {v.get("name"): v for v in d.get("templating", {}).get("list", [])}
    check(variables.get("datasource", {}).get("type") == "datasource",
          f"{where}: a data source variable named datasource")
    panels = list(panels_of(d))
    ids = [p.get("id") for p in panels]
    check(len(ids) == len(set(ids)) and None not in ids, f"{where}: {len(ids)} panels with unique ids")
    cells, overlap, outside = {}, [], []
    for p in panels:
        g = p.get("gridPos", {})
        x, y, w, h = (g.get(k, -1) for k in ("x", "y", "w", "h"))
        if x < 0 or y < 0 or w < 1 or h < 1 or x + w > 24:
            outside.append(p.get("title"))
            continue
        for cx in range(x, x + w):
            for cy in range(y, y + h):
                if (cx, cy) in cells:
                    overlap.append(f"{cells[cx, cy]} / {p.get('title')}")
                cells[cx, cy] = p.get("title")
    check(not outside, f"{where}: every panel fits the 24-column grid ({outside or 'all'})")
    check(not overlap, f"{where}: no two panels overlap ({sorted(set(overlap)) or 'none'})")
    nqueries, good = 0, True
    for p in panels:
        if p.get("type") == "row":
            continue
        title = p.get("title")
        if p.get("datasource", {}).get("uid") != "${datasource}":
            bad(f"{where}: panel {title!r} does not use the datasource variable")
            good = False
        targets = p.get("targets", [])
        refs = [t.get("refId") for t in targets]
        if not targets or len(refs) != len(set(refs)):
            bad(f"{where}: panel {title!r} has no queries or repeats a refId")
            good = False
        for t in targets:
            expr = t.get("expr", "")
            nqueries += 1
            if not METRIC_RE.search(expr):
                bad(f"{where}: panel {title!r} query {t.get('refId')} queries no damon-tierd metric")
                good = False
            labels, g = query_labels(expr, metrics, f"{where}: panel {title!r}")
            good &= g
            legend = set(re.findall(r"\{\{\s*(\w+)\s*\}\}", t.get("legendFormat", "")))
            if not legend <= labels:
                bad(f"{where}: panel {title!r} legend uses {sorted(legend - labels)}, not on its metrics")
                good = False
    check(good, f"{where}: {nqueries} queries use existing metrics, labels and label values")
    shown = set(METRIC_RE.findall(json.dumps(d)))
    unshown = sorted(set(metrics) - shown)
    check(not unshown, f"{where}: every metric is on the dashboard (missing: {', '.join(unshown) or 'none'})")


def write_dashboard_rules(d, out):
    """The dashboard's queries as recording rules, for promtool to parse."""
    subst = {"$__rate_interval": "5m", "$__interval": "1m", "$__range": "1h", "$instance": ".*"}
    with open(out, "w", encoding="utf-8") as f:
        f.write("groups:\n  - name: damon-tierd-dashboard\n    rules:\n")
        for p in panels_of(d):
            for t in p.get("targets", []):
                expr = t.get("expr", "")
                for k, v in subst.items():
                    expr = expr.replace(k, v)
                f.write(f"      - record: dashboard:panel{p.get('id')}:{t.get('refId')}\n"
                        f"        expr: {json.dumps(expr)}\n")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--dashboard-rules":
        d = dashboard()
        if d is None:
            return 1
        write_dashboard_rules(d, sys.argv[2])
        return 0
    if len(sys.argv) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    metrics = written_metrics()
    check(len(metrics) >= 10, f"the daemon writes {len(metrics)} metrics")
    check_doc(metrics)
    check_names(metrics)
    check_alerts(metrics)
    d = dashboard()
    if d is not None:
        check_dashboard(metrics, d)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
