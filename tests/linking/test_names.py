"""The unwritten-name rule's evidence, each clause of :mod:`allennlp_longent.linking.names`
checked on cases worked out by hand from its definition."""

from allennlp_longent.linking.knowledge_base import Entity
from allennlp_longent.linking.names import (
    abbreviation_cost,
    abbreviation_pieces,
    clipped_middle,
    dotted_title,
    expansion,
    fold,
    initials,
    name_antecedents,
    name_words,
    page_forms,
    untitled,
    unwritten_names,
    unwritten_on_pages,
    written,
)


def forms(title: str, description: str = "") -> frozenset:
    return page_forms(Entity("X", title, description))


def test_name_words_are_capitalised_words_that_are_not_titles():
    page = {"ambrose", "kell", "town"}
    assert unwritten_names("Petra Kell", page) == {"petra"}
    assert unwritten_names("Dr Kell", page) == set()
    assert unwritten_names("Gov. Kell", page) == set()  # an abbreviated title
    assert unwritten_names("Skipper Kell", page) == set()  # a role
    assert unwritten_names("Old Kell", page) == set()
    assert unwritten_names("Kell Jr", page) == set()
    assert unwritten_names("the old Kell", page) == set()  # lower-case words are not names
    assert unwritten_names("Kell's Mill", page) == {"mill"}  # the possessive "s" is not a name
    assert unwritten_names("Petra Kell", page | {"petra"}) == set()


def test_accents_are_folded_on_both_sides():
    assert fold("Fernández") == "fernandez" and fold("İmparator") == "imparator"
    assert unwritten_names("Raimundo Fernández", {"raimundo", "fernandez"}) == set()
    assert unwritten_names("Raimundo Fernandez", forms("Raimundo Fernández")) == set()


def test_initials_of_capitalised_runs_and_dotted_abbreviations_are_forms():
    company = forms("Tarvey Salt Company")
    assert {"tsc"} <= company
    assert unwritten_names("the TSC", company) == set()
    assert unwritten_names("TSX", company) == {"tsx"}
    battle = forms("Battle of Kessen Pass (event)")
    assert {"bkp", "bokp"} <= battle  # without and with the stop word
    federation = forms("Vince", "He ran the World Wrestling Federation for years .")
    assert unwritten_names("WWF", federation) == set()
    assert "ww" not in federation  # a run is taken whole
    assert unwritten_names("US", forms("Boston", "A city of the U.S. state of Massachusetts .")) \
        == set()
    assert unwritten_names("US", forms("Boston", "A city of Massachusetts .")) == {"us"}


def test_a_shared_prefix_of_max_4_and_length_minus_1_letters_is_written():
    # prefix needed: max(4, |t| - 1)
    assert written("corranders", {"corrander"})  # 9 shared, 9 needed
    assert written("hungary", {"hungarian"})  # 6 shared, 6 needed
    assert written("alex", {"alexander"})  # 4 shared, 4 needed
    assert not written("hungary", {"hunger"})  # 4 shared, 6 needed; two edits
    assert not written("petra", {"peter"})  # 3 shared, 4 needed; two edits
    assert not written("ann", {"anna"})  # |t| = 3 still needs 4 shared letters


def test_one_edit_is_written_only_from_five_letters():
    assert written("seyhun", {"seyhoun"})  # an insertion
    assert written("ramez", {"ramey"})  # a substitution (4 shared letters too)
    assert written("marika", {"marka"})  # a deletion
    assert not written("anna", {"anne"})  # 4 letters: no edit allowed, 3 shared
    assert not written("oriel", {"ariels"})  # two edits


