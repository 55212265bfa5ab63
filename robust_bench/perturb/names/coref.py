"""The persons of a coreference document whose names may be swapped (Balasubramanian et al., 2020,
§2.3: "we replace only mentions of a single name in the long document"): the gold person names of
LitBank's entity layer, the person clusters and their name mentions, their gender from the pronouns,
and why a person cannot be the one a document's variants rename."""

from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache
from pathlib import Path

from robust_bench.perturb.names.kinds import _POSSESSIVE
from robust_bench.perturb.names.mentions import Mention
from robust_bench.perturb.names.roles import name_word_roles, nickname_pairs, person_name_tokens
from robust_bench.perturb.names.swaps import plan_swaps
from robust_bench.text.names import HONORIFIC_GENDER, PARTICLES
from robust_bench.text.wordnet import first_noun_sense

#: lower-case words inside a proper person name ("Duke of Wellington", "Ludwig van Beethoven")
_NAME_PARTICLES = {"of", "de", "van", "von", "der", "le", "la", "du", "da", "di", "del", "'s"}


def gold_person_names(coref_file: Path, docs) -> Path | None:
    """Attach LitBank's gold PER mentions that are proper names, and its mentions of the other types, to
    the documents of one coreference file, as OntoNotes entities are attached (``doc.entities``): the
    entity file of the same name in ``../entities/tsv/`` beside ``coref/``, if there is one (its path is
    returned, for the source hash).

    A proper name is a PER mention whose words are capitalised (name particles aside) and that no
    article precedes: "Sir Walter Elliot", "Mr. Blowers", but not "a man who ..." (a common noun
    phrase) nor the epithets "the Scarlet Pimpernel", "the Lord Chancellor", "the Almighty".

    Parameters
    ----------
    coref_file : Path
        A LitBank coreference file (``.../coref/<name>.conll``).
    docs : list of CorefDocument
        Its documents (:func:`robust_bench.io.conll2012.read_conll2012`); their ``entities`` are set.

    Returns
    -------
    Path or None
        The entity file read, or ``None`` when there is none (the documents are left as they are).

    Raises
    ------
    EntityLayerError
        If the entity file is malformed or its tokens are not the coreference file's (naming both
        files and the first token that differs).
    """
    from robust_bench.io.litbank_entities import EntityLayerError, read_entity_layer

    path = coref_file.parent.parent / "entities" / "tsv" / f"{coref_file.stem}.tsv"
    if not path.is_file():
        return None
    layer = read_entity_layer(path)
    tokens = [t for d in docs for t in d.tokens]
    if tokens != layer.tokens:
        k = next((i for i, (a, b) in enumerate(zip(tokens, layer.tokens)) if a != b), min(len(tokens), len(layer.tokens)))
        raise EntityLayerError(f"{path}: token {k + 1} is {layer.tokens[k] if k < len(layer.tokens) else 'missing'!r}, "
                               f"but {coref_file} has {tokens[k] if k < len(tokens) else 'nothing'!r} there: the entity "
                               "layer must have the coreference file's tokens")
    offset = 0
    for d in docs:
        n = len(d.tokens)
        d.entities = [(a - offset, b - offset, "PER") for a, b in layer.spans("PER")
                      if offset <= a and b <= offset + n and proper_name(tokens, a, b)]
        # the other types, so that a name that also names a place or a ship is known ("the Hudson")
        d.entities += [(a - offset, b - offset, t) for t in _OTHER_ENTITY_TYPES for a, b in layer.spans(t)
                       if offset <= a and b <= offset + n]
        offset += n
    return path


#: LitBank's entity types other than PER.
_OTHER_ENTITY_TYPES = ("FAC", "GPE", "LOC", "ORG", "VEH")


