#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the BENCH lines of make bench into results.json, bench.md and
bench.svg (in the directory given). Every ratio is taken within one
kernel's run: the same boot, the same data."""
import json
import statistics
import sys
from collections import defaultdict

out = sys.argv[1]
runs, notes = [], []
for line in open(f"{out}/raw.txt"):
    if line.startswith("BENCH "):
        runs.append(json.loads(line[6:]))
    elif line.startswith("#"):
        notes.append(line[1:].strip())

kernels = sorted({r["kernel"] for r in runs})
CONT = ["stock", "memhigh", "userloop", "koordreclaim", "koordlet", "bgreclaim", "bgwhole", "bgsteps", "billedmax", "billed", "unlimited"]


def sel(k, scen, **kw):
    return [r for r in runs if r["kernel"] == k and r["scenario"] == scen
            and all(r.get(a) == b for a, b in kw.items())]


def med(rs, key):
    v = [r[key] for r in rs if key in r and r[key] != ""]
    return statistics.median(v) if v else None


def spread(rs, key, scale=1, fmt="{:.0f}"):
    v = [r[key] / scale for r in rs if key in r and r[key] != ""]
    if not v:
        return "-"
    m = fmt.format(statistics.median(v))
    if len(v) > 1:
        m += f" ({fmt.format(min(v))}–{fmt.format(max(v))})"
    return m


def ratio(a, b):
    return f"{a / b:.3f}" if a is not None and b else "-"


def anon_cost(k, a, floor):
    """Can one worker keep up with the anon load? What reclaim costs per
    page stolen (CPU in the background, time inside direct reclaim),
    against the time the task needs to charge a page with no limit (the
    unlimited group's median chunk over its pages)."""
    chunk_pages = (floor[0].get("chunk_mb", 2) << 20) // 4096
    charge = med(floor, "p50_ns") / chunk_pages / 1e3
    rows = ["#### What a page costs (anon)", "",
            f"The task charges a page every {charge:.1f} µs with no limit (median chunk of the "
            "unlimited group). A reclaimer keeps pace only while it frees a page in that "
            "time; CPUs needed = background µs/page ÷ that figure.", "",
            "| contender | direct reclaim µs/page | background µs/page | CPUs needed to keep pace "
            "| TLB shootdowns per page stolen |",
            "|---|---:|---:|---:|---:|"]
    for c in CONT:
        # The agent's pages are not told apart from its tasks' own.
        rs = [r for r in sel(k, "anon", contender=c) if r.get("pgsteal")
              and not (r.get("bg_cpu_ns") and not r.get("bg_pages"))]
        if not rs:
            continue
        dp = [r["pgsteal"] - r.get("bg_pages", 0) for r in rs]
        d = [r["direct_ns"] / 1e3 / n for r, n in zip(rs, dp) if n > 0]
        b = [r["bg_cpu_ns"] / 1e3 / r["bg_pages"] for r in rs if r.get("bg_pages")]
        bm = statistics.median(b) if b else None
        a[f"anon_cost/{c}"] = {"direct_us_per_page": statistics.median(d) if d else None,
                               "bg_us_per_page": bm, "charge_us_per_page": charge}
        md_d = f"{statistics.median(d):.1f}" if d else "-"
        md_b = f"{bm:.1f}" if bm is not None else "-"
        need = f"{bm / charge:.1f}" if bm is not None else "-"
        tl = [r["tlb_shootdowns"] / r["pgsteal"] for r in rs if "tlb_shootdowns" in r]
        md_t = f"{statistics.median(tl):.2f}" if tl else "-"
        rows.append(f"| {c} | {md_d} | {md_b} | {need} | {md_t} |")
    return rows + [""]


agg = {}
md = ["# memcg_bgreclaim benchmarks", ""]
md.append("QEMU TCG (multi-threaded), 2 vCPUs, 1 GiB RAM, ext4 on virtio-blk; "
          "group memory.max 128M, marks 24m/12m below it. Medians over the "
          "repetitions, (min–max) where repeated. All contenders of a scenario "
          "ran in one boot on the same data; ratios are within that boot.")