def test_an_abbreviated_word_is_written_by_a_word_holding_its_letters_in_order():
    assert unwritten_names("Pt. Corrander", {"port", "corrander"}) == set()
    assert unwritten_names("Ft Carrow", {"fort", "carrow"}) == set()
    assert unwritten_names("Pt Corrander", {"harbour", "corrander"}) == {"pt"}
    assert unwritten_names("Rt. Corrander", {"port", "corrander"}) == {"rt"}  # "r..t" in "port"
    # written in full, a short word is not an abbreviation
    assert unwritten_names("Ptolem Corrander", {"port", "corrander"}) == {"ptolem"}
    # a capitalised word of three to five letters with no vowel is one too (round 36)
    assert unwritten_names("Amdebirhan Bldg", {"amdebirhan", "building"}) == set()
    assert unwritten_names("Jln Loke", {"jalan", "loke"}) == set()
    assert unwritten_names("Amdebirhan Bldg", {"amdebirhan", "house"}) == {"bldg"}
    assert unwritten_names("PGC", {"petrusiak", "grain", "company"}) == {"pgc"}  # an acronym
    assert unwritten_names("Blgd Corrander", {"building", "corrander"}) == {"blgd"}  # out of order


def test_a_person_mention_shortening_an_earlier_one_points_to_the_latest():
    mentions = [("Wenna Corrander", "PERSON"), ("Port Corrander", "GPE"), ("Corrander", "PERSON"),
                ("Mrs Corrander", "PER"), ("Aldous Corrander", "PERSON"), ("Corrander", "PERSON"),
                ("Corrander", "GPE"), ("Wenna Corrander", "PERSON"), ("Wenna", "PERSON"),
                ("Liss", "PERSON")]
    assert name_antecedents(mentions) == [
        None,  # nothing before it
        None,  # not a person
        0,  # {corrander} < {wenna, corrander}; the town is not a person
        0,  # "Mrs" is a title: {corrander} again, not a strict part of "Corrander"
        None,  # {aldous, corrander} is in no earlier mention
        4,  # the latest earlier person it shortens
        None,  # not a person
        None,  # equal names are not a shortening
        7,
        None,  # "Liss" was never written
    ]


def test_unwritten_on_pages_is_unwritten_names_per_page():
    from allennlp_longent.linking.names import unwritten_on_pages

    pages = [Entity("a", "Aldous Corrander", "A whaler."), Entity("p", "Port Corrander", "A town.")]
    assert unwritten_on_pages("Petra Corrander", pages) == [["petra"], ["petra"]]
    assert unwritten_on_pages("Aldous Corrander", pages) == [[], ["aldous"]]


def test_a_word_before_a_person_s_given_name_is_a_title_of_address():
    """"Sitt Zahra": the lists hold no "Sitt", but a word before a person's given name is no
    name of another person; before the family name, or on a thing's page, it stays one."""
    from allennlp_longent.linking.cascade import is_person
    from allennlp_longent.linking.names import unwritten_on_pages

    pages = [Entity("z", "Zahra Belkadi", "Zahra Belkadi was a trader . She kept the shop ."),
             Entity("g", "Belkadi Gem House", "The Belkadi Gem House is a gem merchant . He "
                    "founded it ."),
             Entity("w", "Zahra Wells", "Zahra Wells is a spring in the wadi .")]
    assert unwritten_on_pages("Sitt Zahra", pages, is_person) == [[], ["sitt", "zahra"], ["sitt"]]
    assert unwritten_on_pages("Amina Belkadi", pages, is_person) == [["amina"], ["amina"],
                                                                      ["amina", "belkadi"]]
    assert unwritten_on_pages("Sunil Belkadi", pages[1:2], is_person) == [["sunil"]]
    # without a way to tell a person's page, the rule stays off
    assert unwritten_on_pages("Sitt Zahra", pages)[0] == ["sitt"]


def test_initials_beside_a_name_word_by_hand():
    from allennlp_longent.linking.names import initial_pairs, writes_initial

    assert initial_pairs("L. Ambros") == [("l", "ambros", True)]
    assert initial_pairs("Ruth P.") == [("p", "ruth", False)]
    assert initial_pairs("Dr J. R. Tolkien") == [("r", "tolkien", True)]  # J. has no name beside
    # a dotted title beside an initial is no name of it, as when the tokenizer splits its stop
    assert initial_pairs("Pe. A. R. Viana") == initial_pairs("Pe . A. R. Viana")
    assert initial_pairs("Mr. Smith") == initial_pairs("A.") == initial_pairs("L Ambros") == []
    assert writes_initial("Ludovic Ambros, father of Clara Ambros", ("l", "ambros", True))
    assert writes_initial("as L. Ambros wrote", ("l", "ambros", True))  # the same initial
    assert not writes_initial("the astronomer Clara Ambros; Ludovic's", ("l", "ambros", True))
    assert writes_initial("Ruth Pennock", ("p", "ruth", False))
    assert not writes_initial("Pennock Ruth", ("p", "ruth", False))