#: honorifics that stand before a surname and make it a person's name ("Mr. Long"); titles such as "Lord"
#: or "King" also stand before offices ("the Lord Chancellor") and do not
_SURNAME_HONORIFICS = {"mr", "mr.", "mrs", "mrs.", "ms", "ms.", "miss", "dr", "dr.", "madame", "mme", "mme.",
                       "monsieur", "mademoiselle", "herr", "frau"}


#: a first name (surname) that is also a word for a person's role ("Dean", "Smith") is a name only among
#: this many of the most frequent ones (the name lists are in order of frequency)
_COMMON_NAME_RANK = 200


_COMMON_SURNAME_RANK = 500


@lru_cache(maxsize=1)
def function_words() -> frozenset:
    """English function words (NLTK's stopword list): never a name, and a mention they begin is an
    epithet ("My Friend", "The Ayah").

    Returns
    -------
    frozenset of str
    """
    from nltk.corpus import stopwords

    return frozenset(stopwords.words("english"))


@lru_cache(maxsize=4096)
def role_noun(word: str) -> bool:
    """Whether lower-case ``word`` is an English common noun for a person (WordNet lexicographer file
    noun.person, not an instance): "chancellor", "lawyer", "heir", "dean", "smith".

    Parameters
    ----------
    word : str
        Lower case.

    Returns
    -------
    bool
    """
    from robust_bench.text.wordnet import wordnet as wn

    return any(s.lexname() == "noun.person" and not s.instance_hypernyms()
               and word in (lemma.name() for lemma in s.lemmas()) for s in wn.synsets(word, pos="n"))


def name_words(tokens, a: int, b: int, lexicon, real_word) -> list[int]:
    """The words of a gold PER mention (``tokens[a:b]``) that are a name and may be swapped.

    LitBank tags titles and descriptions used as names as PER ("the Chancellor", "Lawyer", "Happy",
    "Sea-dog"), and the name lists hold many English words ("Chancellor" is a US baby name). So:

    * a word that is no English word (WordNet, with inflections) is a name: "Bartleby", "Pirrip";
    * a first name the lists know is a name unless it is also a common noun for a person's role,
      outside the most frequent names: "Walter", "John", "Jack" are, "Chancellor", "Dean", "Major" not;
    * a surname the lists know is a name only beside one of those or after "Mr."/"Mrs."/"Miss", and
      then with the same exception for role nouns: "John Smith", "Mr. Long", not "the Lord Chancellor";
    * honorifics stay in the span and are kept by the swap.

    Parameters
    ----------
    tokens : sequence of str
    a, b : int
        The mention, ``[a, b)``.
    lexicon : NameLexicon
    real_word : callable
        Whether a lower-case word is an English word
        (:func:`robust_bench.text.pseudowords.is_real_word_factory`).

    Returns
    -------
    list of int
        Token indices, in order.
    """
    def title(w):
        return w[:1].upper() + w[1:].lower()

    words = tokens[a:b]
    if words and words[0].lower() in function_words():
        return []                         # "My Friend", "The Ayah": an epithet, not a name
    plain = [w.isalpha() and not real_word(w.lower()) and w.lower() not in function_words() for w in words]
    first = [lexicon.is_first_name(title(w)) and (not role_noun(w.lower()) or min(
        lexicon.rank(title(w), "male"), lexicon.rank(title(w), "female")) < _COMMON_NAME_RANK) for w in words]
    anchored = any(plain) or any(first) or any(w.lower() in _SURNAME_HONORIFICS for w in words)
    out = []
    for k, w in enumerate(words):
        surname = anchored and lexicon.is_last_name(title(w)) and (
            not role_noun(w.lower()) or lexicon.rank(title(w), "last") < _COMMON_SURNAME_RANK)
        if w.lower() in HONORIFIC_GENDER or plain[k] or first[k] or surname:
            out.append(a + k)
    return out


