"""Dense and hybrid candidate generators, the dense encoder, and dense vectors in the KB."""

import json

import numpy as np
import pytest
import torch
from conftest import FIXTURES, write_tiny_sentence_encoder

from allennlp_longent.commands.cli import main
from allennlp_longent.config_defaults import packaged_minilm
from allennlp_longent.linking.candidates import CandidateGenerator, MentionQuery
from allennlp_longent.linking.candidates.dense import DenseCandidateGenerator
from allennlp_longent.linking.candidates.hybrid import HybridCandidateGenerator
from allennlp_longent.linking.knowledge_base import KnowledgeBase

KB_FIXTURES = FIXTURES / "kb"


@pytest.fixture(scope="module")
def encoder_dir(tmp_path_factory):
    words = set()
    for path in KB_FIXTURES.glob("*entities.jsonl"):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            words.update((record["title"] + " " + record["description"]).lower().split())
    return write_tiny_sentence_encoder(tmp_path_factory.mktemp("sbert"), sorted(words))


def _ids(found):
    return [entity.id for entity, _ in found]


@pytest.mark.parametrize("chunk_size", [1, 3, 7, 1000])
def test_exact_search_equals_a_full_sort_with_ties_in_index_order(chunk_size):
    generator = DenseCandidateGenerator("unused", chunk_size=chunk_size)
    rng = np.random.default_rng(0)
    vectors = rng.integers(-2, 3, size=(23, 4)).astype(np.float32)  # many tied scores
    generator.index_vectors([f"d{i}" for i in range(23)], vectors)
    queries = rng.integers(-2, 3, size=(5, 4)).astype(np.float32)
    for k in (1, 4, 23, 40):
        found = generator.search(queries, k)
        for query, candidates in zip(queries, found):
            scores = vectors @ query
            expected = sorted(range(23), key=lambda i: (-scores[i], i))[:k]
            assert [c.document_id for c in candidates] == [f"d{i}" for i in expected]
            assert [c.score for c in candidates] == [float(scores[i]) for i in expected]


def test_untrained_vectors_are_the_checkpoints_pooled_and_normalized_outputs(encoder_dir):
    """Recomputed with transformers alone: mean over the word pieces of [CLS] text [SEP]."""
    from transformers import AutoModel, AutoTokenizer

    generator = DenseCandidateGenerator(str(encoder_dir), max_length=64)
    tokenizer = AutoTokenizer.from_pretrained(str(encoder_dir))
    bert = AutoModel.from_pretrained(str(encoder_dir)).eval()

    def reference(text):
        encoded = tokenizer(text, return_tensors="pt")
        with torch.no_grad():
            hidden = bert(**encoded).last_hidden_state[0]
        mean = hidden.mean(0)
        return (mean / mean.norm()).numpy()

    document = {"document_id": "Q", "title": "Vell Island", "text": "a small island ."}
    vector = generator.encoder.documents([document])[0]
    np.testing.assert_allclose(vector, reference("Vell Island a small island ."), atol=1e-5)
    words = tuple("the ferry to Vell Island left .".split())
    mention = generator.encoder.mentions([MentionQuery(words, 3, 4)])[0]
    np.testing.assert_allclose(mention, reference(" ".join(words)), atol=1e-5)


def test_dense_kb_round_trip_and_incremental_add(encoder_dir, tmp_path, monkeypatch):
    kb = KnowledgeBase(DenseCandidateGenerator(str(encoder_dir), max_length=64))
    kb.add_files([KB_FIXTURES / "entities.jsonl"])
    queries = ["Vell Island", MentionQuery(tuple("a painter on the island".split()), 1, 1)]
    before = kb.candidates(queries, 4)
    kb.save(tmp_path / "kb")
    assert (tmp_path / "kb" / "index" / "vectors.npy").is_file()
    loaded = KnowledgeBase.load(tmp_path / "kb")
    assert loaded.generator.config() == kb.generator.config()
    assert loaded.candidates(queries, 4) == before
    old_vectors = loaded.generator.vectors.copy()
    encoded = []
    original = loaded.generator.encoder.documents
    monkeypatch.setattr(loaded.generator.encoder, "documents",
                        lambda documents: encoded.append(len(documents)) or original(documents))
    loaded.add_files([KB_FIXTURES / "more_entities.jsonl"])
    assert encoded == [1]  # only the new entity was encoded
    np.testing.assert_array_equal(loaded.generator.vectors[:4], old_vectors)
    assert loaded.generator.document_ids()[-1] == "Q_TOLLAN"