def test_an_initial_no_page_writes_is_unwritten_on_every_page():
    from allennlp_longent.linking.names import unwritten_on_pages

    pages = [Entity("l", "Ludovic Ambros", "Ludovic Ambros was the father of Clara Ambros."),
             Entity("c", "Clara Ambros", "Clara Ambros was an astronomer.")]
    assert unwritten_on_pages("K. Ambros", pages) == [["k. ambros"], ["k. ambros"]]
    assert unwritten_on_pages("C. Ambros", pages) == [[], []]  # Ludovic's page writes Clara
    assert unwritten_on_pages("L. Ambros", pages) == [[], ["l. ambros"]]


def test_page_aliases_are_capitalised_names_after_naming_words():
    from allennlp_longent.linking.names import page_aliases

    railway = Entity("r", "Vennet Valley Railway", "It was called the Hohrain Tramway until 1921.")
    father = Entity("f", "Ludovic Ambros", "An astronomer, known in the valley as Old Ludo.")
    engine = Entity("e", "Clara (locomotive)", "It was named after the astronomer Clara Ambros.")
    assert page_aliases(railway) == {("hohrain", "tramway")}
    assert page_aliases(father) == {("ludo",)}  # "Old" is a title written before a name
    assert page_aliases(engine) == frozenset()


def test_page_aliases_after_an_adverb_a_quote_or_call_letters():
    from allennlp_longent.linking.names import page_aliases

    line = Entity("l", "Sahli Railway", "Along its route it is known simply as 'the Line'.")
    festival = Entity("f", "Festival of Bir Salma", "In the city it is called simply “the Nights”.")
    radio = Entity("r", "Radio Ghadamor", "Radio Ghadamor, call letters RGM, broadcasts news.")
    place = Entity("p", "Khan Qadir", "It is known as a place of rest, named after Hamid Qadir.")
    assert page_aliases(line) == {("line",)}
    assert page_aliases(festival) == {("nights",)}
    assert page_aliases(radio) == {("rgm",)}
    assert page_aliases(place) == frozenset()  # a lower-case phrase, and a namesake, are no names


def test_untitled_drops_the_titles_of_address_that_open_a_mention():
    assert untitled("Mr Oddie") == "Oddie" and untitled("Madame Farida Mansour") == "Farida Mansour"
    assert untitled("Dr. Mrs Kell") == "Kell" and untitled("Mr") == "Mr"
    assert untitled("Old Carrow") == "Old Carrow"  # "Old" may be part of a name
    assert untitled("Oddie, Mr") == "Oddie, Mr"  # only the opening words


def test_page_aliases_in_other_styles():
    from allennlp_longent.linking.names import page_aliases
    king = Entity("k", "Aldric Vane", "Songs call him the Ashen King. Fans call her nothing.")
    party = Entity("p", "Partido da Renovação", "Abbreviation: PRD. Founded: 1994.")
    club = Entity("c", "Esporte Clube", "Nickname: Garças (the Herons). Founded: 1921.")
    striker = Entity("s", "Wesley Cardoso", "Known as Cardosinho. Striker.")
    # "King" is a title word (HONORIFICS), left out of the alias as of the mention; "nothing" is
    # no name
    assert page_aliases(king) == {("ashen",)}
    assert page_aliases(party) == {("prd",)}
    assert page_aliases(club) == {("garcas",)}
    assert page_aliases(striker) == {("cardosinho",)}


def test_a_bracketed_acronym_is_an_alias_only_right_after_the_title():
    from allennlp_longent.linking.names import page_aliases
    bank = Entity("b", "Banco de São Tarcísio", "Since 1958, Banco de São Tarcísio S.A. (BST) "
                                                "has served the state.")
    deputy = Entity("d", "Helena Moura", "Federal deputy for Alto Mirante (PRD) since 2023; "
                                         "Helena Moura chairs the institute.")
    assert page_aliases(bank) == {("bst",)}  # the title, then "S.A.", then the acronym
    assert page_aliases(deputy) == frozenset()  # her party's acronym, after another name


