"""Hand-written names, facts and sentence templates of the zeshel demo worlds.

Everything here was written for this project. Names are per world (an unseen test world shares
no name with the training worlds); facts and templates are shared, so a linker must learn to
match a clue in the context with a fact in a description, not to remember entities.
"""

from typing import Dict, List, NamedTuple


class WorldNames(NamedTuple):
    name: str
    split: str
    region: str
    vessel: str  # what the world's named vessels are: ship, barge, airship...
    families: List[str]  # surnames shared by three members each
    singles: List[str]  # surnames of people without family in the world
    men: List[str]
    women: List[str]
    towns: List[str]
    former: List[str]  # former names of towns, unused as current names
    nature: List[str]  # two natural features


WORLDS: List[WorldNames] = [
    WorldNames(
        "amber_coast", "train", "the Amber Coast", "ship",
        ["Velleran", "Dace", "Morrow", "Quillon", "Harthe", "Carnow"],
        ["Brisk", "Tolland", "Penhale", "Jago", "Trevis"],
        ["Osk", "Teodor", "Jory", "Bram", "Loic", "Aurek", "Perrin", "Cass", "Hendra", "Kitto"],
        ["Mara", "Ilse", "Wenna", "Elin", "Sabeth", "Nessa", "Tamsin", "Gwen", "Morwen", "Lowdy"],
        ["Saltmere", "Greyhaven", "Cobwick", "Marrowby", "Tiderun", "Fennock"],
        ["Old Kesh", "Brineholm"], ["Grey Shoals", "Gullrock", "Seal Sound"],
    ),
    WorldNames(
        "reed_rivers", "train", "the Reedlands", "barge",
        ["Fenwright", "Oaklow", "Marsk", "Treddle", "Hollin", "Wadlow"],
        ["Pike", "Rushby", "Caddow", "Tench", "Billow"],
        ["Alder", "Coll", "Emrick", "Gavin", "Ivo", "Kell", "Noll", "Pell", "Rook", "Sorrel"],
        ["Brinna", "Detta", "Fia", "Hesper", "Jessamy", "Lune", "Merrin", "Odette", "Quenna",
         "Rue"],
        ["Reedford", "Mirecombe", "Sallowby", "Otterlea", "Wendle", "Brackwater"],
        ["Low Sedge", "Cressmoor"], ["Silt Reach", "Heron Weir", "Eel Marsh"],
    ),
    WorldNames(
        "sky_isles", "train", "the Sky Isles", "airship",
        ["Vantor", "Skellig", "Aubrelle", "Corvane", "Eddring", "Stratt"],
        ["Halloway", "Tessaly", "Wrenfield", "Orrin", "Pellidor"],
        ["Ansel", "Cyrus", "Evander", "Galen", "Isaak", "Kasimir", "Niko", "Pim", "Quill", "Rune"],
        ["Bette", "Dalia", "Fenna", "Hild", "Juno", "Liesl", "Maren", "Orla", "Sela", "Tova"],
        ["Highmoor", "Cloudfast", "Nimbury", "Windhollow", "Spireton", "Galeby"],
        ["Stillwater Rock", "Old Anchorage"], ["Shear Winds", "Updraft Peak", "Mirror Cloud"],
    ),
    WorldNames(
        "salt_wastes", "train", "the Salt Wastes", "sandship",
        ["Tesk", "Oraban", "Qesh", "Marhun", "Zabrel", "Haddar"],
        ["Dunmar", "Sahrel", "Vost", "Ketesh", "Ombra"],
        ["Hadin", "Belu", "Esk", "Faro", "Hesh", "Joval", "Lotan", "Nahl", "Pazu", "Rasim"],
        ["Orra", "Tamsa", "Cyrel", "Dara", "Gila", "Imra", "Kesi", "Mizra", "Seda", "Tirza"],
        ["Tel Varo", "Sandhold", "Kerebet", "Dunewatch", "Ossar", "Zimrah"],
        ["Bitter Well", "Kasra"], ["Glass Flats", "Red Spur", "Well of Stars"],
    ),
    WorldNames(
        "iron_hills", "train", "the Iron Hills", "engine",
        ["Hammerly", "Coalbrook", "Stannick", "Pellow", "Drury", "Blackett"],
        ["Grieve", "Ockley", "Tarrant", "Ruddock", "Sallis"],
        ["Abel", "Clem", "Ezra", "Gideon", "Ira", "Kit", "Moss", "Obed", "Silas", "Tobit"],
        ["Bess", "Dorrit", "Flora", "Hattie", "Judith", "Letty", "Nan", "Prue", "Rhoda", "Tamar"],
        ["Slagford", "Cinderby", "Smeltham", "Coldhearth", "Pitfold", "Orewick"],
        ["Tinner Cross", "Black Hollow"], ["Deep Seam", "Furnace Ridge", "Sump Lake"],
    ),
    WorldNames(
        "frost_fjords", "val", "the Frost Fjords", "longship",
        ["Skarde", "Halvorn", "Ingrell", "Vettir", "Ulfsen", "Brenne"],
        ["Frosk", "Kolle", "Eidal", "Gylle", "Hjort"],
        ["Bodvar", "Eirik", "Hakon", "Jorund", "Leif", "Njal", "Ragn", "Torben", "Ulf", "Vidar"],
        ["Asta", "Dagny", "Frea", "Gunnel", "Idun", "Kari", "Magna", "Sigrun", "Runa", "Tove"],
        ["Kaldvik", "Isafell", "Skerrow", "Hvitnes", "Ormsund", "Brekka"],
        ["Selvagen", "Tarnholm"], ["Ice Teeth", "Raven Skerry", "Whale Road"],
    ),
    WorldNames(
        "lantern_isles", "test", "the Lantern Isles", "ship",
        ["Ambrell", "Carrow", "Fenlow", "Halloran", "Verity", "Marchbank"],
        ["Quaile", "Stroud", "Ibbot", "Pellew", "Rudd"],
        ["Barnaby", "Dorian", "Felix", "Horace", "Jasper", "Lucan", "Ned", "Piers", "Rufus",
         "Silvan"],
        ["Agnes", "Celia", "Edda", "Grisel", "Imogen", "Kezia", "Maud", "Ottilie", "Rosamund",
         "Sybil"],
        ["Wickhaven", "Candlemouth", "Emberlee", "Glimmerholt", "Tallowmere", "Sootwater"],
        ["Brightsand", "Dimmock Quay"], ["Ember Reefs", "Wick Rock", "Gannet Stack"],
    ),
]

