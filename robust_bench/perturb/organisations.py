"""Companies by industry for organisation swaps (Balasubramanian et al., 2020, §3: organisations are
replaced by Fortune 500 companies).

A company is replaced by a company of the same **sector**, so that "Citigroup raised its rates" does
not become "Exxon Mobil raised its rates". Fortune's 2015 list gives 72 industries, too fine for
pools (most have under ten members); they are grouped here into sectors a reader recognises:

==================  ===========================================================================
sector              Fortune 500 industries
==================  ===========================================================================
technology          computers, software, semiconductors, IT services, network equipment,
                    internet services, electronics, scientific equipment, their wholesalers
media and telecoms  telecommunications, entertainment, publishing, advertising
finance             commercial banks, diversified financials, securities, financial data
insurance           life, health, property and casualty insurers; managed care
energy              petroleum refining, crude-oil production, pipelines, oil and gas
                    services, utilities, energy
health              pharmaceuticals, medical products, medical facilities, pharmacies, health
                    care wholesalers
retail              general merchandisers, specialty retailers, food and drug stores,
                    automotive retailing
consumer goods      food, beverages, tobacco, household products, apparel, toys, furnishings,
                    food services, hotels and casinos, food wholesalers
motor vehicles      motor vehicles and parts
manufacturing       aerospace and defence, chemicals, metals, machinery,
                    packaging, building materials, forest products, engineering and
                    construction, homebuilders, transportation equipment
transport           airlines, railroads, trucking, logistics, mail and freight delivery
==================  ===========================================================================

Industries in no sector (real estate, diversified wholesalers, temporary help, outsourcing, waste management,
"miscellaneous") give no pool. A company the list does not name has its sector from words of its
name ("... Bancorp", "... Airlines", "... Pharmaceuticals") where one marks it, else it is a
``company`` of unknown sector, replaced from the list's companies whose names reveal no industry.
"""

from __future__ import annotations

import csv
import re
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Sequence

from robust_bench import RobustBenchError

__all__ = ["SECTORS", "COMPANY", "INDUSTRY_SECTOR", "INDUSTRY_GROUPS", "INDUSTRY_CUES", "GROUP_SECTOR",
           "CompanyListError", "read_fortune500", "read_traded_companies", "traded_sector", "sector_from_words",
           "transport_group", "group_from_words", "company_key", "industry_cues", "reveals_industry", "sector_pools", "company_index",
           "executive_department", "executive_departments", "legislatures", "generic_legislature"]

#: Unknown sector: a company whose industry neither the list nor its name gives.
COMPANY = "company"

#: Fortune 500 industry -> sector (see the module docstring).
INDUSTRY_SECTOR: dict[str, str] = {
    **dict.fromkeys(["Computers, Office Equipment", "Computer Software", "Computer Peripherals",
                     "Semiconductors and Other Electronic Components", "Information Technology Services",
                     "Network and Other Communications Equipment", "Internet Services and Retailing",
                     "Electronics, Electrical Equip.", "Scientific,Photographic and Control Equipment",
                     "Wholesalers: Electronics and Office Equipment"], "technology"),
    **dict.fromkeys(["Telecommunications", "Entertainment", "Publishing, Printing", "Advertising, marketing"],
                    "media and telecoms"),
    **dict.fromkeys(["Commercial Banks", "Diversified Financials", "Securities", "Financial Data Services"],
                    "finance"),
    **dict.fromkeys(["Insurance: Life, Health (Mutual)", "Insurance: Life, Health (stock)",
                     "Insurance: Property and Casualty (Mutual)", "Insurance: Property and Casualty (Stock)",
                     "Health Care: Insurance and Managed Care"], "insurance"),
    **dict.fromkeys(["Petroleum Refining", "Mining, Crude-Oil Production", "Pipelines", "Oil and Gas Equipment, Services",
                     "Utilities: Gas and Electric", "Energy"], "energy"),
    **dict.fromkeys(["Pharmaceuticals", "Medical Products and Equipment", "Health Care: Medical Facilities",
                     "Health Care: Pharmacy and Other Services", "Wholesalers: Health Care"], "health"),
    **dict.fromkeys(["General Merchandisers", "Specialty Retailers: Other", "Specialty Retailers: Apparel",
                     "Food and Drug Stores", "Automotive Retailing, Services"], "retail"),
    **dict.fromkeys(["Food Consumer Products", "Food Production", "Beverages", "Tobacco", "Household and Personal Products",
                     "Apparel", "Toys, Sporting Goods", "Home Equipment, Furnishings", "Food Services",
                     "Hotels, Casinos, Resorts", "Wholesalers: Food and Grocery"], "consumer goods"),
    "Motor Vehicles and Parts": "motor vehicles",
    **dict.fromkeys(["Aerospace and Defense", "Chemicals", "Metals", "Industrial Machinery",
                     "Construction and Farm Machinery", "Packaging, Containers", "Building Materials, Glass",
                     "Forest and Paper Products", "Engineering, Construction", "Homebuilders",
                     "Transportation Equipment"], "manufacturing"),
    **dict.fromkeys(["Airlines", "Railroads", "Trucking, Truck Leasing", "Transportation and Logistics",
                     "Mail, Package, and Freight Delivery"], "transport"),
}
#: Every sector, then ``company`` (unknown sector).
SECTORS: tuple[str, ...] = tuple(dict.fromkeys(INDUSTRY_SECTOR.values())) + (COMPANY,)