def test_initials_leave_out_name_particles():
    assert "ufst" in initials("Universidade Federal de São Tarcísio")
    assert "ufdst" in initials("Universidade Federal de São Tarcísio")  # as written, too
    assert initials("Bank of Tellau") == {"bot", "bt"}  # "of" is a stop word, no particle


def test_abbreviation_pieces_read_letters_clipped_words_and_written_words():
    assert abbreviation_pieces("FK Lomen") == (("letter", "f"), ("letter", "k"), ("word", "lomen"))
    assert abbreviation_pieces("P.Q.") == (("letter", "p"), ("letter", "q"))
    assert abbreviation_pieces("M/S Dora") == (("letter", "m"), ("letter", "s"), ("word", "dora"))
    assert abbreviation_pieces("HoVe") == (("clipped", "ho"), ("clipped", "ve"))
    assert abbreviation_pieces("@FKLomen") == abbreviation_pieces("FK Lomen")
    assert abbreviation_pieces("Polyt. of Lomen") == (
        ("clipped", "polyt"), ("word", "of"), ("word", "lomen"))
    assert abbreviation_pieces("Lomen Harbour") is None  # nothing written short
    assert abbreviation_pieces("LOMEN HARBOUR") is None  # capitals, but no acronym
    assert abbreviation_pieces("KLUBBEN") is None  # too long for an acronym


def test_an_abbreviation_covers_every_title_word_but_stop_words_and_particles():
    def cost(mention, title):
        return abbreviation_cost(abbreviation_pieces(mention), title)

    assert cost("FK Lomen", "Fotball Kvarve Lomen") == 0
    assert cost("FK Lomen", "Fotball Kvarve Lomen Vest") is None  # "Vest" not covered
    assert cost("FK Lomen", "Fotball Lomen") is None  # "K" covers nothing
    assert cost("Lomen BC", "Lomen Boat Club") == 0
    assert cost("HoVe", "Hogskolen of Vellan") == 0  # "of" left out
    assert cost("HoVe", "Hogskolen Vellan Arena") is None  # "Arena" not covered
    assert cost("P.Q.", "Pia Quell (singer)") == 0  # the qualifier is no title word
    assert cost("DR", "Dora's Rest") == 0  # nor the possessive
    assert cost("Polyt. of Lomen", "Polytechnic of Lomen") == 0
    assert cost("M/S Dora", "MS Dora") == 0  # letters continuing a short word
    assert cost("SB", "Sbarro") is None  # but not a long word's second letter
    assert cost("SB", "Saltbank") == 1  # a compound's second part is a guess
    assert cost("SB", "Sabre") is None  # "b" before the third letter


def test_a_word_clipped_in_its_middle():
    assert clipped_middle("Mbrook", "Millbrook")
    assert clipped_middle("Mibrook", "Millerbrook (mill)")
    assert not clipped_middle("Mibrook", "Millbrook")  # three letters left out at least
    assert not clipped_middle("Mook", "Millbrook")  # four letters of the end at least
    assert not clipped_middle("Mbrook", "Millbrook Road")  # one word only
    assert not clipped_middle("mbrook", "Millbrook")  # a name is capitalised


def test_expansion_takes_the_cheapest_reading_and_leaves_ties_ambiguous():
    pages = [Entity("c", "Lomen Boat Club", "A rowing club."),
             Entity("t", "Lomen", "A town."),
             Entity("s", "Saltbank", "A sandbar."),
             Entity("b", "Sea Bells", "A song.")]
    assert expansion("Lomen BC", pages) == ([pages[0]], False)
    assert expansion("Lomen", pages) == ([], False)  # a title written as it is
    assert expansion("SB", pages) == ([pages[3]], False)  # initials before a compound part
    assert expansion("SB", pages[:3]) == ([pages[2]], True)
    both = pages + [Entity("l", "Sally Bell", "A singer.")]
    assert [e.id for e in expansion("SB", both)[0]] == ["b", "l"]  # two readings: no guess
    # a guess yields to a page that writes the short form as it is
    coded = pages[:3] + [Entity("a", "Lomen Airport", "An airport; code SB.")]
    assert expansion("SB", coded) == ([], True)
    assert expansion("Lomen BC", coded) == ([pages[0]], False)  # no guess, kept


