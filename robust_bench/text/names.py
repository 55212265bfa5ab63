"""Personal names: word lists shared by the name-swap engine and the coreference predictors, and what
names-dataset knows of a name (gender of a first name, first/last roles, countries)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

from robust_bench import RobustBenchError

__all__ = ["HONORIFIC_GENDER", "NOT_NAME_WORDS", "PARTICLES", "is_name_word", "GENDER_SHARE", "BOTH_LISTS_SHARE",
           "SURNAME_FIRST_COUNTRIES", "NameFact", "NameFactsError", "name_facts"]

#: Titles that stay in place; the value is the gender they imply (``None``: either).
HONORIFIC_GENDER = {
    "mr": "male", "mr.": "male", "sir": "male", "lord": "male", "master": "male", "king": "male", "prince": "male",
    "father": "male", "brother": "male", "uncle": "male", "monsieur": "male", "m.": "male", "herr": "male",
    "mrs": "female", "mrs.": "female", "ms": "female", "ms.": "female", "miss": "female", "lady": "female",
    "madam": "female", "madame": "female", "mme": "female", "mme.": "female", "mlle": "female", "queen": "female",
    "princess": "female", "mother": "female", "sister": "female", "aunt": "female", "dame": "female",
    "dr": None, "dr.": None, "prof": None, "prof.": None, "professor": None, "rev": None, "rev.": None,
    "captain": None, "capt.": None, "colonel": None, "col.": None, "general": None, "gen.": None, "major": None,
    "president": None, "senator": None, "sen.": None, "rep.": None, "gov.": None, "governor": None, "judge": None,
    "st.": None, "saint": None, "cousin": None, "doctor": None, "mayor": None, "minister": None,
    "count": "male", "countess": "female", "baron": "male", "baroness": "female", "duke": "male",
    "duchess": "female", "earl": "male", "emperor": "male", "empress": "female", "signor": "male",
    "signora": "female", "senor": "male", "senora": "female", "señor": "male", "señora": "female",
    "duc": "male", "duchesse": "female", "comte": "male", "comtesse": "female", "marquis": "male",
    "marquise": "female", "vicomte": "male", "vicomtesse": "female", "chevalier": "male", "abbé": "male",
    "abbe": "male", "frau": "female", "fräulein": "female", "citizen": None, "citoyen": "male",
    "citoyenne": "female", "parson": "male", "vicar": "male", "rector": "male", "reverend": None,
    "bishop": None, "cardinal": None, "pope": "male", "friar": "male", "squire": "male", "dean": None,
    "sergeant": None, "sgt.": None, "corporal": None, "lieutenant": None, "lieut.": None, "lt.": None,
    "admiral": None, "commander": None, "inspector": None, "constable": None, "detective": None,
    "sheriff": None, "marshal": None, "nurse": None, "granny": "female", "grandma": "female",
    "grandpa": "male", "grandfather": "male", "grandmother": "female", "sultan": "male", "sultana": "female",
    "czar": "male", "tsar": "male", "czarina": "female", "tsarina": "female", "pasha": "male", "sheikh": "male",
    "rajah": "male", "maharajah": "male", "shah": "male", "emir": "male",
}
#: Capitalised words that are never names (sentence-initial function words, interjections).
NOT_NAME_WORDS = frozenset(
    "i a an the my our your his her their its this that these those there here it he she we they you me him us "
    "them but and or nor if when then so as in on at of for to with by from what who whom how why where not no "
    "yes oh o ah alas well now yet still all some any every each one chapter book part volume god heaven old young "
    "little poor dear good great late ye thee thou thy thine boy girl child baby man woman lad lass senior junior esq esq. jr jr. sr sr.".split())

#: Lower-case particles inside names ("Ludwig van Beethoven", "Schalk van der Merwe").
PARTICLES = frozenset({"van", "von", "der", "den", "de", "del", "della", "da", "di", "du", "la", "le", "bin", "al",
                       "ibn", "abu"})

_PREFIXED = re.compile(r"^(?:al|el|ad|ar|as|at|d|de|da|di|du|van|von|bin|ibn)['’-][A-Z]")


def is_name_word(w: str, gold: bool = False) -> bool:
    """Whether ``w`` can be a word of a proper name: capitalised ("Hill", "O'Brien", "Jean-Paul",
    "J.") or particle-prefixed ("d'Urberville", "al-Hakim"), letters only apart from hyphens,
    periods and apostrophes, and (unless ``gold``, a gold name annotation) not in
    :data:`NOT_NAME_WORDS`."""
    core = w.replace("-", "").replace(".", "").replace("'", "").replace("’", "")
    return (bool(core) and (w[:1].isupper() or bool(_PREFIXED.match(w))) and core.isalpha()
            and (gold or w.lower() not in NOT_NAME_WORDS))


#: A first name is of known gender when at least this share of its bearers have that gender
#: (names-dataset's shares); "Courtney" (89% women), "Kim", "Andrea" and "Jordan" are not.
GENDER_SHARE = 0.9
#: ... but a name that NLTK's names corpus lists for both genders is of either gender unless names-dataset gives
#: it at least 97% of one ("Chris", 90% men's, and "Laurie", 95% women's, are of either; "Tony" and "George"
#: are men's): see :meth:`~robust_bench.perturb.names.lexicon.NameLexicon.gender_of` (issue 53).
BOTH_LISTS_SHARE = (0.03, 0.97)
#: Countries whose names are written family name first ("Kim Dae-jung", "Tan Kong Yam", "Li Peng", and
#: in sports results "Inoue Junichi"; the English-language press writes Japanese names in either order,
#: so a Japanese name counts as family name first only when its second word is a given name there).
SURNAME_FIRST_COUNTRIES = frozenset({"CN", "KR", "KP", "TW", "HK", "MO", "SG", "MY", "VN", "KH", "JP"})


@dataclass(frozen=True)
class NameFact:
    """What names-dataset knows of one name (Remy, 2021: first and last names of 106 countries).

    Attributes
    ----------
    female : float or None
        Share of the name's bearers (as a first name) who are women, in [0, 1]; ``None`` when the
        first-name table does not hold the name or gives no gender.
    first_rank, last_rank : int or None
        Best rank (1 = most frequent) of the name among first names, and among last names, over all
        countries; ``None`` when unranked.
    first_country : str or None
        ISO 3166 alpha-2 code of the country with the largest share of the name's bearers as a first name.
    surname_first_rank : int or None
        Best rank as a last name in :data:`SURNAME_FIRST_COUNTRIES`.
    given_rank_east, given_rank_west : int or None
        Best rank as a first name in :data:`SURNAME_FIRST_COUNTRIES`, and in the other countries.
    """

    female: float | None = None
    first_rank: int | None = None
    last_rank: int | None = None
    first_country: str | None = None
    surname_first_rank: int | None = None
    given_rank_east: int | None = None
    given_rank_west: int | None = None

    @property
    def gender(self) -> str | None:
        """``male`` or ``female`` when :data:`GENDER_SHARE` of the bearers have it, ``either`` for a
        name of both, ``None`` when unknown."""
        if self.female is None:
            return None
        return "female" if self.female >= GENDER_SHARE else "male" if self.female <= 1 - GENDER_SHARE else "either"


def _best(ranks: dict) -> int | None:
    vals = [r for r in ranks.values() if r is not None]
    return min(vals) if vals else None


def name_facts(names: Iterable[str]) -> dict[str, NameFact]:
    """Look up many names at once in names-dataset (``pip install names-dataset``; its tables take about
    12 s and 2 GB to load, once per process, so a builder asks for every name it needs in one call and
    hands the small result to its workers).

    Parameters
    ----------
    names : iterable of str
        Names in any case; looked up title-cased, as names-dataset stores them.

    Returns
    -------
    dict of str to NameFact
        Keyed by the title-cased name; names neither table holds are left out.

    Raises
    ------
    NameFactsError
        If names-dataset is not installed.
    """
    first, last = _names_dataset()
    out = {}
    for name in {n.strip().title() for n in names if n and n.strip()}:
        f, l = first.get(name), last.get(name)
        if f is None and l is None:
            continue
        fem = None
        if f is not None and f.get("gender"):
            g = f["gender"]
            fem = round(float(g.get("F", 0.0)) / (float(g.get("F", 0.0)) + float(g.get("M", 0.0)) or 1.0), 4)
        countries = (f or {}).get("country") or {}
        east = [r for c, r in ((l or {}).get("rank") or {}).items() if c in SURNAME_FIRST_COUNTRIES and r is not None]
        given = (f or {}).get("rank") or {}
        out[name] = NameFact(female=fem, first_rank=_best(given), last_rank=_best((l or {}).get("rank") or {}),
                             first_country=max(countries, key=countries.get) if countries else None,
                             surname_first_rank=min(east) if east else None,
                             given_rank_east=_best({c: r for c, r in given.items() if c in SURNAME_FIRST_COUNTRIES}),
                             given_rank_west=_best({c: r for c, r in given.items() if c not in SURNAME_FIRST_COUNTRIES}))
    return out


class NameFactsError(RobustBenchError, RuntimeError):
    """names-dataset, which gives first-name gender and name roles, is not installed."""


@lru_cache(maxsize=1)
def _names_dataset() -> tuple[dict, dict]:
    try:
        from names_dataset import NameDataset
    except ImportError as exc:                              # pragma: no cover - a dependency of the project
        raise NameFactsError("names-dataset is not installed: pip install names-dataset") from exc
    nd = NameDataset()
    return nd.first_names, nd.last_names