#: Words of a company's name that mark its sector (first match wins, in this order).
_SECTOR_WORDS: tuple[tuple[str, frozenset], ...] = (
    ("insurance", frozenset({"insurance", "assurance", "insurer", "reinsurance", "mutual", "life"})),
    ("finance", frozenset({"bank", "bancorp", "bancshares", "banc", "financial", "capital", "securities", "investments",
                           "investment", "asset", "trust", "credit", "mortgage", "brokerage", "savings", "paribas",
                           "barclays", "hsbc", "ubs"})),
    ("transport", frozenset({"airlines", "airways", "airline", "railway", "railroad", "railways", "freight",
                             "logistics", "cargo"})),
    ("health", frozenset({"pharmaceutical", "pharmaceuticals", "pharma", "biotech", "therapeutics", "healthcare",
                          "laboratories", "biogen", "genetics"})),
    ("energy", frozenset({"energy", "oil", "petroleum", "gas", "utilities", "exploration",
                          "resources", "refining", "pipeline"})),
    ("media and telecoms", frozenset({"communications", "telecom", "telecommunications", "wireless", "broadcasting",
                                      "pictures", "studios", "records", "entertainment", "media", "cable",
                                      "publishing", "television"})),
    ("technology", frozenset({"software", "systems", "networks", "technologies", "computer", "computers",
                              "microsystems", "semiconductor", "semiconductors", "electronics", "online", "devices",
                              "instruments"})),
    ("retail", frozenset({"stores", "mart", "retail", "retailers", "supermarkets", "depot"})),
    ("consumer goods", frozenset({"foods", "food", "beverage", "beverages", "brewing", "brands", "tobacco",
                                  "restaurants", "hotels", "resorts", "apparel"})),
    ("motor vehicles", frozenset({"motors", "motor", "automotive", "auto"})),
    ("manufacturing", frozenset({"steel", "chemical", "chemicals", "aerospace", "industries", "manufacturing",
                                 "aircraft", "engineering", "construction"})),
)
_ALL_SECTOR_WORDS = frozenset().union(*(w for _, w in _SECTOR_WORDS))
#: Corporate words ignored when matching a mention to a listed company ("Cisco" is "Cisco Systems").
_CORPORATE = frozenset({"group", "holding", "holdings", "corp", "corp.", "corporation", "co", "co.", "cos", "cos.",
                        "company", "inc", "inc.", "incorporated", "ltd", "ltd.", "plc", "llc", "the", "companies"})


class CompanyListError(RobustBenchError, ValueError):
    """A company list that cannot be read (missing, no header, unknown industry)."""


def company_key(name: str) -> str:
    """A name as matched against the list: lower case, no punctuation or hyphens, corporate words
    dropped ("Wal-Mart Stores Inc." -> "walmart stores", "Cisco Systems" -> "cisco systems")."""
    name = re.sub(r"\s+(['’]s)\b", r"\1", name)             # "Kohl 's" (tokens) is "Kohl's"
    words = re.sub(r"[^\w&\s]", "", re.sub(r"\s*-\s*", "", name)).lower().split()
    return " ".join(w for w in words if w not in _CORPORATE)


#: Words of a name that make it no company whatever its other words ("Communications Workers Union").
_NOT_COMPANY_WORDS = frozenset({"union", "unions", "workers", "alliance", "coalition", "council", "league", "party",
                                "front", "movement", "caucus", "club", "team", "church"})


#: Words of a transport company's name -> its industry group (a transport company is only replaced within
#: its group: "a ship registered to American Airlines" would say something else).
_TRANSPORT_GROUPS = {"airlines": "airlines", "airways": "airlines", "airline": "airlines", "railway": "railroads",
                     "railroad": "railroads", "railways": "railroads", "freight": "logistics", "logistics": "logistics",
                     "cargo": "logistics"}