def proper_name(tokens, a: int, b: int) -> bool:
    """Whether a gold PER mention is a proper name: capitalised words (name particles aside) that no
    article precedes ("Sir Walter Elliot", not "the Lord Chancellor").

    Parameters
    ----------
    tokens : sequence of str
    a, b : int
        The mention, ``[a, b)``.

    Returns
    -------
    bool
    """
    words = tokens[a:b]
    if a > 0 and tokens[a - 1].lower() in ("the", "a", "an"):
        return False
    return bool(words) and words[0][:1].isupper() and all(w[:1].isupper() or w.lower() in _NAME_PARTICLES
                                                           for w in words)


def coref_persons(d, lexicon, nlp, real_word, *, gold_names: bool) -> list[dict]:
    """The persons of a coreference document with a name: per person cluster (:func:`is_person_cluster`),
    its ``entity`` id (``c<cluster>``), ``cluster`` index, name ``mentions`` (:func:`cluster_person_names`) and
    ``gender`` from its pronouns (or ``None``). Names come from the gold entities (``gold_names``: LitBank's
    layer, whose PER mentions are filtered by :func:`name_words`; otherwise OntoNotes PERSON spans), or
    from ``nlp``'s NER when the corpus has no entities.

    Parameters
    ----------
    d : CorefDocument
        A coreference document (``tokens``, ``clusters``, ``sentence_starts``, ``entities``).
    lexicon : NameLexicon
    nlp : spacy.Language or None
        An NER pipeline, for a corpus without entities; ``None`` reads ``d.entities``.
    real_word : callable
        See :func:`name_words`.
    gold_names : bool
        The entities are LitBank's gold layer.

    Returns
    -------
    list of dict
        In cluster order.

    Notes
    -----
    Balasubramanian et al. (2020), §2.3: the names of a coreference document's persons are what is swapped.
    """
    from spacy.tokens import Doc

    from robust_bench.text.nlp import map_entity_label

    if nlp is None:
        per = [(a, b) for a, b, lab in d.entities if map_entity_label(lab) == "PER"]
        per_tokens = {i for a, b in per for i in (name_words(d.tokens, a, b, lexicon, real_word) if gold_names
                                                   else range(a, b))}
    else:
        per_tokens = set()
        bounds = list(d.sentence_starts) + [len(d.tokens)]
        sents = [Doc(nlp.vocab, words=d.tokens[a:b]) for a, b in zip(bounds, bounds[1:])]
        for a, sd in zip(bounds, nlp.pipe(sents, disable=[p for p in nlp.pipe_names if p != "ner"])):
            for e in sd.ents:
                if map_entity_label(e.label_) == "PER":
                    per_tokens.update(range(a + e.start, a + e.end))
    persons = []
    for cid, cluster in enumerate(d.clusters):
        names = [(a, b, person_name_tokens(d.tokens, a, b)) for a, b in cluster]
        if not is_person_cluster(d.tokens, cluster, names, per_tokens, lexicon):
            continue
        spans = cluster_person_names(d.tokens, names, per_tokens, lexicon, keep_untagged=not gold_names)
        if spans:
            persons.append({"entity": f"c{cid}", "cluster": cid, "gender": pronoun_gender(d.tokens, cluster),
                            "mentions": [Mention(a, b, "PER", f"c{cid}") for a, b in spans]})
    return persons


_DETERMINERS = frozenset({"the", "a", "an", "his", "her", "my", "our", "their", "this", "that", "your", "its"})


def is_animal(noun: str) -> bool:
    """Whether the first WordNet sense of ``noun`` is an animal ("dog", "horse", "pony").

    Parameters
    ----------
    noun : str
        Lower case.

    Returns
    -------
    bool
    """
    return first_noun_sense(noun) == "noun.animal"


