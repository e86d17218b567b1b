"""The mistakes of issue 10 made on purpose: each command stops with a message naming the cause,
and no file changes (every file under the work folder is compared, byte for byte)."""

import hashlib
import os
from pathlib import Path

import pytest
from conftest import FIXTURES, REPO_ROOT, write_tiny_bert

from allennlp_longent.commands.cli import main
from allennlp_longent.commands.safe_io import atomic_dir, atomic_file

ENTITIES = FIXTURES / "kb" / "entities.jsonl"


def snapshot(root: Path) -> dict:
    return {
        str(p.relative_to(root)): hashlib.sha1(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def fails(argv, match: str, root: Path) -> str:
    """Runs ``longent ARGV``; checks the message and that nothing under ``root`` changed."""
    before = snapshot(root)
    with pytest.raises(SystemExit, match=match) as raised:
        main(argv)
    assert snapshot(root) == before
    return str(raised.value)


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out.jsonl").write_text('{"kept": true}\n')
    (tmp_path / "input.txt").write_text("Mara Quill painted the Grey Sea.\n")
    (tmp_path / "broken.tar.gz").write_bytes(b"not a tar file at all")
    main(["kb", "build", "kb", str(ENTITIES)])
    return tmp_path


def test_link_text_typo_in_archive_keeps_the_output(work):
    message = fails(["link-text", "input.txt", "--model", "modle.tar.gz", "--kb", "kb",
                     "--output", "out.jsonl", "--overwrite"], "model archive not found", work)
    assert str(work / "modle.tar.gz") in message and f"relative to {work}" in message


def test_link_text_typo_in_kb_keeps_the_output(work):
    fails(["link-text", "input.txt", "--model", "broken.tar.gz", "--kb", "kbb",
           "--output", "out.jsonl", "--overwrite"], "not a readable tar.gz", work)
    readable_archive(work)
    fails(["link-text", "input.txt", "--model", "model.tar.gz", "--kb", "kbb",
           "--output", "out.jsonl", "--overwrite"], r"knowledge base not found: kbb \(resolved",
          work)


def readable_archive(work: Path) -> None:
    """A tar.gz with a config.json: it passes the checks made before anything is loaded."""
    import tarfile

    with tarfile.open(work / "model.tar.gz", "w:gz") as archive:
        archive.add(ENTITIES, arcname="config.json")


def test_link_text_refuses_an_existing_output(work):
    readable_archive(work)
    fails(["link-text", "input.txt", "--model", "model.tar.gz", "--kb", "kb",
           "--output", "out.jsonl"], r"refusing to overwrite out.jsonl \(pass --overwrite\)", work)


def test_link_text_refuses_the_old_calibration_file_with_what_to_pass(work):
    readable_archive(work)
    fails(["link-text", "input.txt", "--model", "model.tar.gz", "--kb", "kb",
           "--calibration", "cascade.jsn", "--output", "out.jsonl", "--overwrite"],
          r"--archive and --calibration are gone.*longent calibrate.*--model", work)


def test_calibrate_checks_its_free_text_sets_before_any_work(work):
    readable_archive(work)
    (work / "val.json").write_text("")
    base = ["calibrate", "val.json", "--first-stage", "model.tar.gz", "--output", "c.tar.gz"]
    fails(base + ["--text-dev", "fredtext"], r"free-text set not found: fredtext \(resolved",
          work)
    (work / "set").mkdir()
    fails(base + ["--text-dev", "set"], "free-text set set .*holds no paragraphs.jsonl", work)
    (work / "set" / "paragraphs.jsonl").write_text(
        '{"text": "Ann met Bo.", "entities": [{"start_char": 0, "end_char": 3, '
        '"label": "PERSON", "kb_id": "zz"}]}\n')
    (work / "set" / "kb.jsonl").write_text('{"id": "a", "title": "Ann", "description": "A."}\n')
    fails(base + ["--text-dev", "set"], r"paragraphs\.jsonl:1: entities\[0\]: kb_id 'zz'", work)


def test_corrupt_archive_is_named(work):
    message = fails(["link-text", "input.txt", "--model", "broken.tar.gz", "--kb", "kb"],
                    "is not a readable tar.gz", work)
    assert "broken.tar.gz" in message


def test_extend_positions_refuses_an_existing_target(work):
    write_tiny_bert(work / "bert")
    write_tiny_bert(work / "bert-128")
    fails(["extend-positions", "bert", "bert-128", "--max-length", "128"],
          r"refusing to overwrite bert-128 \(pass --overwrite\)", work)
    fails(["extend-positions", "bret", "bert-256", "--max-length", "256"],
          r"checkpoint not found: bret \(resolved", work)
    main(["extend-positions", "bert", "bert-128", "--max-length", "128", "--overwrite"])
    assert '"max_position_embeddings": 128' in (work / "bert-128" / "config.json").read_text()
    assert not [p for p in work.iterdir() if p.name.startswith(".")]  # no temporary left


def test_kb_build_and_add_check_every_input_first(work):
    fails(["kb", "build", "kb", str(ENTITIES)], r"refusing to overwrite kb \(pass --overwrite\)",
          work)
    fails(["kb", "add", "kb", str(ENTITIES), "missing.jsonl"],
          r"entity file not found: missing.jsonl \(resolved: .*missing.jsonl, relative to", work)
    fails(["kb", "add", "kb", str(ENTITIES)], "already in the knowledge base", work)
    fails(["kb", "search", "no_kb", "Mara"], "knowledge base not found: no_kb", work)


def test_bm25_candidates_checks_the_data_folder(work):
    fails(["bm25-candidates", "zeshel"], r"zeshel data folder not found: zeshel \(resolved", work)
    fails(["bm25-candidates", str(FIXTURES / "kb" / "zeshel"), "--splits", "tset",
           "--output-dir", "cands"], "mention file of split 'tset' not found", work)


def test_a_failed_write_leaves_the_target_as_it_was(tmp_path):
    target = tmp_path / "out.jsonl"
    target.write_text("old\n")
    with pytest.raises(RuntimeError), atomic_file(target) as partial:
        partial.write_text("half")
        raise RuntimeError("interrupted")
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "a").write_text("old")
    with pytest.raises(RuntimeError), atomic_dir(folder) as partial:
        (partial / "a").write_text("new")
        raise RuntimeError("interrupted")
    assert target.read_text() == "old\n" and (folder / "a").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "out.jsonl"]
    with atomic_dir(folder) as partial:
        (partial / "b").write_text("new")
    assert sorted(p.name for p in folder.iterdir()) == ["b"]