def test_a_mention_of_another_part_of_a_linked_name_points_to_it():
    mentions = [("Diego Cardoso", "PERSON"), ("Wesley", "PERSON"), ("Cardoso", "PERSON"),
                ("Cardoso", "PERSON"), ("Moura", "PERSON"), ("Moura", "PERSON")]
    titles = [None, "Wesley Cardoso", None, None, "Helena Moura", None]
    # without titles, the latest full mention is the unlinked Diego Cardoso
    assert name_antecedents(mentions) == [None, None, 0, 0, None, None]
    assert name_antecedents(mentions, titles) == [
        None,
        None,  # {wesley} is in no earlier mention
        1,  # "Wesley" writes the other part of Wesley Cardoso, which holds {cardoso}
        1,  # the same name as the "Cardoso" before it, which is no antecedent: "Wesley" again
        None,
        None,  # "Moura" is no other part than the earlier "Moura": equal names never chain
    ]



def test_round_22_clauses_titles_of_other_conventions_clipped_and_joined_names():
    page = forms("Sani Ibrahim", "An engineer, son of Ibrahim Sani.")
    assert unwritten_names("Engr. Sani Ibrahim", page) == set()
    assert unwritten_names("Alhaji Ibrahim Sani", page) == set()
    assert unwritten_names("Hon. Ademola Sani", page) == {"ademola"}
    assert untitled("Senhora Moura") == "Moura" and untitled("Alhaji Sani") == "Sani"
    historian = forms("Babátúndé Adéwùsì", "A historian of the lagoon.")
    assert unwritten_names("Professor Tunde Adewusi", historian) == set()  # clipped at the front
    assert unwritten_names("Professor Tundi Adewusi", historian) == {"tundi"}  # not its end
    city = forms("Ilé-Ọ̀sà", "A city on the lagoon.")
    assert "ileosa" in city and unwritten_names("Ileosa", city) == set()
    assert unwritten_names("Osaile", city) == {"osaile"}  # the title's words in its own order only
    # a person's page, read for a mention with one name word between the title's first and last
    # names: a middle name
    from allennlp_longent.linking.names import unwritten_on_pages

    governor = Entity("g", "Rukayat Ọdúnsì", "The governor of the state.")
    other = Entity("o", "Ademola Odunsi", "A party chairman.")
    assert unwritten_on_pages("Alhaja Rukayat Abeni Odunsi", [governor, other]) == [
        [], ["abeni", "rukayat"]]
    assert unwritten_on_pages("Abeni Rukayat Odunsi", [governor]) == [["abeni"]]  # not inner
    assert unwritten_on_pages("Rukayat Abeni", [governor]) == [["abeni"]]  # the last is no name


def test_titles_of_other_conventions_and_club_letters_are_no_name_words():
    # round 23: a page may write "FC" where the text writes "FK", or "Esporte Clube" for "FC"
    page = {"dorovets", "football", "club", "selvaraj"}
    assert unwritten_names("FK Dorovets", page) == set()
    assert unwritten_names("Dorovets FC", page) == set()
    assert unwritten_names("Thiru Selvaraj", page) == set()
    assert unwritten_names("Smt. Selvaraj", page) == set()
    assert unwritten_names("FK Tsyrna", page) == {"tsyrna"}
    # a company's legal form is no name word either
    assert unwritten_names("PrJSC Yarema", {"yarema", "shipyard"}) == set()
    assert unwritten_names("Selvaraj Textiles Pvt Ltd", page | {"textiles"}) == set()