def _words_of_titled_places(d, per) -> set[str]:
    """Name words (lower case) of the gold persons nested in a place, facility or vessel of the gold layer
    whose name goes on in capitals after the person's ("King Solomon's Mines"; not "Mrs. Todd's garden")."""
    from robust_bench.text.nlp import map_entity_label

    toks, out = d.tokens, set()
    for a, b, lab in d.entities:
        if map_entity_label(lab) != "LOC" and lab.upper() != "VEH":       # places, facilities (LOC) and vessels
            continue
        for pa, pb in per:
            rest = [w for w in toks[pb:b] if w not in _POSSESSIVE]
            if a <= pa and pb <= b and rest and all(w[:1].isupper() for w in rest):
                out.update(w.lower() for w in toks[pa:pb] if w[:1].isupper())
    return out



def target_refusal(d, person: dict, roles: dict, lexicon) -> str | None:
    """Why ``person`` cannot be the person a coreference document's variants rename, or ``None``.

    Refused: a name word whose role nothing decides (:func:`robust_bench.perturb.names.name_word_roles`:
    "Strether" alone is no more a first name than a surname, and the paper's default, the last name,
    turned "Lucilla" into a surname); a name word the document also writes in lower case ("Hope",
    "Will") or after "the" ("of the Hudson"), or inside a place, facility, organisation or vessel of
    the gold layer; a name inside a place, facility or vessel of the gold layer whose name goes on in capitals
    ("King Solomon's Mines"; an organisation named after a person, "Tellson's Bank", is not refused here);
    a first name that also stands alone for another gold person or a family ("relations named Robinson");
    a gold name with capitalised words that are not names ("Ginger Nut", "Vishnu the Preserver"), which
    would be half swapped; an animal (a mention such as "the dog": "Buck"); and a person whose family's
    names hold a nickname and its full form ("John Carter", "Captain Jack Carter of Virginia"), or whose first
    name's nickname or full form the document writes anywhere ("Sir John", "plain Jack Durbeyfield").

    Parameters
    ----------
    d : CorefDocument
    person : dict
        From :func:`coref_persons`.
    roles : dict
        Name word -> (role, evidence), :func:`robust_bench.perturb.names.roles.name_word_roles`.
    lexicon : NameLexicon

    Returns
    -------
    str or None
        The reason (counted on the ``names_coref`` card), or ``None``.

    Notes
    -----
    Balasubramanian et al. (2020), §2.3: one person's name is replaced per document; these refusals choose
    which person can be.
    """
    from robust_bench.text.nlp import map_entity_label

    toks = d.tokens
    inside = {i for m in person["mentions"] for i in range(m.start, m.end)}
    low = {toks[i].lower() for i in inside if toks[i].lower() not in HONORIFIC_GENDER and toks[i] not in PARTICLES}
    if any(roles.get(w, ("last", None))[1] is None for w in low):
        return "a name word whose role (first or last name) nothing decides"
    if low & {t for t in toks if t.islower()}:
        return "a name word the document also writes as a common word"
    if low & {toks[i + 1].lower() for i in range(len(toks) - 1) if toks[i].lower() == "the"}:
        return "a name word the document also writes after 'the'"
    per = [(a, b) for a, b, lab in d.entities if map_entity_label(lab) == "PER"]
    in_person = {i for a, b in per for i in range(a, b)}
    other = {toks[i].lower() for a, b, lab in d.entities if map_entity_label(lab) != "PER" for i in range(a, b)
             if i not in in_person}
    if low & other:
        return "a name word that also names a place, an organisation or a vessel"
    if low & _words_of_titled_places(d, per):
        # "King Solomon's Mines": a place, facility or vessel named after a person, which its renaming would
        # rename too ("Mrs. Todd's garden" is not one: a garden that she owns)
        return "a name inside the name of a place, a facility or a vessel (King Solomon's Mines)"
    own = {w for w in low if roles.get(w, ("",))[0] == "first"}
    if any(b - a == 1 and toks[a].lower() in own and a not in inside for a, b in per):
        # "relations were named Robinson ... I was called Robinson Kreutznaer": the first name stands alone
        # for another person or a family
        return "a first name the document also gives another person or a family"
    for a, b in per:
        if inside & set(range(a, b)) and any(
                i not in inside and toks[i][:1].isupper() and toks[i].lower() not in HONORIFIC_GENDER
                and toks[i].lower() not in function_words() for i in range(a, b)):
            return "a name with words that are not names"
    if any(b - a >= 2 and toks[a].lower() in _DETERMINERS and toks[b - 1].isalpha() and is_animal(toks[b - 1].lower())
           for a, b in d.clusters[person["cluster"]]):
        return "an animal"
    if any(m.start > 0 and toks[m.start - 1] in ("St.", "St", "Saint", "Ste.", "Ste") for m in person["mentions"]):
        return "a name after 'St.' (a saint, or part of a surname: St. Aubert)"
    # the first names that go with the person's surname anywhere in the document ("John Carter" and his
    # "Captain Jack Carter"): a nickname and its full form need related replacements
    lasts = {toks[m.end - 1].lower() for m in person["mentions"] if roles.get(toks[m.end - 1].lower(), ("",))[0] == "last"}
    # ... wherever the surname stands in the gold name ("Captain Jack Carter of Virginia")
    firsts = {toks[i].lower() for a, b, lab in d.entities if map_entity_label(lab) == "PER" and b - a >= 2
              for j in range(a + 1, b) if toks[j].lower() in lasts for i in range(a, j)
              if toks[i][:1].isupper() and toks[i].lower() not in HONORIFIC_GENDER}
    firsts |= {toks[i].lower() for m in person["mentions"] for i in range(m.start, m.end)
               if roles.get(toks[i].lower(), ("",))[0] == "first"}
    if nickname_pairs(firsts):
        return "a name whose family holds a nickname and its full form"
    # ... or anywhere in the document ("calling me 'Sir John' ... when I be plain Jack Durbeyfield")
    # (any capitalised word inside a sentence: the gold layer's names leave out "plain Jack Durbeyfield")
    starts = set(d.sentence_starts)
    every = {t.lower() for i, t in enumerate(toks) if t[:1].isupper() and i not in starts and not t.isupper()}
    if nickname_pairs(own | every) & own:
        return "a first name whose nickname or full form the document also writes (Sir John, plain Jack)"
    return None


