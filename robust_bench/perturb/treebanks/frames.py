"""Verb subcategorization frames (:func:`verb_frames`, :class:`VerbFrames`): the complements a
substitute verb must be able to take for the ``pos`` filter."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Sequence


#: The complements that make a verb's subcategorization frame (UD relation types).
FRAME_RELATIONS = ("ccomp", "iobj", "obj", "xcomp")
#: Times a verb must have been seen with a frame in the frame treebank to take it here.
MIN_FRAME_COUNT = 2
#: Share of a verb's uses with one preposition (an ``obl`` with that ``case``) above which the verb is
#: taken to need it: "refer" takes "to" in most of EWT train's uses, so "As I mentioned" cannot become
#: "As I referred".
REQUIRED_PREPOSITION_SHARE = 0.5
#: Core complements a verb is taken to need where it has them in more than
#: :data:`REQUIRED_PREPOSITION_SHARE` of its uses: "assure" has an indirect object in 7 of its 11 uses
#: in EWT train, so "ensure that it stays relaxed" cannot become "assure that it stays relaxed" (the
#: census of adv_ewt 2.1.0). Not ``obj``: a passive verb has none, so the share would refuse every
#: passive.
REQUIRED_COMPLEMENTS = ("iobj",)


def verb_frames(heads: Sequence[int], deprels: Sequence[str],
                words: Sequence[str] | None = None) -> list[tuple[str, ...]]:
    """Per word, the sorted core complements (:data:`FRAME_RELATIONS`) among its dependents and, with
    ``words``, ``obl:<preposition>`` for each oblique with a ``case`` word ("help with it":
    ``("obl:with",)``) and ``xcomp-ing`` for a gerund complement ("tried dipping")."""
    deps: list[set] = [set() for _ in heads]
    case: dict[int, str] = {}
    if words is not None:
        for j, (h, d) in enumerate(zip(heads, deprels)):
            if h and (d or "").split(":")[0] == "case":
                case.setdefault(h - 1, words[j].lower())
    for j, (h, d) in enumerate(zip(heads, deprels)):
        base = (d or "").split(":")[0]
        if h and base in FRAME_RELATIONS:
            # "tried dipping" (an experiment) is another frame than "tried to dip": "attempted dipping"
            deps[h - 1].add("xcomp-ing" if base == "xcomp" and words is not None and words[j].lower().endswith("ing")
                            else base)
        elif h and base == "obl" and j in case:
            deps[h - 1].add(f"obl:{case[j]}")
    return [tuple(sorted(x)) for x in deps]


class VerbFrames:
    """How often each verb lemma takes each subcategorization frame in a gold treebank (UD
    relations obj, iobj, ccomp, xcomp among its dependents) and each preposition (an ``obl`` with
    that ``case``), so that a substitute verb must be able to take the original's complements:

    * "told him" -> "stated him" (state never takes an iobj) is refused: a verb seen fewer than
      :data:`MIN_FRAME_COUNT` times with the core frame is refused;
    * "help with back problems" -> "aid with back problems": a verb never seen with one of the
      original's prepositions is refused;
    * "As I mentioned" -> "As I referred": a verb that takes one preposition in more than
      :data:`REQUIRED_PREPOSITION_SHARE` of its uses is refused where the original has none;
    * "ensure that" -> "assure that": a verb with an indirect object in more than that share of its
      uses (:data:`REQUIRED_COMPLEMENTS`) is refused where the original has none.

    Parameters
    ----------
    path : path-like
        A CoNLL-U treebank with gold lemmas, UPOS and relations (UD English EWT train).
    cache_dir : path-like, optional
        The tables are counted once per treebank and read back afterwards
        (:func:`robust_bench.io.fileio.cached`, key: the file's bytes, this module's and the reader's
        code); default ``$ROBUST_BENCH_CACHE``.

    Raises
    ------
    ConlluError
        For a malformed file.
    """

    def __init__(self, path: str | Path, *, cache_dir: str | Path | None = None):
        import json
        from collections import defaultdict
        from importlib.metadata import version

        import robust_bench.io.conllu_io as conllu_io
        from robust_bench.io.fileio import cached

        def count() -> dict:
            tables: dict = {"counts": defaultdict(Counter), "prepositions": defaultdict(Counter), "uses": Counter(),
                            "complements": defaultdict(Counter)}
            for s in conllu_io.read_conllu(path):
                for lemma, up, frame in zip(s.lemmas, s.upos, verb_frames(s.heads, s.deprels, s.forms)):
                    if up == "VERB":
                        core, preps = _split_frame(frame)
                        tables["counts"][lemma.lower()][core] += 1
                        tables["prepositions"][lemma.lower()].update(preps)
                        tables["complements"][lemma.lower()].update(core)
                        tables["uses"][lemma.lower()] += 1
            return tables

        def encode(tables: dict) -> bytes:   # a frame (a tuple) is a JSON list of its complements
            return json.dumps({**tables, "counts": {v: [[list(f), n] for f, n in c.items()]
                                                     for v, c in tables["counts"].items()}}, sort_keys=True).encode()

        def decode(data: bytes) -> dict:
            raw = json.loads(data)
            return {"counts": defaultdict(Counter, {v: Counter({tuple(f): n for f, n in c}) for v, c in raw["counts"].items()}),
                    "prepositions": defaultdict(Counter, {v: Counter(c) for v, c in raw["prepositions"].items()}),
                    "uses": Counter(raw["uses"]),
                    "complements": defaultdict(Counter, {v: Counter(c) for v, c in raw["complements"].items()})}
        # parsing EWT train takes ten seconds or more; every build and parser attack needs the same tables
        import robust_bench.io.fileio as fileio

        tables = cached("verb-frames", (Path(path).read_bytes(), Path(__file__).read_bytes(),
                                        Path(conllu_io.__file__).read_bytes(), Path(fileio.__file__).read_bytes(),
                                        version("conllu").encode()),
                        count, encode=encode, decode=decode, suffix="json", cache_dir=cache_dir)
        self.path = str(path)
        self.counts: dict[str, Counter] = tables["counts"]
        self.prepositions: dict[str, Counter] = tables["prepositions"]
        self.uses: Counter = tables["uses"]
        self.complements: dict[str, Counter] = tables["complements"]

    def allows(self, word: str, frame: tuple[str, ...]) -> bool:
        """Whether the verb ``word`` (any inflection) can take ``frame`` (from :func:`verb_frames`):
        seen at least :data:`MIN_FRAME_COUNT` times with its core complements, at least once with
        each of its prepositions, and needing no preposition and no :data:`REQUIRED_COMPLEMENTS` the
        frame lacks."""
        from lemminflect import getLemma

        core, preps = _split_frame(frame)
        lemmas = {l.lower() for l in getLemma(word, upos="VERB") or ()} | {word.lower()}
        return any(self.counts.get(l, {}).get(core, 0) >= MIN_FRAME_COUNT
                   and all(self.prepositions[l][p] >= 1 for p in preps)
                   and all(p in preps for p, c in self.prepositions[l].items()
                           if c > REQUIRED_PREPOSITION_SHARE * self.uses[l])
                   and all(r in core for r in REQUIRED_COMPLEMENTS
                           if self.complements[l][r] > REQUIRED_PREPOSITION_SHARE * self.uses[l])
                   for l in lemmas if l in self.counts)


def _split_frame(frame: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A frame's core complements and its ``obl:<preposition>`` items."""
    return tuple(x for x in frame if ":" not in x), tuple(x for x in frame if ":" in x)