def test_round_26_titles_of_other_languages_and_dotted_titles():
    page = forms("Grace Adhiambo Ochola", "A politician of Nyangoro.")
    for titled in ("Mheshimiwa Ochola", "Mzee Ochola", "Nana Ochola", "Doña Grace Ochola",
                   "Sœur Grace Ochola", "Maître Ochola", "Atty. Grace Ochola"):
        assert unwritten_names(titled, page) == set(), titled
    assert unwritten_names("Lola Ochola", page) == {"lola"}  # a given name as well as a title
    ochola = Entity("o", "Grace Adhiambo Ochola", "A politician of Nyangoro.")
    # an abbreviation of two letters or more that opens a name is a title in any language
    assert unwritten_on_pages("Bwn. Grace Ochola", [ochola]) == [[]]
    assert dotted_title("Bwn. Grace Ochola", list(name_words("Bwn. Grace Ochola"))) == {"bwn"}
    # as a tokeniser splits it, which is how the cascade reads a mention
    assert unwritten_on_pages("Bwn . Grace Ochola", [ochola]) == [[]]
    # not alone, not an initial, not lower case
    assert unwritten_on_pages("Bwn.", [ochola]) == [["bwn"]]
    assert dotted_title("G. Ochola", list(name_words("G. Ochola"))) == set()
    assert unwritten_on_pages("Zed Ochola", [ochola]) == [["zed"]]


def test_round_44_titles_of_address_and_epithets():
    page = forms("Jozef Delbeke", "Jozef Delbeke was a schoolmaster of Vaarle.")
    for titled in ("Meester Delbeke", "Maestro Delbeke", "Mademoiselle Delbeke", "Opa Jozef",
                   "Daw Jozef Delbeke", "Shaykh Jozef", "Hadjee Delbeke", "Batyushka Jozef"):
        assert unwritten_names(titled, page) == set(), titled
    # those that are given names or name parts as well stay name words
    for named in ("Zia Delbeke", "Nona Delbeke", "Om Delbeke", "Abu Delbeke", "Maung Delbeke",
                  "Pepe Delbeke"):
        assert unwritten_names(named, page) == {named.split()[0].lower()}, named
    fire = forms("Great Ptarmigan Fire", "The Great Ptarmigan Fire was a fire in 1898.")
    assert unwritten_names("Big Fire", fire) == set()
    assert unwritten_names("Red Fire", fire) == {"red"}


def test_round_30_case_endings_after_an_apostrophe_are_not_name_words():
    port = forms("Keremoz", "A tea port on the Black Sea.")
    assert unwritten_names("Keremoz'un", port) == set()
    assert unwritten_names("Keremoz’dan", port) == set()
    assert unwritten_names("SAK:n", forms("SAK", "A trade union.")) == set()
    assert unwritten_names("Keremoz'un", forms("Dereyaka", "A province.")) == {"keremoz"}
    # a capital after the apostrophe is a name's part, and aspiration still joins syllables
    assert unwritten_names("O'Brien", port) == {"brien"}
    assert [t for t, _ in name_words("Ch'ŏnhae")] == ["chonhae"]


def test_round_30_titles_of_more_languages():
    page = forms("Selma Karayelioğlu", "A hazelnut trader of Keremoz.")
    for titled in ("Selma Hanım", "Hoca Karayelioğlu", "Selma-ssi", "Pani Karayelioğlu",
                   "Tohtori Karayelioğlu", "Abune Selma", "Datuk Selma", "Monseñor Selma",
                   "Lalla Selma", "Oom Selma", "Thầy Selma"):
        assert unwritten_names(titled, page) == set(), titled
    # titles that are also common names stay name words
    for named in ("Pak Selma", "Tuan Selma", "Ato Selma", "Chan Selma", "Irma Selma",
                  "Ur Selma", "Dom Selma", "Sama Selma"):
        assert unwritten_names(named, page) == {fold(named.split()[0])}, named


def test_round_31_saint_in_other_languages():
    page = forms("Saint Hiltgund", "A hermit of the valley, venerated at a chapel above Lümmenau.")
    for saint in ("Sankt Hiltgund", "Sint Hiltgund", "Agia Hiltgund", "Szent Hiltgund",
                  "Heilige Hiltgund", "Świętej Hiltgund", "Sv. Hiltgund"):
        assert unwritten_names(saint, page) == set(), saint
    # the Romance forms also begin the names of places and churches; "Aya" is a given name too
    for named in ("Santa Hiltgund", "São Hiltgund", "Aya Hiltgund"):
        assert unwritten_names(named, page) == {fold(named.split()[0])}, named


