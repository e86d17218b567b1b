"""Every span's decision on free-text sets, and the difference between two such dumps: how a
change to the rules is measured span by span (allennlp_longent.linking.span_diff).

    python scripts/linking/freetext_decisions.py dump OUT.json SET... \
        --model runs/main_job/cascade/model.tar.gz [--labels annotated|ner]
    python scripts/linking/freetext_decisions.py diff BEFORE.json AFTER.json

A dump of another version of the code: run ``dump`` from a checkout of that version with the
same archive. Sets relabelled by ``freetext_spacy_labels.py`` take ``--labels ner``.
"""
import argparse
import json
import sys
import tempfile
from pathlib import Path

from allennlp_longent.linking.freetext import longent_linker, read_set, save_kb
from allennlp_longent.linking.span_diff import compare, decisions


def dump(args: argparse.Namespace) -> None:
    out = {}
    with tempfile.TemporaryDirectory() as scratch:
        for directory in args.sets:
            data = read_set(directory)
            kb = save_kb(data.entities, Path(scratch) / directory.name / "kb")
            records = decisions(data, longent_linker(kb, args.model, labels=args.labels))
            right = sum(r["found"] == r["gold"] for r in records)
            print(f"{directory}: {right}/{len(records)} right", flush=True)
            out[str(directory)] = records
    args.out.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n")


def diff(args: argparse.Namespace) -> None:
    before, after = (json.loads(path.read_text()) for path in (args.before, args.after))
    if set(before) != set(after):
        sys.exit(f"the dumps hold other sets: {sorted(before)} against {sorted(after)}")
    totals = {"fixed": 0, "broken": 0, "changed": 0}
    for name in before:
        for kind, spans in compare(before[name], after[name]).items():
            totals[kind] += len(spans)
            for s in spans:
                print(f"{kind:8} {name}  {s['text']!r} {s['label']}  gold {s['gold']}: "
                      f"{s['before']} -> {s['found']}")
    print(", ".join(f"{kind} {n}" for kind, n in totals.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    d = commands.add_parser("dump")
    d.add_argument("out", type=Path)
    d.add_argument("sets", type=Path, nargs="+")
    d.add_argument("--model", help="a cascade_linker archive (none: retrieval alone)")
    d.add_argument("--labels", choices=("annotated", "ner"), default="annotated")
    d.set_defaults(func=dump)
    c = commands.add_parser("diff")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    c.set_defaults(func=diff)
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
