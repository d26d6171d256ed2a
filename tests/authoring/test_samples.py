"""The sample class a new user grades first: what each sample shows."""

from __future__ import annotations

from pathlib import Path


def test_the_sample_class_grades_as_described(chunklab):
    result = chunklab("grade", "samples/")
    assert result.exit_code == 0
    reports = {Path(r["submission"]).name: r for r in result.reports}
    assert list(reports) == [
        "alice",
        "bob_char_chunk.py",
        "carol_word_chunk.ipynb",
        "dave_word_chunk.ipynb",
        "erin_chunking_pipeline.py",
        "frank_chunking_pipeline.py",
        "grace.ipynb",
    ]
    full = {name for name, r in reports.items() if r["score"] == r["max_score"]}
    assert full == {"alice", "carol_word_chunk.ipynb", "grace.ipynb"}
    for name in ("bob_char_chunk.py", "dave_word_chunk.ipynb", "erin_chunking_pipeline.py"):
        assert reports[name]["status"] == "graded"
        assert 0 < reports[name]["score"] < reports[name]["max_score"]
    assert reports["frank_chunking_pipeline.py"]["status"] == "error"
    assert reports["frank_chunking_pipeline.py"]["errors"][0]["kind"] == "syntax_error"
    assert [w["kind"] for w in reports["grace.ipynb"]["warnings"]] == [
        "magic_skipped",
        "cell_failed",
    ]
    assert reports["grace.ipynb"]["lesson"] == "chunking_pipeline"
    # The readable table goes to stderr, one row per submission under a header.
    assert len(result.stderr.strip().splitlines()) == 1 + len(reports)
