#!/usr/bin/env python3
"""Regenerates the committed seed corpora in Fuzz/corpus/ from samples/ and rules/.

    python3 Fuzz/make-seeds.py        (or: script/fuzz seeds)

line/   one line per file: every distinct line shape of samples/**/*.jsonl[.gz] (the .gz
        decompressed), a few hand-written edge cases, and the raw .gz sample (the reader sniffs gzip)
rules/  each rule of rules/*.yaml as a file of its own, with its file's params: and let:
expr/   the expressions of rules/*.yaml: expect, where, by, within_ms, let values, message holes
audit/  whole logs: every fixture log of rules/*.yaml and every sample file of at most 4,096 bytes

Needs PyYAML (only to find the expressions). Deterministic: the same inputs give the same files.
"""
import gzip
import json
import os
import shutil
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Fuzz", "corpus")


def write(kind, name, data):
    path = os.path.join(CORPUS, kind, name)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))


def sample_files():
    out = []
    for folder, _, files in os.walk(os.path.join(ROOT, "samples")):
        for name in files:
            if name.endswith(".jsonl") or name.endswith(".jsonl.gz"):
                out.append(os.path.join(folder, name))
    return sorted(out)


def line_shape(line):
    """Lines with the same ev and keys (or the same kind of damage) are one seed."""
    try:
        obj = json.loads(line)
    except ValueError:
        return ("bad", line[:12])
    if not isinstance(obj, dict):
        return ("not-object", type(obj).__name__)
    return ("event", str(obj.get("ev")), tuple(sorted(obj.keys())), tuple(type(v).__name__ for v in obj.values()))


# Shapes the samples do not show.
EXTRA_LINES = {
    "escapes": '{"t":1,"ev":"ws.close","reason":"a\\"b\\\\c\\/\\u00e9\\ud83d\\ude00\\ud800x","code":1000}',
    "secrets": '{"t":2,"ev":"http.req","headers":{"Authorization":"Bearer abcdefghijkl"},"items":[{"token":"x"}],'
    '"note":"eyJhbGciOi.eyJzdWIiOi.sig"}',
    "numbers": '{"t":1e3,"ev":"n","gen":9223372036854775807,"a":-0.5E-3,"b":12345678901234567890,"c":[0,-0,1.0]}',
    "nested": '{"t":0,"ev":"deep","x":' + "[" * 40 + "{}" + "]" * 40 + "}",
    "bom-crlf": "\ufeff" + '{"t":0,"ev":"ws.connect","src":{"id":1},"session":["s"]}\r',
    "not-object": '[1,2,{"t":0}]',
    "utf8": '{"t":0,"ev":"caf\u00e9","k\u00e9y":"\u65e5\u672c\U0001f600"}',
}


def make_lines():
    seen = set()
    n = 0
    for path in sample_files():
        raw = open(path, "rb").read()
        stem = os.path.relpath(path, os.path.join(ROOT, "samples")).replace("/", "-")
        if path.endswith(".gz"):
            write("line", stem.replace(".jsonl.gz", "") + ".gz", raw)
            raw = gzip.decompress(raw)
        for i, line in enumerate(raw.decode("utf-8", "replace").split("\n")):
            shape = line_shape(line)
            if shape in seen or not line.strip():
                continue
            seen.add(shape)
            write("line", "%s-%03d" % (stem.replace(".jsonl.gz", "").replace(".jsonl", ""), i + 1), line)
            n += 1
    for name, line in EXTRA_LINES.items():
        write("line", "extra-" + name, line)
    return n + len(EXTRA_LINES) + 1


def make_rules():
    n = 0
    for name in sorted(os.listdir(os.path.join(ROOT, "rules"))):
        if not name.endswith(".yaml"):
            continue
        lines = open(os.path.join(ROOT, "rules", name), encoding="utf-8").read().split("\n")
        start = lines.index("rules:")
        header = lines[: start + 1]
        bounds = [i for i, l in enumerate(lines) if l.startswith("  - id:")] + [len(lines)]
        for a, b in zip(bounds, bounds[1:]):
            rule_id = lines[a].split(":", 1)[1].strip()
            write("rules", "%s-%s.yaml" % (name[:2], rule_id), "\n".join(header + lines[a:b]).rstrip("\n") + "\n")
            n += 1
    return n