# (occupation, honorific used before a surname or "", plural)
OCCUPATIONS = [
    ("captain", "Captain", "captains"),
    ("cartographer", "", "cartographers"),
    ("shipwright", "Master", "shipwrights"),
    ("judge", "Judge", "judges"),
    ("physician", "Doctor", "physicians"),
    ("merchant", "", "merchants"),
    ("engineer", "", "engineers"),
    ("poet", "", "poets"),
    ("envoy", "Envoy", "envoys"),
    ("scholar", "", "scholars"),
    ("smith", "", "smiths"),
    ("priest", "Reverend", "priests"),
]

SINGLE_EPITHETS = ["the Quiet", "the Red", "the Lame", "the Wanderer", "Half-Hand", "the Patient"]

# Deeds of people: past-tense verb phrases, each used at most once per world.
DEEDS = [
    "drew the first tide tables of the region",
    "founded a school for orphaned apprentices",
    "survived three winters on a drifting wreck",
    "lost two fingers to a frozen rope",
    "wrote a book of riddles that is still sung at weddings",
    "was tried for forgery and acquitted",
    "broke a blockade with a single rowing boat",
    "kept a tame heron that followed everyone to market",
    "designed a pair of great lock gates",
    "brewed a cure for the grey fever",
    "carried the council seal across the mountains in midwinter",
    "won the autumn race seven years in a row",
    "refused a crown offered by the guilds",
    "paid for the rebuilding of an old stone bridge",
    "burned a customs house in protest against the salt tax",
    "translated a chest of old star charts",
    "invented a lamp that burned without smoke",
    "married in secret at the age of sixty",
    "sold the family vineyard to pay a ransom",
    "found a vein of blue copper in a collapsed well",
    "taught the first class of women navigators",
    "negotiated the release of forty prisoners",
    "rode a mule into the council chamber",
    "planted an orchard of black pears",
    "recorded the songs of the hill shepherds",
    "spent eleven years in a debtors prison",
    "built a clock that struck thirteen at midnight",
    "collected maps of lands that never existed",
    "stole a harbor bell and hid it in a well",
    "lost a fortune on a cargo of silk",
    "fought a duel with a borrowed sword",
    "walked barefoot from one end of the region to the other",
    "kept a diary in a cipher nobody has broken",
    "trained falcons for three different kings",
    "gave away a whole inheritance to a leper hospital",
    "discovered a spring of hot water under a chapel",
    "painted the ceiling of a granary with scenes of the flood",
    "escaped from a tower by climbing down a bell rope",
    "measured the height of every mountain in the region",
    "forged the chain that closes the harbor mouth",
    "was struck by lightning and lived",
    "buried a treasure that was never found",
    "raised seven adopted children",
    "was the first to cross the marshes on stilts",
]

