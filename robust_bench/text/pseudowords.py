"""English pseudowords from Wuggy, checked against real-word lexicons.

Hall Maudslay & Cotterell (2021, §3) took 1,361 monosyllabic pseudowords from the ARC
Nonword Database (Rastle et al., 2002), checked for plausibility. ARC is not
redistributable, so the bases here come from Wuggy (Keuleers & Brysbaert, 2010), the
standard pseudoword generator, run over its English orthographic lexicon:

1. Reference words are the one-syllable words of the lexicon that look like uninflected
   bases (see :func:`robust_bench.text.inflection.is_regular_base`) and start with a consonant.
2. For each reference, Wuggy's bigram chain over one-syllable words proposes candidates
   that keep the reference's sub-syllabic segment lengths and share two of its three
   segments (Wuggy's classic settings: ``segment_length`` filter, overlap ratio 2/3,
   concentric search over transition frequencies), and that Wuggy itself says are not
   words. Their onset and coda must each occur in real one-syllable words, a phonotactic
   plausibility check standing in for ARC's screening.
3. A candidate is kept only if neither it nor any of its regular inflections is a real
   word: not in the Wuggy lexicon, not a WordNet lemma or an inflection of one
   (``morphy``), and not in an extra vocabulary such as the treebank's own words.

Wuggy draws from Python's global :mod:`random`; generation saves that state, seeds it,
and restores it, and a candidate budget replaces Wuggy's wall-clock limit, so the same
inputs always give the same pseudowords.
"""

from __future__ import annotations

import itertools
import os
import random
import re
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Iterable

from robust_bench.text.inflection import FORMS, inflect, is_regular_base
from robust_bench import RobustBenchError

__all__ = [
    "WUGGY_ENGLISH_URL",
    "PseudowordError",
    "load_wuggy_lexicon",
    "wordnet_lemmas",
    "is_real_word_factory",
    "generate_pseudowords",
    "pseudoword_inventory",
]

#: The official Wuggy English orthographic plugin data (what ``WuggyGenerator.load`` fetches).
WUGGY_ENGLISH_URL = ("https://raw.githubusercontent.com/WuggyCode/wuggy_language_plugin_data/"
                     "master/orthographic_english/orthographic_english.txt")

#: English vowel nuclei for onset-nucleus-coda segmentation, longest first.
_NUCLEI = "eau|ai|au|ay|ea|ee|ei|eu|ey|ie|oa|oe|oi|oo|ou|oy|ue|ui|uy|a|e|i|o|u|y"


class PseudowordError(RobustBenchError, RuntimeError):
    """Pseudoword generation could not run (missing lexicon, WordNet, or too few words)."""


def load_wuggy_lexicon(path: str | os.PathLike) -> list[tuple[str, str, float]]:
    """Read a Wuggy lexicon: ``word<TAB>syl-la-bi-fied<TAB>frequency per million``.

    Returns
    -------
    list of (str, str, float)

    Raises
    ------
    PseudowordError
        If a line does not have three fields or a non-numeric frequency.
    """
    import math

    from robust_bench.io.fileio import iter_lines

    rows = []
    for lineno, line in enumerate(iter_lines(path), start=1):
        if not line:
            continue
        parts = line.split("\t")
        if len(parts) != 3:
            raise PseudowordError(f"{path}:{lineno}: expected 3 tab-separated fields, found {len(parts)}")
        try:
            freq = float(parts[2])
        except ValueError:
            raise PseudowordError(f"{path}:{lineno}: frequency {parts[2]!r} is not a number") from None
        if not math.isfinite(freq) or freq < 0:
            raise PseudowordError(f"{path}:{lineno}: frequency {parts[2]!r} is not a finite count >= 0")
        rows.append((parts[0], parts[1], freq))
    return rows


def wordnet_lemmas():
    """All WordNet lemma names (lower case, words of multiword lemmas split) and the
    WordNet reader, for ``morphy`` look-ups.

    Raises
    ------
    PseudowordError
        If NLTK cannot find WordNet (set ``NLTK_DATA`` or run ``python -m nltk.downloader wordnet``).
    """
    from robust_bench.text.wordnet import wordnet as wn

    try:
        names = set()
        for name in wn.all_lemma_names():
            names.add(name.lower())
            names.update(p for p in re.split(r"[_\-]", name.lower()) if p)
    except LookupError as exc:
        raise PseudowordError(
            "NLTK WordNet is required to check that pseudowords are not real words; set NLTK_DATA "
            "to a folder holding corpora/wordnet or run `python -m nltk.downloader wordnet`") from exc
    return names, wn


