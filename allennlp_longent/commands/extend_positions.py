"""``longent extend-positions SRC DST``: save a checkpoint with a longer position table."""

import argparse

from allennlp_longent.modules.position_extension import PositionInitializer, extend_checkpoint


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "extend-positions",
        help="extend a checkpoint's absolute position table (E_repeat / E_head / E_constant)",
        description="Loads a transformers checkpoint directory, extends its position tables to "
        "MAX_LENGTH positions and writes model, config and tokenizer with save_pretrained.",
    )
    parser.add_argument("source", help="checkpoint directory (or model name in the local cache)")
    parser.add_argument("target", help="directory to write the extended checkpoint to")
    parser.add_argument("--max-length", type=int, required=True, help="new number of positions")
    parser.add_argument(
        "--init",
        default="repeat",
        choices=sorted(PositionInitializer.list_available()),
        help="how rows past the original table are initialised (default: repeat)",
    )
    parser.add_argument(
        "--auto-class", default="AutoModel", help="transformers auto class used to load SOURCE"
    )
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> None:
    extend_checkpoint(args.source, args.target, args.max_length, args.init, args.auto_class)
    print(f"wrote {args.target} with {args.max_length} positions ({args.init})")