#: Words of a company's name that give its industry group ("Alpha Supermarkets": grocery, not any company of
#: the retail sector such as a car dealer). Not "mart": a "Food Mart" is a convenience store, of no pool.
_GROUP_NAME_WORDS = {"stores": "retail", "supermarkets": "grocery", "pharmaceuticals": "pharmaceuticals",
                     "pharmaceutical": "pharmaceuticals", "pharma": "pharmaceuticals", "bancorp": "banking",
                     "bank": "banking", "bancshares": "banking", "insurance": "insurance", "assurance": "insurance",
                     "airlines": "airlines", "airways": "airlines", "software": "software",
                     "semiconductor": "semiconductors", "semiconductors": "semiconductors", "telecom": "telecommunications",
                     "telecommunications": "telecommunications", "wireless": "telecommunications",
                     "petroleum": "oil and gas", "oil": "oil and gas", "motors": "motor vehicles", "steel": "metals",
                     "chemical": "chemicals", "chemicals": "chemicals", "foods": "food and drink",
                     "beverages": "food and drink", "brewing": "food and drink", "securities": "banking",
                     "banc": "banking"}


def group_from_words(name: str) -> str | None:
    """The industry group a word of a company's name gives ("Alpha Bancorp" -> banking), else ``None``."""
    words = {w.lower().strip(".,") for w in name.replace("-", " ").split()}
    found = {_GROUP_NAME_WORDS[w] for w in words if w in _GROUP_NAME_WORDS}
    return found.pop() if len(found) == 1 else None


def transport_group(name: str) -> str | None:
    """The industry group a transport company's name shows ("Delta Air Lines" is not caught; "Alpha Shipping"
    -> ``logistics``), else ``None``."""
    words = {w.lower().strip(".,") for w in name.replace("-", " ").split()}
    return next((_TRANSPORT_GROUPS[w] for w in sorted(words) if w in _TRANSPORT_GROUPS), None)


def sector_from_words(name: str) -> str | None:
    """The sector a word of ``name`` marks ("Delta Air Lines" -> ``transport``), else ``None`` (also for
    a name that a word makes no company: "Communications Workers Union")."""
    words = {w.lower().strip(".,") for w in name.replace("-", " ").split()}
    if words & _NOT_COMPANY_WORDS:
        return None
    for sector, marks in _SECTOR_WORDS:
        if words & marks:
            return sector
    return None


def reveals_industry(name: str) -> bool:
    """Whether a word of ``name`` names an industry (such a name cannot replace a company of
    unknown sector: "Valero Energy" would tell the reader what the original did not)."""
    return bool({w.lower().strip(".,") for w in name.replace("-", " ").split()} & _ALL_SECTOR_WORDS)


def read_fortune500(path: str | Path) -> list[tuple[str, str]]:
    """Read the Fortune 500 list: a TSV with a header ``rank, company, industry``.

    Returns
    -------
    list of (company, sector, industry group or None)
        In rank order; companies of an industry in no sector (see :data:`INDUSTRY_SECTOR`) are left out.
        The group (:data:`INDUSTRY_GROUPS`) is the finer kind used where the context names an industry.

    Raises
    ------
    CompanyListError
        If the file is missing, lacks one of the columns, or a row has an empty name or an industry
        that is not Fortune's (naming the file, line and field).
    """
    p = Path(path)
    if not p.is_file():
        raise CompanyListError(f"{p}: no such company list")
    out = []
    with p.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f, delimiter="\t")
        missing = {"rank", "company", "industry"} - set(reader.fieldnames or ())
        if missing:
            raise CompanyListError(f"{p}:1: header: missing column(s) {sorted(missing)}; expected rank, company, "
                                   "industry separated by tabs")
        known = set(INDUSTRY_SECTOR) | _NO_SECTOR
        for lineno, row in enumerate(reader, start=2):
            name, industry = (row.get("company") or "").strip(), (row.get("industry") or "").strip()
            if not name:
                raise CompanyListError(f"{p}:{lineno}: company: empty")
            if industry not in known:
                raise CompanyListError(f"{p}:{lineno}: industry: unknown industry {industry!r}")
            if industry in INDUSTRY_SECTOR:
                out.append((name, INDUSTRY_SECTOR[industry], COMPANY_GROUP.get(name, INDUSTRY_GROUP.get(industry))))
    if not out:
        raise CompanyListError(f"{p}: no companies")
    return out


