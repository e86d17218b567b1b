"""The README's and docs/ pages' examples: every file a code block names exists, and the blocks
marked ``<!-- readme-test: run -->`` run verbatim (from a folder that sees the repository's
fixtures)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT

PAGES = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
README = "\n".join(page.read_text(encoding="utf-8") for page in PAGES)
BLOCK = re.compile(r"(<!-- readme-test: run -->\n)?```(bash|python)\n(.*?)```", re.S)
REPO_PATH = re.compile(r"(?<![\w./-])((?:fixtures|training_configs|scripts)/[\w./*-]+)")


def blocks(run_only: bool = False):
    return [
        code for marker, _, code in BLOCK.findall(README) if marker or not run_only
    ]


def test_every_file_a_readme_block_names_exists():
    named = {path.rstrip(".") for code in blocks() for path in REPO_PATH.findall(code)}
    assert "fixtures/examples/mentions.jsonl" in named
    missing = [path for path in sorted(named) if not list(REPO_ROOT.glob(path))]
    assert not missing, f"README names files the repository does not have: {missing}"


def test_marked_blocks_run_verbatim(tmp_path):
    marked = blocks(run_only=True)
    assert marked, "no README block is marked <!-- readme-test: run -->"
    (tmp_path / "fixtures").symlink_to(REPO_ROOT / "fixtures")
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), OMP_NUM_THREADS="1",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    for code in marked:
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", code], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{code}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    assert (tmp_path / "runs" / "examples" / "kb" / "entities.jsonl").is_file()
    assert (tmp_path / "runs" / "examples" / "minilm-1024" / "config.json").is_file()


@pytest.mark.parametrize("name", ["mentions.jsonl", "docs.jsonl", "paragraph.txt"])
def test_example_inputs_are_shipped(name):
    assert (REPO_ROOT / "fixtures" / "examples" / name).is_file()
    assert "fixtures/examples" in (REPO_ROOT / "setup.py").read_text()