TOWN_GOODS = [
    "salt pans", "timber yards", "wool market", "glass furnaces", "dye works", "rope walks",
    "cheese fair", "tin mines", "pearl divers", "horse fair", "paper mills", "bell foundry",
]
TOWN_FEATURES = [
    "has a market hall built on stilts",
    "has a bell tower with seven bells",
    "is surrounded by a wall of red stone",
    "has a harbor that freezes every winter",
    "holds a lantern festival at midsummer",
    "has no inn , only a guest house kept by the council",
    "keeps a library in its old prison",
    "has streets so steep that carts are hauled up by winches",
]
FIGUREHEADS = ["a hare", "a heron", "a fox", "a crowned woman", "a bear", "a sea serpent",
               "an owl", "a stag"]
PAINTS = [
    "painted blue with a white stripe", "painted black with a red keel line", "never painted",
    "painted green and gold", "painted white from end to end", "painted the colour of rust",
]
VESSEL_FATES = [
    "was broken up for timber", "was lost in a winter storm", "was captured by raiders",
    "burned at her moorings", "is still in service", "was sold to a foreign prince",
    "was sunk on purpose to block a channel", "now rots in a dry dock",
]
ORG_FACTS = [
    "uses a black key as its seal",
    "meets in a hall with a painted ceiling",
    "was dissolved for a time after a scandal over forged ledgers",
    "keeps a fleet of three armed boats",
    "pays for the upkeep of the roads",
    "forbids its members to gamble",
    "admits new members only on the shortest day of the year",
    "keeps its treasury in a cellar under a bakery",
    "once hanged its own treasurer",
    "owns every mill along the western road",
    "sends a gift of oranges to each new member",
    "lost its charter for ten years after a riot",
]
EVENT_OUTCOMES = [
    "ended with an exchange of hostages",
    "ended with the burning of the grain stores",
    "ended with a marriage between two rival houses",
    "ended with the flooding of the lower town",
    "ended with the rebuilding of the town hall",
    "ended with a feast that lasted three days",
]
EVENT_FACTS = [
    "is remembered each year with a silent procession",
    "began over a dispute about fishing rights",
    "was recorded by a monk who watched from a bell tower",
    "left a scar of burned houses that can still be seen",
    "is the subject of a ballad with forty verses",
    "went on mostly at night",
]
LANDMARK_FACTS = {
    "lighthouse": [
        "has a lamp that can be seen from forty miles",
        "was struck by lightning twice in one summer",
        "is guarded by a single old keeper",
        "is painted with red and white bands",
    ],
    "bridge": [
        "has nine arches of grey stone",
        "has a toll gate that is never closed",
        "was swept away by a flood and rebuilt higher",
        "carries a chapel in its middle span",
    ],
    "tower": [
        "leans a hand's width to the east",
        "has a staircase of three hundred steps",
        "once served as a prison for debtors",
    ],
    "fountain": [
        "runs with red water after heavy rain",
        "is decorated with four bronze fish",
        "was paid for by a fine on smugglers",
    ],
}
NATURE_FACTS = [
    "is feared for its sudden fogs",
    "gives shelter to a colony of seals",
    "has claimed more than thirty wrecks",
    "can only be crossed at low tide",
    "is covered in white birds every spring",
    "hides a cave where smugglers kept their goods",
    "glows faintly on moonless nights",
    "is where the great storm of the old songs began",
]

# Traits of people: verb phrases, each used at most once per world.
TRAITS = [
    "had a scar across one cheek",
    "spoke five languages",
    "was never seen without a grey cloak",
    "could not swim",
    "kept bees on the roof",
    "was afraid of horses",
    "wore a silver ring on every finger",
    "slept only four hours a night",
    "was blind in the left eye",
    "sang loudly while working",
    "collected the skulls of birds",
    "refused to eat meat",
    "walked with an ebony cane",
    "had hair that turned white at twenty",
    "wrote every letter in green ink",
    "stammered when angry",
    "owned a dog called Admiral",
    "was taller than any door in the house",
    "never learned to read",
    "carried a compass that did not work",
    "played the fiddle at every funeral",
    "distrusted banks and buried coins in the garden",
    "had a laugh that could be heard across the harbor",
    "kept a raven as a pet",
    "always dressed in yellow",
    "was left handed and proud of it",
    "grew roses in a cemetery",
    "could recite the whole law code by heart",
    "hated the sea",
    "was famous for terrible cooking",
    "kept a journal of the weather for forty years",
    "had six fingers on the right hand",
]

ESTATE_FACTS = [
    "has a garden maze of yew hedges",
    "burned down once and was rebuilt in brick",
    "is said to be haunted by a drowned servant",
    "has a library of nine thousand books",
    "was nearly sold to pay gambling debts",
    "keeps a herd of white deer",
    "stands empty most of the year",
    "has a chapel with a glass roof",
    "has a cellar cut into the rock",
    "has stables larger than the house itself",
    "is reached only by a causeway",
    "has a clock tower that runs backwards",
    "was used as a hospital during the plague",
    "has a walled orchard of quinces",
]

