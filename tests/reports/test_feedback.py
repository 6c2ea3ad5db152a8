"""The feedback page (`--format html`, `batch --feedback`): parsed here with the standard library's
HTML parser and checked for its structure: self-contained (no script, nothing loaded), a score
row per exercise, a block per failed check, and for a wrong mask two heatmaps side by side whose
cells are the two matrices, entry for entry. (benchmarks/feedback_page.py renders one in Chromium.)"""

import json
from html.parser import HTMLParser

from click.testing import CliRunner

from conftest import SUBMISSIONS
from grader.reports import html as feedback, text as report
from grader.cli.main import main
from grader.grading.results import ExerciseResult, GradeReport
from grader.grading.results import TestResult as Check  # not a pytest class

VOID = {"meta", "br", "img", "input", "link", "hr"}


class Node:
    def __init__(self, tag, attrs, parent=None):
        self.tag, self.attrs, self.parent, self.children, self.text = tag, dict(attrs), parent, [], ""

    def iter(self, tag=None):
        for child in self.children:
            if tag is None or child.tag == tag:
                yield child
            yield from child.iter(tag)

    def find(self, tag, **attrs):
        return next((n for n in self.iter(tag) if all(n.attrs.get(k) == v for k, v in attrs.items())), None)

    def all_text(self):
        return self.text + "".join(child.all_text() for child in self.children)