#: Fortune industries that give no sector pool (too mixed to replace one by another).
_NO_SECTOR = frozenset({"Real estate", "Wholesalers: Diversified", "Temporary Help", "Diversified Outsourcing Services",
                        "Waste Management", "zMiscellaneous"})


def sector_pools(companies: Sequence[tuple[str, str]]) -> dict[str, tuple[str, ...]]:
    """Sector -> company names (without corporate words: "Goldman Sachs Group" -> "Goldman Sachs"), and
    ``company`` -> the names that reveal no industry, each in list order."""
    pools: dict[str, list[str]] = {s: [] for s in SECTORS}
    pools.update({f"industry:{g}": [] for g in INDUSTRY_GROUPS})
    for name, sector, *group in companies:
        if group and group[0]:
            pools[f"industry:{group[0]}"].append(_display(name))
        short = _display(name)
        pools[sector].append(short)
        if not reveals_industry(short):
            pools[COMPANY].append(short)
    return {k: tuple(dict.fromkeys(v)) for k, v in pools.items()}


def _display(name: str) -> str:
    words = name.split()
    while len(words) > 1 and words[-1].lower().strip(".,") in _CORPORATE:
        words.pop()
    return " ".join(words)


def company_index(companies: Sequence[tuple[str, str]]) -> tuple[Mapping[str, str], Mapping[str, str]]:
    """Matching keys (:func:`company_key`) -> sector: the listed names, and apart the first words
    of listed names when distinctive ("Cisco" for "Cisco Systems", not "General" for "General
    Motors"; a caller should not trust a first word that is also a person's name, "Wells")."""
    index: dict[str, str] = {}
    firsts: dict[str, set[str]] = {}
    for name, sector, *_ in companies:
        key = company_key(name)
        if not key:
            continue
        first = key.split()[0]
        firsts.setdefault(first, set()).add(sector)
        if " " in key or len(name.split()) == 1:
            index.setdefault(key, sector)
        # "Crown Holdings" keyed "crown": a name shortened to one word is only an alias (a caller
        # refuses an alias that is an English word: "Crown corporations")
    aliases = {first: next(iter(sectors)) for first, sectors in firsts.items()
               if len(sectors) == 1 and first not in index and len(first) > 2 and first not in _GENERIC_FIRST}
    return index, aliases


#: First words of listed names that name no company alone.
_GENERIC_FIRST = frozenset({"general", "united", "american", "national", "first", "new", "western", "southern",
                            "northern", "eastern", "central", "pacific", "great", "public", "universal", "international",
                            "world", "home", "state", "family", "community", "energy", "health", "bank", "capital",
                            "applied", "advanced", "integrated", "texas", "california", "florida", "jones", "dollar",
                            "express", "principal", "reliance", "huntington"})


#: Finer kinds of company, for a context that names the industry ("the chipmaker", "drug sales"):
#: group -> Fortune industries. Where the pair's words name one group (:data:`INDUSTRY_CUES`), a company
#: is replaced only by a company of that group.
INDUSTRY_GROUPS: dict[str, tuple[str, ...]] = {
    "semiconductors": ("Semiconductors and Other Electronic Components",),
    "software": ("Computer Software",),           # not IT services (CDW, Cognizant): resellers and consultancies
    "computer hardware": ("Computers, Office Equipment", "Computer Peripherals"),
    "internet": ("Internet Services and Retailing",),
    "telecommunications": ("Telecommunications",),
    # issue 53: a publisher by a publisher ("publishing house Disney" was judged of another kind)
    "entertainment": ("Entertainment",),
    "publishing": ("Publishing, Printing",),
    "pharmaceuticals": ("Pharmaceuticals",),
    "insurance": ("Insurance: Life, Health (Mutual)", "Insurance: Life, Health (stock)",
                  "Insurance: Property and Casualty (Mutual)", "Insurance: Property and Casualty (Stock)"),
    "banking": ("Commercial Banks",),            # not Securities: Fortune's are asset managers (BlackRock, KKR)
    "airlines": ("Airlines",),
    "railroads": ("Railroads",),
    "logistics": ("Trucking, Truck Leasing", "Transportation and Logistics", "Mail, Package, and Freight Delivery"),
    "aerospace and defence": ("Aerospace and Defense",),
    "motor vehicles": ("Motor Vehicles and Parts",),
    "oil and gas": ("Petroleum Refining", "Mining, Crude-Oil Production", "Oil and Gas Equipment, Services",
                    "Pipelines"),
    "utilities": ("Utilities: Gas and Electric",),
    "retail": ("General Merchandisers",),
    "apparel retail": ("Specialty Retailers: Apparel",),
    "grocery": ("Food and Drug Stores",),
    "food and drink": ("Food Consumer Products", "Food Production", "Beverages"),
    "metals": ("Metals",),
    "chemicals": ("Chemicals",),
    # groups that split a Fortune industry, by company (:data:`COMPANY_GROUP`)
    "cable": ("Telecommunications",),
    "auto parts": ("Motor Vehicles and Parts",),
    "drug stores": ("Food and Drug Stores",),
}
#: Fortune industry -> its group (the first group that names it; the groups after split it by company).
INDUSTRY_GROUP: dict[str, str] = {}
for _g, _inds in INDUSTRY_GROUPS.items():
    for _ind in _inds:
        INDUSTRY_GROUP.setdefault(_ind, _g)

