"""What a variant's row records of its plan (Balasubramanian et al., 2020: every variant keeps its
edits): refusals by reason, mention counts, and offsets in the variant's text (spaces after tokens,
character offsets per sentence, a document's span map seen from one sentence)."""

from __future__ import annotations

from collections import Counter

from robust_bench.io.task_data import CONLL2003_TAGS
from robust_bench.perturb.names.determiners import TokenInfo, fix_determiners
from robust_bench.perturb.names.spans import apply_swaps, realign_tags

class SentenceSpanMap:
    """A document :class:`SpanMap` seen from one sentence (original offset ``o``, new offset ``a``)."""

    def __init__(self, smap, o: int, a: int):
        self.smap, self.o, self.a = smap, o, a

    def span(self, start: int, end: int) -> tuple[int, int]:
        x, y = self.smap.span(self.o + start, self.o + end)
        return x - self.a, y - self.a


def row_refusals(plan, start: int, end: int) -> list[dict]:
    """The refusals of a plan whose span starts in tokens ``[start, end)`` (one sentence of a
    document), by reason, as the ``refusals`` column; none for the original (``plan`` None).

    Parameters
    ----------
    plan : SwapPlan or None
    start, end : int

    Returns
    -------
    list of dict
        ``reason`` and ``count``, by reason.
    """
    if plan is None:
        return []
    why = Counter(r for a, _, r in plan.refused if start <= a < end)
    return [{"reason": k, "count": int(v)} for k, v in sorted(why.items())]


def plan_refusals(plan) -> list[dict]:
    """A plan's mentions left unchanged, by reason (``SwapPlan.skipped``), as the ``refusals`` column.

    Parameters
    ----------
    plan : SwapPlan

    Returns
    -------
    list of dict
        ``reason`` and ``count``, by reason.
    """
    return [{"reason": k, "count": int(v)} for k, v in sorted(plan.skipped.items()) if v]


def mention_counts(mentions, types, edits) -> dict[str, int]:
    """Mentions of the swapped types in the example, and how many of them an edit touches.

    Parameters
    ----------
    mentions : iterable of Mention
    types : iterable of str
    edits : sequence of Edit

    Returns
    -------
    dict of str to int
        ``mentions`` and ``mentions_swapped``.
    """
    ms = [m for m in mentions if m.type in types]
    hit = sum(1 for m in ms if any(e.start < m.end and e.end > m.start for e in edits))
    return {"mentions": len(ms), "mentions_swapped": hit}


def spaces_after(spaces, smap, n_new: int) -> list[str]:
    """The space after each token of a variant, from the original's (``spaces``, one per original token):
    a replaced span takes the space after its last original token.

    Parameters
    ----------
    spaces : sequence of str
    smap : SpanMap
    n_new : int
        Tokens in the variant.

    Returns
    -------
    list of str
    """
    out = [" "] * n_new
    for i, sp in enumerate(spaces):
        a, b = smap.token(i)
        if b > a:
            out[b - 1] = sp
        elif a > 0:
            out[a - 1] = sp     # a deleted token ("Wal-Mart 's" -> "Macy's"): its space goes to the one before
    return out


def render(tokens, spaces) -> str:
    """A sentence's text from its tokens and the spaces after them (trailing space dropped).

    Parameters
    ----------
    tokens, spaces : sequence of str

    Returns
    -------
    str
    """
    return "".join(t + s for t, s in zip(tokens, spaces)).rstrip()


def char_offsets(tokens, spaces, n1: int) -> list[tuple[int, int]]:
    """Character offsets of each token within its own sentence (the first ``n1`` tokens are sentence 1).

    Parameters
    ----------
    tokens, spaces : sequence of str
    n1 : int

    Returns
    -------
    list of (int, int)
    """
    out, pos = [], 0
    for i, (t, s) in enumerate(zip(tokens, spaces)):
        if i == n1:
            pos = 0
        out.append((pos, pos + len(t)))
        pos += len(t) + len(s)
    return out


