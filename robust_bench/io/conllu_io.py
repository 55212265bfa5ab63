"""Read and write CoNLL-U treebanks with validation.

Parsing of the ten fields is done by the `conllu` library. This module adds what a
benchmark needs on top of it: line-level validation with errors that name the file, the
line and the field, a compact :class:`Sentence` view of the basic dependency tree, and
atomic writing.

CoNLL-U has three kinds of token lines (UD guidelines, "CoNLL-U format"):

* syntactic words, with integer ids ``1, 2, ...``; they carry the tree (HEAD, DEPREL);
* multiword-token ranges such as ``1-2 don't``; they carry only the surface form;
* empty nodes such as ``8.1``; they belong to the enhanced graph, not the basic tree.

:class:`Sentence` exposes the syntactic words as the tree and keeps the ranges and empty
nodes in :attr:`Sentence.tokenlist`, so that writing a sentence back reproduces it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import conllu
from conllu.exceptions import ParseException

from robust_bench.io.fileio import CONTROL_CHARS, iter_lines
from robust_bench import RobustBenchError

__all__ = [
    "ConlluError",
    "Sentence",
    "surface_text",
    "read_conllu",
    "word_forms",
    "iter_conllu",
    "parse_conllu_text",
    "write_conllu",
    "validate_tree",
]

_N_COLUMNS = 10
_ID_WORD = re.compile(r"^[1-9][0-9]*$")
_ID_RANGE = re.compile(r"^([1-9][0-9]*)-([1-9][0-9]*)$")
_ID_EMPTY = re.compile(r"^([0-9]+)\.([1-9][0-9]*)$")


class ConlluError(RobustBenchError, ValueError):
    """Malformed CoNLL-U input.

    Attributes
    ----------
    path : str
        The file (or ``"<string>"``) that holds the problem.
    line : int or None
        1-based line number of the offending line, or of the first line of the sentence.
    field : str or None
        The CoNLL-U column concerned (``"ID"``, ``"HEAD"``, ...) or ``None`` for
        sentence-level problems.
    problem : str
        What is wrong.
    """

    def __init__(self, path: str, line: int | None, field: str | None, problem: str):
        self.path = str(path)
        self.line = line
        self.field = field
        self.problem = problem
        where = self.path if line is None else f"{self.path}:{line}"
        what = f"{field}: {problem}" if field else problem
        super().__init__(f"{where}: {what}")


@dataclass(frozen=True)
class Sentence:
    """One CoNLL-U sentence, seen as its basic dependency tree.

    All per-word tuples have length ``n_words`` (syntactic words only, in id order).
    ``heads`` are 1-based with ``0`` for the root, as in CoNLL-U.

    Attributes
    ----------
    sent_id : str
        The ``# sent_id`` comment, or ``"<file>#<index>"`` when absent.
    text : str or None
        The ``# text`` comment.
    forms, lemmas, upos, xpos, feats, deprels : tuple of str of shape (n_words,)
        Columns 2, 3, 4, 5, 6 and 8. ``feats`` is the raw FEATS string (``"_"`` if empty).
    heads : tuple of int of shape (n_words,)
        Column 7, values in ``[0, n_words]``.
    multiword_tokens : tuple of (int, int, str)
        ``(first_word_id, last_word_id, surface_form)`` for each range line.
    tokenlist : conllu.TokenList
        The parsed sentence with ranges and empty nodes, used for writing it back.
    path : str
        Source file.
    line : int
        1-based line on which the sentence starts.
    word_lines : tuple of int of shape (n_words,)
        1-based line of each syntactic word, for error messages.
    """

    sent_id: str
    text: str | None
    forms: tuple[str, ...]
    lemmas: tuple[str, ...]
    upos: tuple[str, ...]
    xpos: tuple[str, ...]
    feats: tuple[str, ...]
    heads: tuple[int, ...]
    deprels: tuple[str, ...]
    multiword_tokens: tuple[tuple[int, int, str], ...]
    tokenlist: conllu.TokenList = field(repr=False, compare=False)
    path: str = field(default="<string>", compare=False)
    line: int = field(default=1, compare=False)
    word_lines: tuple[int, ...] = field(default=(), compare=False, repr=False)

    def __len__(self) -> int:
        return len(self.forms)

    @property
    def in_multiword_token(self) -> tuple[bool, ...]:
        """Per word, whether it lies inside a multiword-token range, shape (n_words,)."""
        flags = [False] * len(self.forms)
        for first, last, _ in self.multiword_tokens:
            for i in range(first - 1, last):
                flags[i] = True
        return tuple(flags)

    def with_forms(self, forms: Sequence[str]) -> "Sentence":
        """Return a copy whose word forms are replaced; the tree is untouched.

        When a form changes, a ``# text`` comment is rebuilt from the tokens (multiword-token
        surface forms for ranges, no space after ``SpaceAfter=No``), so it never describes the old
        words. Multiword-token surface forms themselves are kept.

        Raises
        ------
        ValueError
            If ``len(forms) != len(self)``.
        """
        if len(forms) != len(self.forms):
            raise ValueError(f"expected {len(self.forms)} forms, got {len(forms)}")
        tokens = []
        k = 0
        for tok in self.tokenlist:
            tok = conllu.Token(tok)
            if isinstance(tok["id"], int):
                tok["form"] = forms[k]
                k += 1
            tokens.append(tok)
        tl = conllu.TokenList(tokens, metadata=dict(self.tokenlist.metadata))
        if tuple(forms) != self.forms and "text" in tl.metadata:
            tl.metadata["text"] = surface_text(tl)
        return Sentence(
            sent_id=self.sent_id, text=tl.metadata.get("text", self.text), forms=tuple(forms), lemmas=self.lemmas,
            upos=self.upos, xpos=self.xpos, feats=self.feats, heads=self.heads,
            deprels=self.deprels, multiword_tokens=self.multiword_tokens, tokenlist=tl,
            path=self.path, line=self.line, word_lines=self.word_lines,
        )


def surface_text(tokenlist: conllu.TokenList) -> str:
    """The sentence text a token list spells: multiword-token surface forms for their ranges,
    words elsewhere, a space after each token unless its MISC has ``SpaceAfter=No``."""
    text, covered = [], 0
    for tok in tokenlist:
        tid = tok["id"]
        if isinstance(tid, tuple):
            if len(tid) == 3 and tid[1] == "-":      # a range line: its surface form stands for its words
                covered = tid[2]
            else:
                continue                              # an empty node has no surface
        elif tid <= covered:
            continue
        text.append(tok["form"] + ("" if (tok.get("misc") or {}).get("SpaceAfter") == "No" else " "))
    return "".join(text).strip()


def _feats_str(feats) -> str:
    if not feats:
        return "_"
    return "|".join(f"{k}={v}" for k, v in feats.items())


def validate_tree(heads: Sequence[int], *, path: str = "<string>", line: int | None = None,
                  head_lines: Sequence[int] | None = None) -> None:
    """Check that ``heads`` encode a single-rooted tree.

    Parameters
    ----------
    heads : sequence of int of shape (n_words,)
        1-based heads, ``0`` for the root.
    path, line, head_lines
        Where to point the error: the file, the sentence's first line, and optionally
        the line of each word.

    Raises
    ------
    ConlluError
        If the sentence is empty, a head is out of ``[0, n_words]`` or points to the word
        itself, there is no root or more than one, or the heads contain a cycle.
    """
    n = len(heads)

    def where(i: int | None) -> int | None:
        if i is not None and head_lines is not None:
            return head_lines[i]
        return line

    if n == 0:
        raise ConlluError(path, line, None, "empty sentence (no syntactic words)")
    roots = [i for i, h in enumerate(heads) if h == 0]
    for i, h in enumerate(heads):
        if h < 0 or h > n:
            raise ConlluError(path, where(i), "HEAD", f"head {h} of word {i + 1} is out of range [0, {n}]")
        if h == i + 1:
            raise ConlluError(path, where(i), "HEAD", f"word {i + 1} is its own head")
    if not roots:
        raise ConlluError(path, line, "HEAD", "missing root: no word has head 0")
    if len(roots) > 1:
        ids = ", ".join(str(i + 1) for i in roots)
        raise ConlluError(path, where(roots[1]), "HEAD", f"more than one root (words {ids} have head 0)")
    # Every word must reach the root; otherwise it sits on a cycle.
    state = [0] * n  # 0 unvisited, 1 on current path, 2 reaches root
    for start in range(n):
        path_nodes = []
        i = start
        while i >= 0 and state[i] == 0:
            state[i] = 1
            path_nodes.append(i)
            i = heads[i] - 1
        if i >= 0 and state[i] == 1:
            cycle = sorted(j + 1 for j in path_nodes[path_nodes.index(i):])
            raise ConlluError(path, where(i), "HEAD", f"head cycle through words {cycle}")
        for j in path_nodes:
            state[j] = 2


def _blocks(lines: Iterable[str]) -> Iterator[tuple[int, list[tuple[int, str]]]]:
    """Split lines into sentence blocks: (first line number, [(line number, line)])."""
    block: list[tuple[int, str]] = []
    start = 1
    for lineno, raw in enumerate(lines, start=1):
        line = raw.rstrip("\n").rstrip("\r")
        if line.strip() == "":
            if block:
                yield start, block
            block = []
            continue
        if not block:
            start = lineno
        block.append((lineno, line))
    if block:
        yield start, block


def _parse_block(path: str, start: int, block: list[tuple[int, str]], index: int) -> Sentence:
    word_lines: list[int] = []
    ranges: list[tuple[int, int, int]] = []
    n_token_lines = 0
    for lineno, line in block:
        if line.startswith("#"):
            continue
        n_token_lines += 1
        cols = line.split("\t")
        if len(cols) != _N_COLUMNS:
            raise ConlluError(path, lineno, None,
                              f"expected {_N_COLUMNS} tab-separated columns, found {len(cols)}")
        tid, head = cols[0], cols[6]
        for k, field in ((1, "FORM"), (2, "LEMMA")):
            bad = CONTROL_CHARS.search(cols[k])
            if bad:
                raise ConlluError(path, lineno, field, f"control character U+{ord(bad.group()):04X} at column "
                                                       f"{bad.start() + 1} (a binary or corrupted file?)")
        if _ID_WORD.match(tid):
            word_lines.append(lineno)
            if int(tid) != len(word_lines):
                raise ConlluError(path, lineno, "ID",
                                  f"word id {tid} out of sequence (expected {len(word_lines)})")
            if not re.fullmatch(r"[0-9]+", head):
                raise ConlluError(path, lineno, "HEAD", f"non-integer head {head!r}")
            if cols[7].strip() in ("", "_"):
                raise ConlluError(path, lineno, "DEPREL", f"word with head {head} has no relation ({cols[7]!r})")
        elif (m := _ID_RANGE.match(tid)):
            a, b = int(m.group(1)), int(m.group(2))
            if b <= a:
                raise ConlluError(path, lineno, "ID", f"invalid multiword range {tid!r}")
            if a != len(word_lines) + 1:
                raise ConlluError(path, lineno, "ID",
                                  f"multiword range {tid!r} does not start at the next word")
            ranges.append((a, b, lineno))
        elif _ID_EMPTY.match(tid):
            pass
        else:
            raise ConlluError(path, lineno, "ID", f"invalid id {tid!r}")
    if n_token_lines == 0 or not word_lines:
        raise ConlluError(path, start, None, "empty sentence (no syntactic words)")
    n = len(word_lines)
    for a, b, lineno in ranges:
        if b > n:
            raise ConlluError(path, lineno, "ID", f"multiword range {a}-{b} exceeds the {n} words")
    text = "\n".join(line for _, line in block) + "\n\n"
    try:
        tl = conllu.parse(text)[0]
    except ParseException as exc:  # pragma: no cover - pre-validation catches the usual cases
        raise ConlluError(path, start, None, f"conllu could not parse this sentence: {exc}") from exc
    words = [t for t in tl if isinstance(t["id"], int)]
    # the conllu library splits a line its own way (it also takes runs of spaces as separators): where it reads
    # other words or heads than the line-by-line check above, the sentence is refused, naming the line
    if len(words) != len(word_lines):
        raise ConlluError(path, start, "ID", f"conllu read {len(words)} words where the lines hold {len(word_lines)} "
                                             "(a field separated by spaces instead of a tab?)")
    for t, lineno in zip(words, word_lines):
        if not isinstance(t["head"], int):
            raise ConlluError(path, lineno, "HEAD", f"conllu read the head as {t['head']!r} (a field separated by "
                                                    "spaces instead of a tab?)")
    heads = tuple(int(t["head"]) for t in words)
    validate_tree(heads, path=path, line=start, head_lines=word_lines)
    mwts = tuple((t["id"][0], t["id"][2], t["form"]) for t in tl if isinstance(t["id"], tuple) and t["id"][1] == "-")
    sent_id = tl.metadata.get("sent_id") or f"{Path(path).name}#{index}"
    return Sentence(
        sent_id=sent_id,
        text=tl.metadata.get("text"),
        forms=tuple(t["form"] for t in words),
        lemmas=tuple(t["lemma"] or "_" for t in words),
        upos=tuple(t["upos"] or "_" for t in words),
        xpos=tuple(t["xpos"] or "_" for t in words),
        feats=tuple(_feats_str(t["feats"]) for t in words),
        heads=heads,
        deprels=tuple(t["deprel"] or "_" for t in words),
        multiword_tokens=mwts,
        tokenlist=tl,
        path=path,
        line=start,
        word_lines=tuple(word_lines),
    )


def parse_conllu_text(text: str, *, path: str = "<string>") -> list[Sentence]:
    """Parse CoNLL-U text into validated sentences.

    Parameters
    ----------
    text : str
        The whole document.
    path : str, optional
        Name used in error messages.

    Returns
    -------
    list of Sentence

    Raises
    ------
    ConlluError
        On a wrong column count, a malformed or out-of-sequence ID, a non-integer or
        out-of-range HEAD, a head cycle, a missing or repeated root, a duplicate
        ``sent_id``, or an empty sentence. The message names the file and the line.
    """
    return list(_iter_lines(text.splitlines(), path))


def _iter_lines(lines: Iterable[str], path: str) -> Iterator[Sentence]:
    seen: dict[str, int] = {}
    for index, (start, block) in enumerate(_blocks(lines)):
        sent = _parse_block(path, start, block, index)
        if sent.sent_id in seen:
            raise ConlluError(path, start, "sent_id",
                              f"duplicate sent_id {sent.sent_id!r} (first at line {seen[sent.sent_id]})")
        seen[sent.sent_id] = start
        yield sent


def iter_conllu(path: str | os.PathLike) -> Iterator[Sentence]:
    """Stream validated sentences from a CoNLL-U file.

    Raises
    ------
    ConlluError
        See :func:`parse_conllu_text`.
    FileNotFoundError
        If ``path`` does not exist.
    """
    path = str(path)
    yield from _iter_lines(iter_lines(path), path)


def read_conllu(path: str | os.PathLike) -> list[Sentence]:
    """Read and validate a whole CoNLL-U file.

    Parameters
    ----------
    path : path-like
        A ``.conllu`` file in UTF-8.

    Returns
    -------
    list of Sentence
        In file order.

    Raises
    ------
    ConlluError
        See :func:`parse_conllu_text`.
    FileNotFoundError
        If ``path`` does not exist.
    """
    return list(iter_conllu(path))


def word_forms(path: str | os.PathLike) -> set[str]:
    """Every word form of a CoNLL-U file, case kept: a treebank's vocabulary (the training data an
    out-of-training rate counts against, Wang et al., 2021, Table 7).

    Parsing a treebank's training file takes seconds (EWT train: 12,544 sentences), and every adversarial
    treebank build and parser attack asks for the same one: the set is counted once and read back from
    :func:`robust_bench.io.fileio.cached`, keyed by the file's bytes, this reader's source and conllu's version.

    Raises
    ------
    ConlluError, FileNotFoundError
        As :func:`iter_conllu`.
    """
    import json
    from importlib.metadata import version

    from robust_bench.io import fileio
    from robust_bench.io.fileio import cached

    data = Path(path).read_bytes()
    return cached("word-forms", (data, Path(__file__).read_bytes(), Path(fileio.__file__).read_bytes(),
                                 version("conllu").encode()),
                  lambda: {w for s in iter_conllu(path) for w in s.forms},
                  encode=lambda forms: json.dumps(sorted(forms), ensure_ascii=False).encode("utf-8"),
                  decode=lambda b: set(json.loads(b)), suffix="json")


def write_conllu(sentences: Iterable[Sentence], path: str | os.PathLike) -> None:
    """Write sentences as CoNLL-U, atomically.

    The file is written to a temporary file beside ``path`` and renamed, so an
    interrupted write leaves any previous file intact.

    Parameters
    ----------
    sentences : iterable of Sentence
    path : path-like
    """
    from robust_bench.io.fileio import atomic_open

    with atomic_open(path) as f:
        for sent in sentences:
            f.write(sent.tokenlist.serialize())