#: Fortune companies whose industry mixes kinds a reader tells apart: their own group, or ``None`` for
#: none (then they replace nothing and are replaced by nothing). Blind audits judged "Intel" by "Jabil
#: Circuit", "Google" by "Liberty Interactive", "News Corp." by "R.R. Donnelley" and "Safeway" by
#: "Walgreens" to be of another kind.
COMPANY_GROUP: dict[str, str | None] = {
    # a contract manufacturer and a maker of chip-making equipment, not chipmakers
    "Jabil Circuit": None, "Applied Materials": None,
    # a TV-shopping group and online travel agencies, not internet services
    "Liberty Interactive": None, "Priceline Group": None, "Expedia": None,
    # a commercial printer, a radio group and a concert promoter, not publishers or studios
    "R.R. Donnelley & Sons": None, "iHeartMedia": None, "Live Nation Entertainment": None,
    # holding companies and conglomerates
    "Leucadia National": None, "Icahn Enterprises": None, "Berkshire Hathaway": None, "Loews": None,
    # gold and coal miners and a pipe distributor, not oil and gas
    "Newmont Mining": None, "Peabody Energy": None, "MRC Global": None,
    # issue 53: the defence contractors (Lockheed Martin, Northrop Grumman, General Dynamics, Raytheon) apart from
    # the one maker of airliners and from a shipbuilder, parts makers and defence electronics (a blind read
    # judged "Boeing" by "Huntington Ingalls Industries" and by "Precision Castparts" of another kind)
    **dict.fromkeys(["Boeing", "United Technologies", "Textron", "L-3 Communications", "Precision Castparts",
                     "Huntington Ingalls Industries", "Spirit AeroSystems Holdings"], None),
    # an online retailer, not an internet service ("Amazon.com" by "Facebook" was judged of another kind)
    "Amazon.com": None,
    # drugstores apart from grocers
    "Walgreens": "drug stores", "Rite Aid": "drug stores",
    # cable operators apart from telephone companies, and from the two satellite broadcasters (issue 53: a
    # blind read judged "Comcast" by "DISH Network" of another kind beside "digital cable subscribers")
    **dict.fromkeys(["Comcast", "Time Warner Cable", "Charter Communications", "Cablevision Systems"], "cable"),
    "DirecTV": None, "DISH Network": None,
    # parts makers apart from vehicle makers
    **dict.fromkeys(["Goodyear Tire & Rubber", "Lear", "TRW Automotive", "Autoliv", "Tenneco", "Visteon",
                     "BorgWarner", "Dana"], "auto parts"),
}
GROUP_SECTOR: dict[str, str] = {g: INDUSTRY_SECTOR[inds[0]] for g, inds in INDUSTRY_GROUPS.items()}