md += [f"- {n}" for n in notes]
targets = []
for k in kernels:
    a = agg[k] = {}
    md += ["", f"## {k}", ""]
    for scen, title in (("read", "Seed read (stream a file through the group)"),
                        ("write", "Seed write (dd)")):
        md += [f"### {title}", "",
               "| contender | direct reclaims | direct ms | pages scanned | pages stolen "
               "| background pages | reclaim CPU ms | MB/s | MB/s vs stock | scanned vs stock |",
               "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        base = sel(k, scen, contender="stock")
        for c in CONT:
            rs = sel(k, scen, contender=c)
            if not rs:
                continue
            a[f"{scen}/{c}"] = {x: med(rs, x) for x in
                                ("direct", "direct_ns", "pgscan", "pgsteal",
                                 "bg_pages", "bg_cpu_ns", "mbps")}
            md.append(f"| {c} | {spread(rs, 'direct')} | {spread(rs, 'direct_ns', 1e6)} "
                      f"| {spread(rs, 'pgscan')} | {spread(rs, 'pgsteal')} "
                      f"| {spread(rs, 'bg_pages')} | {spread(rs, 'bg_cpu_ns', 1e6)} "
                      f"| {spread(rs, 'mbps', 1, '{:.1f}')} "
                      f"| {ratio(med(rs, 'mbps'), med(base, 'mbps'))} "
                      f"| {ratio(med(rs, 'pgscan'), med(base, 'pgscan'))} |")
        md.append("")
        if scen != "read":
            continue
        # What reclaim costs per GiB reclaimed, whoever does it: tasks in
        # direct reclaim (time inside it: CPU, plus any wait there), our
        # workers, the user-space agent (its utime+stime).
        md += ["#### Reclaim CPU per GiB reclaimed (seed read)", "",
               "| contender | in direct reclaim ms/GiB | background ms/GiB | total ms/GiB | total vs stock |",
               "|---|---:|---:|---:|---:|"]
        per = {}
        for c in CONT:
            rs = [r for r in sel(k, scen, contender=c) if r.get("pgsteal")]
            if not rs:
                continue
            gib = [r["pgsteal"] * 4096 / 2**30 for r in rs]
            d = statistics.median(r["direct_ns"] / 1e6 / g for r, g in zip(rs, gib))
            b = statistics.median(r["bg_cpu_ns"] / 1e6 / g for r, g in zip(rs, gib))
            per[c] = statistics.median((r["direct_ns"] + r["bg_cpu_ns"]) / 1e6 / g
                                       for r, g in zip(rs, gib))
            a[f"cost/{c}"] = per[c]
            md.append(f"| {c} | {d:.0f} | {b:.0f} | {per[c]:.0f} | {ratio(per[c], per.get('stock'))} |")
        md.append("")
    ten = sel(k, "tenants")
    if ten:
        md += ["### Tenants: one greedy group beside three steady ones", "",
               "Four groups of 96M on the shared workers. T2-T4 each read a file at a steady "
               "16 MiB/s; T1 streams with two unthrottled readers. steady = T2-T4 together.", "",
               "| mode | steady MB/s (each) | steady direct reclaims | steady reclaim CPU ms "
               "| greedy reclaim CPU, % of a CPU | greedy direct reclaims |",
               "|---|---:|---:|---:|---:|---:|"]
        for mode, label in (("alone", "steady groups alone"), ("greedy", "+ greedy T1, no budget"),
                            ("budget", "+ greedy T1, cpu_budget 10000 100000")):
            rs = sel(k, "tenants", contender=mode)
            if not rs:
                continue
            a[f"tenants/{mode}"] = {x: med(rs, x) for x in
                                    ("steady_mbps", "steady_direct", "greedy_cpu_pct", "greedy_direct")}
            md.append(f"| {label} | {spread(rs, 'steady_mbps', 1, '{:.1f}')} | {spread(rs, 'steady_direct')} "
                      f"| {spread(rs, 'steady_bg_cpu_ns', 1e6)} | {spread(rs, 'greedy_cpu_pct', 1, '{:.1f}')} "
                      f"| {spread(rs, 'greedy_direct')} |")
        md.append("")
    auto_rs = sel(k, "auto")
    auto_ok = {}
    if auto_rs:
        md += ["### Auto marks against fixed ones", "",
               "Group of 128M; `auto` is wmark_auto, `sN` fixed marks waking N MiB below the limit "
               "(stop max(N/4, 1) MiB lower, auto's own gap). Mean headroom: limit - memory.current, "
               "sampled every 50 ms, over the second half of the samples taken once the group is half full "
               "(the steady state). stream: one full-speed pass of 768 MiB; "
               "anon: 256 MiB in 2 MiB chunks with zram swap; bursty: 48 MiB of anonymous memory at full "
               "speed each second, held 0.5 s, beside an 8 MiB/s reader.", "",
               "| workload | marks | direct reclaims | mean headroom MiB | auto headroom at the end MiB "
               "| reclaim CPU ms | p99 of a 1-2 MiB piece ms |",
               "|---|---|---:|---:|---:|---:|---:|"]
        conts = []
        for r in auto_rs:
            if r["contender"] not in conts:
                conts.append(r["contender"])
        for w in ("stream", "anon", "bursty"):
            zero = []
            for c in conts:
                rs = sel(k, "auto", workload=w, contender=c)
                if not rs:
                    continue
                a[f"auto/{w}/{c}"] = {x: med(rs, x) for x in ("direct", "headroom_mean")}
                if c != "auto" and med(rs, "direct") == 0:
                    zero.append((med(rs, "headroom_mean"), c))
                md.append(f"| {w} | {c} | {spread(rs, 'direct')} | {spread(rs, 'headroom_mean', 1 << 20, '{:.1f}')} "
                          f"| {spread(rs, 'headroom_end', 1 << 20, '{:.1f}') if c == 'auto' else ''} "
                          f"| {spread(rs, 'bg_cpu_ns', 1e6)} | {spread(rs, 'p99_ns', 1e6, '{:.1f}')} |")
            au = a.get(f"auto/{w}/auto")
            if au:
                best = min(zero) if zero else None
                auto_ok[w] = (au["direct"], au["headroom_mean"], best)
        md.append("")
    for scen, title, unit, sc in (("probe", "Latency probe (64 KiB map+touch every 1 ms beside a streaming reader)", "µs", 1e3),
                                  ("probeout", "The same probe in a tenant of its own beside the group", "µs", 1e3),
                                  ("anon", "Anonymous memory with zram swap (2x the limit in 2 MiB chunks)", "ms", 1e6)):
        if scen == "probeout" and not sel(k, scen):
            continue
        md += [f"### {title}", "",
               f"| contender | p50 {unit} | p99 {unit} | p99.9 {unit} | max {unit} | p99.9 vs unlimited | p99.9 vs stock | direct reclaims |",
               "|---|---:|---:|---:|---:|---:|---:|---:|"]
        floor = sel(k, scen, contender="unlimited")
        base = sel(k, scen, contender="stock")
        for c in CONT:
            rs = sel(k, scen, contender=c)
            if not rs:
                continue
            a[f"{scen}/{c}"] = {x: med(rs, x) for x in ("p50_ns", "p99_ns", "p999_ns", "max_ns", "direct")}
            md.append(f"| {c} | {spread(rs, 'p50_ns', sc, '{:.1f}')} | {spread(rs, 'p99_ns', sc, '{:.1f}')} "
                      f"| {spread(rs, 'p999_ns', sc, '{:.1f}')} | {spread(rs, 'max_ns', sc, '{:.1f}')} "
                      f"| {ratio(med(rs, 'p999_ns'), med(floor, 'p999_ns'))} "
                      f"| {ratio(med(rs, 'p999_ns'), med(base, 'p999_ns'))} | {spread(rs, 'direct')} |")
        md.append("")
        if scen == "anon" and floor:
            md += anon_cost(k, a, floor)
    md += ["### Hook overhead (page-fault loop in a group of its own)", "",
           "| module | median ms | ratio vs not loaded |", "|---|---:|---:|"]
    none = med(sel(k, "overhead", contender="none"), "ns")
    for c, label in (("none", "not loaded"), ("loaded", "loaded, group without marks"),
                     ("marks", "loaded, marks set but never reached")):
        m = med(sel(k, "overhead", contender=c), "ns")
        a[f"overhead/{c}"] = m
        md.append(f"| {label} | {spread(sel(k, 'overhead', contender=c), 'ns', 1e6, '{:.1f}')} | {ratio(m, none)} |")
    md += ["", "### Scale (groups configured by one rule: pods of a slice and two scopes)", "",
           "| groups | page-fault loop ms | ratio vs 1 group | slab bytes per group |", "|---:|---:|---:|---:|"]
    one = med(sel(k, "scale", groups=1), "ns")
    for n in sorted({r["groups"] for r in sel(k, "scale")}):
        rs = sel(k, "scale", groups=n)
        a[f"scale/{n}"] = {"ns": med(rs, "ns"), "bytes_per_group": med(rs, "bytes_per_group")}
        md.append(f"| {n} | {spread(rs, 'ns', 1e6, '{:.1f}')} | {ratio(med(rs, 'ns'), one)} | {med(rs, 'bytes_per_group') or '-'} |")
    if sel(k, "dying"):
        md += ["", "### Dying cgroups below the group (one tmpfs page each; a streaming reader)", "",
               "| contender | dying memcgs | turns | victim walk µs (p99) | reclaim wall time µs | worker CPU per turn µs | direct reclaims |",
               "|---|---:|---:|---:|---:|---:|---:|"]
        for c in CONT:
            for n in sorted({r["dying"] for r in sel(k, "dying", contender=c)}):
                rs = sel(k, "dying", dying=n, contender=c)
                key = f"dying/{n}" if c == "bgreclaim" else f"dying/{c}/{n}"
                a[key] = {f: med(rs, f) for f in ("walk_ns", "reclaim_ns", "cpu_per_turn_ns", "direct")}
                md.append(f"| {c} | {n} | {spread(rs, 'turns')} | {spread(rs, 'walk_ns', 1e3, '{:.0f}')} "
                          f"({spread(rs, 'walk_p99_ns', 1e3, '{:.0f}')}) | {spread(rs, 'reclaim_ns', 1e3, '{:.0f}')} "
                          f"| {spread(rs, 'cpu_per_turn_ns', 1e3, '{:.0f}')} | {spread(rs, 'direct')} |")
    fair = sel(k, "fairness")
    react = sel(k, "reaction")
    a["fairness"] = fair[0]["jain"] if fair else None
    a["reaction"] = react[0] if react else None
    md += ["", "### Fairness and reaction", ""]
    if fair:
        md.append(f"- Jain's index of reclaimed pages over 8 groups under equal pressure: "
                  f"**{fair[0]['jain']}** (pages {fair[0]['reclaimed']})")
    if react:
        r = react[0]
        md.append(f"- Reaction, low mark crossed (wakeup) to first background reclaim starting: "
                  f"p50 {r['p50_us']} µs, p99 {r['p99_us']} µs, max {r['max_us']} µs over {r['n']} wakeups")
    md += ["", "### Parameter sweep (seed read, one pass)", "",
           "| batch_pages | check_pages | direct reclaims | reclaim CPU ms | MB/s |", "|---:|---:|---:|---:|---:|"]
    for r in sel(k, "sweep"):
        md.append(f"| {r['batch_pages']} | {r['check_pages']} | {r['direct']} | {r['bg_cpu_ns'] / 1e6:.0f} | {r['mbps']} |")

    # targets of the issue, measured
    def g(key, field):
        return (a.get(key) or {}).get(field)

    def cmp(x, y, f):	# f(x, y), or False if either was not measured
        return x is not None and y is not None and f(x, y)
    rd, rs_ = g("read/bgreclaim", "direct"), g("read/stock", "direct")
    wd, ws = g("write/bgreclaim", "direct"), g("write/stock", "direct")
    t = [("read: direct reclaims 0", rd, rd == 0),
         ("write: direct reclaims <= 1% of stock", f"{wd} vs {ws}", ws and wd is not None and wd <= 0.01 * ws),
         ("read throughput >= 99% of stock", ratio(g("read/bgreclaim", "mbps"), g("read/stock", "mbps")),
          cmp(g("read/bgreclaim", "mbps"), g("read/stock", "mbps"), lambda b, s: b >= 0.99 * s)),
         ("read pages scanned <= 1.2x stock", ratio(g("read/bgreclaim", "pgscan"), g("read/stock", "pgscan")),
          cmp(g("read/bgreclaim", "pgscan"), g("read/stock", "pgscan"), lambda b, s: b <= 1.2 * s)),
         ("probe p99.9 <= 1.5x unlimited", ratio(g("probe/bgreclaim", "p999_ns"), g("probe/unlimited", "p999_ns")),
          cmp(g("probe/bgreclaim", "p999_ns"), g("probe/unlimited", "p999_ns"), lambda b, u: b <= 1.5 * u)),
         ("hook overhead <= 1% without marks", ratio(a.get("overhead/loaded"), a.get("overhead/none")),
          a.get("overhead/none") and a["overhead/loaded"] <= 1.01 * a["overhead/none"]),
         ("hook overhead <= 2% with marks", ratio(a.get("overhead/marks"), a.get("overhead/none")),
          a.get("overhead/none") and a["overhead/marks"] <= 1.02 * a["overhead/none"]),
         ("fairness >= 0.95", a["fairness"], a["fairness"] is not None and float(a["fairness"]) >= 0.95),
         ("reaction p99 <= 1 ms", react[0]["p99_us"] if react else None,
          bool(react) and react[0]["p99_us"] != "" and float(react[0]["p99_us"]) <= 1000)]
    for w, (d, hm, best) in auto_ok.items():
        t.append((f"auto: 0 direct reclaims ({w})", d, d == 0))
        t.append((f"auto: mean headroom <= the smallest fixed marks with 0 ({w})",
                  f"{hm / 2**20:.1f} MiB vs " + (f"{best[0] / 2**20:.1f} MiB ({best[1]})" if best else "none reached 0"),
                  best is not None and hm <= best[0]))
    for c in ("memhigh", "userloop"):
        t.append((f"fewer direct reclaims than {c} (read)", f"{rd} vs {g('read/' + c, 'direct')}",
                  g("read/" + c, "direct") is not None and rd is not None and rd <= g("read/" + c, "direct")))
        t.append((f"lower probe p99.9 than {c}", f"{g('probe/bgreclaim', 'p999_ns')} vs {g('probe/' + c, 'p999_ns')} ns",
                  g("probe/" + c, "p999_ns") and g("probe/bgreclaim", "p999_ns") <= g("probe/" + c, "p999_ns")))
    # Per-group memory is the slab delta over the most groups added: with
    # few groups, partly filled slab pages dominate the figure.
    sizes = sorted(int(kk.split("/")[1]) for kk in a if kk.startswith("scale/"))
    most = a[f"scale/{sizes[-1]}"] if sizes else {}
    t.append((f"<= 1 KiB per group (at {sizes[-1] if sizes else '-'} groups)",
              most.get("bytes_per_group"), bool(most.get("bytes_per_group")) and most["bytes_per_group"] <= 1024))
    flat = ratio(most.get("ns"), g("scale/1", "ns")) if sizes else "-"
    t.append((f"overhead flat from 1 to {sizes[-1] if sizes else '-'} groups (<= 1.02x)", flat,
              flat != "-" and float(flat) <= 1.02))
    md += ["", "### Targets", "", "| target | measured | met |", "|---|---|---|"]
    for name, val, ok in t:
        md.append(f"| {name} | {val} | {'yes' if ok else '**no**'} |")
        targets.append({"kernel": k, "target": name, "measured": str(val), "met": bool(ok)})

mins = [int(n.split(" took ")[1].split()[0]) for n in notes if n.startswith("make bench") and " took " in n]
if mins:
    full = not any("QUICK=1" in n for n in notes)
    md += ["", f"Whole run: {mins[-1]} min for both kernels "
           f"(target {'45' if full else '2 x 10'} min: {'met' if mins[-1] <= (45 if full else 20) else '**missed**'})."]
json.dump({"runs": runs, "aggregates": agg, "targets": targets, "notes": notes},
          open(f"{out}/results.json", "w"), indent=1)
open(f"{out}/bench.md", "w").write("\n".join(md) + "\n")

# chart: per kernel, direct reclaims (read) and probe p99.9 per contender
W, H, PW = 900, 300 * len(kernels) + 40, 400
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
       '<rect width="100%" height="100%" fill="white"/>',
       '<text x="10" y="20" font-size="15">memcg_bgreclaim vs alternatives (QEMU TCG, group limit 128M)</text>']
