"""Pet names that share too few letters with the full name for a spelling rule to find them.

"Sasha Marchuk" is Oleksandr Marchuk, "Resi Pfandl" Theresia Pfandl, "Mitsos Vlastaris" Dimitris
Vlastaris: a short form that keeps the name's start ("Alex", "Kostas") is written already by the
shared-prefix clause of :mod:`allennlp_longent.linking.names`, but these are not. Each line below
gives the starts of a given name in its spellings across languages, a colon, and its pet names,
from general usage, for every language alike (round 33; prompted by the dev sets' nicknames,
not picked from them). A pet name is *written* by a page that writes a name word beginning with
one of its starts (:func:`nicknames`).

Left out: pet names that are common given names in their own right and would tie a stranger to a
family ("Frank", "Hans", "Lola", "Rita", "Greta", "Nino"). Round 44 added the pet names of
twenty-two more names in English, Dutch, Spanish and Russian, prompted by the nicknames the
dev sets dev82 to dev95 wrote (``biddy``, ``fien``, ``henk``; with the others of the same names
from general usage), and the diminutive endings (:data:`DIMINUTIVE_ENDINGS`). Round 46 added
thirty-two more entries of clipped English pet names ("Abe", "Ike", "Sam", "Betsy"), from general
usage, prompted by dev101 to dev105 where three of them made people NIL: a clip of three letters
is shorter than the shared-prefix clause reads.
"""

from functools import lru_cache
from typing import AbstractSet, Dict, Iterable, List, Tuple

from allennlp_longent.linking.candidates.folding import fold

_LINES = """
william wilhelm guillermo guglielmo guillaume: bill billy willie liam memo
robert roberto: bob bobby robbie
richard ricardo riccardo: dick ricky
elizabeth elisabeth isabel elisabetta: liz lizzie betty bess bessie libby lisl sissi
margaret margarita margarete małgorzata: maggie peggy gosia
katherine catherine kathleen katarzyna ekaterina yekaterina aikaterini caterina: katie kathy
    cathy kitty katya kasia
james: jimmy jamie
john jon: johnny nonni
edward eduard eduardo: teddy ned eddie
henry: harry hank
charles: chuck
joseph josef józef giuseppe josé: joey sepp seppi beppe peppe pino józek zeca
johann johannes: hannes
alexander alexandra aleksandr aleksander oleksandr alessandro alejandro alexandre alexandros
    oleksandra aleksandra: sasha sanya shura sandro sandy olek lexi
nikolai nicholas nikolay mykola nikolaos: kolya mykolka
dmitri dmitry dmytro dimitris dimitrios demetrios: dima mitya mitsos mimis
mikhail michail mykhailo: misha
ivan: vanya
pyotr petr petros: petya
vladimir volodymyr: volodya vova
yevgeny evgeny yevgeniy eugene: zhenya
maria mariya: masha manya
natalia natalya: natasha
anastasia: nastya
tatiana tatyana: tanya
olga: olya
elena yelena olena: lena
svetlana: sveta
lyudmila: lyuda
galina: galya
anna hanna: anya
sergei sergey serhiy: seryozha
aleksei alexei oleksiy: alyosha lyosha
konstantin konstantinos: kostya dinos
ioannis: giannis yiannis yannis
georgios: giorgos yiorgos
panagiotis: panos
theresia teresa therese: resi resl tessa
francisco francesco franz: paco pancho chico ciccio franzl
joaquim joaquin: quim quinzinho ximo
benedita benedito: ditinha dita dito
antonio antonia anton: toninho tonino
sebastião sebastiano: tião
raimundo: mundinho
enrique: kike
jesús: chucho chuy
concepción: concha conchita
rosario: charo
ignacio: nacho
giovanni: gianni vanni
salvatore: totò turi
vincenzo: enzo
domenico: mimmo
gaetano: tano
carmelo carmela: melo
guðrún gudrun: gunna
sigríður sigridur: sigga
wojciech: wojtek
bridget brigid: biddy bridie
dorothy dorothea: dot dotty dottie
thomas: tommy
winifred: win winnie
isobel isabel isabella isabelle: bel izzy
hector: heck
walter: wal wally walt
leonard: len lenny
susanna susan suzanne: susie suzy
patrick: paddy
helen ellen eleanor: nell nellie
frederick frederik: freddie
albert: bertie
alfred: alf alfie
hendrik henricus: henk
cornelis cornelius: kees
pieter petrus: piet
jacobus jacob: jaap koos
josephine josefien serafien seraphine: fien
geertruida gertrude: truus
rolando: rolo
arkady arkadiy: arkasha
abraham abel: abe
isaac: ike
samuel: sam sammy
benjamin: ben benny
daniel: dan danny
nathaniel: nat
ezekiel: zeke
jacob: jake
thomas: tom
theodore: ted
edward: ted
elizabeth: betsy beth
matthew: matt
michael: mike mick
nicholas: nick
timothy: tim
anthony: tony
andrew: andy
zachariah zachary: zach zack
jedediah: jed
ebenezer: eben
reuben: rube
solomon: sol
lawrence laurence: larry
gerald gerard: gerry
sarah: sally
mary: polly molly
martha: patty mattie
susan susanna: sue
jennifer: jenny
harold: hal
constance concetta cornelia: connie
"""
# diminutive endings of given names, from general usage (round 44): Spanish, Portuguese,
# Italian, Russian, Dutch and German; a word that is a name's stem (the name, or the name but
# its last vowel) plus one of them is a pet name of it ("Juanito" Juan, "Verochka" Vera,
# "Remiken" Remi). Not the endings that many given names have of their own ("-ina", "-ino",
# "-ette", "-el", "-ke"): "Paulina" is no pet name of a Paul
DIMINUTIVE_ENDINGS = ("ito", "ita", "itos", "illo", "illa", "cito", "cita", "inho", "inha",
                      "zinho", "zinha", "ochka", "echka", "enka", "ushka", "etto", "etta",
                      "uccio", "uccia", "ken", "tje", "chen", "erl")
