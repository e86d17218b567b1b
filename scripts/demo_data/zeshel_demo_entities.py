"""The entities of one demo world (``WorldBuilder``): families sharing a surname, towns and
vessels named after people, former names, organisations, events, halls, inns and landmarks, each
with facts drawn without replacement so that no fact belongs to two entities of a world."""

import hashlib
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from zeshel_demo_text import (
    DEEDS,
    ESTATE_FACTS,
    EVENT_FACTS,
    EVENT_OUTCOMES,
    FIGUREHEADS,
    INN_FACTS,
    INN_NAMES,
    LANDMARK_FACTS,
    NATURE_FACTS,
    OCCUPATIONS,
    ORG_FACTS,
    PAINTS,
    REFS,
    SINGLE_EPITHETS,
    TOWN_FEATURES,
    TOWN_GOODS,
    TRAITS,
    VESSEL_FATES,
    WorldNames,
)

SEED = "zeshel-demo-1"
VESSEL_NAMESAKES = ["fam0.parent", "fam2.parent", "fam3.child1", "single0", "fam4.child2",
                    "fam1.child1"]


@dataclass
class Entity:
    """One entity of a world: its description is ``title intro facts extra passages``."""

    kind: str
    title: str
    intro: str
    facts: Dict[str, str]  # name -> verb phrase, unique in the world; clues quote one
    aliases: Dict[str, str]  # form -> surface string ("title", "surname", "former"...)
    refs: List[str]  # noun phrases a clue uses to point back at the entity
    subject: str  # how fact sentences of the description start
    pronoun: str = "it"
    noun: str = ""  # man / woman / ship / town ...
    extra: List[str] = field(default_factory=list)
    long: bool = False
    document_id: str = ""
    display: str = ""  # how other descriptions name it as a host ({h})


def hex_id(*parts: str) -> str:
    return hashlib.sha1("/".join(parts).encode()).hexdigest()[:16].upper()


def article(noun: str) -> str:
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"


def sentence(text: str) -> str:
    return text[0].upper() + text[1:]


