"""`grade --out DIR --similarity`: report.html, feedback pages and similarity.csv hold the
numbers of the JSON reports, and show students only what the hidden-feedback policy allows."""

from __future__ import annotations

import csv
import io
import json
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from chunklab.class_out.class_tally import BINS, histogram_bin
from chunklab.class_out.students import page_names, student_of
from chunklab.cli import main
from chunklab.scoring.report import GradeReport
from tests.conftest import KIT_ROOT, LESSON_IDS

SAMPLE_STUDENTS = {"alice", "bob", "carol", "dave", "erin", "frank", "grace"}


class PageReader(HTMLParser):
    """The text of a page, its tables (each under the headings before it) and its links."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.headings: dict[str, str] = {"h2": "", "h3": ""}
        self.tables: list[dict[str, Any]] = []
        self.links: list[str] = []
        self.cards: list[tuple[str, str, str]] = []
        self.tags: list[str] = []
        self._heading: str | None = None
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self._card: list[str] | None = None
        self._card_label: str = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        attributes = dict(attrs)
        if tag in ("h2", "h3"):
            self._heading = tag
            self.headings[tag] = ""
            if tag == "h2":
                self.headings["h3"] = ""
        elif tag == "table":
            self.tables.append({**self.headings, "rows": []})
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "a" and attributes.get("href"):
            self.links.append(str(attributes["href"]))
        elif tag == "div" and attributes.get("class") == "card":
            self._card = []
        elif tag == "b" and self._card is not None:
            self._card_label = "".join(self._card).strip()
            self._card = []

    def handle_endtag(self, tag: str) -> None:
        if tag == self._heading:
            self._heading = None
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[-1]["rows"].append(self._row)
            self._row = None
        elif tag == "b" and self._card is not None and self._card_label:
            self.cards.append((self.headings["h2"], self._card_label, "".join(self._card).strip()))
            self._card, self._card_label = None, ""

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._heading:
            self.headings[self._heading] += data
        if self._cell is not None:
            self._cell.append(data)
        if self._card is not None:
            self._card.append(data)


def read_page(path: Path) -> PageReader:
    reader = PageReader()
    reader.feed(path.read_text(encoding="utf-8"))
    reader.close()
    return reader


def table_under(page: PageReader, h2_contains: str, h3: str) -> list[dict[str, str]]:
    for found in page.tables:
        if h2_contains in found["h2"] and found["h3"].startswith(h3):
            header, *rows = found["rows"]
            return [dict(zip(header, row, strict=True)) for row in rows]
    raise AssertionError(f"no table under {h2_contains} / {h3}")


@pytest.fixture(scope="module")
def graded_samples(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """The sample class graded once with --similarity and --feedback md."""
    out = tmp_path_factory.mktemp("class") / "out"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(KIT_ROOT)
        code = main(["grade", "samples/", "--out", str(out), "--similarity", "--feedback", "md"])
    assert code == 0
    reports = [
        json.loads(path.read_text(encoding="utf-8"))
        for path in sorted((out / "submissions").glob("*.json"))
    ]
    return out, reports


def test_every_class_file_is_written(graded_samples):
    out, reports = graded_samples
    assert (out / "report.html").is_file()
    assert (out / "similarity.csv").is_file()
    students = {student_of(GradeReport.from_json(r)) for r in reports}
    assert students == SAMPLE_STUDENTS
    assert {p.name for p in (out / "feedback").iterdir()} == {
        f"{s}.{suffix}" for s in students for suffix in ("html", "md")
    }


def test_report_cards_and_histogram_match_the_reports(graded_samples):
    out, reports = graded_samples
    page = read_page(out / "report.html")
    # Every lesson of the sample class (a lesson without a sample has no card to check).
    for lesson in sorted({r["lesson"] for r in reports if r["lesson"] in LESSON_IDS}):
        mine = [r for r in reports if r["lesson"] == lesson]
        cards = {label: value for h2, label, value in page.cards if lesson in h2}
        mean = sum(r["score"] for r in mine) / len(mine)
        assert cards == {
            "submissions": str(len(mine)),
            "graded": str(sum(r["status"] == "graded" for r in mine)),
            "mean score": f"{round(mean, 3):g} / {mine[0]['max_score']:g}",
            "full marks": str(sum(r["score"] == r["max_score"] for r in mine)),
        }
    # Each bar's title says how many submissions it holds.
    bars = [t for t in page.text if " at " in t and t.endswith("%")]
    expected = []
    for lesson in LESSON_IDS:
        counts = [0] * BINS
        for r in reports:
            if r["lesson"] == lesson:
                counts[histogram_bin(r["score"], r["max_score"])] += 1
        expected += [str(n) for n in counts]
    assert [bar.split(" at ")[0] for bar in bars] == expected


def test_rules_table_counts_rates_and_points_match_the_reports(graded_samples):
    out, reports = graded_samples
    page = read_page(out / "report.html")
    for lesson in LESSON_IDS:
        graded = [r for r in reports if r["lesson"] == lesson and r["status"] == "graded"]
        expected = {}
        # A rule is broken by a submission when any of its tests (public or hidden) fails.
        for rule in {t["rule"] for r in graded for t in r["tests"]}:
            runs = [[t for t in r["tests"] if t["rule"] == rule] for r in graded]
            runs = [tests for tests in runs if tests]
            broken = [tests for tests in runs if any(t["outcome"] != "passed" for t in tests)]
            if broken:
                lost = sum(t["max_score"] - t["score"] for tests in broken for t in tests)
                expected[rule] = (
                    f"{len(broken)} of {len(runs)}",
                    f"{len(broken) / len(runs) * 100:.0f}%",
                    f"{lost:g}",
                )
        rows = table_under(page, lesson, "Rules")
        assert {r["Rule"]: (r["Broken by"], r["Rate"], r["Points lost"]) for r in rows} == expected
        counts = [int(r["Broken by"].split(" of ")[0]) for r in rows]
        assert counts == sorted(counts, reverse=True)


def test_problems_and_students_tables_match_the_reports(graded_samples):
    out, reports = graded_samples
    page = read_page(out / "report.html")
    problems = table_under(page, "chunking_pipeline", "Errors")
    expected: dict[tuple[str, str], int] = {}
    for r in reports:
        if r["lesson"] != "chunking_pipeline":
            continue
        for level, found in (("error", r["errors"]), ("warning", r["warnings"])):
            for kind in {p["kind"] for p in found}:
                expected[(kind, level)] = expected.get((kind, level), 0) + 1
    assert ("syntax_error", "error") in expected and ("cell_failed", "warning") in expected
    assert {(p["Kind"], p["Level"], p["Submissions"]) for p in problems} == {
        (kind, level, str(count)) for (kind, level), count in expected.items()
    }
    students = table_under(page, "Students", "")
    totals = {}
    for r in reports:
        got, full = totals.get(student_of(GradeReport.from_json(r)), (0.0, 0.0))
        totals[student_of(GradeReport.from_json(r))] = (got + r["score"], full + r["max_score"])
    assert {row["Student"]: row["Total"] for row in students} == {
        s: f"{got:g} / {full:g}" for s, (got, full) in totals.items()
    }
    names = page_names(totals)
    assert {link for link in page.links if link.startswith("feedback/")} == {
        f"feedback/{names[s]}.html" for s in totals
    }


def test_report_is_self_contained(graded_samples):
    out, _ = graded_samples
    text = (out / "report.html").read_text(encoding="utf-8")
    page = read_page(out / "report.html")
    assert not {"script", "link", "img", "iframe", "object"} & set(page.tags)
    assert "url(" not in text and "@import" not in text and "https://" not in text


def test_feedback_pages_show_scores_and_broken_rules(graded_samples):
    out, reports = graded_samples
    for report in reports:
        page_text = " ".join(
            read_page(out / "feedback" / f"{student_of(GradeReport.from_json(report))}.html").text
        )
        assert f"{report['score']:g} / {report['max_score']:g}" in page_text
        for test in report["tests"]:
            if test["outcome"] == "passed":
                continue
            assert test["rule"] in page_text
            # The default policy (rule) shows public inputs and hides the hidden ones,
            # in the JSON report and on the page alike: a hidden check offers at most
            # an input to try, or a verdict that names no input, never its own.
            if test["visibility"] == "hidden":
                assert test["feedback"] == "" or test["feedback"].startswith(("Try: ", "Verdict: "))
                if test["feedback"]:
                    assert test["feedback"].splitlines()[0] in page_text
                continue
            given = next(
                line for line in test["feedback"].splitlines() if line.startswith("Input: ")
            )
            assert given in page_text
        for error in report["errors"] + report["warnings"]:
            assert error["message"].splitlines()[-1] in page_text


def test_feedback_page_draws_expected_against_got(graded_samples):
    out, _ = graded_samples
    text = (out / "feedback" / "bob.html").read_text(encoding="utf-8")
    # bob's public failure: chunk('abcdefg', 3, 1) gave a trailing scrap 'g'.
    assert "<h4>Expected</h4>" in text and "<h4>Got</h4>" in text
    assert "3 chunks of a 7-character text; 2 characters in overlaps" in text
    assert "4 chunks of a 7-character text; 3 characters in overlaps" in text


def test_similarity_csv_flags_the_copied_sample(graded_samples):
    out, _ = graded_samples
    rows = list(csv.DictReader(io.StringIO((out / "similarity.csv").read_text(encoding="utf-8"))))
    # grace's notebook and frank's file hold the same pipeline (frank's with a typo).
    assert [(r["lesson"], r["student_a"], r["student_b"]) for r in rows] == [
        ("chunking_pipeline", "frank", "grace")
    ]
    assert float(rows[0]["score"]) >= 0.9
    page = read_page(out / "report.html")
    assert any("frank and grace" in t for t in page.text)


def test_similarity_needs_an_output_folder(chunklab):
    result = chunklab("grade", "samples/bob_char_chunk.py", "--similarity")
    assert result.exit_code == 2
    assert "--out" in result.stderr


def test_without_similarity_no_csv_and_no_section(chunklab, tmp_path):
    result = chunklab("grade", "samples/bob_char_chunk.py", "--out", tmp_path / "out")
    assert result.exit_code == 0
    assert not (tmp_path / "out" / "similarity.csv").exists()
    assert sorted(p.name for p in (tmp_path / "out" / "feedback").iterdir()) == ["bob.html"]
    page = read_page(tmp_path / "out" / "report.html")
    assert "Similar code" not in page.headings["h2"] and not any(
        "Similar code" in t for t in page.text
    )


def test_similarity_without_its_extra_is_a_usage_error(chunklab, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "copydetect", None)  # as if it were not installed
    out = tmp_path / "out"
    result = chunklab("grade", "samples/bob_char_chunk.py", "--out", out, "--similarity")
    assert result.exit_code == 2
    assert "pip install 'chunklab[similarity]'" in result.stderr
    # Said before grading, not after.
    assert not out.exists()