def test_relative_checkpoint_from_another_directory_names_the_resolved_path(tmp_path,
                                                                            monkeypatch):
    from allennlp_longent.modules.extended_transformer import ExtendedPretrainedTransformerEmbedder

    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as raised:
        ExtendedPretrainedTransformerEmbedder("./runs/tiny_bert", max_length=128)
    assert f"{tmp_path}/runs/tiny_bert, relative to {tmp_path}" in str(raised.value)
    with pytest.raises(OSError, match=f"{tmp_path}/runs/tiny_luke, relative to {tmp_path}"):
        from allennlp_longent.modules.long_luke import LongLukeEmbedder

        LongLukeEmbedder("runs/tiny_luke")


def test_allennlp_finds_the_plugin_at_the_repository_root(monkeypatch):
    from allennlp.common.plugins import discover_plugins

    monkeypatch.chdir(REPO_ROOT)
    assert list(discover_plugins())[:1] == ["allennlp_longent.components"]
    assert os.path.isfile(REPO_ROOT / ".allennlp_plugins")


def test_cli_knows_every_position_initializer():
    from allennlp_longent.commands.extend_positions import INITIALIZERS
    from allennlp_longent.modules.position_extension import PositionInitializer

    assert INITIALIZERS == tuple(sorted(PositionInitializer.list_available()))


def test_wrong_zeshel_root_names_the_missing_folder(tiny_bert_dir, tmp_path, monkeypatch):
    from allennlp_longent.linking.dataset_readers.zeshel import ZeshelReader
    from allennlp_longent.modules.extended_transformer import (
        ExtendedPretrainedTransformerTokenizer,
    )

    monkeypatch.chdir(tmp_path)
    reader = ZeshelReader(ExtendedPretrainedTransformerTokenizer(str(tiny_bert_dir), 64),
                          max_length=64)
    with pytest.raises(FileNotFoundError) as raised:
        list(reader.read("data/zeshel/mentions/val.json"))
    assert str(raised.value) == (
        "mention file data/zeshel/mentions/val.json: folder not found: data (resolved: "
        f"{tmp_path}/data, relative to {tmp_path})"
    )


def test_spacy_component_names_a_corrupt_archive(tmp_path):
    import spacy

    broken = tmp_path / "model.tar.gz"
    broken.write_bytes(b"\x1f\x8b truncated")
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns([{"label": "E", "pattern": "Mara"}])
    nlp.add_pipe("longent_linker", config={"model": str(broken), "kb": str(FIXTURES / "kb")})
    from allennlp_longent.linking.knowledge_base import KnowledgeBase

    kb = KnowledgeBase()
    kb.add_files([ENTITIES])
    kb.save(tmp_path / "kb")
    nlp.get_pipe("longent_linker").kb_path = str(tmp_path / "kb")
    with pytest.raises(ValueError, match=f"model archive {broken} is not a readable tar.gz"):
        nlp("Mara Quill")