INN_NAMES = ["Drowned Hare", "Three Keys", "Silver Eel", "Crooked Lamp", "Sleeping Bear",
             "Broken Oar", "Golden Goose", "Tin Cup", "Whistling Kettle", "Blind Fiddler"]
INN_FACTS = [
    "serves a famous eel pie",
    "has a sign painted by a drunken artist",
    "was the meeting place of smugglers",
    "never closes its doors",
    "has a well in the middle of the taproom",
    "keeps a parrot that curses in three languages",
    "brews a black beer with juniper",
    "has a room where a duke was murdered",
]

# Sentences that mention an entity ({m}) inside the description of another ({h}).
MENTION_TEMPLATES = [
    "The records of {h} mention {m} in the year {y} .",
    "{m} is named in the oldest accounts of {h} .",
    "The story of {h} cannot be told without {m} .",
    "{m} appears twice in the chronicle of {h} .",
    "A long letter about {h} speaks of {m} .",
    "In the year {y} the fortunes of {h} turned on {m} .",
    "Nobody who wrote about {h} forgot {m} .",
    "A song about {h} has a verse on {m} .",
    "Scholars who study {h} often argue about {m} .",
    "The name of {m} comes up again and again in the papers of {h} .",
    "{m} is mentioned in a letter of the year {y} .",
    "Few people today remember {m} .",
    "A dispute involving {m} followed in the year {y} .",
    "Later writers say little about {m} .",
    "Even so , {m} was talked about for a long time .",
    "Some say the whole affair began with {m} .",
]

# Sentences placed between a mention and its clue; they name nothing.
FILLERS = [
    "The details were argued over for years .",
    "Not every account agrees on this .",
    "The weather that season was unusually harsh .",
    "Some of the letters from that time were lost in a fire .",
    "The matter was settled before the next market day .",
    "Clerks copied the entry into three separate ledgers .",
    "Few of the witnesses could read or write .",
    "A later hand added a note in the margin .",
    "The harvest that year was poor and prices were high .",
    "Rumours spread faster than the official news .",
    "Travellers repeated the story in every inn along the road .",
    "The council met twice to discuss it .",
    "Children still play a game based on those days .",
    "The old archive keeps a copy of the original page .",
    "Opinions in the taverns were divided .",
    "Nothing else of note happened that month .",
    "Several pages of the account are water stained .",
    "The news reached the capital a week later .",
    "At the time few people paid much attention .",
    "It was a quiet year otherwise .",
]

# Openings of the clue sentence; {ref} refers back to the mentioned entity.
CLUE_TEMPLATES = [
    "{Ref} {fact} .",
    "Years earlier {ref} {fact} .",
    "As the old accounts tell it , {ref} {fact} .",
    "It is worth remembering that {ref} {fact} .",
    "Those who knew the story recalled that {ref} {fact} .",
    "By then everyone knew that {ref} {fact} .",
    "One detail settles who was meant : {ref} {fact} .",
]

# Background sentences that lengthen the longest descriptions.
HISTORY = [
    "Its history is long and only partly written down .",
    "Several families claimed a share in its early fortunes .",
    "The oldest surviving document about it is a tax roll .",
    "Later writers added legends that are hard to separate from fact .",
    "Much of what is known comes from court cases and private letters .",
    "Visitors from abroad described it in their travel journals .",
    "Its reputation changed several times over the centuries .",
    "Local historians have collected the accounts in a single volume .",
    "Each generation told the story a little differently .",
    "A number of letters from that period survive in private hands .",
    "The parish registers fill in some of the gaps .",
    "Disputes over inheritance left a long trail of documents .",
    "Foreign merchants kept their own records , which do not always agree .",
    "A fire in the old archive destroyed the earliest papers .",
    "Some of the most quoted stories cannot be traced to any source .",
    "A modern catalogue lists more than two hundred documents about it .",
]

REFS: Dict[str, List[str]] = {
    "person": ["the same {noun}", "this {noun}", "{pronoun}", "the {occupation}"],
    "town": ["the same town", "this town", "that town"],
    "estate": ["the same house", "this house"],
    "inn": ["the same inn", "this inn"],
    "vessel": ["the same {vessel}", "this {vessel}", "that {vessel}"],
    "org": ["the same {orgnoun}", "this {orgnoun}"],
    "event": ["the same {eventnoun}", "this {eventnoun}"],
    "landmark": ["the same {landnoun}", "this {landnoun}"],
    "nature": ["the same place", "this place"],
}
