"""Word lists about personal names, shared by the name-swap engine and the coreference predictors."""

from __future__ import annotations

import re

__all__ = ["HONORIFIC_GENDER", "NOT_NAME_WORDS", "PARTICLES", "is_name_word"]

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
                       "ibn"})

_PREFIXED = re.compile(r"^(?:al|el|ad|ar|as|at|d|de|da|di|du|van|von|bin|ibn)['’-][A-Z]")


def is_name_word(w: str, gold: bool = False) -> bool:
    """Whether ``w`` can be a word of a proper name: capitalised ("Hill", "O'Brien", "Jean-Paul",
    "J.") or particle-prefixed ("d'Urberville", "al-Hakim"), letters only apart from hyphens,
    periods and apostrophes, and (unless ``gold``, a gold name annotation) not in
    :data:`NOT_NAME_WORDS`."""
    core = w.replace("-", "").replace(".", "").replace("'", "").replace("’", "")
    return (bool(core) and (w[:1].isupper() or bool(_PREFIXED.match(w))) and core.isalpha()
            and (gold or w.lower() not in NOT_NAME_WORDS))
