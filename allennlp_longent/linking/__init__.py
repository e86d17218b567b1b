"""Zero-shot entity linking: zeshel reader, cross-encoder and bi-encoder, metrics, predictor,
candidate generators (BM25, dense, hybrid), the retrieve-then-rerank cascade, knowledge base and the
spaCy component. Nothing is imported here, so that spaCy's factory entry point
(``linking.spacy_component``) loads without torch; see :mod:`allennlp_longent.components`."""
