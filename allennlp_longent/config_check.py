"""Misspelled keys in training configs: an error naming the key and the file it is written in.

AllenNLP passes keys it does not know to a constructor that takes ``**kwargs``:
``GradientDescentTrainer`` keeps them silently (``trainer.learning_rate_schedular`` trains with the
default schedule), a dataset reader forwards them to ``DatasetReader.__init__`` (a bare
``TypeError``). :func:`unknown_keys` walks a config as ``from_params`` would build it (the
``type`` of each registered part picks its class, then the parameters of its constructor and of
the constructors its ``**kwargs`` reach) and lists every key none of them takes;
:func:`check_config_file` raises naming each one, a close known key, and the file and line of the
config or of the ``.libsonnet`` it imports where the key is written. Importing
``allennlp_longent.components`` makes ``allennlp train`` run this check first.
"""

import difflib
import functools
import inspect
import os
import re
import typing
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Set, Tuple, Union

PathLike = Union[str, Path]

# Keys ``allennlp train`` pops before it builds ``TrainModel`` (commands/train.py,
# common/util.py: prepare_environment).
TOP_LEVEL = {"type", "include_in_archive", "distributed", "evaluation", "random_seed",
             "numpy_seed", "pytorch_seed"}


def unknown_keys(config: Dict[str, Any]) -> List[Tuple[str, str, Set[str]]]:
    """``(dotted key, class name, keys that class takes)`` for every key no constructor takes."""
    from allennlp.commands.train import TrainModel

    found: List[Tuple[str, str, Set[str]]] = []
    rest = {key: value for key, value in config.items() if key not in TOP_LEVEL}
    _walk(rest, TrainModel, "", found)
    return found


def _walk(params: Dict[str, Any], base: type, path: str, found: list) -> None:
    resolved = _constructor(params, base)
    if resolved is None:  # an unknown type or a custom from_params: AllenNLP reports or decides
        return
    cls, parameters = resolved
    taken = set(parameters) | {"type"}
    for key, value in params.items():
        if key not in taken:
            found.append((path + key, cls.__name__, taken - {"type"}))
        elif key != "type":
            _walk_value(value, parameters[key].annotation, f"{path}{key}.", found)


def _constructor(params: Dict[str, Any], base: type) -> Optional[Tuple[type, Dict[str, Any]]]:
    from allennlp.common import FromParams, Registrable
    from allennlp.common.from_params import infer_method_params

    if not (inspect.isclass(base) and issubclass(base, FromParams)):
        return None
    cls, constructor_name = base, None
    if issubclass(base, Registrable) and base in Registrable._registry:
        name = params.get("type", base.default_implementation)
        if not isinstance(name, str) or name not in Registrable._registry[base]:
            return None
        cls, constructor_name = base.resolve_class_name(name)
    if "from_params" in vars(cls):
        return None
    constructor = getattr(cls, constructor_name) if constructor_name else cls.__init__
    parameters = infer_method_params(cls, constructor)  # with its superclass's for **kwargs
    return cls, {name: p for name, p in parameters.items()
                 if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and name != "self"}


def _walk_value(value: Any, annotation: Any, path: str, found: list) -> None:
    from allennlp.common import Lazy

    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Union:  # Optional[X]
        for argument in arguments:
            if argument is not type(None):
                _walk_value(value, argument, path, found)
                return
    elif origin is Lazy or (inspect.isclass(origin) and issubclass(origin, Lazy)):
        _walk_value(value, arguments[0], path, found)
    elif origin in (dict, typing.Dict) and isinstance(value, dict) and len(arguments) == 2:
        for key, item in value.items():
            _walk_value(item, arguments[1], f"{path}{key}.", found)
    elif origin in (list, typing.List) and isinstance(value, list) and arguments:
        for index, item in enumerate(value):
            _walk_value(item, arguments[0], f"{path}{index}.", found)
    elif inspect.isclass(annotation) and isinstance(value, dict):
        _walk(value, annotation, path, found)


def check_config_file(path: PathLike, overrides: Union[str, Dict[str, Any]] = "") -> None:
    """Raises ``ConfigurationError`` listing every unknown key of the config at ``path`` (after
    ``overrides``), each with a close known key and where it is written."""
    from allennlp.common import Params
    from allennlp.common.checks import ConfigurationError

    config = Params.from_file(str(path), overrides).as_dict(quiet=True)
    problems = []
    for key, class_name, taken in unknown_keys(config):
        name = key.rsplit(".", 1)[-1]
        close = difflib.get_close_matches(name, sorted(taken), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else f"; it takes {sorted(taken)}"
        places = written_at(path, name) or [f"{path} (or --overrides)"]
        problems.append(f"unknown config key {key!r}: {class_name} has no parameter {name!r}"
                        f"{hint} (written at {', '.join(places)})")
    if problems:
        raise ConfigurationError("\n".join(problems))


def written_at(path: PathLike, key: str) -> List[str]:
    """``file:line`` of each place where ``key`` is written as a field in ``path`` or in a
    file it imports (jsonnet ``import '...'``), recursively."""
    field = re.compile(rf"""(?<![\w'"])['"]?{re.escape(key)}['"]?\s*\+?:""")
    places: List[str] = []
    for source in _imported_files(Path(path)):
        for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
            if field.search(line.split("//", 1)[0]):
                places.append(f"{source}:{number}")
    return places


def _imported_files(path: Path, seen: Optional[Set[Path]] = None) -> Iterator[Path]:
    seen = set() if seen is None else seen
    if path in seen or not path.is_file():
        return
    seen.add(path)
    yield path
    for name in re.findall(r"""\bimport\s+['"]([^'"]+)['"]""", path.read_text(encoding="utf-8")):
        yield from _imported_files(Path(os.path.normpath(path.parent / name)), seen)


def install() -> None:
    """Makes ``allennlp train`` (``train_model_from_file``) check the config's keys first."""
    from allennlp.commands import train

    original = train.train_model_from_file
    if getattr(original, "checks_config_keys", False):
        return

    @functools.wraps(original)
    def checked(parameter_filename, *args, **kwargs):
        overrides = kwargs.get("overrides", args[1] if len(args) > 1 else "")
        check_config_file(parameter_filename, overrides)
        return original(parameter_filename, *args, **kwargs)

    checked.checks_config_keys = True
    train.train_model_from_file = checked

