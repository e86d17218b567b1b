"""One rule for every ``longent`` command that writes: check all inputs first, refuse an existing
target without ``--overwrite``, write into a temporary file or folder beside the target and
rename it into place, so a failed or interrupted (Ctrl-C, SIGTERM) command leaves every file as
it was and no temporary file behind. What is created follows the umask, as ``open`` would."""

import argparse
import contextlib
import os
import shutil
import signal
import tempfile
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional, Union

from allennlp_longent.paths import check_archive, describe

PathLike = Union[str, Path]


class CommandError(ValueError):
    """Bad input or a refused target: the command prints the message and exits with status 1."""


def reporting_errors(command: Callable[[argparse.Namespace], None]) -> Callable:
    """Bad input ends the command with its message (file and line), not a traceback."""

    def run(args: argparse.Namespace) -> None:
        try:
            command(args)
        except (ValueError, OSError) as error:  # OSError: missing files, spaCy's unknown pipeline
            raise SystemExit(f"error: {error}") from error

    return run


def terminate_cleanly() -> None:
    """Makes SIGTERM raise ``SystemExit(143)`` (128 + 15, the shell's status for it) like Ctrl-C
    raises ``KeyboardInterrupt``, so the ``finally`` blocks below remove their temporary files
    (the default action ends the process at once)."""

    def stop(signum: int, frame) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)


def current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def existing_file(path: PathLike, what: str) -> Path:
    path = Path(path).expanduser()
    if not path.is_file():
        state = "is a directory" if path.is_dir() else "not found"
        raise CommandError(f"{what} {state}: {describe(path)}")
    return path


def existing_dir(path: PathLike, what: str, holding: Optional[str] = None) -> Path:
    path = Path(path).expanduser()
    if not path.is_dir():
        raise CommandError(f"{what} not found: {describe(path)}")
    if holding is not None and not (path / holding).exists():
        raise CommandError(f"{what} {describe(path)} holds no {holding}")
    return path


def model_archive(path: PathLike) -> Path:
    """An existing, readable ``model.tar.gz`` (AllenNLP's own error names no file)."""
    existing_file(path, "model archive")
    return check_archive(path)


def refuse_existing(targets: Iterable[PathLike], overwrite: bool) -> None:
    existing = [str(t) for t in targets if Path(t).exists()]
    if existing and not overwrite:
        raise CommandError(f"refusing to overwrite {', '.join(existing)} (pass --overwrite)")


@contextlib.contextmanager
def atomic_file(target: PathLike) -> Iterator[Path]:
    """Yields a temporary path beside ``target``; renamed onto it only if the block succeeds."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial",
                                    dir=target.parent)
    os.close(handle)
    os.chmod(name, 0o666 & ~current_umask())  # mkstemp creates 0600
    try:
        yield Path(name)
        os.replace(name, target)
    finally:
        if os.path.exists(name):
            os.remove(name)


@contextlib.contextmanager
def atomic_dir(target: PathLike) -> Iterator[Path]:
    """Yields an empty temporary folder beside ``target``; it replaces ``target`` (an existing
    one is removed only after the new one is complete) only if the block succeeds."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial",
                                      dir=target.parent))
    os.chmod(temporary, 0o777 & ~current_umask())  # mkdtemp creates 0700
    try:
        yield temporary
        old = None
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old",
                                        dir=target.parent))
            os.replace(target, old / target.name)
        os.replace(temporary, target)
        if old is not None:
            shutil.rmtree(old)
    finally:
        if temporary.exists():
            shutil.rmtree(temporary)