class Tree(HTMLParser):
    """A strict little DOM: every element must be closed in order (the page is well-formed)."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.root = self.current = Node("#document", {})
        self.declarations = []
        self.feed(text)
        self.close()
        assert self.current is self.root, f"<{self.current.tag}> is never closed"

    def handle_decl(self, decl):
        self.declarations.append(decl)

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.current)
        self.current.children.append(node)
        if tag not in VOID:
            self.current = node

    def handle_endtag(self, tag):
        assert self.current.tag == tag, f"</{tag}> closes <{self.current.tag}>"
        self.current = self.current.parent

    def handle_data(self, data):
        self.current.text += data


def parse(text):
    tree = Tree(text)
    assert tree.declarations == ["DOCTYPE html"]
    (html,) = tree.root.children
    assert html.tag == "html" and [child.tag for child in html.children] == ["head", "body"]
    return tree.root


def assert_self_contained(root):
    assert root.find("script") is None and root.find("link") is None and root.find("iframe") is None
    assert len(list(root.iter("style"))) == 1
    for node in root.iter():
        assert not any(name.startswith("on") for name in node.attrs), f"an event handler on <{node.tag}>"
        for name in ("src", "href", "xlink:href", "action"):
            value = node.attrs.get(name)
            assert value is None or value.startswith("#"), f"<{node.tag} {name}={value!r}> loads something"
    assert "url(" not in root.find("style").text and "@import" not in root.find("style").text


def test_the_page_of_a_wrong_mask_shows_both_heatmaps_side_by_side(grade):
    result = grade(4, path=SUBMISSIONS / "exercise4" / "wrong_inverted_causal.py")
    page = report.render_html(GradeReport([result], "cpu", 0))
    root = parse(page)
    assert_self_contained(root)
    rows = root.find("table").find("tbody").children
    assert len(rows) == 1 and rows[0].children[0].all_text() == "exercise4"
    assert rows[0].children[3].all_text() == f"{result.score:g} / {result.max_score:g}"
    section = root.find("section", id="exercise4")
    failed = [t for t in result.tests if t.status not in ("passed", "skipped")]
    blocks = [div for div in section.iter("div") if div.attrs.get("class") == "test"]
    assert len(blocks) == len(failed)
    assert [b.find("h3").all_text().split()[1] for b in blocks] == [t.name for t in failed]
    assert [b.find("p").all_text() for b in blocks] == [t.message for t in failed]
    diagnosis = section.find("div", **{"class": "diagnosis"})
    assert diagnosis.attrs["data-diagnosis"] == "mask-inverted" and "wrong way round" in diagnosis.all_text()

    pictures = [div for div in section.iter("div") if div.attrs.get("class") == "heatmaps"]
    assert len(pictures) == 1  # one per test function: the diagnosed case of test_causal_mask
    drawn = next(t for t in failed if t.details.get("diagnosis") and "picture" in t.details)
    picture = drawn.details["picture"]
    expected_figure, yours_figure = pictures[0].children  # side by side: siblings in one flex row
    assert [f.find("figcaption").all_text() for f in (expected_figure, yours_figure)] == ["expected", "yours"]
    for figure, grid in ((expected_figure, picture["expected"]), (yours_figure, picture["got"])):
        cells = list(figure.find("svg").iter("rect"))
        assert len(cells) == len(grid) * len(grid[0])
        for cell in cells:  # each cell's colour is its entry's: may attend dark, masked light
            i, j = (int(cell.attrs[axis]) // int(cell.attrs["width"]) for axis in ("y", "x"))
            assert cell.attrs["fill"] == (feedback.COLOURS["attend"] if grid[i][j] else feedback.COLOURS["masked"])
    differing = sum(a != b for want, got in zip(picture["expected"], picture["got"]) for a, b in zip(want, got))
    outlined = [c for c in yours_figure.find("svg").iter("rect") if c.attrs["stroke"] == feedback.COLOURS["differs"]]
    assert differing > 0 and len(outlined) == differing


def test_student_text_is_escaped_and_weights_and_nan_are_drawn():
    hostile = '<script>alert("x")</script><img src=http://evil/x.png>'
    picture = {"kind": "weights", "slice": [0, 1], "rows": "queries", "columns": "keys", "shape": [2, 2],
               "expected": [[1.0, 0.0], [0.5, 0.5]], "got": [[1.0, 0.0], ["nan", "nan"]]}
    softmax = ExerciseResult("exercise5", "Softmax", "exercises/exercise5_softmax.py", tests=[
        Check("test_rows", "failed", 2.0, message=f"wrong {hostile}", details={"picture": picture}),
        Check("test_sum", "passed", 1.0),
        Check("test_rows[cuda]", "skipped", 2.0, message="cuda is not available"),
    ], diagnoses=[{"id": "softmax-unstable", "message": "subtract the max"}], output=hostile)
    root = parse(report.render_html(GradeReport([softmax], "cpu", 3)))
    assert_self_contained(root)
    assert root.find("img") is None
    text = root.all_text()
    assert text.count(hostile) == 2  # shown as text, in the message and the printed output
    assert "1 of 2 checks passed; 1 not run here (another device)." in text
    yours = root.find("figure", **{"data-side": "got"}).find("svg")
    fills = [cell.attrs["fill"] for cell in yours.iter("rect")]
    assert fills[2:] == [feedback.COLOURS["nan"]] * 2  # the NaN row
    expected = [cell.attrs["fill"] for cell in root.find("figure", **{"data-side": "expected"}).iter("rect")]
    assert expected[0] == feedback.COLOURS["attend"] and expected[1] == "#ffffff"  # weight 1 and 0
    assert expected[2] == expected[3] not in (expected[0], expected[1])  # 0.5 in between
    assert "[0, 1]" in root.find("p", **{"class": "legend"}).all_text()  # which batch and head


def test_a_student_without_a_report_gets_a_page_that_says_why():
    record = {"student": "eve", "status": "no files", "message": "no exercise files anywhere in this folder",
              "report": None}
    root = parse(feedback.render_record(record))
    assert_self_contained(root)
    assert "eve" in root.find("h1").all_text()
    assert "no files" in root.all_text() and "no exercise files anywhere" in root.all_text()


def test_batch_writes_a_page_per_student(tmp_path):
    from test_batch import CORRECT, make_class

    folder = make_class(tmp_path / "class", {"amy": {"exercise3_scaling.py": CORRECT}, "eve": {"a.txt": "x"}})
    result = CliRunner().invoke(main, ["batch", str(folder), "--out", str(tmp_path / "grades.csv"), "--no-perf",
                                       "--device", "cpu", "--feedback", str(tmp_path / "pages")])
    assert result.exit_code == 0, result.output
    assert sorted(path.name for path in (tmp_path / "pages").iterdir()) == ["amy.html", "eve.html"]
    amy = parse((tmp_path / "pages" / "amy.html").read_text())
    record = json.loads((tmp_path / "grades" / "amy.json").read_text())
    score = next(e for e in record["report"]["exercises"] if e["id"] == "exercise3")
    row = next(r for r in amy.find("tbody").children if r.children[0].all_text() == "exercise3")
    assert row.children[3].all_text() == f"{score['score']:g} / {score['max_score']:g}"