#: Words of a sentence that name an industry -> the group they name ("chipmaker" -> semiconductors); only
#: words that name nothing else ("show", "network", "chip", "drug" and "power" are left out).
INDUSTRY_CUES: dict[str, str] = {
    **dict.fromkeys(["chipmaker", "chipmakers", "semiconductor", "semiconductors", "processor",
                     "processors", "microprocessor", "microprocessors", "dram", "chipset", "chipsets"], "semiconductors"),
    **dict.fromkeys(["software", "database", "databases", "linux", "unix"], "software"),
    **dict.fromkeys(["computer", "computers", "pc", "pcs", "printer", "printers", "handheld",
                     "handhelds", "laptop", "laptops", "mainframe", "mainframes"], "computer hardware"),
    **dict.fromkeys(["internet", "e-commerce"], "internet"),
    **dict.fromkeys(["phone", "phones", "telephone", "wireless", "telecom", "telecommunications", "long-distance",
                     "cellphone", "broadband"], "telecommunications"),
    "cable": "cable",
    **dict.fromkeys(["broadcaster", "broadcast", "television", "tv", "film", "films", "movie",
                     "movies", "music"], "entertainment"),
    **dict.fromkeys(["newspaper", "newspapers", "magazine", "publisher", "publishing"], "publishing"),
    **dict.fromkeys(["drugmaker", "drugmakers", "pharmaceutical", "pharmaceuticals", "biotech",
                     "biotechnology", "vaccine", "vaccines", "medicine", "medicines", "fda"], "pharmaceuticals"),
    **dict.fromkeys(["insurer", "insurers", "insurance", "policyholders"], "insurance"),
    **dict.fromkeys(["bank", "banks", "banking", "banker", "bankers", "mortgage", "mortgages", "lender", "lenders",
                     "brokerage", "broker", "brokers", "underwriter", "underwriters"], "banking"),
    **dict.fromkeys(["airline", "airlines", "fares"], "airlines"),
    **dict.fromkeys(["aircraft", "jet", "jets", "missile", "missiles"],
                    "aerospace and defence"),
    **dict.fromkeys(["automaker", "automakers", "carmaker", "carmakers", "truck", "trucks", "sedan", "suv", "suvs"], "motor vehicles"),
    **dict.fromkeys(["oil", "gasoline", "refinery", "refineries", "crude", "pipeline"], "oil and gas"),
    **dict.fromkeys(["utilities", "electricity", "blackout", "megawatts"], "utilities"),
    **dict.fromkeys(["retailer", "retailers", "merchants", "shoppers", "discounter"], "retail"),
    **dict.fromkeys(["grocery", "grocer", "grocers", "supermarket", "supermarkets"], "grocery"),
    **dict.fromkeys(["pharmacy", "pharmacies", "drugstore", "drugstores"], "drug stores"),
    **dict.fromkeys(["beef", "meat", "snack", "snacks", "candy", "chocolate", "beverage", "beverages",
                     "soda", "drinks", "beer", "cereal", "restaurant", "restaurants"], "food and drink"),
    **dict.fromkeys(["steel", "aluminum", "aluminium", "metals"], "metals"),
    **dict.fromkeys(["chemical", "chemicals", "plastics"], "chemicals"),
}


def industry_cues(words) -> set[str]:
    """The industry groups the words of a text name (:data:`INDUSTRY_CUES`)."""
    return {INDUSTRY_CUES[w.lower()] for w in words if w.lower() in INDUSTRY_CUES}


#: Words of a stock-market industry description (pytickersymbols' ``industries``, taken from Wikipedia)
#: -> (sector, industry group or None), most specific first; the first that matches decides.
_TRADED_INDUSTRY_WORDS: tuple[tuple[str, str, str | None], ...] = (
    ("real estate", COMPANY, None),             # a REIT is in no sector of the Fortune list either
    ("conglomerate", COMPANY, None),
    ("semiconductor", "technology", "semiconductors"),
    ("software", "technology", "software"),
    ("it services", "technology", "software"),
    ("internet", "technology", "internet"),
    ("computer hardware", "technology", "computer hardware"),
    ("computers", "technology", "computer hardware"),
    ("communications & networking", "technology", None),     # equipment makers (Nokia), not carriers
    ("communications equipment", "technology", None),
    ("telecommunication", "media and telecoms", "telecommunications"),
    ("wireless", "media and telecoms", "telecommunications"),
    ("broadcasting", "media and telecoms", "entertainment"),
    ("publishing", "media and telecoms", "publishing"),
    ("entertainment", "media and telecoms", "entertainment"),
    ("media", "media and telecoms", None),
    ("video games", "technology", None),
    ("pharmaceutical", "health", "pharmaceuticals"),
    ("biotechnology", "health", "pharmaceuticals"),
    ("medical", "health", None),
    ("health", "health", None),
    ("reinsurance", "insurance", "insurance"),
    ("insurance", "insurance", "insurance"),
    ("bank", "finance", "banking"),
    ("investment bank", "finance", "banking"),
    ("financial", "finance", None),
    ("airline", "transport", "airlines"),
    ("railroad", "transport", None),
    ("logistics", "transport", None),
    ("freight", "transport", None),
    ("aerospace", "manufacturing", "aerospace and defence"),
    ("defense", "manufacturing", "aerospace and defence"),
    ("auto parts", "motor vehicles", "auto parts"),
    ("tires", "motor vehicles", "auto parts"),
    ("automo", "motor vehicles", "motor vehicles"),
    ("auto ", "motor vehicles", "motor vehicles"),
    ("oil", "energy", "oil and gas"),
    ("petroleum", "energy", "oil and gas"),
    ("utilit", "energy", "utilities"),
    ("steel", "manufacturing", "metals"),
    ("metals", "manufacturing", "metals"),
    ("chemical", "manufacturing", "chemicals"),
    ("retail", "retail", "retail"),
    ("beverage", "consumer goods", "food and drink"),
    ("food", "consumer goods", "food and drink"),
    ("tobacco", "consumer goods", None),
    ("apparel", "consumer goods", None),
    ("electronics", "technology", None),
    ("electric machinery", "technology", None),
    ("machinery", "manufacturing", None),
    ("information technology", "technology", None),
    ("technology", "technology", None),
)


