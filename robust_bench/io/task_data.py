"""Readers for the classification and tagging corpora the perturbation families use.

Each reader returns plain dicts and raises :class:`TaskDataError`, naming the file, the line
and the field, on malformed input or an unknown label. Formats:

* NLI (MNLI, SNLI): the tokenised sample format ``label<TAB>premise<TAB>hypothesis``, the GLUE
  TSV (header with ``sentence1``, ``sentence2``, ``gold_label``), or Hub parquet
  (``premise``, ``hypothesis``, ``label`` as an index).
* MRPC: GLUE / MSR ``Quality<TAB>#1 ID<TAB>#2 ID<TAB>#1 String<TAB>#2 String``, or Hub parquet.
* QNLI: ``index<TAB>question<TAB>sentence<TAB>label``, or Hub parquet.
* SST-2: ``sentence<TAB>label``, or Hub parquet.
* CoNLL-2003: ``token POS chunk NER`` lines, ``-DOCSTART-`` documents, blank-line sentences;
  or Hub parquet (``tokens``, ``ner_tags`` as indices).
"""

from __future__ import annotations

import os
import re
from typing import Sequence

from robust_bench.io.fileio import iter_lines
from robust_bench import RobustBenchError

__all__ = ["TaskDataError", "NLI_LABELS", "MRPC_LABELS", "QNLI_LABELS", "SST2_LABELS", "CONLL2003_TAGS",
           "read_nli", "read_mrpc", "read_qnli", "read_sst2", "read_conll2003"]

NLI_LABELS = ("entailment", "neutral", "contradiction")
MRPC_LABELS = ("not_equivalent", "equivalent")
QNLI_LABELS = ("entailment", "not_entailment")
SST2_LABELS = ("negative", "positive")
#: IOB2 tags in the order of the Hub's conll2003 dataset.
CONLL2003_TAGS = ("O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC", "B-MISC", "I-MISC")


class TaskDataError(RobustBenchError, ValueError):
    """Malformed task data."""


def _is_parquet(path) -> bool:
    return str(path).endswith(".parquet")


def _parquet_rows(path, columns: Sequence[str]) -> list[dict]:
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    missing = [c for c in columns if c not in table.column_names]
    if missing:
        raise TaskDataError(f"{path}: missing columns {missing} (has {table.column_names})")
    return table.select(list(columns)).to_pylist()


def _label(path, lineno, value, labels: Sequence[str], aliases: dict | None = None) -> int:
    v = (aliases or {}).get(value, value)
    if isinstance(v, int) or (isinstance(v, str) and v.lstrip("-").isdigit()):
        i = int(v)
        if 0 <= i < len(labels):
            return i
    elif v in labels:
        return labels.index(v)
    raise TaskDataError(f"{path}:{lineno}: label: unknown label {value!r}; expected one of {list(labels)}")


#: The longest text field a TSV row may hold. GLUE's longest is about 2,000 characters; a field 50
#: times longer is a broken file (a lost line break, a binary blob), not a sentence.
MAX_TEXT_CHARS = 100_000
_CONTROL = re.compile(r"\x00")


def _tsv(path):
    """``(line number, fields)`` of a tab-separated file: UTF-8 (a BOM is allowed), no quoting
    (GLUE's TSVs are written with ``QUOTE_NONE``), no limit on field length here."""
    for lineno, line in enumerate(iter_lines(path), start=1):
        yield lineno, line.split("\t") if line else []


def _text(path, lineno: int, name: str, value: str) -> str:
    """A sentence field: not empty or blank, no NUL character, at most :data:`MAX_TEXT_CHARS`
    characters. Other control characters are kept: real MRPC train has U+0012 for an apostrophe
    ("Treasury\x12s"), and rewriting it would change the corpus that published scores used."""
    if not value.strip():
        raise TaskDataError(f"{path}:{lineno}: {name}: empty or whitespace-only text")
    bad = _CONTROL.search(value)
    if bad:
        raise TaskDataError(f"{path}:{lineno}: {name}: NUL character at column {bad.start() + 1} "
                            "(a binary or corrupted file?)")
    if len(value) > MAX_TEXT_CHARS:
        raise TaskDataError(f"{path}:{lineno}: {name}: {len(value):,} characters; a text field holds at most "
                            f"{MAX_TEXT_CHARS:,} (a lost line break?)")
    return value


def _nonempty(path, rows: list) -> list:
    if not rows:
        raise TaskDataError(f"{path}: no examples (the file is empty or holds only a header)")
    return rows


def read_nli(path: str | os.PathLike) -> list[dict]:
    """NLI pairs: ``idx``, ``premise``, ``hypothesis``, ``label`` (index into :data:`NLI_LABELS`)."""
    if _is_parquet(path):
        rows = _parquet_rows(path, ["premise", "hypothesis", "label"])
        return [{"idx": i, "premise": r["premise"], "hypothesis": r["hypothesis"],
                 "label": _label(path, i + 1, r["label"], NLI_LABELS)} for i, r in enumerate(rows) if r["label"] != -1]
    out = []
    header = None
    for lineno, cols in _tsv(path):
        if lineno == 1 and "sentence1" in cols:
            header = {c: k for k, c in enumerate(cols)}
            for need in ("sentence1", "sentence2", "gold_label"):
                if need not in header:
                    raise TaskDataError(f"{path}:1: missing column {need!r}")
            continue
        if not cols or cols == [""]:
            continue
        if header:
            if len(cols) != len(header):
                raise TaskDataError(f"{path}:{lineno}: expected {len(header)} tab-separated fields (as the header), "
                                    f"found {len(cols)}")
            lab, prem, hyp = cols[header["gold_label"]], cols[header["sentence1"]], cols[header["sentence2"]]
            if lab == "-":
                continue  # no gold label (annotator disagreement), as in GLUE
        else:
            if len(cols) != 3:
                raise TaskDataError(f"{path}:{lineno}: expected 3 tab-separated fields, found {len(cols)}")
            lab, prem, hyp = cols
        out.append({"idx": len(out), "premise": _text(path, lineno, "premise", prem),
                    "hypothesis": _text(path, lineno, "hypothesis", hyp),
                    "label": _label(path, lineno, lab, NLI_LABELS)})
    return _nonempty(path, out)


