"""Building blocks shared by the tasks: position extension, embedders, attention. Nothing is
imported here (see :mod:`allennlp_longent.components`), so light helpers such as
:mod:`.portable` load without torch."""
