"""The README's and docs/ pages' examples: every ```bash / ```python block is marked, either
``<!-- readme-test: run -->`` (run verbatim here) or ``<!-- readme-test: skip REASON -->``; every
file a block names exists; the run blocks succeed from a folder that sees the repository's
fixtures, after a tiny main job of the test's own (``runs/main_job``, ``runs/smoke``), print
something when they print, and write nothing outside ``runs/``."""

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import List

import pytest
from conftest import REPO_ROOT

PAGES = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^(?:<!-- readme-test: (run|skip)(.*?) -->\n)?```(bash|python)\n(.*?)^```",
                   re.S | re.M)
REPO_PATH = re.compile(r"(?<![\w./-])((?:fixtures|training_configs|scripts)/[\w./*-]+)")


@dataclass
class Block:
    where: str  # page:line of the opening fence
    mark: str  # "run", "skip" or "" (unmarked)
    reason: str
    language: str
    code: str


def page_blocks(page: Path) -> List[Block]:
    text = page.read_text(encoding="utf-8")
    name = page.relative_to(REPO_ROOT)
    return [
        Block(f"{name}:{text.count(chr(10), 0, match.start(3)) + 1}", match.group(1) or "",
              (match.group(2) or "").strip(), match.group(3), match.group(4))
        for match in BLOCK.finditer(text)
    ]


BLOCKS = [block for page in PAGES for block in page_blocks(page)]


def test_the_block_parser_sees_every_fence():
    """Every opening ```bash / ```python fence of the pages is one parsed block."""
    fences = sum(len(re.findall(r"^```(?:bash|python)$", page.read_text(encoding="utf-8"), re.M))
                 for page in PAGES)
    assert fences == len(BLOCKS) >= 9


def test_every_block_is_marked_run_or_skip_with_a_reason():
    unmarked = [
        f"{block.where}: ```{block.language} block starting {block.code.splitlines()[0]!r}"
        for block in BLOCKS if not block.mark
    ]
    assert not unmarked, (
        "unmarked README/docs code blocks; put `<!-- readme-test: run -->` (a test runs it) or "
        "`<!-- readme-test: skip REASON -->` on the line before each:\n" + "\n".join(unmarked))
    no_reason = [block.where for block in BLOCKS
                 if block.mark == "skip" and len(block.reason.split()) < 3]
    assert not no_reason, f"skip marks without a reason (a few words): {no_reason}"


def test_every_file_a_readme_block_names_exists():
    named = {path.rstrip(".") for block in BLOCKS for path in REPO_PATH.findall(block.code)}
    assert {"fixtures/examples/mentions.jsonl", "fixtures/examples/paragraph.txt"} <= named
    missing = [path for path in sorted(named) if not list(REPO_ROOT.glob(path))]
    assert not missing, f"README/docs name files the repository does not have: {missing}"


def tiny_main_job(archive: Path, work: Path) -> None:
    """What the run blocks read from the main job and the smoke run, at test size: a tiny trained
    re-ranker (tests/linking/tiny_linker.py), the KB of the demo's test world and a cascade
    archive around it without a first stage."""
    from allennlp_longent.linking.cascade import CascadeSettings
    from allennlp_longent.linking.knowledge_base import KnowledgeBase
    from allennlp_longent.linking.models.cascade_linker import write_cascade_archive

    for folder in ("runs/main_job/cascade", "runs/smoke"):
        (work / folder).mkdir(parents=True)
    shutil.copy(archive, work / "runs/smoke/model.tar.gz")
    write_cascade_archive(work / "runs/main_job/cascade/model.tar.gz",
                          CascadeSettings(top_k=8, rerank_k=4), str(archive))
    kb = KnowledgeBase()
    kb.add_files([REPO_ROOT / "fixtures/zeshel_demo/documents/lantern_isles.json"])
    kb.save(work / "runs/main_job/kb")


@pytest.fixture(scope="module")
def ran(tmp_path_factory, tiny_linker_files):
    """``{block.where: completed process}`` of every run block, run in order in one folder."""
    work = tmp_path_factory.mktemp("readme")
    tiny_main_job(tiny_linker_files[0], work)
    (work / "fixtures").symlink_to(REPO_ROOT / "fixtures")
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), OMP_NUM_THREADS="1",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    done = {}
    for block in BLOCKS:
        if block.mark == "run":
            command = (["bash", "-euo", "pipefail", "-c", block.code] if block.language == "bash"
                       else [sys.executable, "-c", block.code])
            done[block.where] = subprocess.run(command, cwd=work, env=env, capture_output=True,
                                               text=True, timeout=600)
    return work, done


def test_marked_blocks_run_verbatim(ran):
    work, done = ran
    assert len(done) >= 4
    for where, process in done.items():
        output = f"{process.stdout[-2000:]}\n{process.stderr[-3000:]}"
        assert process.returncode == 0, f"{where}\n{output}"
    assert (work / "runs" / "examples" / "kb" / "entities.jsonl").is_file()
    assert (work / "runs" / "examples" / "minilm-1024" / "config.json").is_file()


def test_blocks_that_print_print_something(ran):
    """A print in a loop over nothing (a pattern that matches no word) prints nothing."""
    _, done = ran
    code = {block.where: block.code for block in BLOCKS}
    silent = [where for where, process in done.items()
              if "print(" in code[where] and not process.stdout.strip()]
    assert not silent, f"blocks that print but printed nothing: {silent}"


def test_blocks_write_only_under_runs(ran):
    work, _ = ran
    assert sorted(path.name for path in work.iterdir()) == ["fixtures", "runs"]


@pytest.mark.parametrize("name", ["mentions.jsonl", "docs.jsonl", "paragraph.txt"])
def test_example_inputs_are_shipped(name):
    assert (REPO_ROOT / "fixtures" / "examples" / name).is_file()
    assert "fixtures/examples" in (REPO_ROOT / "setup.py").read_text()