def is_human(d, person: dict) -> bool:
    """Whether a person cluster shows that it is human: a title ("Mr.", "Aunt"), a full name of two or
    more words, or a mention headed by a noun for a person ("the girl", "his wife").

    Parameters
    ----------
    d : CorefDocument
    person : dict
        From :func:`coref_persons`.

    Returns
    -------
    bool
    """
    toks = d.tokens
    if any(m.end - m.start >= 2 or (m.start > 0 and toks[m.start - 1].lower() in HONORIFIC_GENDER)
           for m in person["mentions"]):
        return True
    return any(b - a >= 2 and toks[a].lower() in _DETERMINERS and toks[b - 1].isalpha() and person_noun(toks[b - 1].lower())
               for a, b in d.clusters[person["cluster"]])


def person_noun(noun: str) -> bool:
    """Whether the first WordNet sense of ``noun`` is a person ("girl", "wife", "gardener").

    Parameters
    ----------
    noun : str
        Lower case.

    Returns
    -------
    bool
    """
    return first_noun_sense(noun) == "noun.person"


def is_person_cluster(tokens, cluster, names, per_tokens: set[int], lexicon) -> bool:
    """A coreference cluster is a person when a name mention overlaps a PER entity and the cluster
    also has a gendered pronoun, an honorific, or a name the name lists know ("Chancery" and
    "Lincoln 's Inn Hall", tagged PER by a news-trained tagger, have none of these).

    Parameters
    ----------
    tokens : sequence of str
    cluster : sequence of (int, int)
        The cluster's mention spans.
    names : sequence of (int, int, (int, int) or None)
        Per mention, its span and the name inside it (:func:`robust_bench.perturb.names.roles.person_name_tokens`).
    per_tokens : set of int
        Tokens inside a PER entity.
    lexicon : NameLexicon

    Returns
    -------
    bool
    """
    spans = [n for _, _, n in names if n is not None]
    if not any(any(i in per_tokens for i in range(*n)) for n in spans):
        return False
    if any(tokens[b - 1].lower() in _PLACE_HEADS for a, b in spans):
        return False                       # "the Golden Krone Hotel", "Lincoln Park"
    if pronoun_gender(tokens, cluster) or any(tokens[a].lower() in HONORIFIC_GENDER for a, _ in cluster):
        return True
    return any(lexicon.is_first_name(w.title()) for a, b in spans for w in tokens[a:b])


