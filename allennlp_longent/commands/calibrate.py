"""The linker's commands around ``allennlp train`` and ``allennlp evaluate``:

- ``longent first-stage-candidates FIRST_STAGE DATA_DIR``: each split's candidates in the
  first stage's order (zeshel ``tfidf_candidates`` files), for training the cross-encoder on the
  negatives it will be asked to separate;
- ``longent calibrate --first-stage A [--cross-encoder B] VAL_MENTIONS --output C``: scores the
  validation mentions with the cascade and writes the calibrated ``cascade_linker`` archive C
  (weight, temperature, NIL option, sign test: :func:`allennlp_longent.linking.cascade.calibrate`);
  with ``--text-dev SET...`` also the weight for free text, chosen on those sets as the spaCy
  component links them; evaluation never recalibrates;
- ``longent linking-report METRICS.json``: the table of ``allennlp evaluate``'s output with 95 %
  Wilson intervals; ``--check`` exits 1 when the cascade misses its baselines.
"""

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from allennlp_longent.commands.safe_io import (
    CommandError,
    atomic_file,
    existing_dir,
    existing_file,
    model_archive,
    refuse_existing,
    reporting_errors,
)

if TYPE_CHECKING:
    from allennlp_longent.linking.freetext import FreeTextSet


def register(subparsers: argparse._SubParsersAction) -> None:
    ranked = subparsers.add_parser(
        "first-stage-candidates", help="candidate files in a context_evidence first stage's order",
        description=__doc__)
    ranked.add_argument("first_stage", help="a context_evidence model archive (allennlp train)")
    ranked.add_argument("data_dir", type=Path, help="holds documents/<world>.json and mentions/")
    ranked.add_argument("--splits", nargs="+", default=["train", "val", "test"])
    ranked.add_argument("--output-dir", type=Path, required=True, help="where <split>.json go")
    ranked.add_argument("--overwrite", action="store_true", help="replace existing files")
    ranked.set_defaults(func=reporting_errors(first_stage_candidates))

    calibrate = subparsers.add_parser(
        "calibrate", help="calibrate the cascade on validation mentions; write its archive",
        description=__doc__)
    calibrate.add_argument("mentions", type=Path, help="validation mentions (zeshel mentions file)")
    calibrate.add_argument("--documents-dir", type=Path,
                           help="the worlds (default: the mentions file's ../../documents)")
    calibrate.add_argument("--first-stage", required=True,
                           help="a context_evidence model archive (allennlp train)")
    calibrate.add_argument("--cross-encoder", help="a cross_encoder_ranker model archive "
                           "(none: the cascade is its first stage)")
    calibrate.add_argument("--output", type=Path, required=True, help="the cascade's model.tar.gz")
    calibrate.add_argument("--rerank-k", type=int, default=4,
                           help="candidates the cross-encoder re-ranks")
    calibrate.add_argument("--nil-rate", type=float, default=0.1,
                           help="expected share of mentions without an entity in the KB")
    calibrate.add_argument("--title-abstain", action=argparse.BooleanOptionalAction, default=True,
                           help="the cross-encoder abstains on a mention that is the bare title "
                                "of exactly one of its candidates (default: on)")
    calibrate.add_argument("--unwritten-nil", action=argparse.BooleanOptionalAction,
                           default=True,
                           help="NIL when a name word of the mention (capitalised, not an "
                                "honorific) is written on none of its candidates' pages "
                                "(default: on)")
    calibrate.add_argument("--text-dev", type=Path, nargs="+", default=[], metavar="SET",
                           help="free-text sets (kb.jsonl, paragraphs.jsonl) to choose the "
                                "re-ranker's weight for free text on, as the spaCy component "
                                "links them (default: none, free text gets the weight above)")
    calibrate.add_argument("--significance", type=float, default=0.05,
                           help="the sign test's level for keeping a re-ranker weight > 0")
    calibrate.add_argument("--batch-size", type=int, default=8, help="mentions per model call")
    calibrate.add_argument("--overwrite", action="store_true", help="replace an existing archive")
    calibrate.set_defaults(func=reporting_errors(run_calibrate))

    report = subparsers.add_parser(
        "linking-report", help="the table of a cascade_linker evaluation with Wilson intervals",
        description=__doc__)
    report.add_argument("metrics", type=Path, help="allennlp evaluate's --output-file")
    report.add_argument("--title", default="test")
    report.add_argument("--check", action="store_true",
                        help="exit 1 when the cascade is below max(BM25@1, dense@1) or its lower "
                             "95 %% bound is not above chance")
    report.set_defaults(func=reporting_errors(run_report))


def _load(path: str):
    from allennlp.models.archival import load_archive

    import allennlp_longent.registered  # noqa: F401

    archive = load_archive(str(model_archive(path)))
    archive.model.eval()
    return archive