colors = {"stock": "#888", "memhigh": "#e69f00", "userloop": "#56b4e9", "bgreclaim": "#009e73", "unlimited": "#cccccc",
          "koordreclaim": "#cc79a7", "koordlet": "#d55e00", "billed": "#0072b2", "billedmax": "#f0e442",
          "bgwhole": "#999933", "bgsteps": "#332288"}
for i, k in enumerate(kernels):
    y0 = 40 + i * 300
    for j, (key, title, sc, unit) in enumerate((("read", "direct reclaims, seed read", 1, ""),
                                                 ("probe", "latency probe p99.9", 1e3, " µs"))):
        x0 = 20 + j * (PW + 40)
        field = "direct" if key == "read" else "p999_ns"
        vals = [(c, (agg[k].get(f"{key}/{c}") or {}).get(field)) for c in CONT]
        vals = [(c, v / sc) for c, v in vals if v is not None]
        top = max([v for _, v in vals] + [1])
        svg.append(f'<text x="{x0}" y="{y0 + 15}">{k}: {title}</text>')
        step = min(75, (PW - 10) // max(len(vals), 1))
        for n, (c, v) in enumerate(vals):
            h = 200 * v / top
            x = x0 + 10 + n * step
            svg.append(f'<rect x="{x}" y="{y0 + 240 - h:.1f}" width="{step - 20}" height="{h:.1f}" fill="{colors[c]}"/>')
            svg.append(f'<text x="{x + step // 2 - 10}" y="{y0 + 235 - h:.1f}" text-anchor="middle">{v:.0f}{unit}</text>')
            svg.append(f'<text x="{x + step // 2 - 10}" y="{y0 + 256}" text-anchor="middle">{c}</text>')
svg.append("</svg>")
open(f"{out}/bench.svg", "w").write("\n".join(svg) + "\n")
