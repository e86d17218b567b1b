"""Issue 21's data-safety cases: what a command leaves behind when it is killed, the permissions
of what it creates, empty inputs, and error messages that keep their full text."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, REPO_ROOT

from allennlp_longent.commands.cli import main
from allennlp_longent.commands.safe_io import atomic_dir, atomic_file
from allennlp_longent.linking.knowledge_base import KnowledgeBase

ENTITIES = FIXTURES / "kb" / "entities.jsonl"

# Runs `longent ARGS`, pausing (a long sleep) inside the write into the temporary file or folder
# so the test can send SIGTERM while it exists: `kb build` after the KB is saved into atomic_dir's
# temporary folder, `kb add` while the new entity goes into atomic_file's temporary file.
KILLED = """
import sys, time
import allennlp_longent.linking.knowledge_base as knowledge_base
from allennlp_longent.commands.cli import main

def pause():
    print("writing", flush=True)
    time.sleep(120)

save, asdict = knowledge_base.KnowledgeBase.save, knowledge_base.asdict
def slow_save(self, directory):
    save(self, directory)
    pause()
def slow_asdict(entity):
    if entity.id == "Q_NEW":
        pause()
    return asdict(entity)
knowledge_base.KnowledgeBase.save = slow_save if sys.argv[2] == "build" else save
knowledge_base.asdict = slow_asdict
main(sys.argv[1:])
"""


def run_killed(tmp_path: Path, argv) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), OMP_NUM_THREADS="1")
    process = subprocess.Popen([sys.executable, "-c", KILLED, *argv], cwd=tmp_path, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout.readline() == "writing\n", process.stderr.read()
    assert [p for p in tmp_path.rglob(".*.partial")], "no temporary while writing"
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=60)
    return subprocess.CompletedProcess(argv, process.returncode, stdout, stderr)


def test_sigterm_leaves_no_temporary_and_the_old_files(tmp_path, monkeypatch):
    """`kb build` (atomic_dir) and `kb add` (index and entity file through atomic_dir and
    atomic_file) killed while writing: exit status 143, no `.NAME.*.partial` left, an existing KB
    unchanged and still loading."""
    done = run_killed(tmp_path, ["kb", "build", "kb", str(ENTITIES)])
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []

    monkeypatch.chdir(tmp_path)
    main(["kb", "build", "kb", str(ENTITIES)])
    before = (tmp_path / "kb" / "entities.jsonl").read_text()
    (tmp_path / "new.jsonl").write_text('{"id": "Q_NEW", "title": "New", "description": "n"}\n')
    done = run_killed(tmp_path, ["kb", "add", "kb", "new.jsonl"])
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert (tmp_path / "kb" / "entities.jsonl").read_text() == before
    assert [p.name for p in tmp_path.rglob("*.partial")] == []
    assert len(KnowledgeBase.load(tmp_path / "kb")) == 4  # the index still matches the entities


@pytest.mark.parametrize("umask, file_mode, dir_mode",
                         [(0o022, 0o644, 0o755), (0o077, 0o600, 0o700), (0o002, 0o664, 0o775)])
def test_created_files_and_folders_follow_the_umask(tmp_path, umask, file_mode, dir_mode):
    """The modes `open()` and `mkdir` give under this umask (0o666 / 0o777 without its bits)."""
    previous = os.umask(umask)
    try:
        with atomic_file(tmp_path / "out.jsonl") as partial:
            partial.write_text("x\n")
        with atomic_dir(tmp_path / "folder") as partial:
            (partial / "a").write_text("a")
        main(["kb", "build", str(tmp_path / "kb"), str(ENTITIES)])
    finally:
        os.umask(previous)
    assert oct((tmp_path / "out.jsonl").stat().st_mode & 0o777) == oct(file_mode)
    assert oct((tmp_path / "folder").stat().st_mode & 0o777) == oct(dir_mode)
    kb = tmp_path / "kb"
    assert oct(kb.stat().st_mode & 0o777) == oct(dir_mode)
    assert oct((kb / "entities.jsonl").stat().st_mode & 0o777) == oct(file_mode)


def test_an_empty_entity_file_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("empty.jsonl").write_text("\n  \n")
    with pytest.raises(SystemExit, match=r"entity file holds no entity: empty\.jsonl \(resolved"):
        main(["kb", "build", "kb", str(ENTITIES), "empty.jsonl"])
    assert not Path("kb").exists()
    main(["kb", "build", "kb", str(ENTITIES)])
    with pytest.raises(SystemExit, match=r"entity file holds no entity: empty\.jsonl"):
        main(["kb", "add", "kb", "empty.jsonl"])


def test_link_text_of_an_empty_file_is_refused_before_loading_anything(tmp_path, monkeypatch):
    import tarfile

    monkeypatch.chdir(tmp_path)
    Path("empty.txt").write_text("\n \n")
    with tarfile.open("model.tar.gz", "w:gz") as archive:  # passes the checks made first
        archive.add(ENTITIES, arcname="config.json")
    main(["kb", "build", "kb", str(ENTITIES)])
    with pytest.raises(SystemExit, match=r"input text empty\.txt \(resolved.*has no non-empty "
                                         "line: nothing to link"):
        main(["link-text", "empty.txt", "--model", "model.tar.gz", "--kb", "kb",
              "--pipeline", "no_such_pipeline", "--output", "out.jsonl"])
    assert not Path("out.jsonl").exists()


def test_kb_add_names_the_bad_json_with_its_column(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    main(["kb", "build", "kb", str(ENTITIES)])
    good = json.dumps({"id": "Q_X", "title": "X", "description": "x"})
    # a raw tab inside a string: json.loads stops at the tab, column 37 of the line
    bad = '{"id": "Q_Y", "title": "Y", "descr":"\tx"}'
    Path("new.jsonl").write_text(good + "\n" + bad + "\n")
    assert bad.index("\t") + 1 == 38
    with pytest.raises(SystemExit) as raised:
        main(["kb", "add", "kb", "new.jsonl"])
    assert str(raised.value) == (
        "error: new.jsonl:2: invalid JSON: Invalid control character at column 38 (character 37)"
    )


def test_config_defaults_prints_without_a_warning():
    from allennlp_longent.config_defaults import packaged_minilm

    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    env.pop("LONGENT_MINILM", None)
    done = subprocess.run([sys.executable, "-m", "allennlp_longent.config_defaults",
                           "LONGENT_MINILM"], env=env, capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, packaged_minilm() + "\n", "")


def test_longent_predict_keeps_an_existing_output_when_a_record_is_bad(tiny_linker_files,
                                                                      tmp_path, monkeypatch):
    """`allennlp predict --output-file OUT` empties OUT first; `longent predict` leaves it as it
    was when a record fails, refuses it without --overwrite, and replaces it when complete."""
    monkeypatch.chdir(tmp_path)
    archive = str(tiny_linker_files[0])
    good = (FIXTURES / "examples" / "mentions.jsonl").read_text().splitlines()[0]
    Path("in.jsonl").write_text(f"{good}\n{{\"context\": \"no mention\"}}\n{good}\n")
    Path("out.jsonl").write_text("old\n")
    predict = ["predict", archive, "in.jsonl", "--predictor", "cross_encoder_linker",
               "--output-file", "out.jsonl", "--silent"]
    with pytest.raises(SystemExit, match=r"refusing to overwrite out\.jsonl"):
        main(predict)
    with pytest.raises(SystemExit, match=r"input record 2 \(non-blank line 2\): input is missing "
                                         r"the field 'mention_start'"):
        main([*predict, "--overwrite"])
    assert Path("out.jsonl").read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out.jsonl"]
    main([*predict, "--overwrite", "--predictor-args", '{"skip_bad_records": true}'])
    outputs = [json.loads(line) for line in Path("out.jsonl").open()]
    assert [o.get("skipped_record") for o in outputs] == [None, 2, None]
    assert outputs[0]["mention_id"] == outputs[2]["mention_id"] == "example-1"
