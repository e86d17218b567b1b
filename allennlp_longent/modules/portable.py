"""Self-contained model archives: a copy of each transformer's config and tokenizer travels
inside ``model.tar.gz``, so an archive loads after the checkpoint it was trained from moved.

AllenNLP hands ``serialization_dir`` to every component it builds: the run folder when training,
the extracted archive when loading. While training, the embedders save the config of the model
they built (after position extension and LUKE's conversion) and its tokenizer to
``<serialization_dir>/transformers/<key>``; the configs archive that folder with
``include_in_archive: ["transformers"]``. When that copy is found, tokenizers read it and
embedders build the architecture from it without pretrained weights (the archive's weights
replace them), so the original ``model_name`` is never opened.
"""

import contextlib
import hashlib
import os
import re
from pathlib import Path
from typing import Iterator, Optional, Tuple

from allennlp_longent.paths import describe

TRANSFORMERS_DIR = "transformers"


def copy_dir(model_name: str, serialization_dir: Optional[str]) -> Optional[Path]:
    """Where the copy of ``model_name`` lives under ``serialization_dir`` (None without one).

    The key is the name as the config spells it, so training and loading agree on it."""
    if not serialization_dir:
        return None
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(model_name).name or "model")[-60:]
    digest = hashlib.sha1(model_name.encode("utf-8")).hexdigest()[:10]
    return Path(serialization_dir) / TRANSFORMERS_DIR / f"{stem}-{digest}"


def archived_copy(model_name: str, serialization_dir: Optional[str]) -> Optional[Path]:
    """The saved copy of ``model_name`` in ``serialization_dir``, if there is one."""
    path = copy_dir(model_name, serialization_dir)
    return path if path is not None and (path / "config.json").is_file() else None


def resolve_model_name(model_name: str, serialization_dir: Optional[str]) -> Tuple[str, bool]:
    """``(what to load, whether it is the archived copy)``.

    Without a copy, a ``model_name`` that names a local path must exist: the error gives the
    absolute path and the directory a relative one was taken from, instead of transformers'
    attempt to download a model of that name."""
    copy = archived_copy(model_name, serialization_dir)
    if copy is not None:
        return str(copy), True
    check_model_path(model_name, serialization_dir)
    return model_name, False


def looks_like_path(model_name: str) -> bool:
    """A name no model hub uses: absolute, ``./``/``../``/``~``, or more than one ``/``."""
    return model_name.startswith((os.sep, ".", "~")) or model_name.count("/") > 1


def missing_path_message(model_name: str, serialization_dir: Optional[str] = None) -> str:
    message = f"transformer checkpoint not found: {describe(model_name)}"
    if serialization_dir is not None:
        message += (
            f"; {serialization_dir} holds no copy of it under {TRANSFORMERS_DIR}/ (configs "
            f"archive one with include_in_archive: [\"{TRANSFORMERS_DIR}\"])"
        )
    return message


def check_model_path(model_name: str, serialization_dir: Optional[str] = None) -> None:
    """Raises ``FileNotFoundError`` for a path-like ``model_name`` that does not exist."""
    if looks_like_path(model_name) and not os.path.isdir(os.path.expanduser(model_name)):
        raise FileNotFoundError(missing_path_message(model_name, serialization_dir))


@contextlib.contextmanager
def naming_checkpoint(model_name: str) -> Iterator[None]:
    """Adds the resolved local path to transformers' error for a name that is neither a local
    folder nor a model it could fetch (``runs/tiny_luke`` run from another directory)."""
    try:
        yield
    except OSError as error:
        if os.path.isdir(model_name):
            raise
        raise OSError(f"{missing_path_message(model_name)}; transformers: {error}") from error


def save_copy(model_name: str, serialization_dir: Optional[str], config, tokenizer_source: str):
    """Saves ``config`` and the tokenizer of ``tokenizer_source`` as the copy of ``model_name``;
    does nothing without a ``serialization_dir`` or when the copy exists."""
    target = copy_dir(model_name, serialization_dir)
    if target is None or (target / "config.json").is_file():
        return
    from transformers import AutoTokenizer

    target.mkdir(parents=True, exist_ok=True)
    AutoTokenizer.from_pretrained(tokenizer_source).save_pretrained(str(target))
    config.save_pretrained(str(target))
