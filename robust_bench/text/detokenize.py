"""Natural text from Penn-Treebank-tokenised text, for the prompts an LLM reads.

Some sources are tokenised the Penn Treebank way (TextFooler's MNLI and SNLI samples: "Later , Tom may
have testified ... chair .", "do n't", "-LRB-", "`` ... ''"; GLUE SST-2). Their rows keep the tokens (the
builders, the perturbations and the pins read them); a language model is asked on natural text, as
its users ask it. Detokenisation is Moses's (``sacremoses.MosesDetokenizer``, English rules: punctuation,
quotes, brackets, currency and per cent signs), after the treebank's own conventions are undone: bracket
and quote tokens back to characters, and a clitic ``n't`` joined to its verb ("ca n't" -> "can't").
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["detokenize"]

#: the Penn Treebank's escaped brackets (upper case, or lower case in lower-cased corpora such as SST-2) and
#: directional quotes
_PTB = {"``": '"', "''": '"', "-lrb-": "(", "-rrb-": ")", "-lsb-": "[", "-rsb-": "]", "-lcb-": "{", "-rcb-": "}"}


@lru_cache(maxsize=1)
def _moses():
    from sacremoses import MosesDetokenizer

    return MosesDetokenizer(lang="en")


@lru_cache(maxsize=1 << 16)     # an attack renders the same texts again and again
def detokenize(text: str) -> str:
    """``text`` (tokens separated by spaces) as natural English text.

    Parameters
    ----------
    text : str
        Penn-Treebank-tokenised text, e.g. ``"I do n't think it 's `` fine '' -LRB- really -RRB- ."``.

    Returns
    -------
    str
        e.g. ``'I don\\'t think it\\'s "fine" (really).'``; text already natural comes back as it was, up to
        spaces around punctuation.
    """
    merged: list[str] = []
    for token in text.split():
        token = _PTB.get(token.lower(), token)
        if token.lower() == "n't" and merged:
            merged[-1] += token
        else:
            merged.append(token)
    return _moses().detokenize(merged)