def _first_stage(path: str):
    from allennlp_longent.linking.models.first_stage import ContextEvidenceFirstStage

    archive = _load(path)
    if not isinstance(archive.model, ContextEvidenceFirstStage):
        raise CommandError(f"{path} holds a {type(archive.model).__name__}, not a context_evidence "
                        "first stage")
    return archive.model


def _mentions(mentions: Path, documents_dir=None) -> list:
    from allennlp_longent.linking.dataset_readers.zeshel_mentions import ZeshelMentionsReader

    existing_file(mentions, "mentions file")
    reader = ZeshelMentionsReader(None if documents_dir is None else str(documents_dir))
    return [instance["mention"].metadata for instance in reader.read(mentions)]


def first_stage_candidates(args: argparse.Namespace) -> None:
    existing_dir(args.data_dir, "data folder", "mentions")
    paths = {split: existing_file(args.data_dir / "mentions" / f"{split}.json", "mentions file")
             for split in args.splits}
    targets = {split: args.output_dir / f"{split}.json" for split in args.splits}
    refuse_existing(targets.values(), args.overwrite)
    import torch

    model = _first_stage(args.first_stage)
    args.output_dir.mkdir(parents=True, exist_ok=True)
    for split, path in paths.items():
        mentions = _mentions(path)
        with torch.no_grad():
            ranked = model(mentions)["ranked"]
        with atomic_file(targets[split]) as partial, open(partial, "w", encoding="utf-8") as out:
            for mention, found in zip(mentions, ranked):
                out.write(json.dumps({"mention_id": mention["mention_id"],
                                      "tfidf_candidates": [i for i, _ in found]}) + "\n")
        labelled = [(m["gold"], [i for i, _ in found]) for m, found in zip(mentions, ranked)
                    if m["gold"] is not None]
        cells = [sum(gold in ids[:k] for gold, ids in labelled) for k in (1, 4, 16)]
        print(f"{split}: {len(mentions)} mentions, first-stage recall@1/4/16 "
              + "/".join(map(str, cells)) + f" of {len(labelled)} labelled; "
              f"written to {targets[split]}")


def run_calibrate(args: argparse.Namespace) -> None:
    from allennlp.data import Vocabulary

    from allennlp_longent.linking.cascade import CascadeSettings, calibrate
    from allennlp_longent.linking.models.cascade_linker import (
        CascadeLinker,
        write_cascade_archive,
    )

    if args.rerank_k < 1 or args.batch_size < 1:
        raise CommandError("--rerank-k and --batch-size must be positive")
    if not 0.0 < args.nil_rate < 1.0:
        raise CommandError(f"--nil-rate must be in (0, 1), got {args.nil_rate}")
    model_archive(args.first_stage)
    if args.cross_encoder is not None:
        model_archive(args.cross_encoder)
    if args.documents_dir is not None:
        existing_dir(args.documents_dir, "documents folder")
    for directory in args.text_dev:
        existing_dir(directory, "free-text set", "paragraphs.jsonl")
    refuse_existing([args.output], args.overwrite)
    from allennlp_longent.linking.freetext import read_set

    text_sets = [read_set(directory) for directory in args.text_dev]  # checked before any work
    first = _first_stage(args.first_stage)
    mentions = _mentions(args.mentions, args.documents_dir)
    labelled = [m for m in mentions if m["gold"] is not None]
    if not labelled:
        raise CommandError(f"{args.mentions}: no mention has a label_document_id to calibrate on")
    settings = CascadeSettings(top_k=first.top_k, rerank_k=args.rerank_k,
                               evidence=first.settings().to_dict(),
                               title_abstain=args.title_abstain,
                               unwritten_nil=args.unwritten_nil)
    model_config = {"retriever": first.kbs.retriever, "encoder": first.encoder,
                    "batch_size": args.batch_size}
    linker = CascadeLinker(Vocabulary(), settings.__dict__, args.cross_encoder, **model_config)
    scored = []
    for rows in linker.kbs.grouped(labelled).values():
        cascade = linker.cascade(linker.kbs.of(labelled[rows[0]]), rerank=True)
        scored += list(zip(rows, cascade.score([labelled[i]["query"] for i in rows],
                                               rerank_all=True)))
    scored = [item for _, item in sorted(scored, key=lambda pair: pair[0])]
    fitted = calibrate(scored, [m["gold"] for m in labelled], settings, args.significance,
                       args.nil_rate)
    fitted.validation.update({"retriever": first.kbs.retriever, "mentions_file": str(args.mentions),
                              "first_stage": Path(args.first_stage).name})
    _print_validation(fitted, args.rerank_k)
    if text_sets:
        _calibrate_text(fitted, text_sets, args, model_config)
    with atomic_file(args.output) as partial:
        write_cascade_archive(partial, fitted, args.cross_encoder, **model_config)
    print(f"calibrated cascade written to {args.output}")


