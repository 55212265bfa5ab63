"""Edits on the original token indices: the checks on a drawn edit against the earlier ones
(``still_an_error``, ``edit_spread``, ``article_agreement``), applying edits (:func:`apply_edits`,
which reproduces the perturbed sentence exactly), rendering, and carrying per-token tags through them."""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from robust_bench.perturb.gec.sets import ARTICLES, DELETE, INSERT, SUBSTITUTE, SWAP
from robust_bench.perturb.gec.tokens import Operation, Token, _subject_of


def _articles(words: Sequence[str]) -> set[int]:
    from robust_bench.perturb.checks import article_errors

    return article_errors(words)


def undoes_error(tokens: Sequence[Token], edits: Sequence[Mapping], op: Operation) -> bool:
    """The ``still_an_error`` check: whether ``op`` with an earlier edit yields correct English with
    another meaning instead of an error: an agreement (SVA) change of a verb whose subject's number an Nn
    edit changed ("the companies want" -> "the company wants"; the subject as parsed, or the noun right
    before the verb), or a number change of a noun whose own
    article an ArtOrDet edit changed ("a plan" -> "the plans", "in a restaurant" -> "in restaurants")."""
    if op.type not in ("SVA", "Nn", "ArtOrDet", "Vform") or not tokens:
        return False
    n = len(tokens)

    def article_of(i: int) -> int | None:
        for j in range(max(0, i - 4), i):
            if tokens[j].head == i and tokens[j].lower in ARTICLES:
                return j
        return None

    for e in edits:
        p = int(e["position"])
        if not 0 <= p < n and e["operation"] != INSERT:
            continue
        pair = {e["type"], op.type}
        if pair in ({"SVA", "Nn"}, {"Vform", "Nn"}):
            verb, noun = (p, op.position) if op.type == "Nn" else (op.position, p)
            if noun < n and verb < n and (_subject_of(tokens, verb) == noun or _just_before(tokens, noun, verb)):
                return True
        elif pair == {"ArtOrDet", "Nn"}:
            art, noun = (op, p) if op.type == "ArtOrDet" else (None, op.position)
            if art is None:          # op is Nn: did an earlier ArtOrDet edit touch this noun's article?
                a = article_of(noun)
                if (a is not None and p == a) or (e["operation"] == INSERT and noun >= p >= noun - 3):
                    return True
            else:                    # op is ArtOrDet: was its noun's number changed?
                target = op.position if op.operation == INSERT else tokens[op.position].head
                if op.operation == INSERT:
                    if p >= op.position and p <= op.position + 3:
                        return True
                elif p == target:
                    return True
    return False


def _just_before(tokens: Sequence[Token], noun: int, verb: int) -> bool:
    """Whether ``noun`` comes right before ``verb`` ("the outlook remains"): read as its subject even where
    the parse says otherwise (a parser that attached "outlook" to a later "says" made "outlooks remain"
    pass as an agreement error). Positions only, so an attack over the stored search space, which keeps
    no tags, decides as one that parses."""
    return noun == verb - 1


def crowded(edits: Sequence[Mapping], op: Operation) -> bool:
    """The ``edit_spread`` check: whether ``op`` would be the third edit within two tokens of each other,
    which leaves a stretch no reader can recover ("a spur of the moment decision" -> "spurs moment
    decision")."""
    near = sum(1 for e in edits if abs(int(e["position"]) - op.position) <= 2)
    return near >= 2


def articles_after(words: Sequence[str], spaces: Sequence[bool], edits: Sequence[Mapping],
                   op: Operation | None) -> int:
    """Indefinite articles that disagree with the next word's sound once ``op`` (if any) joins
    ``edits`` (:func:`robust_bench.perturb.checks.article_errors`); the ``article_agreement`` check
    compares it with the original sentence's count. Only sentences with an article or an article
    edit are rebuilt.

    Parameters
    ----------
    words, spaces : sequence of shape (n_tokens,)
        The original sentence.
    edits : sequence of dict
        Edits already applied (original token indices).
    op : Operation or None

    Returns
    -------
    int
    """
    if (op is None or op.type != "ArtOrDet") and not any(w.lower() in ("a", "an") for w in words) \
            and not any(e["type"] == "ArtOrDet" for e in edits):
        return 0
    new, _ = apply_edits(words, spaces, [*edits, *([op.as_edit()] if op is not None else [])])
    return len(_articles(new))