def cluster_person_names(tokens, names, per_tokens: set[int], lexicon, *, keep_untagged: bool = True) -> list[tuple[int, int]]:
    """The name spans of a person cluster that are really the person's name: a span that overlaps
    a PER entity is cut to the entity ("John Grier" of "the John Grier Home"); a span the tagger
    missed (never, with ``keep_untagged=False``: gold names) is kept only when every word is a word of a tagged span or a name the lists know
    ("Judy"), not a place or an institution of the same cluster ("the Female Inebriate Asylum").

    Parameters
    ----------
    tokens : sequence of str
    names : sequence of (int, int, (int, int) or None)
        As for :func:`is_person_cluster`.
    per_tokens : set of int
        Tokens inside a PER entity.
    lexicon : NameLexicon
    keep_untagged : bool
        Keep spans the tagger missed (not for gold names).

    Returns
    -------
    list of (int, int)
        Sorted name spans.
    """
    tagged, untagged = [], []
    for _, _, n in names:
        if n is None:
            continue
        inside = [i for i in range(*n) if i in per_tokens]
        if inside:
            a = inside[0]
            b = a
            while b < n[1] and b in per_tokens:
                b += 1
            tagged.append((a, b))
        else:
            untagged.append(n)
    if not keep_untagged:                 # gold names: what the annotators did not mark as a name is not one
        return sorted(tagged)
    known = {w.lower() for a, b in tagged for w in tokens[a:b]}
    ok = [n for n in untagged if all(w.lower() in known or lexicon.is_first_name(w.title())
                                     or lexicon.is_last_name(w.title()) for w in tokens[n[0]:n[1]])]
    return sorted(tagged + ok)


_PLACE_HEADS = {"hotel", "inn", "hall", "park", "street", "road", "river", "point", "house", "church", "square",
                "lane", "court", "bridge", "castle", "abbey", "mountain", "lake", "island", "bay", "hill", "place",
                "station", "office", "company", "bank", "college", "school", "university", "club", "society"}


def pronoun_gender(tokens, cluster) -> str | None:
    """The gender a coreference cluster's pronouns agree on ("he", "him", "his", "himself"; "she", "her",
    "hers", "herself"), used as the person's gender (Balasubramanian et al., 2020, §2.3: first names are
    replaced by first names of the same gender).

    Parameters
    ----------
    tokens : sequence of str
    cluster : sequence of (int, int)
        The cluster's mention spans; one-token mentions are read.

    Returns
    -------
    str or None
        ``male`` or ``female`` when every gendered pronoun agrees, else ``None``.
    """
    votes = Counter()
    for a, b in cluster:
        if b - a == 1:
            w = tokens[a].lower()
            if w in ("he", "him", "his", "himself"):
                votes["male"] += 1
            elif w in ("she", "her", "hers", "herself"):
                votes["female"] += 1
    if votes and len(votes) == 1:
        return next(iter(votes))
    return None


#: Why a person whom nothing shows to be human is not a document's renamed person.
NO_SIGN_OF_A_HUMAN = "a name with no sign of a human (a title, a full name, a noun for a person)"