def test_round_32_more_titles_and_legal_forms():
    page = forms("Ratna Pelangi", "A batik maker of Lasem, wife of a teacher.")
    for titled in ("Mbak Ratna", "Mbah Pelangi", "Nyonya Pelangi", "Ntate Pelangi",
                   "Nayok Pelangi", "Ah Ratna"):
        assert unwritten_names(titled, page) == set(), titled
    for named in ("Pak Ratna", "Bu Ratna", "Mas Ratna", "Ong Ratna"):  # also names
        assert unwritten_names(named, page) == {fold(named.split()[0])}, named
    firm = forms("Pelangi Tin", "A tin dredging company of the Kinta valley.")
    for formal in ("Pelangi Tin Bhd", "Pelangi Tin Sdn. Bhd.", "Pelangi Tin (Pty) Ltd",
                   "Pelangi Tin Oyj", "Pelangi Tin Kft.", "Pelangi Tin Sp. z o.o.",
                   "Pelangi Tin Limited"):
        assert unwritten_names(formal, firm) == set(), formal
    assert unwritten_names("Pelangi Ký", firm) == {"ky"}  # a Vietnamese name, not Finnish "Ky"
    for named in ("Pelangi Sas", "Pelangi Epe", "Pelangi Zao", "Pelangi Doo"):  # names too
        assert unwritten_names(named, firm) == {fold(named.split()[1])}, named


def test_round_26_a_page_that_names_a_relative_so_is_not_his():
    wife = Entity("m", "Margaret Achieng' Oyoo",
                  "Margaret Achieng' Oyoo is a businesswoman. Married to the teacher Peter Owino, "
                  "she chairs the company. Her son is Brian Otieno Owino.")
    assert unwritten_on_pages("Peter Owino", [wife]) == [["peter (kin)"]]
    assert unwritten_on_pages("Mr Peter Owino", [wife]) == [["peter (kin)"]]
    assert unwritten_on_pages("Brian Otieno Owino", [wife]) == [["brian (kin)"]]
    # her own name, a name not after a kin word, and one name word are left alone
    assert unwritten_on_pages("Margaret Oyoo", [wife]) == [[]]
    chair = Entity("c", "Ruth Kell", "Ruth Kell chairs the club; Peter Owino is its coach.")
    assert unwritten_on_pages("Peter Owino", [chair]) == [[]]  # written, no kin word before
    assert unwritten_on_pages("Owino", [wife]) == [[]]


def test_round_26_an_abbreviation_leaves_out_a_legal_form():
    fish = Entity("f", "Oyoo Fish Processors Limited", "")
    boats = Entity("b", "Oyoo Boatbuilders", "")
    assert expansion("OFP", [fish, boats])[0] == [fish]
    assert expansion("OFPL", [fish, boats])[0] == [fish]
    assert expansion("OXZ", [fish, boats])[0] == []  # letters no title has


def test_round_27_three_capitals_may_be_a_code_of_a_title_s_first_word():
    from allennlp_longent.linking.names import abbreviation_pieces, skeleton

    town = Entity("t", "Kadalur", "A port town.")
    club = Entity("c", "Kadalur Town Cricket Club", "A cricket club.")
    river = Entity("r", "Kodal", "A river.")
    # its first letter, then two consonants in order
    assert skeleton(abbreviation_pieces("KDL"), "Kadalur")
    assert not skeleton(abbreviation_pieces("KLD"), "Kadalur")  # out of order
    assert not skeleton(abbreviation_pieces("KDA"), "Kadalur")  # a vowel
    assert not skeleton(abbreviation_pieces("DKL"), "Kadalur")  # another first letter
    # the loosest guess; of the titles it fits, the one with fewest other name words
    assert expansion("KDL", [club, town]) == ([town], True)
    assert expansion("KDL", [club]) == ([club], True)
    assert expansion("KDL", [town, river])[0] == [town, river]  # a tie: no reading
    # any cover of the title's words comes first ("KTCC", or "KT" with a compound part)
    assert expansion("KTCC", [club, town])[0] == [club]
    # a page that writes the code as it is keeps it for itself
    coded = Entity("a", "Kadalur Airport", "An airport; code KDL.")
    assert expansion("KDL", [town, coded]) == ([], True)
