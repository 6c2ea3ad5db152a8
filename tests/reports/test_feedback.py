"""The feedback page (`--format html`, `batch --feedback`): parsed here with the standard library's
HTML parser and checked for its structure: self-contained (no script, nothing loaded), a score
row per exercise, a block per problem (every failed check in one), no internal ids, and for a
wrong mask two heatmaps side by side whose cells are the two matrices, entry for entry; weights
shaded per row, their difference on a diverging scale. (benchmarks/feedback_page.py renders one
in Chromium.)"""

import json
from html import escape
from html.parser import HTMLParser

from click.testing import CliRunner

from conftest import SUBMISSIONS
from grader.reports import html as feedback, json_report
from grader.reports.formats import render_html
from grader import catalog
from grader.cli.main import main
from grader.grading import runner
from grader.grading.results import ExerciseResult, GradeReport
from grader.grading.settings import Settings
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


def blocks_of(section):
    return [div for div in section.iter("div") if div.attrs.get("class") == "test"]


def test_the_page_of_a_wrong_mask_shows_both_heatmaps_side_by_side(grade):
    result = grade(4, path=SUBMISSIONS / "exercise4" / "wrong_inverted_causal.py")
    page = render_html(GradeReport([result], "cpu", 0))
    root = parse(page)
    assert_self_contained(root)
    rows = root.find("table").find("tbody").children
    assert len(rows) == 1 and rows[0].children[0].all_text() == "exercise4"
    assert rows[0].children[3].all_text() == f"{result.score:g} / {result.max_score:g}"
    section = root.find("section", id="exercise4")
    failed = [t for t in result.tests if t.status not in ("passed", "skipped")]
    blocks = blocks_of(section)
    shown = [name for b in blocks for name in (b.find("p", **{"class": "cases"}) or b.find("h3")).all_text()
             .removeprefix("✗ ").split(" — ")[0].split(", ")]
    assert sorted(shown) == sorted(t.name for t in failed)  # every failed check, in one block or another
    assert len(blocks) < len(failed)  # the cases of one mistake share a block
    messages = {t.message for t in failed}
    assert all(b.find("p", **{"class": "message"}).all_text() in messages for b in blocks)
    diagnosis = section.find("div", **{"class": "diagnosis"})
    assert "wrong way round" in diagnosis.all_text()
    assert "mask-inverted" not in page  # an internal id: in the JSON, never on the page a student reads
    links = [a.attrs["href"] for a in section.iter("a")]
    assert links and set(links) == {"#" + diagnosis.attrs["id"]}  # each block links to the explanation

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
    cells = len(picture["got"]) * len(picture["got"][0])
    assert differing > 0 and len(outlined) == (differing if differing <= cells // 2 else 0)  # only a few informs
    assert f"yours differs in {differing} of {cells} entries" in pictures[0].parent.all_text()


def weights_picture(expected, got):
    return {"kind": "weights", "slice": [0, 1], "rows": "queries", "columns": "keys",
            "shape": [len(expected), len(expected[0])], "expected": expected, "got": got}


def fills(root, side):
    return [cell.attrs["fill"] for cell in root.find("figure", **{"data-side": side}).find("svg").iter("rect")]


def test_student_text_is_escaped_and_weights_and_nan_are_drawn():
    hostile = '<script>alert("x")</script><img src=http://evil/x.png>'
    picture = weights_picture([[1.0, 0.0], [0.5, 0.5]], [[1.0, 0.0], ["nan", "nan"]])
    softmax = ExerciseResult("exercise5", "Softmax", "exercises/exercise5_softmax.py", tests=[
        Check("test_rows", "failed", 2.0, message=f"wrong {hostile}", details={"picture": picture}),
        Check("test_sum", "passed", 1.0),
        Check("test_rows[cuda]", "skipped", 2.0, message="cuda is not available"),
    ], diagnoses=[{"id": "softmax-unstable", "message": "subtract the max"}], output=hostile)
    root = parse(render_html(GradeReport([softmax], "cpu", 3)))
    assert_self_contained(root)
    assert root.find("img") is None
    text = root.all_text()
    assert text.count(hostile) == 2  # shown as text, in the message and the printed output
    assert "1 of 2 checks passed; 1 not run here (another device)." in text
    assert fills(root, "got")[2:] == [feedback.COLOURS["nan"]] * 2  # the NaN row
    low, high = feedback.SEQUENTIAL[0], feedback.SEQUENTIAL[-1]
    assert fills(root, "expected") == [high, low, high, high]  # each row from 0 to its largest weight
    assert fills(root, "difference")[:2] == [feedback.DIVERGING[2]] * 2  # no difference: the midpoint
    assert "[0, 1]" in root.find("p", **{"class": "legend"}).all_text()  # which batch and head


def test_pale_weights_show_their_structure_and_differences_diverge():
    """Weights of 0.1 to 0.3 (a softmax over many keys) span the whole colour scale, row by row;
    yours − expected is drawn on a diverging scale; when every entry differs none is outlined."""
    expected = [[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25], [0.4, 0.3, 0.2, 0.1]]
    got = [[0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3, 0.4]]
    root = parse("\n".join(["<!DOCTYPE html><html><head><style></style></head><body>",
                            *feedback.heatmaps(weights_picture(expected, got)), "</body></html>"]))
    shades = fills(root, "expected")
    assert shades[3] == shades[8] == feedback.SEQUENTIAL[-1] and shades[0] != shades[3]  # a row's largest: darkest
    assert len(set(shades[4:8])) == 1  # a uniform row is one colour
    difference = fills(root, "difference")
    assert difference[0] == feedback.DIVERGING[-1] and difference[3] == feedback.DIVERGING[0]  # +0.3, -0.3
    assert not [c for c in root.iter("rect") if c.attrs["stroke"] == feedback.COLOURS["differs"]]
    few = [row[:] for row in expected]
    few[1][2] = 0.9
    root = parse("\n".join(["<!DOCTYPE html><html><head><style></style></head><body>",
                            *feedback.heatmaps(weights_picture(expected, few)), "</body></html>"]))
    outlined = [c for c in root.find("figure", **{"data-side": "got"}).iter("rect")
                if c.attrs["stroke"] == feedback.COLOURS["differs"]]
    assert [(int(c.attrs["y"]) // int(c.attrs["height"]), int(c.attrs["x"]) // int(c.attrs["width"]))
            for c in outlined] == [(1, 2)]  # the one entry that differs, among twelve


def test_identical_failures_are_one_block_and_the_tolerance_is_said_once():
    tolerance = {"dtype": "float32", "text": "1e-05 + 0.0001·|expected|"}

    def mismatch(name, got):
        return Check(name, "failed", 1.0, details={"tolerance": tolerance, "diagnosis": "divisor:√q.size(1)"},
                     message=f"scale_scores(s, 8) is wrong at [0, 0]: got {got}, expected 1; 9 of 9 values are off "
                             "(tolerance 1e-05 + 0.0001·|expected|)")

    stub = [Check(f"test_other_{n}", "failed", 1.0, message="scaled_scores is not implemented yet") for n in range(3)]
    scaling = ExerciseResult("exercise3", "Scale", "exercise3_scaling.py", tests=[
        mismatch("test_values[cpu-float32]", 2), mismatch("test_values[cpu-L=1]", 3), *stub],
        diagnoses=[{"id": "divisor:√q.size(1)", "message": "you divided by the length, not √d_k"}])
    page = render_html(GradeReport([scaling], "cpu", 0))
    root = parse(page)
    titles = [b.find("h3").all_text() for b in blocks_of(root.find("section", id="exercise3"))]
    assert titles == ["✗ test_values — 2 cases — 0 / 2", "✗ 3 checks — 0 / 3"]  # one mistake; one message
    assert "divisor" not in page and "√q.size(1)" not in page  # the id stays in the JSON
    assert page.count("(tolerance") == 0 and page.count("1e-05 + 0.0001·|expected| in float32") == 1


def test_a_student_without_a_report_gets_a_page_that_says_why():
    record = {"student": "eve", "status": "no files", "message": "no exercise files anywhere in this folder",
              "report": None}
    root = parse(feedback.render_record(record))
    assert_self_contained(root)
    assert "eve" in root.find("h1").all_text()
    assert "no files" in root.all_text() and "no exercise files anywhere" in root.all_text()


def reasons_shown(section):
    """The texts of the section's block that says why its file could not be graded (None: no such block)."""
    block = next((b for b in blocks_of(section) if b.attrs.get("data-status") == "not_run"), None)
    return block and [p.all_text() for p in block.iter("p")]


def test_the_page_says_once_why_a_file_could_not_be_graded_and_which_were_not_handed_in(launcher, tmp_path):
    """A file that does not import, and one never handed in: each exercise's reason is on the page
    once (as in the JSON), the checks it kept from running are counted, not listed with a message
    that sends the student elsewhere, and the file column names no file the student never gave."""
    (tmp_path / "exercise3_scaling.py").write_text("print(1\n")
    verdict = runner.grade([catalog.find("1"), catalog.find("3")],
                           Settings(submission=tmp_path, device="cpu", perf=False), launcher=launcher)
    data = json.loads(json_report.render(verdict))
    projection, scaling = data["exercises"]
    assert (projection["handed_in"], scaling["handed_in"]) == (False, True)
    assert "SyntaxError" in scaling["error"] and "exercise1_projection.py" in projection["error"]
    page = render_html(verdict)
    root = parse(page)
    assert_self_contained(root)
    files = {row.children[0].all_text(): row.children[2].all_text() for row in root.find("tbody").children}
    assert files == {"exercise1": "not handed in", "exercise3": str(tmp_path / "exercise3_scaling.py")}
    for exercise in (projection, scaling):
        section = root.find("section", id=exercise["id"])
        shown = reasons_shown(section)
        not_run = [t for t in exercise["tests"] if t["status"] == "not_run"]
        assert shown == [exercise["error"], f"{len(not_run)} checks not run (0 / {exercise['max_score']:g})."]
        assert blocks_of(section)[1:] == []  # nothing else: the not-run checks are counted above
        assert page.count(escape(exercise["error"])) == 1
    assert "the reason is given once" not in page


def test_a_diagnosed_block_links_to_its_explanation_in_one_sentence():
    """The sentence, full stop included, is the link: no text beside it for a reader or a text
    dump to space apart from it ("the mistake explained above .")."""
    wrong = Check("test_mask", "failed", 1.0, message="wrong", details={"diagnosis": "mask-inverted"})
    masking = ExerciseResult("exercise4", "Masks", "exercise4_masking.py", tests=[wrong],
                             diagnoses=[{"id": "mask-inverted", "message": "the wrong way round"}])
    root = parse(render_html(GradeReport([masking], "cpu", 0)))
    legend = next(p for p in blocks_of(root)[0].iter("p") if p.attrs.get("class") == "legend")
    assert legend.all_text() == "This check shows the mistake explained above."


def test_batch_writes_a_page_per_student(tmp_path):
    from test_batch import CORRECT, make_class

    folder = make_class(tmp_path / "class", {"amy": {"exercise3_scaling.py": CORRECT, "exercise1_projection.py": "print(1"},
                                             "eve": {"a.txt": "x"}})
    result = CliRunner().invoke(main, ["batch", str(folder), "--out", str(tmp_path / "grades.csv"), "--no-perf",
                                       "--device", "cpu", "--feedback", str(tmp_path / "pages")])
    assert result.exit_code == 0, result.output
    assert sorted(path.name for path in (tmp_path / "pages").iterdir()) == ["amy.html", "eve.html"]
    amy = parse((tmp_path / "pages" / "amy.html").read_text())
    record = json.loads((tmp_path / "grades" / "amy.json").read_text())
    score = next(e for e in record["report"]["exercises"] if e["id"] == "exercise3")
    row = next(r for r in amy.find("tbody").children if r.children[0].all_text() == "exercise3")
    assert row.children[3].all_text() == f"{score['score']:g} / {score['max_score']:g}"
    files = {r.children[0].all_text(): r.children[2].all_text() for r in amy.find("tbody").children}
    assert (files["exercise1"], files["exercise3"], files["exercise2"]) == (
        "exercise1_projection.py", "exercise3_scaling.py", "not handed in")
    exercises = {e["id"]: e for e in record["report"]["exercises"]}
    for exercise_id, says in (("exercise1", "SyntaxError"), ("exercise2", "upload it under exactly this name")):
        assert says in exercises[exercise_id]["error"]
        assert reasons_shown(amy.find("section", id=exercise_id))[0] == exercises[exercise_id]["error"]
