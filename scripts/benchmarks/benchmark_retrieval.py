"""Dense retrieval at scale: build time, memory and query latency of exact top-k over N entities,
and of an HNSW graph (faiss) with its recall against exact search.

Entity vectors for the scale test are synthetic (random unit vectors of MiniLM's 384
dimensions): encoding 100k descriptions with MiniLM on 2 CPU cores would take hours, so the
encoder's throughput is measured on a sample of synthetic descriptions and the full encoding
time is extrapolated (printed as such). BM25 is indexed on the synthetic descriptions themselves.

    python scripts/benchmarks/benchmark_retrieval.py [--entities 100000] [--sample 128]
    [--ef-search 64 128]
"""

import argparse
import resource
import time

import numpy as np

from allennlp_longent.config_defaults import packaged_minilm
from allennlp_longent.linking.candidates import CandidateGenerator
from allennlp_longent.linking.candidates.dense import DenseCandidateGenerator

WORDS = ("harbor lamp guild river tower salt reed iron frost amber sky lantern ship judge "
         "captain market bridge mill smith weaver fire watch hall inn bank feud fountain").split()


def synthetic(count: int, rng: np.random.Generator) -> list:
    """Descriptions of 40 words drawn from a small vocabulary plus a unique name per entity."""
    return [{"document_id": f"E{i}", "title": f"Entity {i}",
             "text": " ".join(rng.choice(WORDS, 40)) + f" name{i}"} for i in range(count)]


def clock():
    return time.perf_counter(), time.process_time()


def since(start) -> str:
    wall, cpu = time.perf_counter() - start[0], time.process_time() - start[1]
    return f"{wall:8.2f} s wall {cpu:8.2f} s CPU"


def max_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def ann_section(dense: DenseCandidateGenerator, vectors: np.ndarray, ids: list,
                queries: np.ndarray, k: int, breadths: list) -> None:
    """HNSW graph (faiss, 1 thread) against exact search over the same vectors: build time,
    index size, latency and recall@1/10/k of the graph's results, both searched in turn."""
    import faiss

    faiss.omp_set_num_threads(1)
    graph = DenseCandidateGenerator("unused", ann_threshold=1)
    graph.index_vectors(ids, vectors)
    start = clock()
    graph._graph = graph._build_graph()
    size = faiss.serialize_index(graph._graph).nbytes / 2**20
    print(f"HNSW graph (M {graph.hnsw_m}, efConstruction {graph.ef_construction}, 1 thread): "
          f"{since(start)}; index {size:.1f} MiB (vectors included)")
    rng = np.random.default_rng(1)
    noise = rng.normal(size=(len(queries), vectors.shape[1])).astype(np.float32)
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    near = vectors[: len(queries)] + noise  # a mention near its entity: cosine about 0.7
    near /= np.linalg.norm(near, axis=1, keepdims=True)
    for name, batch_queries in (("random", queries), ("near an entity", near)):
        print(f" {name} queries:")
        graph_rounds(dense, graph, batch_queries, k, breadths)


def graph_rounds(dense: DenseCandidateGenerator, graph: DenseCandidateGenerator,
                 queries: np.ndarray, k: int, breadths: list) -> None:
    exact = [[c.document_id for c in row] for row in dense.search_exact(queries, k)]
    for breadth in breadths:
        graph.ef_search = breadth
        spent = {"exact": [0.0, 0.0], "graph": [0.0, 0.0]}
        for batch in (1, 32):
            for _ in range(3):
                for name, search in (("exact", dense.search_exact), ("graph", graph.search)):
                    start = clock()
                    search(queries[:batch], k)
                    spent[name][0] += time.perf_counter() - start[0]
                    spent[name][1] += time.process_time() - start[1]
        found = [[c.document_id for c in row] for row in graph.search(queries, k)]
        recall = {n: np.mean([len(set(f[:n]) & set(e[:n])) / n for f, e in zip(found, exact)])
                  for n in (1, 10, k)}
        print(f"  efSearch {breadth:>4}: recall@1 {recall[1]:.3f} @10 {recall[10]:.3f} "
              f"@{k} {recall[k]:.3f} (32 queries); exact / graph CPU time "
              f"{spent['exact'][1] / spent['graph'][1]:.1f}x (wall "
              f"{spent['exact'][0] / spent['graph'][0]:.1f}x), batches of 1 and 32, 3 rounds")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--sample", type=int, default=128)
    parser.add_argument("--k", type=int, default=64)
    parser.add_argument("--ef-search", type=int, nargs="+", default=[64, 128, 512],
                        help="HNSW search breadths to measure")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    documents = synthetic(args.entities, rng)

    dense = DenseCandidateGenerator(packaged_minilm(), max_length=128)
    _ = dense.encoder  # load the model outside the timing
    start = clock()
    dense.encoder.documents(documents[: args.sample])
    cpu = time.process_time() - start[1]
    print(f"MiniLM encoding, {args.sample} synthetic descriptions: {since(start)} "
          f"-> {args.sample / cpu:.1f} entities per CPU s; {args.entities} entities would take "
          f"~{args.entities / (args.sample / cpu) / 60:.0f} CPU min (extrapolated)")

    vectors = rng.normal(size=(args.entities, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = [d["document_id"] for d in documents]
    start = clock()
    dense.index_vectors(ids, vectors)
    print(f"dense index of {args.entities} vectors: {since(start)}; vectors "
          f"{dense.vectors.nbytes / 2**20:.1f} MiB (float32)")
    queries = rng.normal(size=(32, 384)).astype(np.float32)
    for batch in (1, 32):
        start = clock()
        repeats = 5
        for _ in range(repeats):
            dense.search(queries[:batch], args.k)
        wall = (time.perf_counter() - start[0]) / repeats
        cpu = (time.process_time() - start[1]) / repeats
        print(f"exact top-{args.k} search, {batch:>2} queries per call: {wall * 1000:8.1f} ms wall "
              f"{cpu * 1000:8.1f} ms CPU per call ({wall * 1000 / batch:.1f} ms per query)")
    for chunk in (4096, 65536):
        dense.chunk_size = chunk
        start = clock()
        found = dense.search(queries, args.k)
        print(f"  chunk_size {chunk:>6}: 32 queries {since(start)}")
    exact = np.argsort(-(queries @ vectors.T), axis=1, kind="stable")[:, : args.k]
    agree = np.mean([[c.document_id for c in row] == [ids[i] for i in top]
                     for row, top in zip(found, exact)])
    print(f"  agreement with a full sort: {agree:.3f}")

    ann_section(dense, vectors, ids, queries, args.k, args.ef_search)

    bm25 = CandidateGenerator.by_name("bm25")()
    start = clock()
    bm25.index_documents(documents)
    print(f"BM25 index of {args.entities} synthetic descriptions: {since(start)}")
    start = clock()
    bm25.retrieve([f"name{i} harbor lamp" for i in range(32)], args.k)
    print(f"BM25 top-{args.k}, 32 queries: {since(start)}")
    print(f"peak RSS of the whole run (MiniLM, 100k vectors, BM25): {max_rss_mib():.0f} MiB")


if __name__ == "__main__":
    main()