def _read_labelled_table(path, *, columns: dict[str, int], label_column: int, n_columns: int,
                         labels: Sequence[str], header: Sequence[str], header_required: bool) -> list[dict]:
    """One reader for the labelled GLUE tables: Hub parquet (named columns, label index, -1 for
    hidden test labels), or TSV with ``n_columns`` fields whose first line is ``header`` (its
    first ``len(header)`` fields), optional or required."""
    if _is_parquet(path):
        rows = _parquet_rows(path, [*columns, "label"])
        return [{"idx": i, **r, "label": _label(path, i + 1, r["label"], labels)}
                for i, r in enumerate(rows) if r["label"] != -1]
    out = []
    for lineno, cols in _tsv(path):
        if lineno == 1:
            if cols[:len(header)] == list(header):
                continue
            if header_required:
                raise TaskDataError(f"{path}:1: expected the header '{'<TAB>'.join(header)}<TAB>...'")
        if not cols or cols == [""]:
            continue
        if len(cols) != n_columns:
            raise TaskDataError(f"{path}:{lineno}: expected {n_columns} tab-separated fields, found {len(cols)}")
        out.append({"idx": len(out), **{name: _text(path, lineno, name, cols[k]) for name, k in columns.items()},
                    "label": _label(path, lineno, cols[label_column], labels)})
    return _nonempty(path, out)


def read_mrpc(path: str | os.PathLike) -> list[dict]:
    """MRPC pairs: ``idx``, ``sentence1``, ``sentence2``, ``label`` (index into :data:`MRPC_LABELS`)."""
    return _read_labelled_table(path, columns={"sentence1": 3, "sentence2": 4}, label_column=0, n_columns=5,
                                labels=MRPC_LABELS, header=("Quality", "#1 ID"), header_required=True)


def read_qnli(path: str | os.PathLike) -> list[dict]:
    """QNLI pairs: ``idx``, ``question``, ``sentence``, ``label`` (index into :data:`QNLI_LABELS`)."""
    return _read_labelled_table(path, columns={"question": 1, "sentence": 2}, label_column=3, n_columns=4,
                                labels=QNLI_LABELS, header=("index", "question", "sentence"), header_required=True)


def read_sst2(path: str | os.PathLike) -> list[dict]:
    """SST-2 sentences: ``idx``, ``sentence``, ``label`` (index into :data:`SST2_LABELS`)."""
    return _read_labelled_table(path, columns={"sentence": 0}, label_column=1, n_columns=2, labels=SST2_LABELS,
                                header=("sentence", "label"), header_required=False)


def read_conll2003(path: str | os.PathLike) -> list[dict]:
    """CoNLL-2003 sentences: ``idx``, ``tokens``, ``pos_tags`` (strings), ``ner_tags`` (indices into
    :data:`CONLL2003_TAGS`) and ``document`` (the index of the ``-DOCSTART-`` document, 0 for Hub
    parquet, which has no document boundaries)."""
    if _is_parquet(path):
        rows = _parquet_rows(path, ["tokens", "ner_tags"])
        return [{"idx": i, "tokens": r["tokens"], "pos_tags": ["_"] * len(r["tokens"]),
                 "ner_tags": [_label(path, i + 1, t, CONLL2003_TAGS) for t in r["ner_tags"]], "document": 0}
                for i, r in enumerate(rows) if r["tokens"]]
    out: list[dict] = []
    tokens: list[str] = []
    pos: list[str] = []
    tags: list[int] = []
    document = -1

    def flush():
        if tokens:
            out.append({"idx": len(out), "tokens": list(tokens), "pos_tags": list(pos), "ner_tags": list(tags),
                        "document": max(document, 0)})
        tokens.clear()
        pos.clear()
        tags.clear()

    for lineno, line in enumerate(iter_lines(path), start=1):
        if not line.strip():
            flush()
            continue
        cols = line.split(" ")
        if cols[0] == "-DOCSTART-":
            flush()
            document += 1
            continue
        if len(cols) != 4:
            raise TaskDataError(f"{path}:{lineno}: expected 4 space-separated fields, found {len(cols)}")
        if not all(cols) or _CONTROL.search(line):
            raise TaskDataError(f"{path}:{lineno}: token: an empty field or a NUL character "
                                f"(expected 'token POS chunk NER' separated by single spaces)")
        tokens.append(cols[0])
        pos.append(cols[1])
        tags.append(_label(path, lineno, cols[3], CONLL2003_TAGS))
    flush()
    if not out:
        raise TaskDataError(f"{path}: no sentences (the file is empty or holds only document markers)")
    return out
