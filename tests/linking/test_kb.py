"""The local knowledge base and ``longent kb``."""

import json

import pytest
from conftest import FIXTURES, shared_data

from allennlp_longent.commands.cli import main
from allennlp_longent.linking.knowledge_base import Entity, KnowledgeBase, read_entities

KB_FIXTURES = FIXTURES / "kb"


def _ids(found):
    return [entity.id for entity, _ in found]


def test_builds_from_entity_lines_and_finds_by_title_and_description():
    kb = KnowledgeBase()
    assert kb.add_files([KB_FIXTURES / "entities.jsonl"]) == 4
    assert len(kb) == 4 and "Q_MARA" in kb
    assert kb["Q_GREY"].title == "Grey Sea"
    [lighthouse, painter] = kb.candidates(["Arbor Lighthouse", "painter"], k=2)
    assert _ids(lighthouse)[0] == "Q_ARBOR"
    assert _ids(painter) == ["Q_MARA"]


def test_zeshel_documents_load_as_they_are():
    kb = KnowledgeBase()
    kb.add_files(sorted(shared_data("zeshel_tiny", "documents").glob("*.json")))
    assert len(kb) == 23
    corellia = kb["C2E43F49F10B4937"]
    assert corellia.title == "Corellia / Legends"
    assert corellia.description.startswith("Corellia / Legends Corellia was")
    assert _ids(kb.candidates(["Doman Beruss"], 2)[0]) == ["B7EE4FE19D5C7F2B", "92800CB1738C860F"]


def test_save_load_round_trip_and_add_without_rebuilding(tmp_path):
    kb = KnowledgeBase()
    kb.add_files([KB_FIXTURES / "entities.jsonl"])
    kb.save(tmp_path / "kb")
    loaded = KnowledgeBase.load(tmp_path / "kb")
    assert loaded.entities == kb.entities
    assert loaded.candidates(["Vell Island ferry"], 4) == kb.candidates(["Vell Island ferry"], 4)
    assert "Q_TOLLAN" not in _ids(loaded.candidates(["Tollan Ferry"], 4)[0])
    loaded.add_files([KB_FIXTURES / "more_entities.jsonl"])
    assert _ids(loaded.candidates(["Tollan Ferry"], 4)[0])[0] == "Q_TOLLAN"


def test_duplicates_are_refused_naming_every_line(tmp_path):
    kb = KnowledgeBase()
    with pytest.raises(ValueError, match=r"duplicate_ids\.jsonl:3: duplicate entity id 'Q_ONE' "
                                         r"\(first at .*duplicate_ids\.jsonl:1\)"):
        kb.add_files([KB_FIXTURES / "duplicate_ids.jsonl"])
    assert len(kb) == 0
    kb.add_files([KB_FIXTURES / "entities.jsonl"])
    with pytest.raises(ValueError, match=r"entities\.jsonl:1: entity id 'Q_ARBOR' is already"):
        kb.add_files([KB_FIXTURES / "entities.jsonl"])
    with pytest.raises(ValueError, match="'Q_VELL' is already"):
        kb.add([Entity("Q_VELL", "Vell", "again")])
    assert len(kb) == 4


@pytest.mark.parametrize(
    "name, message",
    [
        ("bad_json.jsonl", r"bad_json\.jsonl:2: invalid JSON"),
        ("missing_field.jsonl", r"missing_field\.jsonl:3: field 'title' must be a string"),
    ],
)
def test_bad_entity_files_name_file_and_line(name, message):
    with pytest.raises(ValueError, match=message):
        read_entities(KB_FIXTURES / name)


def test_load_refuses_an_index_that_does_not_match_the_entities(tmp_path):
    kb = KnowledgeBase()
    kb.add_files([KB_FIXTURES / "entities.jsonl"])
    kb.save(tmp_path)
    lines = (tmp_path / "entities.jsonl").read_text().splitlines()
    (tmp_path / "entities.jsonl").write_text("\n".join(lines[:2]) + "\n")
    with pytest.raises(ValueError, match="does not index the entities"):
        KnowledgeBase.load(tmp_path)
    with pytest.raises(FileNotFoundError, match="entities.jsonl missing"):
        KnowledgeBase.load(tmp_path / "nowhere")


def test_refresh_sees_entities_added_by_another_writer(tmp_path):
    writer = KnowledgeBase()
    writer.add_files([KB_FIXTURES / "entities.jsonl"])
    writer.save(tmp_path)
    reader = KnowledgeBase.load(tmp_path)
    assert reader.refresh() is False
    writer.add_files([KB_FIXTURES / "more_entities.jsonl"])
    writer.save(tmp_path)
    assert reader.refresh() is True
    assert "Q_TOLLAN" in reader and _ids(reader.candidates(["Tollan"], 1)[0]) == ["Q_TOLLAN"]


def test_kb_commands(tmp_path, capsys):
    kb_dir = str(tmp_path / "kb")
    main(["kb", "build", kb_dir, str(KB_FIXTURES / "entities.jsonl")])
    main(["kb", "add", kb_dir, str(KB_FIXTURES / "more_entities.jsonl")])
    main(["kb", "search", kb_dir, "Tollan Ferry", "--top-k", "2"])
    out = capsys.readouterr().out
    assert "4 entities" in out and "added 1 entities, 5 in all" in out
    # only the new entity mentions Tollan or a ferry
    assert [line.split()[1] for line in out.splitlines()[2:]] == ["Q_TOLLAN"]
    records = [json.loads(line) for line in (tmp_path / "kb" / "entities.jsonl").open()]
    assert [r["id"] for r in records][-1] == "Q_TOLLAN"
    assert set(records[0]) == {"id", "title", "description"}
    with pytest.raises(SystemExit, match="already in the knowledge base"):
        main(["kb", "add", kb_dir, str(KB_FIXTURES / "more_entities.jsonl")])
    with pytest.raises(SystemExit, match="refusing to overwrite .*kb .pass --overwrite"):
        main(["kb", "build", kb_dir, str(KB_FIXTURES / "entities.jsonl")])
    assert len(KnowledgeBase.load(kb_dir)) == 5