def pair_variant(pair: dict, plan, article_use: dict | None, train_count, orig_chars: list[tuple[int, int]]
                 ) -> tuple[str, str, list, list[dict], list[dict]]:
    """One variant of an MRPC pair as its row records it (Balasubramanian et al., 2020): the plan
    applied after the articles beside each new organisation are put right
    (:func:`~robust_bench.perturb.names.determiners.fix_determiners`), the two sentences rendered with
    the original spacing, and the edits in character offsets within their sentence.

    Parameters
    ----------
    pair : dict
        From :func:`~robust_bench.perturb.names.org_pairs.mrpc_pair` (``tokens``, ``spaces``, ``n1``, ``info``).
    plan : SwapPlan or None
        The variant's plan; ``None`` for the original (variant 0). Edited in place (the articles).
    article_use : dict or None
        See :func:`~robust_bench.perturb.names.determiners.needs_the`.
    train_count : callable
        A replacement's count in the task's training data (the ``train_count`` of each edit).
    orig_chars : list of (int, int)
        The original tokens' character offsets (:func:`char_offsets`).

    Returns
    -------
    sentence1, sentence2 : str
    edits : list of Edit
        In token offsets.
    out_edits : list of dict
        The row's ``edits``: character offsets, ``segment`` and ``train_count``.
    refusals : list of dict
        The row's ``refusals`` (:func:`plan_refusals`).
    """
    toks, spaces, n1, info = pair["tokens"], pair["spaces"], pair["n1"], pair["info"]
    refusals = []
    if plan is None:
        new, edits = toks, []
        new_spaces = spaces
    else:
        fix_determiners(plan, toks, lambda i: TokenInfo(*info[i]), {0, n1}, article_use)
        refusals = plan_refusals(plan)
        new, edits, smap = apply_swaps(toks, plan)
        new_spaces = spaces_after(spaces, smap, len(new))
    n1_new = n1 if plan is None else smap.span(0, n1)[1] if n1 else 0
    s1 = render(new[:n1_new], new_spaces[:n1_new])
    s2 = render(new[n1_new:], new_spaces[n1_new:])
    new_chars = char_offsets(new, new_spaces, n1_new)
    out_edits = [{**e.as_dict(), "segment": "sentence1" if e.start < n1 else "sentence2",
                  "train_count": train_count(e.replacement),
                  "start": orig_chars[e.start][0], "end": orig_chars[e.end - 1][1],
                  "new_start": new_chars[e.new_start][0] if e.new_end > e.new_start else 0,
                  "new_end": new_chars[e.new_end - 1][1] if e.new_end > e.new_start else 0}
                 for e in edits]
    return s1, s2, edits, out_edits, refusals


def sentence_variant(r: dict, o: int, tags: list[str], local_mentions, types, res, train_count
                     ) -> tuple[list[str], list[int], list[dict], dict[str, int]]:
    """One sentence of a CoNLL-2003 document's variant as its row records it (Balasubramanian et al.,
    2020: NER tags realigned when a name changes length).

    Parameters
    ----------
    r : dict
        The sentence (``tokens``, ``ner_tags``).
    o : int
        Where it starts in the document's tokens.
    tags : list of str
        Its tags as strings.
    local_mentions : list of Mention
        The document's mentions that start in it.
    types : iterable of str
        The swapped types.
    res : tuple or None
        The document's :func:`~robust_bench.perturb.names.spans.apply_swaps` result; ``None`` for the original.
    train_count : callable
        A replacement's count in the task's training data.

    Returns
    -------
    tokens : list of str
    ner_tags : list of int
        Indices into :data:`~robust_bench.io.task_data.CONLL2003_TAGS`.
    edits : list of dict
        The row's ``edits``, in token offsets within the sentence.
    counts : dict of str to int
        :func:`mention_counts`.
    """
    n = len(r["tokens"])
    if res is None:
        new_toks, new_tags, edits = list(r["tokens"]), list(r["ner_tags"]), []
        counts = mention_counts(local_mentions, types, [])
    else:
        all_new, all_edits, smap = res
        a, b = smap.span(o, o + n)
        new_toks = all_new[a:b]
        local = SentenceSpanMap(smap, o, a)
        new_tags = [CONLL2003_TAGS.index(t) for t in realign_tags(tags, local, b - a)]
        edits = [{**e.as_dict(), "segment": "tokens", "start": e.start - o, "end": e.end - o,
                  "train_count": train_count(e.replacement),
                  "new_start": e.new_start - a, "new_end": e.new_end - a}
                 for e in all_edits if o <= e.start < o + n]
        counts = mention_counts(local_mentions, types,
                                [e for e in all_edits if o <= e.start < o + n])
    return new_toks, new_tags, edits, counts
