"""Property-based fuzzing of the source readers (issue 15, item 4): random mutations of real files
from ../shared (bytes inserted, deleted, duplicated, lines swapped, files cut short). Every input
either reads, giving well-formed rows, or stops with one error line that starts with the file's
path; nothing else (no traceback of an unexpected exception type) is allowed."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from robust_bench.io.conll2012 import CorefDataError, read_conll2012
from robust_bench.io.conllu_io import ConlluError, read_conllu
from robust_bench.io.fileio import TextDecodeError
from robust_bench.io.m2 import M2Error, read_m2
from robust_bench.io.task_data import TaskDataError, read_conll2003, read_mrpc, read_nli, read_qnli

CASES = 1000         # per format; derandomised, so CI runs the same cases every time
COUNTS: dict[str, dict[str, int]] = {}

#: bytes that matter to these formats, plus invalid UTF-8 and a BOM
PIECES = [b"\t", b"\n", b"\r\n", b" ", b"\x00", b"\xff", b"\xc3", b"\xef\xbb\xbf", b"-", b"_", b"0", b"1", b"99",
          b"-1", b"|||", b"(", b")", b"(0", b"0)", b"#", b"S ", b"A ", b"-DOCSTART-", b"1-2", b"1.1", b"\"",
          b"B-PER", b"x" * 200, "é".encode()]


def _slice(path: Path, n_lines: int, start: int = 0) -> bytes:
    lines = path.read_bytes().split(b"\n")
    return b"\n".join(lines[start:start + n_lines]) + b"\n"


def _m2_sample() -> bytes:
    return ("S He go to the school yesterday .\nA 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0\n"
            "A 6 7|||R:NOUN|||day|||REQUIRED|||-NONE-|||1\n\nS She like apples .\n"
            "A 1 2|||R:VERB:SVA|||likes|||REQUIRED|||-NONE-|||0\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1\n\n"
            "S Fine .\n\n").encode()


def _coref_sample(sources: Path) -> bytes:
    folder = sources / "litbank" / "coref"
    f = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in (".conll", ".conll12", ".txt", ""))[0]
    data = f.read_bytes()
    end = data.find(b"#end document")
    head = data[:min(end, 6000)]
    head = head[:head.rfind(b"\n\n") + 2] if b"\n\n" in head else head
    return head + b"#end document\n"


FORMATS = {
    # name: (reader, error classes, sample builder, row check)
    "conllu": (read_conllu, (ConlluError,), lambda s: _slice(s / "ud_english_ewt" / "en_ewt-ud-dev.conllu", 80),
               lambda rows: all(len(r.heads) == len(r.forms) and all(0 <= h <= len(r.heads) for h in r.heads)
                                for r in rows)),
    "conll2012": (read_conll2012, (CorefDataError,), _coref_sample,
                  lambda docs: all(d.tokens for d in docs)),
    "mrpc": (read_mrpc, (TaskDataError,), lambda s: _slice(s / "glue" / "mrpc" / "dev.tsv", 12),
             lambda rows: rows and all(r["sentence1"].strip() and r["label"] in (0, 1) for r in rows)),
    "qnli": (read_qnli, (TaskDataError,), lambda s: _slice(s / "glue" / "qnli" / "dev.tsv", 12),
             lambda rows: rows and all(r["question"].strip() and r["label"] in (0, 1) for r in rows)),
    "nli": (read_nli, (TaskDataError,), lambda s: _slice(s / "snli" / "dev_sample.tsv", 12),
            lambda rows: rows and all(r["premise"].strip() and r["label"] in (0, 1, 2) for r in rows)),
    "conll2003": (read_conll2003, (TaskDataError,), lambda s: _slice(s / "conll2003" / "valid.txt", 60),
                  lambda rows: rows and all(len(r["tokens"]) == len(r["ner_tags"]) for r in rows)),
    "m2": (lambda p: list(read_m2(p)), (M2Error,), lambda s: _m2_sample(),
           lambda rows: all(all(e.start == -1 or 0 <= e.start <= e.end <= len(r.tokens) for e in r.edits)
                            for r in rows)),
}

mutation = st.one_of(
    st.tuples(st.just("insert"), st.floats(0, 1), st.sampled_from(PIECES)),
    st.tuples(st.just("delete"), st.floats(0, 1), st.integers(1, 40)),
    st.tuples(st.just("duplicate_line"), st.floats(0, 1), st.just(0)),
    st.tuples(st.just("swap_lines"), st.floats(0, 1), st.floats(0, 1)),
    st.tuples(st.just("truncate"), st.floats(0, 1), st.just(0)),
    st.tuples(st.just("replace_byte"), st.floats(0, 1), st.integers(0, 255)),
)


def _mutate(data: bytes, ops) -> bytes:
    for kind, where, arg in ops:
        at = int(where * len(data))
        if kind == "insert":
            data = data[:at] + arg + data[at:]
        elif kind == "delete":
            data = data[:at] + data[at + arg:]
        elif kind == "replace_byte" and data:
            at = min(at, len(data) - 1)
            data = data[:at] + bytes([arg]) + data[at + 1:]
        elif kind == "truncate":
            data = data[:at]
        else:
            lines = data.split(b"\n")
            i = min(int(where * len(lines)), len(lines) - 1)
            if kind == "duplicate_line":
                lines.insert(i, lines[i])
            else:
                j = min(int(arg * len(lines)), len(lines) - 1)
                lines[i], lines[j] = lines[j], lines[i]
            data = b"\n".join(lines)
    return data


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_mutated_real_files_read_or_fail_with_one_line(name, sources, tmp_path_factory):
    reader, errors, sample, check = FORMATS[name]
    original = sample(sources)
    folder = tmp_path_factory.mktemp(f"fuzz-{name}")
    counter = itertools.count()
    tally = COUNTS.setdefault(name, {"cases": 0, "read": 0, "clean error": 0})
    check(reader(_write(folder, next(counter), original)))      # the unmutated sample reads

    @settings(max_examples=CASES, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.lists(mutation, min_size=1, max_size=4))
    def case(ops):
        path = _write(folder, next(counter), _mutate(original, ops))
        tally["cases"] += 1
        try:
            rows = reader(path)
        except (*errors, TextDecodeError) as exc:
            msg = str(exc)
            assert msg.startswith(str(path)) and "\n" not in msg, msg
            tally["clean error"] += 1
            return
        assert check(rows), f"{path}: read, but the rows are malformed"
        tally["read"] += 1

    case()
    print(f"\n{name}: {tally['cases']} cases, {tally['read']} read, {tally['clean error']} clean errors, 0 tracebacks")


def _write(folder: Path, k: int, data: bytes) -> Path:
    path = folder / f"case{k:05d}.txt"
    path.write_bytes(data)
    return path