def choose_target(d, persons: list[dict], mentions: list[Mention], hints: dict[str, str], lexicon
                  ) -> tuple[str | None, list[str]]:
    """The one person of a coreference document whose name the variants change (Balasubramanian et
    al., 2020, §2.3: "we replace only mentions of a single name in the long document"): the person with
    the most name mentions (the first mentioned among equals) that :func:`target_refusal` passes, that
    shows a sign of being human (:func:`is_human`, else :data:`NO_SIGN_OF_A_HUMAN`), and whose trial swap
    (seed 0) leaves none of their names whole.

    Parameters
    ----------
    d : robust_bench.io.conll2012.CorefDocument
        The document (``tokens``, ``clusters``, ``entities``).
    persons : list of dict
        From :func:`coref_persons`.
    mentions : list of Mention
        Every person's name mentions (for the roles of name words).
    hints : dict of str to str
        Gender by entity, from the clusters' pronouns.
    lexicon : NameLexicon

    Returns
    -------
    target : str or None
        The entity id, or ``None`` when every named person is refused.
    passed_over : list of str
        Why each person tried before the target (or every person) was passed over, in order.
    """
    passed_over = []
    roles = name_word_roles(d.tokens, [(m.start, m.end) for m in mentions], lexicon)
    for p in sorted(persons, key=lambda p: (-len(p["mentions"]), p["mentions"][0].start)):
        why = target_refusal(d, p, roles, lexicon)
        if why is None and not is_human(d, p):
            # "Ysabel" (a dog of "The Call of the Wild"), "Mina" alone: nothing says a human is meant
            why = NO_SIGN_OF_A_HUMAN
        if why is None:
            trial = plan_swaps(d.tokens, mentions, lexicon, random.Random(0), types=("PER",),
                               gender_hints=hints, entities=[p["entity"]])
            mine = {(m.start, m.end) for m in p["mentions"]}
            why = next((r for a, b, r in trial.refused if (a, b) in mine or any(
                x <= a < y for x, y in mine)), None)
        if why is not None:
            passed_over.append(why)
            continue
        return p["entity"], passed_over
    return None, passed_over


def coref_variant(target: dict, lexicon, rng) -> tuple:
    """One variant of a coreference document (Balasubramanian et al., 2020, §2.3: one person renamed
    everywhere in the document), or its original when ``rng`` is ``None``.

    Parameters
    ----------
    target : dict
        From the builder's choice of target: ``doc`` (a CoNLL-2012 document), ``mentions`` (every person's
        name spans), ``hints`` (gender by entity) and ``target`` (the entity renamed).
    lexicon : NameLexicon
    rng : random.Random or None
        Seeded per document and draw.

    Returns
    -------
    tuple
        tokens, clusters (realigned spans), edits (:class:`Edit`), sentence starts, the swapped clusters (the
        gold clusters with a replaced name: the person's, and those of relatives whose surname changed with
        theirs; the paper scores only those), the gender used per swapped cluster, and the refusals
        (:func:`~robust_bench.perturb.names.rows.plan_refusals`).
    """
    from robust_bench.perturb.names.rows import plan_refusals
    from robust_bench.perturb.names.spans import apply_swaps
    from robust_bench.perturb.names.swaps import plan_swaps

    d = target["doc"]
    if rng is None:
        return list(d.tokens), d.clusters, [], list(d.sentence_starts), [], [], []
    plan = plan_swaps(d.tokens, target["mentions"], lexicon, rng, types=("PER",), gender_hints=target["hints"],
                      entities=[target["target"]])
    toks, eds, smap = apply_swaps(d.tokens, plan)
    clusters = [[smap.span(a, b) for a, b in c] for c in d.clusters]
    starts = [smap.token(s)[0] for s in d.sentence_starts]
    hit = {i for e in eds for i in range(e.start, e.end)}
    swapped = [c for c, spans in enumerate(d.clusters) if any(i in hit for a, b in spans for i in range(a, b))]
    used = [plan.genders.get(f"c{c}", "") for c in swapped]
    return toks, clusters, eds, starts, swapped, used, plan_refusals(plan)
