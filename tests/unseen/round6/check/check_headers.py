"""Check the header of every corpus file.

- line 1: `# lumen-unseen: exercise=N kind=wrong|honest`, N and kind matching the path;
- wrong files: `# mistake:`, `# ideal:`, one or more `# expect:` and zero or more `# reject:` lines;
  the file's own ideal sentence must match every expect regex and no reject regex
  (case-insensitive Python re);
- honest files: `# method:` and `# ideal:`, no expect/reject lines.
Usage: python check_headers.py
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse(path):
    head = []
    for line in open(path, encoding="utf-8"):
        if not line.startswith("#"):
            break
        head.append(line.rstrip("\n"))
    return head


def check(path):
    errs = []
    rel = os.path.relpath(path, ROOT)
    ex_dir = int(re.search(r"exercise(\d+)/", rel).group(1))
    kind_file = os.path.basename(path).split("_", 1)[0]
    head = parse(path)
    if not head:
        return ["no header"]
    m = re.fullmatch(r"# lumen-unseen: exercise=(\d+) kind=(wrong|honest)", head[0])
    if not m:
        return [f"bad first line {head[0]!r}"]
    if int(m.group(1)) != ex_dir:
        errs.append(f"exercise={m.group(1)} but file is in exercise{ex_dir}/")
    if m.group(2) != kind_file:
        errs.append(f"kind={m.group(2)} but file name starts with {kind_file}_")
    fields = {"mistake": [], "method": [], "ideal": [], "expect": [], "reject": []}
    for line in head[1:]:
        f = re.match(r"# (mistake|method|ideal|expect|reject): (.+)$", line)
        if not f:
            errs.append(f"unexpected header line {line!r}")
            continue
        fields[f.group(1)].append(f.group(2).strip())
    if len(fields["ideal"]) != 1:
        errs.append("needs exactly one ideal line")
        return errs
    ideal = fields["ideal"][0]
    if m.group(2) == "wrong":
        if len(fields["mistake"]) != 1 or fields["method"]:
            errs.append("a wrong file needs exactly one mistake line and no method line")
        if not fields["expect"]:
            errs.append("a wrong file needs at least one expect line")
        for rx in fields["expect"]:
            try:
                if not re.search(rx, ideal, re.I):
                    errs.append(f"ideal does not match expect {rx!r}")
            except re.error as e:
                errs.append(f"bad expect regex {rx!r}: {e}")
        for rx in fields["reject"]:
            try:
                if re.search(rx, ideal, re.I):
                    errs.append(f"ideal matches reject {rx!r}")
            except re.error as e:
                errs.append(f"bad reject regex {rx!r}: {e}")
    else:
        if len(fields["method"]) != 1 or fields["mistake"]:
            errs.append("an honest file needs exactly one method line and no mistake line")
        if fields["expect"] or fields["reject"]:
            errs.append("an honest file has no expect/reject lines")
    return errs


def main():
    files = sorted(glob.glob(os.path.join(ROOT, "exercise*", "*.py")))
    bad = 0
    for f in files:
        errs = check(f)
        if errs:
            bad += 1
            print(f"BAD {os.path.relpath(f, ROOT)}: " + "; ".join(errs))
    print(f"{len(files)} files, {bad} with header problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