#: Words of the stock indices' industry descriptions that confirm a Fortune industry group.
GROUP_WORDS = {"semiconductors": ("semiconductor",), "software": ("software", "it services", "information technology"),
               "computer hardware": ("computer", "hardware", "peripherals", "storage"), "internet": ("internet",),
               "telecommunications": ("telecom", "communications equipment", "wireless"),
               "entertainment": ("media", "entertainment", "broadcasting"), "publishing": ("publishing",),
               "pharmaceuticals": ("pharma", "biotech", "drug"), "insurance": ("insurance",),
               "banking": ("bank", "financial", "investment", "capital markets", "asset management", "securities"),
               "airlines": ("airline",), "railroads": ("rail",), "logistics": ("logistics", "freight", "delivery"),
               "aerospace and defence": ("aerospace", "defense", "defence"), "motor vehicles": ("auto", "vehicle"),
               "oil and gas": ("oil", "gas", "petroleum", "energy"), "utilities": ("utilit", "electric"),
               "retail": ("retail", "stores"), "apparel retail": ("apparel", "retail"),
               "grocery": ("grocery", "supermarket", "food retail"), "drug stores": ("drug retail", "drug store", "pharmacy"),
               "cable": ("cable", "media", "broadcasting", "telecom"),
               "auto parts": ("auto", "vehicle", "parts", "tire"), "food and drink": ("food", "beverage"), "metals": ("metal", "steel"),
               "chemicals": ("chemical",)}


def traded_sector(industries: Sequence[str]) -> tuple[str, str | None]:
    """The sector and industry group of a listed company from its industry descriptions
    (:data:`_TRADED_INDUSTRY_WORDS`, most specific first); ``(COMPANY, None)`` when none says."""
    text = " ".join(i.lower() for i in industries) + " "
    for word, sector, group in _TRADED_INDUSTRY_WORDS:
        if word in text:
            return sector, group
    return COMPANY, None


def read_traded_companies() -> list[tuple[str, str, str | None]]:
    """The companies of the stock indices in ``pytickersymbols`` (S&P 500, Nasdaq 100, Dow Jones, FTSE 100,
    DAX, CAC 40, Nikkei 225 and others; about 1,800 names, with their industries from Wikipedia), as
    (name without corporate words, sector, industry group or None).

    These only recognise a tagged organisation as a company and give its sector: the replacement pools
    stay the Fortune 500, the paper's list, whose companies a reader knows. Each entry is (name, sector,
    industry group or None, the industries in lower case).

    Raises
    ------
    CompanyListError
        If pytickersymbols is not installed.
    """
    try:
        from pytickersymbols import PyTickerSymbols
    except ImportError as exc:                           # pragma: no cover - a dependency of the project
        raise CompanyListError("pytickersymbols is not installed: pip install pytickersymbols") from exc
    data = PyTickerSymbols()
    out: dict[str, tuple[str, str, str | None]] = {}
    for index in data.get_all_indices():
        for company in data.get_stocks_by_index(index):
            name = _display(company.get("name") or "")
            if name and name not in out:
                industries = company.get("industries") or ()
                out[name] = (name, *traded_sector(industries), " ".join(i.lower() for i in industries))
    return [out[k] for k in sorted(out)]


#: WordNet's executive departments that no longer exist (or are no department in news usage).
_PAST_DEPARTMENTS = frozenset({"war_department.n.01", "department_of_commerce_and_labor.n.01", "navy_department.n.01",
                               "department_of_health_education_and_welfare.n.01", "white_house.n.01"})


