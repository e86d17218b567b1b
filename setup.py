from setuptools import find_packages, setup

setup(
    name="allennlp-longent",
    version="0.1.0",
    description="Long-range, entity-aware models for AllenNLP: extended-position transformers, "
    "zero-shot entity linking, Long-LUKE entity typing and relation classification, EntityNLM.",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    python_requires=">=3.10",
    packages=find_packages(include=["allennlp_longent", "allennlp_longent.*"]),
    package_data={"allennlp_longent": ["py.typed"]},
    install_requires=[
        "allennlp==2.10.1",
        "torch>=2.0",
        "transformers>=4.30,<4.44",
        "spacy>=3.7,<3.9",
        "bm25s>=0.2",
    ],
    entry_points={
        "console_scripts": [
            "longent=allennlp_longent.commands.cli:main",
        ],
        "spacy_factories": [
            "longent_linker=allennlp_longent.linking.spacy_component:make_longent_linker",
        ],
    },
)
