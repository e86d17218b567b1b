"""`spacy package` round trip of a linking pipeline: trains the tests' tiny linker, saves an
`entity_ruler` + `longent_linker` pipeline, packages it, installs it
as an sdist (a wheel needs the `build` package, which the project does not pin) into VENV
(a venv where allennlp-longent is installed, e.g. by scripts/checks/check_install.sh), deletes every
file the pipeline was made from, and loads the package by name in a fresh process of VENV.
Prints whether the links are identical.

    python scripts/checks/check_spacy_package.py VENV
"""

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "linking")]

LINK = """
import json, sys
import spacy
nlp = spacy.load(sys.argv[1])
print(json.dumps([[e.text, e.kb_id_, [[c["id"], c["score"]] for c in e._.longent_candidates]]
                  for e in nlp(sys.argv[2]).ents]))
"""


def main() -> None:
    import spacy
    from tiny_linker import PARAGRAPH, RULER_PATTERNS, build_tiny_linker, cascade_of

    import allennlp_longent.components  # noqa: F401

    venv_python = Path(sys.argv[1]) / "bin" / "python"
    work = Path(tempfile.mkdtemp())
    archive, kb = build_tiny_linker(work / "train")
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns(RULER_PATTERNS)
    nlp.add_pipe("longent_linker", config={"model": cascade_of(archive), "kb": str(kb), "top_k": 3})
    nlp.meta.update(name="longent_check", version="0.0.1")
    links = [[e.text, e.kb_id_, [[c["id"], c["score"]] for c in e._.longent_candidates]]
             for e in nlp(PARAGRAPH).ents]
    nlp.to_disk(work / "pipeline")
    print("meta.json requirements:", json.loads((work / "pipeline/meta.json").read_text())
          ["requirements"])
    (work / "packages").mkdir()
    packaged = subprocess.run([sys.executable, "-m", "spacy", "package", str(work / "pipeline"),
                               str(work / "packages"), "--build", "sdist", "--force"],
                              capture_output=True, text=True, cwd=work)
    if packaged.returncode:
        raise SystemExit(packaged.stdout[-2000:] + packaged.stderr[-2000:])
    sdist = next((work / "packages").glob("*/dist/*.tar.gz"))
    print(f"packaged: {sdist.name}")
    subprocess.run([str(venv_python), "-m", "pip", "install", "-q", "--force-reinstall",
                    "--no-deps", str(sdist)], check=True, cwd=tempfile.gettempdir())
    shutil.rmtree(work)  # the training run, the KB, the pipeline folder and the package
    done = subprocess.run([str(venv_python), "-c", LINK, "en_longent_check", PARAGRAPH],
                          capture_output=True, text=True, cwd=tempfile.gettempdir())
    if done.returncode:
        raise SystemExit(done.stderr[-3000:])
    again = json.loads(done.stdout)
    same_ids = [(t, k, [i for i, _ in c]) for t, k, c in again] == [
        (t, k, [i for i, _ in c]) for t, k, c in links
    ]
    diff = max((abs(a[1] - b[1]) for x, y in zip(again, links) for a, b in zip(x[2], y[2])),
               default=0.0)
    print(f"spacy.load('en_longent_check') in a fresh process of {venv_python}: "
          f"{len(again)} spans, same links and candidates: {same_ids}, max score difference {diff}")
    print(json.dumps([(t, k) for t, k, _ in again]))


if __name__ == "__main__":
    main()
