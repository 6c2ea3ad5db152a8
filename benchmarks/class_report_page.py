"""Render a class report of a synthetic class in a real browser, headless Chromium, to PNGs at a
desktop and a phone width, to look at (not part of the test suite: it needs a browser).

    apt-get install chromium                                  # Debian's package
    python benchmarks/class_report_page.py --out-dir class-report-shots [--variants DIR]

The class is tests/course/synthetic_class.py's (60 on the roster: composed from graded corpus files,
one with no files, one whose grading failed, one who never submitted), graded twice (a third of the
students fixed a mistake in between), with two planted near-copies for the similarity leads. It
runs `lumen-grade class-report OLD NEW --roster --submissions --similarity`, checks the page is
self-contained (no script, no external reference), and screenshots it offline in a fresh profile.
"""

import argparse
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "course"))

import synthetic_class  # noqa: E402
from class_report import variants  # noqa: E402  (benchmarks/class_report.py)

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--hide-scrollbars"]
WIDTHS = {"desktop": (1280, 9000), "phone": (390, 20000)}


def demo_class(work, graded):
    """The two gradings of the class on disk; the roster CSV's path."""
    roster = synthetic_class.roster_entries()
    rng = random.Random(2026)
    before = {i: synthetic_class.random_picks(rng) for i in range(synthetic_class.COMPOSED)}
    after = {i: dict(chosen) for i, chosen in before.items()}
    for i in range(0, synthetic_class.COMPOSED, 3):
        wrong = [n for n, v in after[i].items() if v.startswith("wrong")]
        if wrong:
            after[i][wrong[0]] = "solution"
    synthetic_class.write_class(work / "old", graded, before, roster)
    picks = synthetic_class.write_class(work / "new", graded, after, roster)
    copies = [name for name, chosen in picks.items() if chosen[5] == "solution"][:2]
    source = synthetic_class.COPIED.read_text()
    for name, text in zip(copies, (source, synthetic_class.near_copy(source))):
        (work / "new" / "class" / name / "exercise5_softmax.py").write_text(text)
    csv = work / "roster.csv"
    csv.write_text("student_id,name,email\n" + "".join(f"{e.student_id},{e.name},{e.email}\n" for e in roster))
    return csv


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=Path("class-report-shots"))
    parser.add_argument("--variants", type=Path, help="a folder of the variants' records (benchmarks/class_report.py)")
    parser.add_argument("--browser", default=shutil.which("chromium") or shutil.which("chromium-browser"))
    args = parser.parse_args()
    if not args.browser:
        sys.exit("no chromium on PATH: apt-get install chromium (or pass --browser)")
    graded = variants(args.variants)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="lumen-class-page-") as work:
        work = Path(work)
        roster = demo_class(work, graded)
        subprocess.run([sys.executable, "-m", "grader", "class-report", str(work / "old" / "grades"),
                        str(work / "new" / "grades"), "--roster", str(roster), "--submissions", str(work / "new" / "class"),
                        "--stubs", str(ROOT / "exercises"), "--similarity", "--out", str(args.out_dir)], check=True)
        page = args.out_dir / "class-report.html"
        text = page.read_text(encoding="utf-8")
        if re.search(r"<script|\b(?:src|href)=|url\(", text, re.IGNORECASE):
            sys.exit(f"{page} is not self-contained")
        for name, (width, height) in WIDTHS.items():
            shot = (args.out_dir / f"class-report-{name}.png").resolve()
            subprocess.run([args.browser, *FLAGS, f"--user-data-dir={work / ('profile-' + name)}",
                            f"--screenshot={shot}", f"--window-size={width},{height}", page.resolve().as_uri()],
                           check=True, capture_output=True, timeout=120)
            print(f"wrote {shot} ({width} px wide)")


if __name__ == "__main__":
    main()
