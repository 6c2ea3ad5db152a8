"""Render the feedback page of a student with a wrong mask in a real browser, headless Chromium,
to a PNG to look at (not part of the test suite: it needs a browser).

    apt-get install chromium        # Debian's package
    python benchmarks/feedback_page.py --out feedback-wrong-mask.png

Grades tests/submissions/exercise4/wrong_inverted_causal.py (the causal mask the wrong way round)
with `lumen-grade exercise4 --format html`, checks the page is self-contained (no script, no
external reference), then has Chromium take a screenshot of it, offline, in a fresh profile.
"""

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WRONG_MASK = ROOT / "tests" / "submissions" / "exercise4" / "wrong_inverted_causal.py"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("feedback-wrong-mask.png"), help="the PNG to write")
    parser.add_argument("--html", type=Path, help="also keep the HTML page here")
    parser.add_argument("--size", default="1100,2600", help="window size WIDTH,HEIGHT in pixels")
    parser.add_argument("--browser", default=shutil.which("chromium") or shutil.which("chromium-browser"))
    args = parser.parse_args()
    if not args.browser:
        sys.exit("no chromium on PATH: apt-get install chromium (or pass --browser)")
    with tempfile.TemporaryDirectory(prefix="lumen-feedback-") as work:
        work = Path(work)
        (work / "submission").mkdir()
        shutil.copyfile(WRONG_MASK, work / "submission" / "exercise4_masking.py")
        page = work / "feedback.html"
        graded = subprocess.run([sys.executable, "-m", "grader", "exercise4", "--submission", str(work / "submission"),
                                 "--device", "cpu", "--no-perf", "--format", "html", "--output", str(page)],
                                cwd=work, capture_output=True, text=True)
        if graded.returncode not in (0, 1) or not page.is_file():
            sys.exit(f"grading failed: {graded.stderr}")
        html = page.read_text(encoding="utf-8")
        assert "<script" not in html.lower(), "the page must not run JavaScript"
        assert not re.search(r"""(?:src|href)\s*=\s*["'](?!#)""", html), "the page must not load anything"
        profile = work / "profile"
        profile.mkdir()
        shot = subprocess.run([args.browser, *FLAGS, f"--user-data-dir={profile}", f"--window-size={args.size}",
                               f"--screenshot={args.out.resolve()}", page.as_uri()],
                              capture_output=True, text=True, timeout=120)
        if shot.returncode != 0 or not args.out.is_file():
            sys.exit(f"chromium failed ({shot.returncode}): {shot.stderr[-2000:]}")
        if args.html:
            shutil.copyfile(page, args.html)
    print(f"{args.out}: {args.out.stat().st_size} bytes; {html.count('<svg')} heatmaps in the page "
          f"({graded.stdout.strip()})")


if __name__ == "__main__":
    main()
