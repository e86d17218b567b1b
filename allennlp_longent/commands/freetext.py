"""``longent freetext``: link the gold spans of free-text sets with every linker and print a table.

A set is a folder with ``kb.jsonl`` and ``paragraphs.jsonl`` (:mod:`allennlp_longent.linking.
freetext`; ``fixtures/freetext/{dev,dev2,dev3,test,...}``). The first row is retrieval alone
(BM25 with its title field, each span on its own). The second is retrieval with the rules that need
no model: name coreference (a person span that shortens an earlier one takes its link), label
agreement (a candidate whose page's pronouns clash with the span's label goes after the others; a
common-noun span, "the fortress", prefers the pages that define their entity by its noun),
article agreement (after "the", a person named without one goes after the others), name
agreement (a span that is one candidate's bare title puts it first; a name with an initial, "L.
Ambros", prefers the titles that write it; a name that is no title, the pages that give it as
another name) and, when the
archive given by ``--model`` has it, the ``unwritten_nil`` rule; ``--no-name-coreference``,
``--no-label-agreement``, ``--no-article-agreement`` and ``--no-name-agreement`` leave the
first four out of every row. ``--labels`` says where the spans' labels come from: set by hand
(``annotated``, the default: the sets' markup) or by a statistical NER (``ner``), which decides
whom the component believes when a label and a name point to different pages
(:mod:`allennlp_longent.linking.label_conflict`).
With ``--model``, a ``cascade_linker`` archive (``longent calibrate``), come its first stage
(weight 0: no cross-encoder) with NIL as calibrated for free text (the NIL option or, where
``--text-dev`` dropped it, the rules' NIL alone), the whole cascade as calibrated and, when the
archive holds a cross-encoder, the cascade at weight 1 (the trained re-ranker's order of
the first stage's top ``rerank_k``, except where it abstains on an exact title). With
``--spacy-peer`` comes spaCy's ``entity_linker`` trained by ``scripts/linking/train_spacy_peer.py``.
Each row gives accuracy over all spans that name something (a NIL span is right when linked NIL)
with its count and a 95 % Wilson interval, NIL precision and recall, and mentions per CPU second.
Exits 1 when ``--require`` names a system that fails to beat retrieval alone.
"""

import argparse
import sys
import tempfile
from pathlib import Path

from allennlp_longent.commands.safe_io import (
    CommandError,
    existing_dir,
    model_archive,
    reporting_errors,
)

RETRIEVAL = "retrieval alone (BM25 + titles)"
RETRIEVAL_RULES = "retrieval + the rules (no model)"
FIRST_STAGE = "cascade's first stage (weight 0)"
CASCADE = "cascade (as calibrated)"
RERANKER = "re-ranker's order (weight 1)"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "freetext", help="evaluate linkers on hand-written free-text sets", description=__doc__)
    parser.add_argument("sets", type=Path, nargs="+", help="set folders (kb.jsonl, "
                        "paragraphs.jsonl)")
    parser.add_argument("--model", help="a cascade_linker archive (longent calibrate)")
    parser.add_argument("--archive", help=argparse.SUPPRESS)  # old; refused with what to pass
    parser.add_argument("--calibration", help=argparse.SUPPRESS)
    parser.add_argument("--first-stage", help=argparse.SUPPRESS)
    parser.add_argument("--spacy-peer", type=Path, help="a trained spaCy entity_linker pipeline")
    parser.add_argument("--encoder", default="packaged_minilm",
                        help="sentence encoder of the spaCy peer's entity vectors")
    parser.add_argument("--errors", action="store_true", help="list every wrong link")
    parser.add_argument("--name-coreference", action=argparse.BooleanOptionalAction,
                        default=True, help="longent_linker's name_coreference in every row but "
                        "the first (default: on, as the component's)")
    parser.add_argument("--label-agreement", action=argparse.BooleanOptionalAction,
                        default=None, help="longent_linker's label_agreement in every row but "
                        "the first (default: as the component's, on with --labels annotated, "
                        "off with --labels ner)")
    parser.add_argument("--article-agreement", action=argparse.BooleanOptionalAction,
                        default=True, help="longent_linker's article_agreement in every row but "
                        "the first (default: on, as the component's)")
    parser.add_argument("--name-agreement", action=argparse.BooleanOptionalAction,
                        default=True, help="longent_linker's name_agreement in every row but "
                        "the first (default: on, as the component's)")
    parser.add_argument("--descriptors", action=argparse.BooleanOptionalAction,
                        default=True, help="longent_linker's descriptors in every row but the "
                        "first (default: on, as the component's; needs --model's first stage)")
    parser.add_argument("--labels", choices=("annotated", "ner"), default="annotated",
                        help="where the sets' span labels come from: set by hand (default, as in "
                        "fixtures/freetext) or by a statistical NER; longent_linker's labels")
    parser.add_argument("--require", help="a system's name in the table that must beat "
                        "retrieval alone (exit 1 otherwise)")
    parser.set_defaults(func=reporting_errors(run))