def apply_edits(words: Sequence[str], spaces: Sequence[bool], edits: Iterable[Mapping]) -> tuple[list[str], list[bool]]:
    """Apply edits (original token indices) to a tokenised sentence.

    Substitutions keep the token's trailing space; an inserted token is followed by a space;
    a deleted token's trailing space passes to the token before it; a swap exchanges the words
    and keeps the spaces in place.

    Parameters
    ----------
    words : sequence of str of shape (n_tokens,)
    spaces : sequence of bool of shape (n_tokens,)
        Whether each token is followed by a space.
    edits : iterable of dict
        With ``position``, ``operation``, ``replacement`` (and ``type``, ``original``).

    Returns
    -------
    words, spaces : list of str, list of bool

    Raises
    ------
    ValueError
        On overlapping edits, out-of-range positions, an unknown operation, or an edit whose
        ``original`` does not match the sentence.
    """
    n = len(words)
    sub: dict[int, str] = {}
    dele: set[int] = set()
    ins: dict[int, str] = {}
    swap: set[int] = set()
    touched: set[int] = set()
    for e in edits:
        p, op = int(e["position"]), e["operation"]
        if op == INSERT:
            if not 0 <= p <= n or p in ins:
                raise ValueError(f"insertion at {p} is out of range or repeated")
            ins[p] = e["replacement"]
            continue
        span = (p, p + 1) if op == SWAP else (p,)
        if any(not 0 <= q < n or q in touched for q in span):
            raise ValueError(f"{op} at {p} is out of range or overlaps another edit")
        touched.update(span)
        expected = " ".join(words[q] for q in span)
        if e.get("original") is not None and e["original"] != expected:
            raise ValueError(f"{op} at {p}: original {e['original']!r} does not match {expected!r}")
        if op == SUBSTITUTE:
            sub[p] = e["replacement"]
        elif op == DELETE:
            dele.add(p)
        elif op == SWAP:
            swap.add(p)
        else:
            raise ValueError(f"unknown operation {op!r}")
    out_w: list[str] = []
    out_s: list[bool] = []
    i = 0
    while i <= n:
        if i in ins:
            out_w.append(ins[i])
            out_s.append(True)
        if i == n:
            break
        if i in dele:
            if out_s and not out_s[-1]:
                out_s[-1] = spaces[i]
            i += 1
            continue
        if i in swap:
            out_w += [words[i + 1], words[i]]
            out_s += [spaces[i], spaces[i + 1]]
            i += 2
            continue
        out_w.append(sub.get(i, words[i]))
        out_s.append(spaces[i])
        i += 1
    if out_s and n and ins.get(n) is not None:
        out_s[-1] = spaces[-1] if n else False
    return out_w, out_s


def render(words: Sequence[str], spaces: Sequence[bool]) -> str:
    """Detokenise: each word followed by a space where ``spaces`` says so (trailing space stripped)."""
    return "".join(w + (" " if s else "") for w, s in zip(words, spaces)).rstrip(" ")


def realign_tags(tags: Sequence, edits: Iterable[Mapping], *, fill) -> list:
    """Per-token tags (for example NER tags) carried through the edits: an inserted token gets
    ``fill`` (``O``), a deleted token drops its tag, swapped tokens swap theirs, a substituted
    token keeps its own.

    Parameters
    ----------
    tags : sequence of shape (n_tokens,)
    edits : iterable of dict
    fill : object
        The tag of inserted tokens.

    Returns
    -------
    list of shape (n_tokens_after,)
    """
    marks = [str(i) for i in range(len(tags))]
    marked = []
    for e in edits:
        op = e["operation"]
        repl = "+" if op == INSERT else str(e["position"]) if op == SUBSTITUTE else ""
        marked.append({**e, "original": None, "replacement": repl})
    new, _ = apply_edits(marks, [True] * len(marks), marked)
    return [tags[int(w)] if w.isdigit() else fill for w in new]