def _calibrate_text(fitted, sets: Sequence["FreeTextSet"], args: argparse.Namespace,
                    model_config: dict) -> None:
    """``fitted.text_weight`` and ``fitted.text_nil``, chosen on the spans of the ``--text-dev``
    ``sets`` linked by ``longent_linker`` with the archive calibrated so far (free text is not the
    validation world's style: there λ and the NIL option may not carry over). λ as
    :func:`~allennlp_longent.linking.cascade.choose_weight` does; then, at that λ, the NIL option
    is kept only if it beats the rules' NIL alone by the same sign test
    (:func:`~allennlp_longent.linking.cascade.choose_text_nil`)."""
    import tempfile

    from allennlp_longent.linking.cascade import WEIGHTS, choose_text_nil, choose_weight
    from allennlp_longent.linking.freetext import outcomes_by_weight
    from allennlp_longent.linking.models.cascade_linker import write_cascade_archive

    weights = WEIGHTS[::2] if args.cross_encoder is not None else (0.0,)
    with tempfile.TemporaryDirectory() as scratch:
        draft = write_cascade_archive(Path(scratch) / "draft.tar.gz", fitted,
                                      args.cross_encoder, **model_config)
        outcomes = outcomes_by_weight(sets, str(draft), weights, Path(scratch), (True, False))
    with_nil = {w: outcomes[w, True] for w in weights}
    fitted.text_weight, chosen = choose_weight(with_nil, args.significance)
    fitted.text_nil, nil_test = choose_text_nil(outcomes[fitted.text_weight, True],
                                                outcomes[fitted.text_weight, False],
                                                args.significance)
    counts = {str(w): sum(right) for w, right in with_nil.items()}
    names = [data.name for data in sets]
    fitted.validation["text"] = {"sets": names, "spans": len(with_nil[0.0]),
                                 "accuracy_by_weight": counts, "sign_test": chosen,
                                 "nil_option": nil_test}
    print(f"free text ({', '.join(names)}: {len(with_nil[0.0])} spans, "
          f"the spaCy component's rules on): right by weight "
          + ", ".join(f"{w} {c}" for w, c in counts.items()))
    print(f"the most accurate weight {chosen['weight']} fixed {chosen['fixed']} and broke "
          f"{chosen['broken']} spans against weight 0: sign test p = {chosen['p_value']:.3f}; "
          f"free text gets weight {fitted.text_weight}")
    print(f"at that weight the NIL option fixed {nil_test['fixed']} and broke "
          f"{nil_test['broken']} spans against the rules' NIL alone: sign test p = "
          f"{nil_test['p_value']:.3f}; free text {'keeps' if fitted.text_nil else 'drops'} it")


def _print_validation(settings, k: int) -> None:
    v = settings.validation
    alone = v["reranker_alone_at_1"]
    print(f"validation ({v['mentions']} mentions, gold in the first {k}: "
          f"{v['gold_in_reranked']}): first stage@1 {v['retrieval_at_1']}"
          + ("" if alone is None else f", cross-encoder alone {alone}")
          + f", cascade {v['cascade_at_1']} with weight {settings.weight}; temperature "
          f"{settings.temperature}")
    t = v["sign_test"]
    print(f"the most accurate weight {t['weight']} fixed {t['fixed']} and broke {t['broken']} "
          f"validation mentions against weight 0: sign test p = {t['p_value']:.3f} "
          f"({'kept' if settings.weight else 'not kept'} at {t['significance']})")
    if settings.title_abstain:
        print(f"the cross-encoder abstains on {v['title_abstained']} of these mentions (the bare "
              "title of exactly one candidate)")
    print(f"NIL option (b = {settings.nil_score}, expected NIL rate {v['nil_rate']}): right on "
          f"{v['nil_decision_correct']}/{v['nil_decision_total']} validation cases (mentions as "
          f"they are and with the gold removed from the KB) against {v['never_nil_correct']} "
          "never NIL")
    if settings.unwritten_nil:
        kept, removed = v["unwritten_nil"]
        print(f"a name word on no candidate's page made {kept} of these mentions NIL, and {removed}"
              " with the gold removed")


def run_report(args: argparse.Namespace) -> None:
    import sys

    from allennlp_longent.linking.evaluation import failures, table

    existing_file(args.metrics, "metrics file")
    metrics = json.loads(args.metrics.read_text())
    if "cascade_right" not in metrics:
        raise CommandError(f"{args.metrics} holds no cascade_linker metrics (cascade_right)")
    print(table(metrics, args.title))
    found = failures(metrics)
    for failure in found:
        print(f"FAILED: {failure}", file=sys.stderr)
    if args.check and found:
        sys.exit(1)
