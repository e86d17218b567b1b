"""Yao et al. 2020's claim with models trained on long pairs (issue 19 item 6).

Trains the same re-ranker recipe (``training_configs/zeshel/long_context.jsonnet``) once per arm:
pairs of 512 pieces on MiniLM's own table, and pairs of 1024 pieces with the table extended by
E_repeat, E_head or E_constant (Yao et al. §3). The training worlds mix plain worlds and
late-fact worlds, whose facts lie some 300 pieces into each description; the test worlds are
written with another seed (names and facts no arm has seen). Each arm is read at its own length
over the same lists (BM25's top 4, gold inserted) and scored alone, @1, on two buckets: mentions
whose deciding fact is in the 1024-piece pair but not the 512-piece one, and the rest. Counts,
95 % Wilson intervals and a sign test of each 1024 arm against the 512 arm.

    python scripts/linking/long_context_train.py OUT_DIR [--arms 512 1024:repeat 1024:head] \
        [--plain-worlds 12 --late-worlds 12 --test-worlds 3 --mentions-per-world 120] \
        [--epochs 1] [--cuda-device 0 --use-amp] [--model MINILM_DIR]

Sized for a GPU: on the 2-core CPU one 1024-piece arm of the default size takes hours.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "demo_data"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from long_context_eval import correct_by_mention  # noqa: E402
from zeshel_demo_entities import SEED  # noqa: E402
from zeshel_demo_extra import build_extra_worlds, late_fact_worlds  # noqa: E402
from zeshel_demo_windows import fact_in_pair  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TEST_SEED = "long-context-test"


def generate(out: Path, plain: int, late: int, per_world: int, seed: str) -> None:
    if (out / "mentions" / "train.json").exists():
        return
    command = [sys.executable, str(ROOT / "scripts/demo_data/make_zeshel_demo.py"),
               "--extra-worlds", str(plain), "--late-worlds", str(late), "--seed", seed,
               "--mentions-per-world", str(per_world), "--candidates", "4", "--out", str(out)]
    subprocess.run(command, check=True)


def train(arm: str, args: argparse.Namespace) -> Path:
    length, _, init = arm.partition(":")
    run = args.out / f"arm_{length}_{init or 'none'}"
    if (run / "model.tar.gz").exists():
        return run / "model.tar.gz"
    env = dict(os.environ, LONGENT_LONG_MODEL=str(args.model),
               LONGENT_LONG_DATA=str(args.out / "train"),
               LONGENT_LONG_LENGTH=length, LONGENT_LONG_INIT=init or "repeat",
               LONGENT_LONG_EPOCHS=str(args.epochs), LONGENT_LONG_LAYERS=str(args.layers),
               LONGENT_CUDA_DEVICE=str(args.cuda_device),
               LONGENT_USE_AMP="true" if args.use_amp else "false")
    started = time.time()
    config = ROOT / "training_configs/zeshel/long_context.jsonnet"
    subprocess.run([sys.executable, "-m", "allennlp", "train", str(config), "-s", str(run), "-f",
                    "--include-package", "allennlp_longent"], check=True, env=env, cwd=ROOT)
    (run / "train_seconds.txt").write_text(f"{time.time() - started:.1f}\n")
    return run / "model.tar.gz"


def evaluate(archive_path: Path, length: int, args: argparse.Namespace) -> Dict[str, bool]:
    from allennlp.common import Params
    from allennlp.data import DatasetReader
    from allennlp.models.archival import load_archive

    archive = load_archive(str(archive_path), cuda_device=args.cuda_device)
    params = archive.config.duplicate().as_dict()["dataset_reader"]
    params.update(max_length=length, top_k=4, missing_gold="insert",
                  candidates_dir=str(args.out / "test" / "tfidf_candidates"))
    reader = DatasetReader.from_params(Params(params))
    return correct_by_mention(archive.model.eval(), reader, args.out / "test/mentions/train.json",
                              args.batch_size, None)


def buckets(args: argparse.Namespace) -> Dict[str, List[str]]:
    """Mention ids whose fact the 1024-piece pair holds and the 512-piece one does not, and
    the rest (the pair as the test lists put it: the mention's context and its gold page)."""
    from allennlp_longent.linking.dataset_readers.zeshel import ZeshelReader
    from allennlp_longent.modules.extended_transformer import (
        ExtendedPretrainedTransformerTokenizer,
    )

    tokenizer = ExtendedPretrainedTransformerTokenizer(str(args.model), max_length=1024)
    probe = {n: ZeshelReader(tokenizer, max_length=n) for n in (512, 1024)}
    worlds = (build_extra_worlds(args.test_worlds, args.mentions_per_world, TEST_SEED)
              + late_fact_worlds(args.test_worlds, args.mentions_per_world, TEST_SEED))
    result: Dict[str, List[str]] = {"beyond 512": [], "the rest": []}
    for world in worlds:
        for mention in world.mentions:
            inside = {n: fact_in_pair(reader, world, mention)[1] for n, reader in probe.items()}
            key = "beyond 512" if inside[1024] and not inside[512] else "the rest"
            result[key].append(mention.mention_id)
    return result


def baselines(test: Path) -> Dict[str, Dict[str, bool]]:
    """BM25@1 over the same lists (the gold is inserted after BM25's candidates when missing)."""
    gold = {m["mention_id"]: m["label_document_id"]
            for m in map(json.loads, (test / "mentions/train.json").read_text().splitlines())}
    bm25 = {}
    for record in map(json.loads, (test / "tfidf_candidates/train.json").read_text().splitlines()):
        found = record["tfidf_candidates"][:4]
        bm25[record["mention_id"]] = bool(found) and found[0] == gold[record["mention_id"]]
    return {"BM25@1 (same lists)": bm25}


def report(results: Dict[str, Dict[str, bool]], groups: Dict[str, List[str]],
           baseline_rows: Dict[str, Dict[str, bool]]) -> List[str]:
    """The markdown table: one row per arm (each after the first with its sign test against
    the first), then the baselines and chance among the 4 candidates."""
    from allennlp_longent.linking.cascade import paired_sign_test
    from allennlp_longent.linking.evaluation import count_cell

    base = next(iter(results))
    lines = ["| arm | " + " | ".join(f"{k} (n = {len(v)})" for k, v in groups.items()) + " |",
             "|---|" + "---|" * len(groups)]
    for name, right in {**results, **baseline_rows}.items():
        cells = []
        for ids in groups.values():
            cell = count_cell(sum(right[i] for i in ids), len(ids))
            if name in results and name != base:
                seen = paired_sign_test([right[i] for i in ids], [results[base][i] for i in ids])
                cell += (f"; vs {base}: +{seen['fixed']} / -{seen['broken']}, "
                         f"p = {seen['p_value']:.3f}")
            cells.append(cell)
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("| chance | " + " | ".join("0.250 (1 of 4)" for _ in groups) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--arms", nargs="+", default=["512", "1024:repeat", "1024:head"],
                        help="LENGTH or LENGTH:INIT (repeat, head, constant); the first is "
                        "the base the others are tested against")
    parser.add_argument("--model", type=Path, help="a BERT-like checkpoint at 512 positions "
                        "(default LONGENT_LONG_MODEL, else the packaged all-MiniLM-L6-v2)")
    parser.add_argument("--plain-worlds", type=int, default=12)
    parser.add_argument("--late-worlds", type=int, default=12)
    parser.add_argument("--test-worlds", type=int, default=3,
                        help="plain and late-fact test worlds each, written with another seed")
    parser.add_argument("--mentions-per-world", type=int, default=120)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--cuda-device", type=int, default=-1)
    parser.add_argument("--use-amp", action="store_true")
    args = parser.parse_args()
    import allennlp_longent.components  # noqa: F401  (sets the configs' defaults)

    args.model = (args.model or Path(os.environ["LONGENT_LONG_MODEL"])).resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    generate(args.out / "train", args.plain_worlds, args.late_worlds, args.mentions_per_world, SEED)
    generate(args.out / "test", args.test_worlds, args.test_worlds, args.mentions_per_world,
             TEST_SEED)
    groups = buckets(args)
    bm25 = baselines(args.out / "test")
    if set(groups["beyond 512"] + groups["the rest"]) != set(next(iter(bm25.values()))):
        raise SystemExit(f"{args.out / 'test'} holds other mentions than --test-worlds "
                         f"{args.test_worlds} and --mentions-per-world {args.mentions_per_world} "
                         "write: remove it, or pass what it was written with")
    results: Dict[str, Dict[str, bool]] = {}
    for arm in args.arms:
        archive = train(arm, args)
        results[arm] = evaluate(archive, int(arm.partition(":")[0]), args)
        seconds = (archive.parent / "train_seconds.txt").read_text().strip()
        print(f"{arm}: trained in {seconds} s, {sum(results[arm].values())} of "
              f"{len(results[arm])} test mentions right", flush=True)
        lines = report(results, groups, bm25)
        print("\n".join(lines), flush=True)
        (args.out / "results.json").write_text(json.dumps(
            {"arms": results, "buckets": groups, "table": lines}, indent=1))


if __name__ == "__main__":
    main()