class WorldBuilder:
    """Builds the entities of one world from its names, drawing facts without replacement."""

    def __init__(self, names: WorldNames) -> None:
        self.names = names
        self.rng = random.Random(f"{SEED}:{names.name}")
        self.years = iter(self.rng.sample(range(180, 460), 200))
        self.pools = {
            key: self.rng.sample(pool, len(pool))
            for key, pool in {
                "deed": DEEDS, "good": TOWN_GOODS, "feature": TOWN_FEATURES, "head": FIGUREHEADS,
                "paint": PAINTS, "fate": VESSEL_FATES, "org": ORG_FACTS, "outcome": EVENT_OUTCOMES,
                "event": EVENT_FACTS, "nature": NATURE_FACTS, "trait": TRAITS,
                "estate": ESTATE_FACTS, "inn": INN_FACTS, "inn_name": INN_NAMES,
            }.items()
        }
        self.roles: Dict[str, Entity] = {}

    def draw(self, pool: str) -> str:
        return self.pools[pool].pop()

    def year(self) -> int:
        return next(self.years)

    def build(self) -> Dict[str, Entity]:
        names = self.names
        towns = [self.town(f"town{i}", name) for i, name in enumerate(names.towns)]
        for i, surname in enumerate(names.families):
            self.family(i, surname, towns)
        for i, surname in enumerate(names.singles):
            given = self.rng.choice(names.men + names.women)
            self.person(f"single{i}", given, surname, towns, epithet=SINGLE_EPITHETS[i])
        self.named_town("port", "Port", self.roles["fam0.parent"])
        self.named_town("fort", "Fort", self.roles["fam1.parent"])
        self.former_names()
        for i, namesake in enumerate(VESSEL_NAMESAKES):
            self.vessel(f"ship{i}", self.roles[namesake], towns)
        self.orgs(towns)
        self.events(towns)
        self.landmarks(towns)
        self.houses(towns)
        for i, name in enumerate(names.nature):
            facts = {"nature0": self.draw("nature"), "nature1": self.draw("nature")}
            intro = f"{name} is a wild place of {names.region} , known to every traveller ."
            self.add(f"nature{i}", Entity("nature", name, intro, facts, {"title": name},
                                          REFS["nature"], name, noun="place"))
        for role in ("fam0.parent", "port", "company"):
            self.roles[role].long = True
        facts = Counter(fact for e in self.roles.values() for fact in e.facts.values())
        repeated = [fact for fact, count in facts.items() if count > 1]
        if repeated:
            raise ValueError(f"{names.name}: facts of more than one entity: {repeated}")
        return self.roles

    def add(self, role: str, entity: Entity) -> Entity:
        entity.document_id = hex_id(self.names.name, entity.title)
        entity.display = entity.display or entity.title
        self.roles[role] = entity
        return entity

    def town(self, role: str, name: str) -> Entity:
        facts = {
            "good": f"is known for its {self.draw('good')}",
            "feature": self.draw("feature"),
            "founded": f"was founded in the year {self.year()}",
        }
        intro = f"{name} is a town of {self.names.region} ."
        return self.add(role, Entity("town", name, intro, facts, {"title": name}, REFS["town"],
                                     name, noun="town"))

    def named_town(self, role: str, prefix: str, founder: Entity) -> None:
        surname = founder.aliases["surname"]
        title = f"{prefix} {surname}"
        facts = {
            "good": f"is known for its {self.draw('good')}",
            "feature": self.draw("feature"),
            "founded": f"was founded by {founder.title} in the year {self.year()}",
        }
        intro = f"{title} is a town of {self.names.region} , named after {founder.title} ."
        aliases = {"title": title, "namesake": surname}
        self.add(role, Entity("town", title, intro, facts, aliases, REFS["town"], title,
                              noun="town"))

    def former_names(self) -> None:
        """Two towns with a former name of their own; a third once had the name of another."""
        renamed = [("town1", self.names.former[0]), ("port", self.names.former[1]),
                   ("town2", self.names.towns[0])]
        for role, former in renamed:
            town = self.roles[role]
            town.aliases["former"] = former
            town.facts["former"] = f"was once called {former}"
            if former == self.names.towns[0]:
                town.extra.append(f"The present town of {former} is younger and took the old "
                                  f"name when {town.title} was renamed .")

    def family(self, index: int, surname: str, towns: List[Entity]) -> None:
        parent = self.person(f"fam{index}.parent", None, surname, towns, epithet="the Elder")
        for child in (1, 2, 3):
            epithet = "the Younger" if child == 1 else None
            person = self.person(f"fam{index}.child{child}", None, surname, towns, epithet)
            order = ("first", "second", "third")[child - 1]
            person.facts["parent"] = f"was the {order} child of {parent.title}"

    def person(
        self, role: str, given: Optional[str], surname: str, towns: List[Entity],
        epithet: Optional[str],
    ) -> Entity:
        names = self.names
        taken = {e.title for e in self.roles.values()}
        while given is None or f"{given} {surname}" in taken:
            given = self.rng.choice(names.men + names.women)
        pronoun = "he" if given in names.men else "she"
        occupation, honorific, _ = self.rng.choice(OCCUPATIONS)
        title = f"{given} {surname}"
        facts = {
            "deed0": self.draw("deed"),
            "trait": self.draw("trait"),
            "born": f"was born in {self.rng.choice(towns).title} in the year {self.year()}",
        }
        if not role.endswith(("child1", "child2", "child3")):
            facts["deed1"] = self.draw("deed")
        aliases = {"title": title, "surname": surname, "given": given,
                   "descriptive": f"the {occupation}"}
        if honorific:
            aliases["honorific"] = f"{honorific} {surname}"
        entity = Entity(
            "person", title, f"{title} was {article(occupation)} of {names.region} .", facts,
            aliases,
            [ref.format(noun="man" if pronoun == "he" else "woman", pronoun=pronoun,
                        occupation=occupation) for ref in REFS["person"]],
            given, pronoun=pronoun, noun="man" if pronoun == "he" else "woman",
        )
        if epithet:
            named = f"{surname if role.startswith('fam') else given} {epithet}"
            entity.aliases["epithet"] = named
            entity.extra.append(f"In later songs {pronoun} is called {named} .")
        return self.add(role, entity)

    def vessel(self, role: str, namesake: Entity, towns: List[Entity]) -> None:
        vessel = self.names.vessel
        facts = {
            "head": f"carried a figurehead of {self.draw('head')}",
            "paint": f"was {self.draw('paint')}",
            "built": f"was built at {self.rng.choice(towns).title} in the year {self.year()}",
            "fate": self.draw("fate"),
        }
        intro = (f"The {namesake.title} was a {vessel} of {self.names.region} , named after "
                 f"{namesake.title} .")
        refs = [ref.format(vessel=vessel) for ref in REFS["vessel"]]
        self.add(role, Entity("vessel", f"{namesake.title} ({vessel})", intro, facts,
                              {"name": namesake.title}, refs, f"The {namesake.title}",
                              noun=vessel, display=f"the {namesake.title}"))

    def orgs(self, towns: List[Entity]) -> None:
        founder = self.roles["fam2.parent"]
        surname = founder.aliases["surname"]
        _, _, plural = self.rng.choice(OCCUPATIONS)
        specs = [
            ("company", f"{surname} Company", "company",
             f"The {surname} Company is a trading house of {self.names.region} .",
             f"was founded by {founder.title} in the year {self.year()}",
             {"short": "the Company", "surname": surname}),
            ("guild", f"Guild of {plural.title()}", "guild",
             f"The Guild of {plural.title()} brings together the {plural} of "
             f"{self.names.region} .", f"was founded in the year {self.year()}",
             {"short": "the Guild"}),
            ("council", f"Council of {towns[3].title}", "council",
             f"The Council of {towns[3].title} governs the town of {towns[3].title} .",
             f"was founded in the year {self.year()}", {"short": "the Council"}),
            ("bank", f"{self.roles['fam3.parent'].aliases['surname']} Bank", "bank",
             f"The {self.roles['fam3.parent'].aliases['surname']} Bank lends money across "
             f"{self.names.region} .", f"was founded by {self.roles['fam3.parent'].title}",
             {"short": "the Bank", "surname": self.roles["fam3.parent"].aliases["surname"]}),
            ("watch", f"Watch of {towns[2].title}", "watch",
             f"The Watch of {towns[2].title} keeps order in the streets of {towns[2].title} .",
             f"was founded in the year {self.year()}", {"short": "the Watch"}),
        ]
        for role, title, noun, intro, founded, aliases in specs:
            facts = {"org0": self.draw("org"), "org1": self.draw("org"), "founded": founded}
            refs = [ref.format(orgnoun=noun) for ref in REFS["org"]]
            self.add(role, Entity("org", title, intro, facts, {"title": title, **aliases}, refs,
                                  f"The {title}", noun=noun, display=f"the {title}"))

    def events(self, towns: List[Entity]) -> None:
        leader = self.roles["fam4.parent"]
        specs = [
            ("siege", f"Siege of {towns[4].title}", "siege", "a siege",
             f"was led on one side by {self.roles['fam1.parent'].title}"),
            ("treaty", f"Treaty of {towns[5].title}", "treaty", "an agreement",
             f"was signed by {self.roles['single1'].title}"),
            ("mutiny", f"{leader.aliases['surname']} Mutiny", "mutiny", "an uprising",
             f"was led by {leader.title}"),
            ("fire", f"Great Fire of {towns[0].title}", "fire", "a disaster",
             f"destroyed the house of {self.roles['single2'].title}"),
            ("feud", f"{self.roles['fam5.parent'].aliases['surname']} Feud", "feud",
             "a quarrel between families", f"was started by {self.roles['fam5.child2'].title}"),
        ]
        for role, title, noun, what, person in specs:
            facts = {
                "year": f"took place in the year {self.year()}",
                "outcome": self.draw("outcome"),
                "event": self.draw("event"),
                "person": person,
            }
            intro = f"The {title} was {what} in the history of {self.names.region} ."
            refs = [ref.format(eventnoun=noun) for ref in REFS["event"]]
            self.add(role, Entity("event", title, intro, facts,
                                  {"title": title, "short": f"the {noun}"}, refs, f"The {title}",
                                  noun=noun, display=f"the {title}"))

    def landmarks(self, towns: List[Entity]) -> None:
        specs = [
            ("lighthouse", "fam3", "Lighthouse", LANDMARK_FACTS["lighthouse"]),
            ("bridge", "fam4", "Bridge", LANDMARK_FACTS["bridge"]),
            ("tower", "fam1", "Tower", LANDMARK_FACTS["tower"]),
            ("fountain", "fam5", "Fountain", LANDMARK_FACTS["fountain"]),
        ]
        for role, family, kind, pool in specs:
            surname = self.roles[f"{family}.parent"].aliases["surname"]
            title = f"{surname} {kind}"
            own = self.rng.sample(pool, 2)
            facts = {
                "land0": own[0],
                "land1": own[1],
                "built": f"was built in the year {self.year()}",
            }
            where = self.rng.choice(towns).title
            intro = f"The {title} is a {kind.lower()} in {where} ."
            refs = [ref.format(landnoun=kind.lower()) for ref in REFS["landmark"]]
            self.add(role, Entity("landmark", title, intro, facts,
                                  {"title": title, "short": f"the {kind.lower()}"}, refs,
                                  f"The {title}", noun=kind.lower(), display=f"the {title}"))

    def houses(self, towns: List[Entity]) -> None:
        """A hall for every family (named like its members) and three inns."""
        for i, surname in enumerate(self.names.families):
            title = f"{surname} Hall"
            facts = {"estate0": self.draw("estate"), "estate1": self.draw("estate"),
                     "built": f"was built in the year {self.year()}"}
            intro = (f"{title} is the house of the {surname} family , outside "
                     f"{self.rng.choice(towns).title} .")
            self.add(f"hall{i}", Entity("estate", title, intro, facts,
                                        {"title": title, "short": "the Hall", "surname": surname},
                                        REFS["estate"], title, noun="house"))
        for i in range(3):
            title = f"The {self.draw('inn_name')}"
            facts = {"inn0": self.draw("inn"), "inn1": self.draw("inn"),
                     "owner": f"belonged for a time to {self.roles[f'single{i + 2}'].title}"}
            intro = f"{title} is an inn in {self.rng.choice(towns).title} ."
            self.add(f"inn{i}", Entity("inn", title, intro, facts,
                                       {"title": title, "short": "the inn"}, REFS["inn"], title,
                                       noun="inn"))
