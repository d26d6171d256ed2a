"""Grading on a Dask cluster gives what grading here gives, and survives a cluster's faults."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from distributed import Client, LocalCluster

from chunklab.authoring.validation import as_notebook, expectations
from chunklab.cluster import cpu_claim, on_dask, task
from chunklab.cluster.on_dask import SchedulerLostError, grade_on_dask, task_groups
from chunklab.cluster.parcel import pack
from chunklab.cluster.task import VersionMismatchError, grade_parcels, kit_stamp
from chunklab.errors import KitLayoutError, SubmissionTooLargeError
from chunklab.kit import Kit
from chunklab.lessons import LESSONS
from chunklab.pipeline.parallel import Result, grade_many
from chunklab.reading.read import SubmissionPath, find_submissions, read_found
from chunklab.sandbox.limits import Limits
from chunklab.scoring.report import GradeReport
from tests.conftest import KIT_ROOT
from tests.reading.deep_folders import nested, unnest

KIT = Kit(KIT_ROOT)
LIMIT = Limits().max_submission_kb * 1024


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0"
    ) as local:
        yield local


@pytest.fixture(scope="module")
def client(cluster: LocalCluster) -> Iterator[Client]:
    with Client(cluster.scheduler_address, set_as_default=False) as connected:
        yield connected


def comparable(report: GradeReport | dict[str, Any]) -> dict[str, Any]:
    """A report (a record, or one a command printed) without what differs between machines."""
    data = report.to_json() if isinstance(report, GradeReport) else report
    return {k: v for k, v in data.items() if k not in ("duration_s", "isolation")}


def comparable_lines(stdout: str) -> list[dict[str, Any]]:
    return [comparable(json.loads(line)) for line in stdout.splitlines()]


def graded_once(results: Iterator[Result], count: int) -> list[dict]:
    """The reports in input order, after checking that each came exactly once."""
    pairs = list(results)
    assert sorted(index for index, _ in pairs) == list(range(count))
    return [comparable(report) for _, report in sorted(pairs, key=lambda pair: pair[0])]


def copied_class(folder: Path, copies: int) -> list[tuple[int, SubmissionPath]]:
    """The sample class, `copies` times over, as numbered items."""
    paths = [shutil.copytree(KIT_ROOT / "samples", folder / f"copy{n}") for n in range(copies)]
    return list(enumerate(find_submissions(paths)))


def test_the_sample_class_grades_on_dask_as_it_does_here(chunklab, cluster, tmp_path):
    here = chunklab("grade", "--out", tmp_path / "here", "samples/")
    there = chunklab(
        "grade", "--dask", cluster.scheduler_address, "--out", tmp_path / "there", "samples/"
    )
    assert (here.exit_code, there.exit_code) == (0, 0)
    assert len(here.reports) == 7
    assert comparable_lines(there.stdout) == comparable_lines(here.stdout)
    # The same table, and the same files said to be written (each in its own folder).
    assert there.stderr.replace(str(tmp_path / "there"), "OUT") == here.stderr.replace(
        str(tmp_path / "here"), "OUT"
    )
    for name in ("gradebook.csv",):
        assert (tmp_path / "there" / name).read_text() == (tmp_path / "here" / name).read_text()


def test_resume_on_dask_grades_only_what_is_missing(chunklab, cluster, tmp_path):
    here = chunklab("grade", "--out", tmp_path, "samples/")
    written = sorted((tmp_path / "submissions").iterdir())
    for path in written[:3]:
        path.unlink()
    kept = {path: path.read_bytes() for path in written[3:]}
    resumed = chunklab(
        "grade", "--dask", cluster.scheduler_address, "--resume", "--out", tmp_path, "samples/"
    )
    assert resumed.exit_code == 0
    assert comparable_lines(resumed.stdout) == comparable_lines(here.stdout)
    assert {path: path.read_bytes() for path in written[3:]} == kept  # not graded again
    assert sorted((tmp_path / "submissions").iterdir()) == written


def test_the_validate_corpus_grades_on_dask_as_it_does_here(cluster, tmp_path, corpus_graded):
    # Every kind of file of every lesson (a sample of the known mistakes: the whole corpus
    # is proved locally by `chunklab validate`), and the solutions as notebooks.
    cases = [
        case
        for lesson in LESSONS.values()
        for k, case in enumerate(expectations(KIT, lesson))
        if case.kind != "mistake" or k % 6 == 0
    ]
    cases += [as_notebook(case, tmp_path) for case in cases if case.kind == "reference"]
    items = [(i, SubmissionPath(case.path, str(case.path))) for i, case in enumerate(cases)]
    # The default limits: calls fitted to the reference's time make the mistakes that never
    # finish cheap, and the long documents keep the time their tests state.
    limits = Limits()
    # Graded here once for the session (see `corpus_graded`); the notebooks only now.
    notebooks = [(i, item) for i, item in items if cases[i].path not in corpus_graded]
    graded = dict(grade_many(notebooks, None, KIT, limits, 2))
    here = [comparable(graded.get(i) or corpus_graded[cases[i].path]) for i, _ in items]
    there = graded_once(
        grade_on_dask(cluster.scheduler_address, items, None, KIT, limits, 1), len(items)
    )
    assert [without_timing_edge(r) for r in there] == [without_timing_edge(r) for r in here]


def without_timing_edge(report: dict[str, Any]) -> dict[str, Any]:
    """A report without what a machine's speed may decide for code near a time limit.

    A mistake built to be slow on a long document (quadratic work, deep recursion)
    fails there either way, but whether its call first runs out of time or into
    Python's recursion limit depends on how fast the machine is at that moment.
    """
    tests = [t for t in report["tests"] if not t["name"].endswith("test_a_long_document")]
    kept = {k: v for k, v in report.items() if k != "score"}
    return {**kept, "tests": tests}


def test_a_worker_killed_mid_run_loses_and_repeats_nothing(cluster, client, tmp_path):
    items = copied_class(tmp_path, 4)
    limits = Limits()
    here = graded_once(grade_many(items, None, KIT, limits, 1), len(items))
    pids = client.run(os.getpid)
    killed: list[str] = []

    def kill_a_busy_worker(
        results: Iterator[Result],
    ) -> Iterator[Result]:
        for pair in results:
            if not killed:
                busy = [address for address, keys in client.processing().items() if keys]
                os.kill(pids[busy[0]], signal.SIGKILL)
                killed.append(busy[0])
            yield pair

    run = grade_on_dask(cluster.scheduler_address, items, None, KIT, limits, 1, group_size=2)
    there = graded_once(kill_a_busy_worker(run), len(items))
    assert killed and killed[0] not in client.run(os.getpid)  # it really died
    assert there == here
    client.wait_for_workers(2, timeout=60)  # the nanny restarts it for the next test


def test_a_worker_with_another_version_refuses_the_task(client):
    alice = SubmissionPath(KIT_ROOT / "samples" / "alice", "samples/alice")
    parcel = pack(0, alice, None, LIMIT)
    future = client.submit(
        grade_parcels, [parcel], None, Limits(), "0.0.1 (kit 000000000000)", pure=False
    )
    with pytest.raises(VersionMismatchError) as refused:
        future.result()
    message = str(refused.value)
    assert "chunklab 0.0.1 (kit 000000000000)" in message
    assert f"chunklab {kit_stamp(KIT)}" in message
    assert "tcp://" in message  # which worker


def test_a_run_that_meets_another_version_stops_with_both_named(chunklab, cluster, monkeypatch):
    monkeypatch.setattr(on_dask, "kit_stamp", lambda kit: "9.9.9 (kit 999999999999)")
    result = chunklab("grade", "--dask", cluster.scheduler_address, "samples/bob_char_chunk.py")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "has chunklab" in result.stderr
    assert "this machine has chunklab 9.9.9 (kit 999999999999)" in result.stderr
    assert kit_stamp(KIT) in result.stderr


def test_the_stamp_changes_with_a_reference_solution(tmp_path):
    kit = Kit(tmp_path)
    (tmp_path / "solutions").mkdir()
    (tmp_path / "solutions" / "char_chunk.py").write_text("def chunk(t, s, o):\n    return []\n")
    before = kit_stamp(kit)
    (tmp_path / "solutions" / "char_chunk.py").write_text("def chunk(t, s, o):\n    return [t]\n")
    assert kit_stamp(kit) != before
    assert before.split(" ")[0] == kit_stamp(KIT).split(" ")[0]  # the version, then the digest


def test_the_stamp_carries_the_suites_digest_every_report_names():
    report = GradeReport("char_chunk", "x.py", "error")
    assert f"(suites {report.kit.suites}, kit " in kit_stamp(KIT)
    assert kit_stamp(KIT).startswith(f"{report.kit.version} ")


def test_a_lost_scheduler_ends_the_run_with_a_message_naming_resume(tmp_path):
    scheduler_file = tmp_path / "scheduler.json"
    dask = Path(sys.executable).parent / "dask"
    scheduler = subprocess.Popen(
        [dask, "scheduler", "--port", "0", "--no-dashboard", "--scheduler-file", scheduler_file],
        stderr=subprocess.DEVNULL,
    )
    worker = subprocess.Popen(
        [dask, "worker", "--scheduler-file", scheduler_file, "--nthreads", "1", "--no-dashboard"],
        stderr=subprocess.DEVNULL,
    )
    try:
        with Client(scheduler_file=str(scheduler_file), timeout=60) as watcher:
            watcher.wait_for_workers(1, timeout=60)
            address = watcher.scheduler.address
        items = copied_class(tmp_path / "class", 3)
        received = []
        with pytest.raises(SchedulerLostError) as stopped:
            for pair in grade_on_dask(address, items, None, KIT, Limits(), 1, group_size=1):
                if not received:
                    scheduler.kill()
                received.append(pair)
        assert 0 < len(received) < len(items)
        assert str(stopped.value) == (
            f"lost the Dask scheduler at {address}; the reports printed so far are written: "
            "run the same command with --resume to grade the rest"
        )
    finally:
        for process in (worker, scheduler):
            process.kill()
            process.wait()


def test_an_unreachable_scheduler_is_named(chunklab, monkeypatch):
    monkeypatch.setattr(on_dask, "CONNECT_SECONDS", 1)
    result = chunklab("grade", "--dask", "tcp://127.0.0.1:9", "samples/alice")
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "chunklab grade: cannot reach the Dask scheduler at tcp://127.0.0.1:9"
    )


def test_links_and_fifos_are_reported_never_followed(cluster, tmp_path):
    secret = tmp_path / "secret_char_chunk.py"
    secret.write_text((KIT_ROOT / "solutions" / "char_chunk.py").read_text())
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "a_link_char_chunk.py").symlink_to(secret)
    os.mkfifo(folder / "b_fifo_char_chunk.py")
    (folder / "c_folder").mkdir()
    (folder / "c_folder" / "char_chunk.py").symlink_to(secret)
    (folder / "d_linked_folder").symlink_to(folder / "c_folder")
    items = list(enumerate(find_submissions([folder])))
    reports = graded_once(
        grade_on_dask(cluster.scheduler_address, items, "char_chunk", KIT, Limits(), 1), 4
    )
    # The same reports as grading here, which never follows or opens them either.
    here = graded_once(grade_many(items, "char_chunk", KIT, Limits(), 1), 4)
    assert reports == here
    expected = [
        ("a_link_char_chunk.py", "a symbolic link"),
        ("b_fifo_char_chunk.py", "a FIFO (named pipe)"),
        ("c_folder/char_chunk.py", "a symbolic link"),
        ("d_linked_folder", "a symbolic link"),
    ]
    full_marks = reports[0]["max_score"]
    assert full_marks > 0
    for report, (name, what) in zip(reports, expected, strict=True):
        assert report["status"] == "error"
        assert report["lesson"] == "char_chunk"
        assert report["score"] == 0 and report["max_score"] == full_marks
        assert report["errors"] == [
            {
                "kind": "unsafe_path",
                "message": f"{name} is {what}, which is never read or followed; "
                "hand in the file itself",
            }
        ]


def hostile_class(folder: Path) -> Path:
    """A class whose folders test every limit of the reader, and one plain student."""
    solution = (KIT_ROOT / "solutions" / "char_chunk.py").read_text()
    students = ("deep", "crowded", "heavy", "linked", "plain")
    for name in students:
        (folder / name).mkdir(parents=True)
        (folder / name / "char_chunk.py").write_text(solution)
    nested(folder / "deep", 1_100)
    for number in range(10_050):
        (folder / "crowded" / f"note{number}").touch()
    for number in range(20):  # sparse: 16 MB each, nothing written
        with open(folder / "heavy" / f"draft{number}.ipynb", "wb") as draft:
            draft.truncate(16 * 1024 * 1024)
    (folder / "linked" / "lib.py").symlink_to(KIT_ROOT / "solutions", target_is_directory=True)
    (folder / "z_folder_link").symlink_to(folder / "plain", target_is_directory=True)
    return folder


def test_a_class_at_the_readers_limits_gives_the_same_output_on_dask(
    chunklab, cluster, tmp_path, request
):
    folder = hostile_class(tmp_path / "char_chunk_class")
    request.addfinalizer(lambda: unnest(folder / "deep"))
    here = chunklab("grade", "--jobs", "1", "--jsonl", folder)
    there = chunklab("grade", "--jsonl", "--dask", cluster.scheduler_address, folder)
    assert (here.exit_code, there.exit_code) == (0, 0)
    assert comparable_lines(there.stdout) == comparable_lines(here.stdout)
    outcome = {
        Path(r["submission"]).name: (r["status"], [e["kind"] for e in r["errors"]])
        for r in here.reports
    }
    assert outcome == {
        "deep": ("error", ["unreadable"]),
        "crowded": ("error", ["unreadable"]),
        "heavy": ("graded", []),
        "linked": ("error", ["unsafe_path"]),
        "plain": ("graded", []),
        "z_folder_link": ("error", ["unsafe_path"]),
    }


def test_a_submission_travels_as_the_code_read_from_it(tmp_path):
    student = tmp_path / "char_chunk_class" / "heavy"
    student.mkdir(parents=True)
    (student / "char_chunk.py").write_text("def chunk(text, size, overlap):\n    return []\n")
    (student / "tools.py").write_text("x = 1\n")
    for number in range(20):  # sparse: 16 MB each, nothing written
        with open(student / f"draft{number}.ipynb", "wb") as draft:
            draft.truncate(16 * 1024 * 1024)
    item = SubmissionPath(student, "given/heavy", "heavy")
    parcel = pack(5, item, None, LIMIT)
    assert (parcel.index, parcel.item) == (5, item)
    assert parcel.read == read_found(item, None, LIMIT)  # what a local run reads
    assert len(pickle.dumps(parcel)) < 20_000  # no draft travels


def test_a_submission_that_cannot_be_read_travels_as_its_error(tmp_path):
    big = tmp_path / "big_char_chunk.py"
    with open(big, "wb") as file:
        file.truncate(6_000_000)
    parcel = pack(0, SubmissionPath(big, str(big)), None, LIMIT)
    assert isinstance(parcel.read, SubmissionTooLargeError)
    assert len(pickle.dumps(parcel)) < 2_000


def test_task_groups_take_every_item_once_from_stretches_of_the_input():
    names = ["a_char_chunk.py", "b_word_chunk.py", "c.ipynb", "d_char_chunk.py"] * 30
    items = [(i, SubmissionPath(Path(name), name)) for i, name in enumerate(names)]
    groups = list(task_groups(items, 5))
    assert sorted(index for group in groups for index, _ in group) == list(range(120))
    assert all(len(group) <= 5 for group in groups)
    stretch = 5 * on_dask.STRETCH_GROUPS
    for group in groups:
        assert len({index // stretch for index, _ in group}) == 1
    lessons_per_group = [len({Path(item.display).stem[2:] for _, item in g}) for g in groups]
    assert lessons_per_group.count(1) >= len(groups) - 3 * (120 // stretch)


def test_without_distributed_installed_the_option_says_what_to_install(chunklab, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails as if not installed
    result = chunklab("grade", "--dask", "tcp://127.0.0.1:9", "samples/alice")
    assert result.exit_code == 2
    assert result.stderr == (
        "chunklab grade: grading on Dask needs the distributed package: "
        "pip install 'chunklab[dask]'\n"
    )


def test_a_worker_without_the_kit_says_which_worker(monkeypatch):
    def no_kit() -> Kit:
        raise KitLayoutError("cannot find the kit's solutions/ and exercises/ folders")

    monkeypatch.setattr(task, "find_kit", no_kit)
    with pytest.raises(KitLayoutError) as refused:
        task.grade_parcels([], None, Limits(), kit_stamp(KIT))
    assert str(refused.value) == (
        "on the Dask worker (not in a Dask worker): "
        "cannot find the kit's solutions/ and exercises/ folders"
    )


class FailedTask:
    """A finished Dask future whose task raised `error` (as `outcome` sees one)."""

    status = "error"

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def exception(self) -> BaseException:
        return self.error


def test_a_worker_without_chunklab_stops_the_run():
    group = [(0, SubmissionPath(Path("a_char_chunk.py"), "a_char_chunk.py"))]
    missing = ModuleNotFoundError("No module named 'chunklab'", name="chunklab")
    with pytest.raises(VersionMismatchError) as stopped:
        on_dask.outcome(FailedTask(missing), group)
    assert str(stopped.value) == (
        "a Dask worker cannot run chunklab (No module named 'chunklab'); install the same "
        "checkout of the kit on every worker (pip install -e . in it) and grade again"
    )


def test_a_task_that_kept_failing_is_reported_for_each_of_its_submissions():
    group = [(3, SubmissionPath(Path("a_char_chunk.py"), "c/a_char_chunk.py"))]
    group += [(4, SubmissionPath(Path("b_char_chunk.py"), "c/b_char_chunk.py"))]
    [(first, a), (second, b)] = on_dask.outcome(FailedTask(RuntimeError("workers died")), group)
    assert (first, second) == (3, 4)
    assert [a.submission, b.submission] == ["c/a_char_chunk.py", "c/b_char_chunk.py"]
    assert a.status == "error" and a.score == 0
    assert a.errors[0].kind == "internal"
    assert "(RuntimeError: workers died)" in a.errors[0].message


def test_broken_submissions_get_the_reports_they_get_here(cluster, tmp_path):
    folder = tmp_path / "char_chunk_class"
    (folder / "empty").mkdir(parents=True)
    (folder / "two_files").mkdir()
    (folder / "two_files" / "a.py").write_text("x = 1\n")
    (folder / "two_files" / "b.py").write_text("y = 2\n")
    (folder / "a_syntax_char_chunk.py").write_text("def chunk(text, size, overlap)\n")
    (folder / "b_garbage_char_chunk.py").write_bytes(bytes(range(256)) * 4)
    (folder / "c_broken_char_chunk.ipynb").write_text('{"cells": [')
    (folder / "d_exit_char_chunk.py").write_text("import os\nos._exit(3)\n")
    (folder / "e_no_lesson.py").write_text("def chunk(text, size, overlap):\n    return []\n")
    with open(folder / "f_huge_word_chunk.py", "wb") as huge:
        huge.truncate(6_000_000)
    items = list(enumerate(find_submissions([folder])))
    here = graded_once(grade_many(items, None, KIT, Limits(), 1), len(items))
    there = graded_once(
        grade_on_dask(cluster.scheduler_address, items, None, KIT, Limits(), 1), len(items)
    )
    assert there == here
    kinds = {Path(r["submission"]).name: [e["kind"] for e in r["errors"]] for r in there}
    assert kinds == {
        "a_syntax_char_chunk.py": ["syntax_error"],
        "b_garbage_char_chunk.py": ["unreadable"],
        "c_broken_char_chunk.ipynb": ["broken_notebook"],
        "d_exit_char_chunk.py": ["worker_died"],
        "e_no_lesson.py": [],  # its lesson is told from the folder around it, there too
        "empty": ["unreadable"],
        "f_huge_word_chunk.py": ["too_large"],
        "two_files": ["unreadable"],
    }


def test_each_grading_session_claims_a_cpu_of_its_own(tmp_path, monkeypatch):
    monkeypatch.setattr(cpu_claim, "CLAIMS_DIR", tmp_path)
    cpus = sorted(os.sched_getaffinity(0))
    seen: list[tuple[int | None, set[int]]] = []

    def claim() -> None:
        fd = cpu_claim.claim_a_cpu()
        seen.append((fd, os.sched_getaffinity(0)))

    for _ in range(len(cpus) + 1):
        thread = threading.Thread(target=claim)
        thread.start()
        thread.join()
    assert [affinity for _, affinity in seen] == [{cpu} for cpu in cpus] + [set(cpus)]
    assert seen[-1][0] is None  # every CPU taken: left where the system puts it
    assert os.sched_getaffinity(0) == set(cpus)  # only the claiming thread was pinned
    for fd, _ in seen[:-1]:
        os.close(fd)  # a session's end (its process's end) frees its CPU
    seen.clear()
    thread = threading.Thread(target=claim)
    thread.start()
    thread.join()
    assert seen[0][1] == {cpus[0]}
    os.close(seen[0][0])


def test_no_place_to_claim_a_cpu_in_leaves_the_session_unpinned(tmp_path, monkeypatch):
    blocker = tmp_path / "a file"
    blocker.write_text("")
    monkeypatch.setattr(cpu_claim, "CLAIMS_DIR", blocker / "claims")  # cannot be made
    results: list[int | None] = []
    thread = threading.Thread(target=lambda: results.append(cpu_claim.claim_a_cpu()))
    thread.start()
    thread.join()
    assert results == [None]


def test_a_run_with_nothing_left_to_grade_needs_no_scheduler(chunklab, tmp_path):
    here = chunklab("grade", "--out", tmp_path, "samples/")
    resumed = chunklab(
        "grade", "--dask", "tcp://127.0.0.1:9", "--resume", "--out", tmp_path, "samples/"
    )
    assert resumed.exit_code == 0
    assert resumed.stdout == here.stdout  # every report read back from --out
