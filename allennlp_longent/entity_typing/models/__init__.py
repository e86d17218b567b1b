from allennlp_longent.entity_typing.models.entity_typing_model import LukeEntityTyping  # noqa: F401