_MIN_STEM = 3
_VOWELS = frozenset("aeiouy")


def _parse() -> Dict[str, Tuple[str, ...]]:
    found: Dict[str, Tuple[str, ...]] = {}
    for entry in " ".join(_LINES.split("\n    ")).strip().splitlines():
        names, pets = entry.split(":")
        starts = tuple(fold(n) for n in names.split())
        for pet in pets.split():
            found[fold(pet)] = found.get(fold(pet), ()) + starts
    return found


PET_NAMES: Dict[str, Tuple[str, ...]] = _parse()


@lru_cache(maxsize=1 << 16)
def _starts(pet: str) -> Tuple[str, ...]:
    return tuple(s[:max(4, len(s) - 2)] for s in PET_NAMES.get(pet, ()))


def nicknames(pet: str, names: AbstractSet[str]) -> bool:
    """Whether the folded word ``pet`` is a pet name of one of ``names`` (a page's folded name
    words; :func:`full_names`)."""
    return bool(full_names(pet, names))


def full_names(pet: str, names: Iterable[str]) -> List[str]:
    """The ``names`` that begin with the start of a full name the folded pet name ``pet`` stands
    for (its letters but the last two, at least four: "oleksand" for "oleksandr", "oleksandra"),
    or of which ``pet`` is a diminutive (:func:`_diminutive_stems`)."""
    starts = _starts(pet)
    stems = _diminutive_stems(pet)
    if not starts and not stems:  # most words: no pass over the names
        return []
    return [n for n in names if starts and n.startswith(starts) or _stem_of(n, stems)]


@lru_cache(maxsize=1 << 16)
def _diminutive_stems(pet: str) -> Tuple[str, ...]:
    """The stems ``pet`` is written on with one of ``DIMINUTIVE_ENDINGS`` ("juan" of "juanito",
    "ver" of "verochka"), each of at least three letters."""
    return tuple(pet[:-len(end)] for end in DIMINUTIVE_ENDINGS
                 if pet.endswith(end) and len(pet) - len(end) >= _MIN_STEM)


def _stem_of(name: str, stems: Tuple[str, ...]) -> bool:
    """``name`` is one of ``stems``, or one of them and a last vowel ("vera" for "ver")."""
    return name in stems or (name[-1:] in _VOWELS and name[:-1] in stems)