def run(args: argparse.Namespace) -> None:
    for directory in args.sets:
        existing_dir(directory, "free-text set", "paragraphs.jsonl")
    if args.archive or args.calibration or args.first_stage:
        raise CommandError("--archive, --calibration and --first-stage are gone: pass --model, "
                           "one cascade_linker archive (longent calibrate), which holds the first "
                           "stage, the cross-encoder and the calibration")
    if args.model is not None:
        model_archive(args.model)
    if args.spacy_peer is not None:
        existing_dir(args.spacy_peer, "spaCy pipeline", "config.cfg")
    from allennlp_longent.linking.freetext import (
        errors,
        evaluate,
        longent_linker,
        read_set,
        retrieval_linker,
        save_kb,
        spacy_peer_linker,
        table_rows,
    )

    reranks = rule = False
    settings = None
    if args.model is not None:
        from allennlp_longent.linking.cascade import CascadeSettings

        model = _model_config(args.model)
        settings = CascadeSettings(**model["calibration"])
        reranks = bool(model.get("cross_encoder"))
        rule = settings.unwritten_nil
        text = ("" if settings.text_weight is None
                else f" (free text: {settings.text_weight}, longent calibrate --text-dev)")
        print(f"{args.model}: re-ranker weight {settings.weight}{text}, NIL score "
              f"{settings.nil_score}, temperature {settings.temperature}")
    failed = []
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        for directory in args.sets:
            data = read_set(directory)
            kb_dir = save_kb(data.entities, scratch / data.name / "kb")
            linkers = {RETRIEVAL: retrieval_linker(kb_dir)}
            rules = {"name_coreference": args.name_coreference,
                     "label_agreement": args.label_agreement,
                     "article_agreement": args.article_agreement,
                     "name_agreement": args.name_agreement,
                     "descriptors": args.descriptors}
            options = {**rules, "labels": args.labels}
            if rule or any(rules.values()):
                linkers[RETRIEVAL_RULES] = longent_linker(kb_dir, unwritten_nil=rule, **options)
            if args.model is not None:
                linkers[FIRST_STAGE] = longent_linker(kb_dir, args.model, weight=0.0, **options)
                # λ = 0 for free text: the calibrated cascade is the first stage's linker
                linkers[CASCADE] = linkers[FIRST_STAGE] if settings.free_text_weight == 0 \
                    else longent_linker(kb_dir, args.model, **options)
            if reranks:
                linkers[RERANKER] = longent_linker(kb_dir, args.model, weight=1.0, **options)
            if args.spacy_peer is not None:
                linkers["spaCy entity_linker"] = spacy_peer_linker(
                    args.spacy_peer, data.entities, args.encoder)
            results = evaluate(data, linkers)
            gold = data.gold()
            print(f"\n{directory}: {len(data.paragraphs)} paragraphs, {len(gold)} spans "
                  f"({gold.count('NIL')} NIL), {len(data.entities)} entities")
            print("\n".join(table_rows(results)))
            for name, (_, _, found) in results.items() if args.errors else ():
                print(f"  wrong links of {name}:\n    " + "\n    ".join(errors(data, found)))
            if args.require is not None:
                if args.require not in results:
                    raise ValueError(f"--require {args.require!r}: no such system")
                if results[args.require][0].right <= results[RETRIEVAL][0].right:
                    failed.append(f"{directory}: {args.require} does not beat retrieval alone")
    for failure in failed:
        print(f"FAILED: {failure}", file=sys.stderr)
    if failed:
        sys.exit(1)


def _model_config(model: str) -> dict:
    """The ``model`` section of a ``cascade_linker`` archive's config (its calibration, whether
    it holds a cross-encoder)."""
    import json
    import tarfile

    with tarfile.open(model) as archive:
        member = archive.extractfile("config.json")
        config = json.load(member) if member is not None else {}
    if config.get("model", {}).get("type") != "cascade_linker":
        raise CommandError(f"{model} holds no cascade_linker (write one with longent calibrate)")
    return config["model"]
