"""New paragraphs set in the demo's unseen test world, with gold links, for the spaCy demo.

Templates mark a linked mention ``[[role.form|LABEL]]`` (the entity playing ``role`` in the world,
named by its alias ``form``; ``a/b`` tries ``a`` then ``b``; ``^`` capitalizes), a span that must
not be linked ``[[=text|LABEL]]`` (``kb_id`` null), and inserted plain text ``{{role.attribute}}``
(``fact:NAME``, ``pronoun``, ``Pronoun`` or ``noun``). Every ambiguous mention has the fact that
settles it in another sentence of its paragraph.
"""

import re
from typing import Dict, List

TEMPLATES = [
    "Early in the [[=spring|DATE]] the [[ship0.name|PRODUCT]] sailed into [[port.title|GPE]] "
    "after a slow passage past the [[nature0.title|LOC]]. Dock workers had always said that this "
    "{{ship0.noun}} {{ship0.fact:head}}. That evening [[fam0.parent.surname|PERSON]] walked down "
    "to the quay to greet the crew; it was well known in the harbor that "
    "{{fam0.parent.pronoun}} {{fam0.parent.fact:deed0}}. [[^company.short|ORG]] had paid for "
    "the cargo. The company {{company.fact:org0}}, and its clerks counted every barrel twice. A "
    "letter from [[fam0.child1.given|PERSON]] was waiting at the harbor office, written by the "
    "{{fam0.child1.noun}} who {{fam0.child1.fact:trait}}.",
    "People in [[town4.title|GPE]] still talk about [[siege.short|EVENT]]. "
    "[[fam1.parent.honorific/surname|PERSON]] held the east gate through the worst of it, and "
    "the defenders later swore that {{fam1.parent.pronoun}} {{fam1.parent.fact:deed0}}. "
    "[[^guild.short|ORG]] sent bread over the walls by night; everyone knows that this guild "
    "{{guild.fact:org0}}. When it was over, [[fam1.child1.given|PERSON]] rode to "
    "[[fort.namesake|GPE]] with the news, arriving in the [[=first week of winter|DATE]]. That "
    "town {{fort.fact:good}}, and it had always been loyal to the family. The rider, who "
    "{{fam1.child1.fact:parent}}, was greeted with bells.",
    "Long ago [[town1.former|GPE]] was only a fishing village, although today the town "
    "{{town1.fact:good}}. [[single0.epithet|PERSON]] was born in that village, and it is said "
    "that {{single0.pronoun}} {{single0.fact:deed1}}. From the harbor wall one can see "
    "[[lighthouse.title|FAC]], which {{lighthouse.fact:land0}}. The [[ship3.name|PRODUCT]] was "
    "moored beneath it for a whole [[=summer|DATE]]; the {{ship3.noun}} {{ship3.fact:paint}}. "
    "Later [[council.short|ORG]] met in [[town3.title|GPE]] to decide who would pay for the "
    "repairs, and this council {{council.fact:org1}}.",
]

SLOT = re.compile(r"\[\[(.+?)\|([A-Z_]+)\]\]|\{\{(.+?)\}\}")


def prose(text: str) -> str:
    """Whitespace-tokenized punctuation back to ordinary prose."""
    return text.replace(" ,", ",").replace(" .", ".")


def render(template: str, roles: Dict[str, object]) -> dict:
    """``{"text", "entities": [{start_char, end_char, label, kb_id}]}`` of one template."""
    text, entities, position = "", [], 0
    for slot in SLOT.finditer(template):
        text += template[position : slot.start()]
        position = slot.end()
        if slot.group(3):
            role, attribute = slot.group(3).rsplit(".", 1)
            text += prose(_attribute(roles[role], attribute))
            continue
        spec, label = slot.group(1), slot.group(2)
        if spec.startswith("="):
            surface, kb_id = spec[1:], None
        else:
            role, forms = spec.lstrip("^").rsplit(".", 1)
            entity = roles[role]
            surface = next(entity.aliases[f] for f in forms.split("/") if f in entity.aliases)
            if spec.startswith("^"):
                surface = surface[0].upper() + surface[1:]
            kb_id = entity.document_id
        entities.append({"start_char": len(text), "end_char": len(text) + len(surface),
                         "label": label, "kb_id": kb_id})
        text += surface
    return {"text": text + template[position:], "entities": entities}


def _attribute(entity, attribute: str) -> str:
    if attribute.startswith("fact:"):
        return entity.facts[attribute[len("fact:"):]]
    if attribute == "Pronoun":
        return entity.pronoun.capitalize()
    if attribute in ("pronoun", "noun"):
        return getattr(entity, attribute)
    raise ValueError(f"unknown paragraph attribute {attribute!r}")


def paragraphs(roles: Dict[str, object]) -> List[dict]:
    return [render(template, roles) for template in TEMPLATES]