def test_hybrid_is_reciprocal_rank_fusion_of_its_parts(encoder_dir, tmp_path):
    parts = [CandidateGenerator.by_name("bm25")(),
             DenseCandidateGenerator(str(encoder_dir), max_length=64)]
    hybrid = HybridCandidateGenerator(parts, k0=60, depth=64)
    kb = KnowledgeBase(hybrid)
    kb.add_files([KB_FIXTURES / "entities.jsonl", KB_FIXTURES / "more_entities.jsonl"])
    query = ["Grey Sea ferry"]
    fused = {}
    for part in parts:
        for rank, candidate in enumerate(part.retrieve(query, 64)[0], start=1):
            fused[candidate.document_id] = fused.get(candidate.document_id, 0) + 1 / (60 + rank)
    order = kb.generator.document_ids()
    expected = sorted(fused, key=lambda i: (-fused[i], order.index(i)))
    found = hybrid.retrieve(query, 3)[0]
    assert [c.document_id for c in found] == expected[:3]
    assert [c.score for c in found] == pytest.approx([fused[i] for i in expected[:3]])
    kb.save(tmp_path / "kb")
    assert KnowledgeBase.load(tmp_path / "kb").candidates(query, 5) == kb.candidates(query, 5)


def test_kb_commands_with_dense_vectors_make_an_added_entity_retrievable(tmp_path, capsys):
    """The packaged all-MiniLM-L6-v2, untrained: ``kb add`` encodes only the new entity."""
    kb_dir = tmp_path / "kb"
    main(["kb", "build", str(kb_dir), str(KB_FIXTURES / "entities.jsonl"), "--retriever",
          "dense", "--encoder", packaged_minilm()])
    vectors = np.load(kb_dir / "index" / "vectors.npy")
    assert vectors.shape == (4, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    main(["kb", "add", str(kb_dir), str(KB_FIXTURES / "more_entities.jsonl")])
    after = np.load(kb_dir / "index" / "vectors.npy")
    np.testing.assert_array_equal(after[:4], vectors)
    main(["kb", "search", str(kb_dir), "the Tollan boat", "--top-k", "1"])
    out = capsys.readouterr().out
    assert "added 1 entities, 5 in all" in out
    assert out.splitlines()[-1].split()[1] == "Q_TOLLAN"
    with pytest.raises(SystemExit, match="needs an encoder"):
        main(["kb", "build", str(tmp_path / "other"), str(KB_FIXTURES / "entities.jsonl"),
              "--retriever", "hybrid"])


def _clustered(n: int, dim: int = 16, seed: int = 0) -> np.ndarray:
    vectors = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_the_hnsw_graph_finds_what_exact_search_finds_past_the_threshold():
    vectors = _clustered(400)
    ids = [f"d{i}" for i in range(400)]
    exact = DenseCandidateGenerator("unused")
    graph = DenseCandidateGenerator("unused", ann_threshold=400, ef_search=400)
    for generator in (exact, graph):
        generator.index_vectors(ids, vectors)
    assert graph.uses_ann and not exact.uses_ann
    queries = vectors[:20] + 0.01 * _clustered(20, seed=1)
    for k in (1, 10):
        want = [[c.document_id for c in found] for found in exact.search(queries, k)]
        got = [[c.document_id for c in found] for found in graph.search(queries, k)]
        assert got == want  # a breadth over every node makes the graph search exact
    scores = [c.score for c in graph.search(queries[:1], 5)[0]]
    np.testing.assert_allclose(scores, sorted(vectors @ queries[0], reverse=True)[:5], rtol=1e-5)
    # one entity short of the threshold: the exact path, no graph
    below = DenseCandidateGenerator("unused", ann_threshold=401)
    below.index_vectors(ids, vectors)
    assert not below.uses_ann and below.search(queries, 3) == exact.search(queries, 3)
    assert below._graph is None


def test_an_added_entity_joins_the_graph_and_a_reload_rebuilds_it(tmp_path, monkeypatch):
    generator = DenseCandidateGenerator("unused", ann_threshold=10, ef_search=64)
    vectors = _clustered(50)
    generator.index_vectors([f"d{i}" for i in range(50)], vectors[:50])
    generator.search(vectors[:1], 1)  # builds the graph
    assert generator._graph is not None and generator._graph.ntotal == 50

    class OneVector:
        def documents(self, documents):
            return _clustered(1, seed=7)

    monkeypatch.setattr(DenseCandidateGenerator, "encoder", OneVector())
    docs = [{"document_id": f"d{i}", "title": "", "text": ""} for i in range(50)]
    new = [{"document_id": "new", "title": "", "text": ""}]
    generator.add_documents(new, docs + new)
    assert generator._graph.ntotal == 51
    assert generator.search(_clustered(1, seed=7), 1)[0][0].document_id == "new"
    generator.save(tmp_path / "index")
    loaded = CandidateGenerator.load(tmp_path / "index")
    assert loaded.config() == generator.config() and loaded._graph is None
    queries = _clustered(5, seed=3)
    assert loaded.search(queries, 4) == generator.search(queries, 4)


def test_asking_for_the_graph_without_faiss_names_the_package(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "faiss", None)
    generator = DenseCandidateGenerator("unused", ann_threshold=1)
    generator.index_vectors(["a", "b"], _clustered(2))
    with pytest.raises(ImportError, match="pip install faiss-cpu"):
        generator.search(_clustered(1), 1)