def is_real_word_factory(*vocabularies: Iterable[str]):
    """Build a predicate telling whether a string is a real English word.

    A word is real if it is in any of ``vocabularies`` (compared in lower case), is a
    WordNet lemma, or is an inflection of a WordNet lemma according to ``morphy``.

    Raises
    ------
    PseudowordError
        If WordNet is not available.
    """
    known = set()
    for vocab in vocabularies:
        known.update(w.lower() for w in vocab)
    names, wn = wordnet_lemmas()
    known |= names

    def is_real(word: str) -> bool:
        w = word.lower()
        if w in known:
            return True
        for pos in ("n", "v", "a", "r"):
            if wn.morphy(w, pos) is not None:
                return True
        return False

    return is_real


def _plugin_class(data_path: str, lexicon_path: str):
    """A Wuggy language plugin for English orthography over the given files.

    ``data_path`` (the one-syllable words) feeds the bigram chain and the neighbour
    lexicon; ``lexicon_path`` (all words) is the word lexicon behind Wuggy's lexicality
    check and the look-up of reference segments. Wuggy computes OLD20 and NED1 against the
    neighbour lexicon for every reference; the one-syllable subset keeps that 8x cheaper
    and is the relevant neighbourhood for one-syllable pseudowords.

    Wuggy joins a plugin's data file names to the folder of the module that defines the
    plugin class, so the names are given relative to this module's folder.
    """
    from wuggy.plugins.baselanguageplugin import BaseLanguagePlugin

    here = os.path.dirname(os.path.abspath(__file__))
    data_rel = os.path.relpath(data_path, here)
    lex_rel = os.path.relpath(lexicon_path, here)

    class EnglishOrthographicPlugin(BaseLanguagePlugin):
        default_data = data_rel
        default_neighbor_lexicon = data_rel
        default_word_lexicon = lex_rel
        default_lookup_lexicon = lex_rel
        nucleuspattern = _NUCLEI
        oncpattern = re.compile(f"(.*?)({_NUCLEI})(.*)")

        def transform(self, input_sequence, frequency=1):
            return self.pre_transform(input_sequence, frequency=frequency, language=self)

    return EnglishOrthographicPlugin


def _onset_coda(word: str) -> tuple[str, str] | None:
    m = re.fullmatch(f"([^aeiouy]*)((?:{_NUCLEI})+)([^aeiouy]*)", word)
    return (m.group(1), m.group(3)) if m else None


def _plausibility_check(words: list[str], min_support: int = 3):
    """Phonotactic plausibility: a one-syllable pseudoword's onset and coda must each occur
    in at least ``min_support`` real one-syllable words (so "betd" is out: no word ends in
    "td"). This stands in for the plausibility screening of the ARC items."""
    from collections import Counter

    onsets: Counter = Counter()
    codas: Counter = Counter()
    for w in words:
        oc = _onset_coda(w)
        if oc:
            onsets[oc[0]] += 1
            codas[oc[1]] += 1

    def ok(word: str) -> bool:
        oc = _onset_coda(word)
        return oc is not None and onsets[oc[0]] >= min_support and codas[oc[1]] >= min_support

    return ok


