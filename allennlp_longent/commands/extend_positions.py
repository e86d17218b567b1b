"""``longent extend-positions SRC DST``: save a checkpoint with a longer position table."""

import argparse
from pathlib import Path

from allennlp_longent.commands.safe_io import (
    atomic_dir,
    existing_dir,
    refuse_existing,
    reporting_errors,
)
from allennlp_longent.modules.portable import looks_like_path, naming_checkpoint

INITIALIZERS = ("constant", "head", "repeat")  # PositionInitializer's registered names


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "extend-positions",
        help="extend a checkpoint's absolute position table (E_repeat / E_head / E_constant)",
        description="Loads a transformers checkpoint directory, extends its position tables to "
        "MAX_LENGTH positions and writes model, config and tokenizer with save_pretrained. "
        "TARGET is written to a temporary folder and renamed when complete.",
    )
    parser.add_argument(
        "source", type=Path, help="checkpoint directory (or model name in the local cache)"
    )
    parser.add_argument("target", type=Path, help="directory to write the extended checkpoint to")
    parser.add_argument("--max-length", type=int, required=True, help="new number of positions")
    parser.add_argument(
        "--init",
        default="repeat",
        choices=INITIALIZERS,
        help="how rows past the original table are initialised (default: repeat)",
    )
    parser.add_argument(
        "--auto-class", default="AutoModel", help="transformers auto class used to load SOURCE"
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace an existing TARGET (a model trained "
        "from it may no longer load)"
    )
    parser.set_defaults(func=reporting_errors(_run))


def _run(args: argparse.Namespace) -> None:
    if args.source.exists() or looks_like_path(str(args.source)) or not _cached(args.source):
        existing_dir(args.source, "checkpoint", "config.json")
    if args.max_length < 1:
        raise ValueError(f"--max-length must be positive, got {args.max_length}")
    refuse_existing([args.target], args.overwrite)
    if args.target.resolve() == args.source.resolve():
        raise ValueError(f"TARGET is SOURCE ({args.source}); write the extension elsewhere")
    from allennlp_longent.modules.position_extension import extend_checkpoint

    with atomic_dir(args.target) as partial, naming_checkpoint(str(args.source)):
        extend_checkpoint(str(args.source), str(partial), args.max_length, args.init,
                          args.auto_class)
    print(f"wrote {args.target} with {args.max_length} positions ({args.init})")


def _cached(name: Path) -> bool:
    """Whether ``name`` is a model in the local Hugging Face cache (nothing is downloaded)."""
    from transformers.utils import cached_file

    try:
        return cached_file(str(name), "config.json", local_files_only=True) is not None
    except OSError:
        return False
