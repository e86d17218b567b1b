"""``longent predict``: ``allennlp predict`` that cannot lose an existing output file.

``allennlp predict ... --output-file OUT`` opens OUT for writing before the first record is read,
so a bad record (or Ctrl-C) leaves OUT cut short and its old content lost. Here the options are
``allennlp predict``'s own (the plugin's components are registered, no ``--include-package``
needed); the output goes to a temporary file beside OUT, renamed onto it only when every record
is done, and an existing OUT is refused without ``--overwrite``.
"""

import argparse

from allennlp_longent.commands.safe_io import (
    atomic_file,
    existing_file,
    model_archive,
    refuse_existing,
    reporting_errors,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "predict", help="allennlp predict, writing its --output-file only when complete",
        description=__doc__, add_help=False, prefix_chars="+",  # every option is allennlp's
    )
    parser.add_argument("allennlp_args", nargs="*",
                        help="ARCHIVE INPUT [--output-file OUT] [--overwrite] and any other "
                             "option of `allennlp predict` (--help lists them)")
    parser.set_defaults(func=reporting_errors(run))


def run(args: argparse.Namespace) -> None:
    from allennlp.commands.predict import Predict, _predict
    from allennlp.common.util import import_module_and_submodules

    import allennlp_longent.components  # noqa: F401  (registers the predictors)

    argv = list(args.allennlp_args)
    overwrite = "--overwrite" in argv
    argv = [arg for arg in argv if arg != "--overwrite"]
    parser = argparse.ArgumentParser(prog="longent")
    predict_parser = Predict().add_subparser(parser.add_subparsers())
    predict_parser.add_argument("--include-package", action="append", default=[],
                                help="further packages to import, as for allennlp")
    predict_args = parser.parse_args(["predict", *argv])
    for package in predict_args.include_package:
        import_module_and_submodules(package)
    model_archive(predict_args.archive_file)
    existing_file(predict_args.input_file, "input file")
    if predict_args.output_file is None:
        _predict(predict_args)
        return
    refuse_existing([predict_args.output_file], overwrite)
    with atomic_file(predict_args.output_file) as partial:
        predict_args.output_file = str(partial)
        _predict(predict_args)