@lru_cache(maxsize=1)
def _departments() -> dict[str, str]:
    """WordNet's United States executive departments (hyponyms of ``executive_department.n.01``, the
    fifteen of today): synset name -> the name a newspaper uses ("Justice Department", "Department of
    Homeland Security")."""
    from robust_bench.text.wordnet import wordnet as wn

    out = {}
    for s in wn.synset("executive_department.n.01").hyponyms():
        if s.name() in _PAST_DEPARTMENTS:
            continue
        lemmas = [lemma.name() for lemma in s.lemmas()]
        short = next((x for x in lemmas if x.endswith("_Department")), None)
        out[s.name()] = (short or lemmas[0]).replace("_", " ")
    return out


def executive_department(name: str) -> bool:
    """Whether ``name`` is one of the United States executive departments in WordNet ("the Justice
    Department", "U.S. Department of Agriculture", "Department of Homeland Security"): a kind of its own,
    whose members replace each other (an agency such as the FDA or NASA has a remit no other shares)."""
    from robust_bench.text.wordnet import wordnet as wn

    words = [w for w in name.split() if w.lower() not in ("the", "u.s.", "us", "united", "states", "federal")]
    if not words or "Department" not in words and "Security" not in words:
        return False
    return any(s.name() in _departments() for s in wn.synsets("_".join(words), pos="n"))


def executive_departments() -> tuple[str, ...]:
    """The names of the United States executive departments (:func:`executive_department`), sorted."""
    return tuple(sorted(_departments().values()))


#: WordNet's legislatures (hyponyms and instances of ``legislature.n.01``) no longer sitting.
_PAST_LEGISLATURES = frozenset({"house_of_burgesses.n.01"})
#: Country words before a legislature's name in WordNet's lemmas ("U.S._Senate", "British_Parliament"): the
#: sentence says whose legislature it is, not the name.
_COUNTRY_WORDS = ("United States ", "U.S. ", "US ", "British ")


@lru_cache(maxsize=1)
def legislatures() -> tuple[str, ...]:
    """The named legislatures and chambers of WordNet (instances and hyponyms of ``legislature.n.01``
    written with a capital: "Congress", "Senate", "House of Commons", "Knesset", "Duma"), each by its most
    frequent lemma once country words are dropped ("House of Representatives" for ``US_House``), the
    shortest among equals, sorted, without "Parliament" (Britain's, a common noun out of context): the pool of the kind
    ``legislature``, whose members replace each other ("ratified by Congress" -> "ratified by the Knesset")."""
    from robust_bench.text.wordnet import wordnet as wn

    out = set()
    for s in wn.synset("legislature.n.01").closure(lambda x: x.hyponyms() + x.instance_hyponyms()):
        names = [lemma.name().replace("_", " ") for lemma in s.lemmas()]
        if s.name() in _PAST_LEGISLATURES or not any(n[:1].isupper() for n in names):
            continue
        bare = [next((n[len(c):] for c in _COUNTRY_WORDS if n.startswith(c)), n) for n in names]
        out.add(min(bare, key=lambda n: (-bare.count(n), len(n), n)))     # "House of Representatives", "Dail"
    return tuple(sorted(n for n in out if not generic_legislature(n)))


def generic_legislature(name: str) -> bool:
    """Whether a legislature's name is a common noun out of context: "Parliament" names Britain's only where the
    reader knows the country, and as a replacement reads as any parliament ("The FTC asked the Parliament today",
    judged no name by a blind read, issue 53).

    Parameters
    ----------
    name : str

    Returns
    -------
    bool
    """
    return name.lower().removeprefix("the ") == "parliament"


#: Television broadcasters by format (issue 53: a network's ratings race is no news channel's): the United
#: States' national over-the-air networks of the corpus's years (Wikipedia, "List of United States
#: over-the-air television networks", national English-language commercial and public networks 1995-2006)
#: and the 24-hour news channels (Wikipedia, "List of cable television news channels", United States and
#: United Kingdom). A broadcaster of neither format (a sports channel, a premium channel) is not swapped.
BROADCAST_FORMATS = {
    "television network": ("NBC", "CBS", "ABC", "Fox", "PBS", "UPN", "WB", "Pax TV"),
    "news channel": ("CNN", "MSNBC", "CNBC", "Fox News", "Fox News Channel", "CNN Headline News",
                     "Sky News", "BBC World", "Bloomberg Television", "CNN International"),
}


def broadcast_format(name: str) -> str | None:
    """The format of a broadcaster named in :data:`BROADCAST_FORMATS` (``television network`` or ``news
    channel``), else ``None``.

    Parameters
    ----------
    name : str
        The name, with or without "the".

    Returns
    -------
    str or None
    """
    key = " ".join(w for w in name.split() if w.lower() != "the").lower()
    return next((f for f, names in BROADCAST_FORMATS.items() if key in {n.lower() for n in names}), None)
