"""Counts the per-element GetValue/SetValue loop shapes in every op_kernel folder of ops-math and ops-nn at
the commits corpus.py pins (issue 17, the scalar-bound operators): single-statement fills, iotas, copies and
conversions, element-wise bodies, and the multi-statement accumulators. A regular-expression scan, not a
parse: it over- and under-counts at the edges and only says which shapes are common. Prints counts, op counts
and one example location per shape; SHOW="fill,iota" also lists every loop of those shapes (location and the
loop's first 200 characters, to read, not to keep). Nothing of the public code is stored here.

  python3 benches/public_ops/scalar_loop_shapes.py
"""
import re, subprocess, collections, sys
REPOS = {"ops-math": ("/work/.mirror/hicann+ops-math/repo", "c41933244c31e44fd496e3bb3212164f8c48c214"),
         "ops-nn": ("/work/.mirror/hicann+ops-nn/repo", "e5c3fa9327ea95ba26d06227e746923580d10921")}
FOR = re.compile(r"for\s*\(\s*(?:[\w:]+\s+)?(\w+)\s*=\s*([^;]+);\s*\1\s*<\s*([^;]+);\s*(?:\+\+\1|\1\+\+|\1\s*\+=\s*1)\s*\)\s*\{")
def body_at(t, i):
    d = 1; j = i
    while j < len(t) and d:
        if t[j] == '{': d += 1
        elif t[j] == '}': d -= 1
        j += 1
    return t[i:j-1]
allex = {}
counts = collections.Counter(); ops = collections.defaultdict(set); ex = {}
for name, (repo, c) in REPOS.items():
    files = subprocess.run(["git","-C",repo,"ls-tree","-r","--name-only",c],capture_output=True,text=True).stdout.split()
    files = [f for f in files if "/op_kernel/" in f and f.endswith((".h",".cpp",".hpp"))]
    for f in files:
        t = subprocess.run(["git","-C",repo,"show",f"{c}:{f}"],capture_output=True,text=True,errors="replace").stdout
        for m in FOR.finditer(t):
            v, start = m.group(1), m.group(2).strip()
            b = body_at(t, m.end()).strip()
            if "SetValue" not in b and "GetValue" not in b: continue
            stmts = [s.strip() for s in b.split(";") if s.strip()]
            vv = re.escape(v)
            k = "other"
            if start != "0": k = "other (start != 0)"
            elif len(stmts) == 1:
                s = stmts[0]
                if re.fullmatch(rf"\w+\.SetValue\(\s*{vv}\s*,\s*{vv}\s*\)", s): k = "iota: t.SetValue(i, i)"
                elif re.fullmatch(rf"\w+\.SetValue\(\s*{vv}\s*,\s*\w+\.GetValue\(\s*{vv}\s*\)\s*\)", s): k = "copy/implicit convert: d.SetValue(i, s.GetValue(i))"
                elif re.fullmatch(rf"\w+\.SetValue\(\s*{vv}\s*,\s*(static_cast<[\w:]+>|\([\w:]+\))\s*\(\s*\w+\.GetValue\(\s*{vv}\s*\)\s*\)\s*\)", s): k = "convert: d.SetValue(i, static_cast<D>(s.GetValue(i)))"
                elif re.fullmatch(rf"\w+\.SetValue\(\s*{vv}\s*,.*\)", s, re.S) and "GetValue" not in s and not re.search(rf"\b{vv}\b", s.split(",",1)[1]): k = "fill: t.SetValue(i, CONST)"
                elif re.fullmatch(rf"\w+\.SetValue\(\s*{vv}\s*,.*\)", s, re.S) and "GetValue" in s: k = "elementwise 1-stmt: d.SetValue(i, f(s.GetValue(i)))"
                elif "SetValue" in s: k = "SetValue other index (strided/offset)"
                elif re.search(r"\+=|-=", s) and "GetValue" in s: k = "accumulate 1-stmt: acc += t.GetValue(i)"
                else: k = "other 1-stmt"
            else:
                if re.search(r"\+=", b) and "GetValue" in b and "SetValue" not in b: k = "accumulate multi-stmt (sum into scalar)"
                elif re.search(r"[<>]", b) and "GetValue" in b and ("if" in b) and "SetValue" not in b: k = "min/max into scalar multi-stmt"
                elif "SetValue" in b and "GetValue" in b and re.search(r"\bif\b|\?", b): k = "elementwise with branch/select (multi-stmt)"
                elif "SetValue" in b and "GetValue" in b: k = "elementwise/other multi-stmt"
                else: k = "other multi-stmt"
            allex.setdefault(k.split(":")[0], []).append(f"{name}:{f}:{t[:m.start()].count(chr(10))+1}: for({v}<{m.group(3).strip()}) " + " ".join(b.split())[:200]); counts[k] += 1; op = "/".join(f.split("/op_kernel/")[0].split("/")[-1:]); ops[k].add(name+":"+op)
            ex.setdefault(k, f"{name}:{f}:{t[:m.start()].count(chr(10))+1}")
import os
if os.environ.get("SHOW"):
    for k2 in os.environ["SHOW"].split(","):
        print("##", k2); [print(x) for x in allex.get(k2, [])]
for k, n in counts.most_common():
    print(f"{n:5d} {len(ops[k]):4d} ops  {k}   e.g. {ex[k]}")
