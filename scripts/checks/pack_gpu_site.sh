#!/usr/bin/env bash
# Packs what a GPU machine's own Python 3.12 (PyTorch, numpy, requests and the like, but a newer
# transformers and no AllenNLP or spaCy) lacks to run scripts/checks/gpu_check.sh: the versions
# installed in this checkout's .venv, as CPython 3.12 manylinux wheels, unpacked into one folder,
# pruned (test suites, TensorFlow/Flax model files, botocore's service data but S3's and STS's,
# debug symbols) and written as one tar.xz of about 26 MB, small enough to travel with the tree.
#
# Usage: bash scripts/checks/pack_gpu_site.sh OUT.tar.xz   (from the repository root, after setup)
# There: mkdir -p /tmp/site && tar xJf OUT.tar.xz -C /tmp/site && export PYTHONPATH=/tmp/site
set -euo pipefail
out=$(realpath -m "${1:?usage: pack_gpu_site.sh OUT.tar.xz}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# AllenNLP and what it imports at start-up, transformers 4.43 and its hub, spaCy and its stack.
names="allennlp transformers tokenizers huggingface_hub base58 bm25s cached_path boto3 botocore
s3transfer jmespath google-cloud-storage google-api-core google-auth google-cloud-core
google-crc32c google-resumable-media googleapis-common-protos proto-plus pyasn1 pyasn1_modules
cryptography cffi pycparser opentelemetry-api defusedxml dill fairscale jsonnet lmdb
more-itertools nltk sacremoses spacy thinc blis cymem preshed murmurhash srsly wasabi catalogue
confection weasel spacy-legacy spacy-loggers cloudpathlib smart_open pydantic pydantic_core
annotated-types typing-inspection tensorboardX termcolor traitlets rich"
platforms="--platform manylinux_2_34_x86_64 --platform manylinux_2_28_x86_64
--platform manylinux_2_27_x86_64 --platform manylinux_2_24_x86_64
--platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform manylinux1_x86_64"
target="--python-version 3.12 --implementation cp --only-binary=:all: $platforms"

# every version in one call, "name==version" a line; a package missing from .venv stops it
# shellcheck disable=SC2086
pins=$(.venv/bin/python -c '
import sys
from importlib.metadata import PackageNotFoundError, version
try:
    print("\n".join(f"{name}=={version(name)}" for name in sys.argv[1:]))
except PackageNotFoundError as missing:
    sys.exit(f"{missing.name} is not installed in .venv: run scripts/setup.sh")
' $names)
mkdir -p "$work/wheels"
for pin in $pins; do
    # shellcheck disable=SC2086
    if ! python3 -m pip download -q --no-deps $target -d "$work/wheels" "$pin" 2>/dev/null; then
        # fairscale publishes only a source archive; its wheel is pure Python
        python3 -m pip wheel -q --no-deps -w "$work/wheels" "$pin"
    fi
done
# shellcheck disable=SC2086
python3 -m pip install -q --no-deps $target --target "$work/site" "$work"/wheels/*.whl

cd "$work/site"
rm -rf spacy/tests thinc/tests srsly/tests blis/tests bin
find transformers/models \( -name 'modeling_tf_*.py' -o -name 'modeling_flax_*.py' \) -delete
find botocore/data -mindepth 1 -maxdepth 1 ! -name s3 ! -name sts ! -name '*.json' \
    -exec rm -rf {} +
find . -name '*.so' -exec strip -s {} \;
find . -name __pycache__ -prune -exec rm -rf {} +
tar cJf "$out" .
echo "$(ls "$work/wheels" | wc -l) wheels, $(du -sh . | cut -f1) unpacked -> $out ($(du -h "$out" | cut -f1))"