def holes(message):
    """The `{expression}` holes of a message template (`{{` and `}}` are literal braces)."""
    out, i = [], 0
    while i < len(message):
        if message.startswith("{{", i) or message.startswith("}}", i):
            i += 2
        elif message[i] == "{":
            depth, j = 1, i + 1
            while j < len(message) and depth:
                depth += {"{": 1, "}": -1}.get(message[j], 0)
                j += 1
            out.append(message[i + 1 : j - 1])
            i = j
        else:
            i += 1
    return out


# Parts of the language the rules do not use.
EXTRA_EXPRESSIONS = [
    "abs(small) + len(tags) * pow(2, 62) - len({a: 1, 'b': [1, 2]}) % 0",
    "{k: [1, 2.5e308, -0.0], 'x y': obj['k'], 3: tags[1]}['x y'] ?? tags[-1]",
    "matches(url, '^wss?://[^/]+/(ws|sse)\\?x=[0-9]{1,3}$') and not matches(reason, '(a|b)*c+?.{2,}')",
    "code not in [1000, 1001] or reason in ['a', \"b\\n\\t\\u00e9\"] or R > S or T != L",
    "minof({ev: ws.ping, where: 'gen > 0'}, t) + maxof([{ev: ws.pong}, {ev: 'ws.*', id: {exists: true}}], id)",
    "next({ev: ws.pong}) == null and count({ev: ws.ping}, since: c) >= count({ev: {glob: 'ws.p*'}})",
    "if type(obj) == 'object' then text(code) + str(flag) + str(c) + $file + str($line + $seq) else -inf",
    "min([3, 1.5, big]) < max(1, 2, delay_ms) and is_int(big + 1) and 'caf\u00e9 \u65e5\u672c' > ''",
    "not not not (1 == 1.0 and 9223372036854775807 + 1 > 0 and 7 / 2 == 3.5 and -small == small)",
]


def make_expressions():
    found = list(EXTRA_EXPRESSIONS)

    def add(text):
        if isinstance(text, str) and text.strip() and text not in found:
            found.append(text)

    def walk(node, key=None):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "tests":
                    continue
                if k == "let" and isinstance(v, dict):
                    for expr in v.values():
                        add(expr)
                elif k in ("expect", "where", "by", "within_ms") and isinstance(v, str):
                    add(v)
                elif k == "message" and isinstance(v, str):
                    for hole in holes(v):
                        add(hole)
                else:
                    walk(v, k)
        elif isinstance(node, list):
            for item in node:
                walk(item, key)

    for name in sorted(os.listdir(os.path.join(ROOT, "rules"))):
        if name.endswith(".yaml"):
            walk(yaml.safe_load(open(os.path.join(ROOT, "rules", name), encoding="utf-8")))
    for i, text in enumerate(found):
        write("expr", "%s-%03d" % ("extra" if i < len(EXTRA_EXPRESSIONS) else "rules", i + 1), text)
    return len(found)


def make_audit_logs():
    """Whole logs for the `audit` target (its -max_len is 4,096 bytes)."""
    n = 0
    for name in sorted(os.listdir(os.path.join(ROOT, "rules"))):
        if not name.endswith(".yaml"):
            continue
        for rule in yaml.safe_load(open(os.path.join(ROOT, "rules", name), encoding="utf-8"))["rules"]:
            for i, test in enumerate(rule.get("tests") or []):
                log = test.get("log")
                if isinstance(log, str) and 0 < len(log.encode("utf-8")) <= 4096:
                    write("audit", "%s-%s-%02d" % (name[:2], rule["id"], i + 1), log)
                    n += 1
    for path in sample_files():
        raw = open(path, "rb").read()
        if path.endswith(".gz"):
            raw = gzip.decompress(raw)
        if len(raw) <= 4096:
            stem = os.path.relpath(path, os.path.join(ROOT, "samples")).replace("/", "-")
            write("audit", "sample-" + stem.replace(".jsonl.gz", "").replace(".jsonl", ""), raw)
            n += 1
    return n


def main():
    for kind in ("line", "rules", "expr", "audit"):
        shutil.rmtree(os.path.join(CORPUS, kind), ignore_errors=True)
        os.makedirs(os.path.join(CORPUS, kind))
    counts = (make_lines(), make_rules(), make_expressions(), make_audit_logs())
    print("seeds: %d line, %d rules, %d expr, %d audit in %s" % (counts + (os.path.relpath(CORPUS),)))


if __name__ == "__main__":
    sys.exit(main())
