"""Paths in error messages: what was given, where it resolved to, and what it was relative to."""

import json
import os
from pathlib import Path
from typing import Union


def json_error(error: "json.JSONDecodeError") -> str:
    """The full text of a JSON error on one line of a JSON-lines file, with its column
    (``error.msg`` alone is cut before the position: "Invalid control character at")."""
    message = error.msg[: -len(" at")] if error.msg.endswith(" at") else error.msg
    return f"{message} at column {error.colno} (character {error.pos})"


def describe(path: Union[str, Path]) -> str:
    """``path`` with its absolute form and, when relative, the directory it was taken from."""
    path = Path(path).expanduser()
    if path.is_absolute():
        return str(path)
    return f"{path} (resolved: {path.absolute()}, relative to {os.getcwd()})"


def missing_file_message(path: Union[str, Path], what: str) -> str:
    """Names the first missing folder on the way to ``path`` (a wrong data root, not a file
    inside it), or the file itself."""
    path = Path(path).expanduser()
    missing = path
    for parent in reversed(path.parents):
        if str(parent) not in ("", ".") and not parent.exists():
            missing = parent
            break
    if missing != path:
        return f"{what} {path}: folder not found: {describe(missing)}"
    return f"{what} not found: {describe(path)}"


def check_archive(path: Union[str, Path]) -> Path:
    """Raises ``ValueError`` naming ``path`` unless it is a readable tar.gz holding a config.json
    (a corrupt archive otherwise fails with a bare ``tarfile.ReadError``)."""
    import tarfile

    path = Path(path)
    try:
        with tarfile.open(path) as archive:
            names = archive.getnames()
    except (tarfile.TarError, EOFError, OSError) as error:
        message = f"model archive {describe(path)} is not a readable tar.gz: {error}"
        raise ValueError(message) from error
    if "config.json" not in names:
        raise ValueError(f"model archive {describe(path)} holds no config.json")
    return path