def generate_pseudowords(lexicon_path: str | os.PathLike, *, is_real_word, seed: int = 0,
                         per_reference: int = 2, candidates_per_search: int = 300,
                         max_frequency_exponent: int = 4, min_reference_frequency: float = 1.0,
                         progress: bool = False) -> list[str]:
    """Generate one-syllable English pseudoword bases with Wuggy.

    Parameters
    ----------
    lexicon_path : path-like
        Wuggy English orthographic lexicon (``word<TAB>syllabified<TAB>per-million frequency``).
    is_real_word : callable
        ``str -> bool``; see :func:`is_real_word_factory`. A candidate is rejected if it or
        any of its regular inflections is real.
    seed : int
        Seed for Wuggy's random walks.
    per_reference : int
        Pseudowords kept per reference word.
    candidates_per_search : int
        Candidates drawn from each concentric-search level before moving on; this bounded
        budget replaces Wuggy's wall-clock limit so that the output is deterministic.
    max_frequency_exponent : int
        Concentric search widens the allowed transition-frequency deviation as 2**1 ..
        2**max_frequency_exponent, as Wuggy's classic mode does.
    min_reference_frequency : float
        Reference words need at least this frequency per million.
    progress : bool
        Show a progress bar.

    Returns
    -------
    list of str
        Distinct lower-case pseudoword bases, in generation order.

    Raises
    ------
    PseudowordError
        If the lexicon cannot be read or holds no usable reference word.
    """
    from wuggy import WuggyGenerator

    rows = load_wuggy_lexicon(lexicon_path)
    mono = [r for r in rows if "-" not in r[1]]
    references = [w for w, syl, f in mono
                  if f >= min_reference_frequency and 3 <= len(w) <= 6 and is_regular_base(w)
                  and w[0] not in "aeiouy" and w == syl]
    if not references:
        raise PseudowordError(f"{lexicon_path}: no one-syllable reference words found")
    # Visit references in a seeded order so that no part of the alphabet is favoured.
    references = sorted(references)
    random.Random(f"references:{seed}").shuffle(references)
    plausible = _plausibility_check([w for w, syl, f in mono if f > 0 and w.isalpha() and w.islower()])

    state = random.getstate()
    tmpdir = tempfile.mkdtemp(prefix="rb-wuggy-")
    try:
        data = os.path.join(tmpdir, "monosyllabic.txt")
        with open(data, "w", encoding="utf-8") as f:
            for w, syl, freq in mono:
                f.write(f"{w}\t{syl}\t{freq}\n")
        random.seed(seed)
        gen = WuggyGenerator()
        gen.load("robust_bench_english", _plugin_class(data, str(Path(lexicon_path).resolve()))())
        gen.set_output_mode("plain")
        out: list[str] = []
        seen: set[str] = set()
        it = references
        if progress:
            from tqdm.auto import tqdm
            it = tqdm(references, desc="Wuggy pseudowords", unit="ref")
        target = Fraction(2, 3)
        for ref in it:
            gen.clear_attribute_filters()
            gen.clear_frequency_filter()
            gen.set_reference_sequence(gen.lookup_reference_segments(ref))
            gen.set_attribute_filter("segment_length")
            kept = 0
            for exponent in range(1, max_frequency_exponent + 1):
                gen.set_frequency_filter(2 ** exponent, 2 ** exponent)
                gen.clear_statistics()
                gen.set_statistics(["overlap_ratio", "lexicality"])
                for cand in itertools.islice(gen.generate_advanced(), candidates_per_search):
                    if gen.statistics["lexicality"] != "N" or gen.statistics["overlap_ratio"] != target:
                        continue
                    if cand in seen or not is_regular_base(cand) or not plausible(cand):
                        continue
                    seen.add(cand)
                    if any(is_real_word(inflect(cand, form)) for form in FORMS):
                        continue
                    out.append(cand)
                    kept += 1
                    if kept >= per_reference:
                        break
                if kept >= per_reference:
                    break
        return out
    finally:
        random.setstate(state)
        for name in os.listdir(tmpdir):
            os.unlink(os.path.join(tmpdir, name))
        os.rmdir(tmpdir)


def pseudoword_inventory(lexicon_path: str | os.PathLike, vocabulary: Iterable[str], *, seed: int = 0,
                         cache_dir: str | os.PathLike | None = None, progress: bool = False) -> list[str]:
    """The pseudowords :func:`generate_pseudowords` gives for a lexicon and an extra vocabulary, computed
    once and then read from a cache.

    Generation takes about half a minute and depends on nothing but its inputs: the lexicon file, the
    vocabulary (the treebank's words and lemmas), WordNet, Wuggy, the seed and this module's code. The
    inventory is kept as JSON under ``cache_dir/pseudowords/<key>.json``, where the key is the SHA-256
    of all of them, so a rebuild with another seed or another ``--set limit`` reuses it and any change of
    input or code makes a new one.

    Parameters
    ----------
    lexicon_path : path-like
        Wuggy English orthographic lexicon.
    vocabulary : iterable of str
        Extra real words (lower-cased here), passed to :func:`is_real_word_factory` with the lexicon's.
    seed : int
        Seed for Wuggy's random walks.
    cache_dir : path-like, optional
        Default :func:`robust_bench.io.fileio.default_cache_dir` (``$ROBUST_BENCH_CACHE``).
    progress : bool

    Returns
    -------
    list of str
        The pseudowords, in generation order (the same whether computed or read from the cache).

    Raises
    ------
    PseudowordError
        As :func:`generate_pseudowords`.
    """
    import json
    from importlib.metadata import version

    import nltk

    import robust_bench.text.inflection as inflection
    from robust_bench.io.fileio import cached

    words = [w for w, _, _ in load_wuggy_lexicon(lexicon_path)]
    vocab = sorted({w.lower() for w in vocabulary})
    names, wn = wordnet_lemmas()
    key = (Path(lexicon_path).read_bytes(), "\n".join(vocab).encode("utf-8"), Path(__file__).read_bytes(),
           Path(inflection.__file__).read_bytes(),
           json.dumps([seed, version("wuggy"), nltk.__version__, wn.get_version(), len(names)]).encode())

    def decode(data: bytes) -> list[str]:
        out = json.loads(data.decode("utf-8"))
        if not (isinstance(out, list) and all(isinstance(w, str) for w in out)):
            raise ValueError("not a list of pseudowords")
        return out
    return cached("pseudowords", key, lambda: generate_pseudowords(
        lexicon_path, is_real_word=is_real_word_factory(vocab, words), seed=seed, progress=progress),
        encode=lambda out: json.dumps(out).encode("utf-8"), decode=decode, suffix="json", cache_dir=cache_dir)
