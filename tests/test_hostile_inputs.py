"""Hostile input, class by class (issue 15, item 3): encodings, TSV, M2, command-line options,
result records and model paths. Each bad input must stop with one clear line naming the file, the
line and the field (or the option); nothing is written."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robust_bench.cli import app
from robust_bench.io.conll2012 import read_conll2012
from robust_bench.io.conllu_io import read_conllu
from robust_bench.io.fileio import TextDecodeError, read_lines
from robust_bench.io.m2 import M2Error, read_m2
from robust_bench.io.task_data import TaskDataError, read_conll2003, read_mrpc, read_nli, read_qnli
from robust_bench.results.records import RecordError, validate_record

BOM = b"\xef\xbb\xbf"
M2_TEXT = ("S He go to the school .\nA 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0\n\n"
           "S She like apples .\nA 1 2|||R:VERB:SVA|||likes|||REQUIRED|||-NONE-|||0\n\n")


def _invoke(args):
    result = CliRunner().invoke(app, args, prog_name="robust-bench")
    return result.exit_code, result.stdout, result.stderr


# ---------------------------------------------------------------- encodings

def _ewt_head(sources: Path, n_bytes: int = 30_000) -> bytes:
    data = (sources / "ud_english_ewt" / "en_ewt-ud-dev.conllu").read_bytes()
    end = data.index(b"\n\n", n_bytes) + 2
    return data[:end]


def test_a_utf8_bom_is_read_in_every_text_format(tmp_path, sources):
    conllu = _ewt_head(sources)
    (tmp_path / "plain.conllu").write_bytes(conllu)
    (tmp_path / "bom.conllu").write_bytes(BOM + conllu)
    plain, bom = read_conllu(tmp_path / "plain.conllu"), read_conllu(tmp_path / "bom.conllu")
    assert [s.forms for s in bom] == [s.forms for s in plain] and [s.sent_id for s in bom] == [s.sent_id for s in plain]

    (tmp_path / "bom.m2").write_bytes(BOM + M2_TEXT.encode())
    sents = list(read_m2(tmp_path / "bom.m2"))
    assert [s.tokens[0] for s in sents] == ["He", "She"]

    conll03 = (sources / "conll2003" / "valid.txt").read_bytes()[:5000].rsplit(b"\n\n", 1)[0] + b"\n"
    (tmp_path / "bom.conll").write_bytes(BOM + conll03)
    (tmp_path / "plain.conll").write_bytes(conll03)
    assert read_conll2003(tmp_path / "bom.conll") == read_conll2003(tmp_path / "plain.conll")

    coref = "#begin document (a); part 000\na\t0\t0\tHe\t-\t-\t-\t-\t-\t-\t-\t(0)\n\n#end document\n"
    (tmp_path / "bom.conll12").write_bytes(BOM + coref.encode())
    assert read_conll2012(tmp_path / "bom.conll12")[0].tokens == ["He"]

    mrpc = (sources / "glue" / "mrpc" / "dev.tsv").read_bytes()   # GLUE's file starts with a BOM itself
    (tmp_path / "nobom.tsv").write_bytes(mrpc.removeprefix(BOM))
    assert read_mrpc(sources / "glue" / "mrpc" / "dev.tsv") == read_mrpc(tmp_path / "nobom.tsv")


def test_invalid_utf8_names_the_file_the_line_and_the_byte_offset_in_the_file(tmp_path, sources):
    data = bytearray(_ewt_head(sources, 40_000))
    at = 20_011                     # far beyond an 8 KiB read buffer
    data[at] = 0xFF
    path = tmp_path / "bad.conllu"
    path.write_bytes(bytes(data))
    line = data.count(b"\n", 0, at) + 1
    with pytest.raises(TextDecodeError) as err:
        read_conllu(path)
    assert (err.value.line, err.value.offset) == (line, at)
    assert str(err.value).startswith(f"{path}:{line}: not valid UTF-8 at byte offset {at} of the file")
    # the same through a command: one line, exit 2, no traceback
    m2 = tmp_path / "bad.m2"
    m2.write_bytes(M2_TEXT.encode()[:30] + b"\xc3(" + M2_TEXT.encode()[30:])
    code, out, err_text = _invoke(["fit-confusions", str(m2), "-o", str(tmp_path / "c.json")])
    assert code == 2 and err_text.count("\n") == 1 and "Traceback" not in err_text
    assert f"{m2}:2: not valid UTF-8 at byte offset 30" in err_text
    assert not (tmp_path / "c.json").exists()


def test_line_ends_are_only_newlines(tmp_path):
    (tmp_path / "t.txt").write_bytes(b"a\x0cb\r\nc\\u2028d\nlast".replace(b"\\u2028", "\u2028".encode()))
    assert read_lines(tmp_path / "t.txt") == ["a\x0cb", "c\u2028d", "last"]


# ---------------------------------------------------------------- TSV

def _mrpc(rows):
    head = "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n"
    return head + "".join("\t".join(r) + "\n" for r in rows)


@pytest.mark.parametrize("sentence, message", [
    ("x" * 131_073, "sentence1: 131,073 characters; a text field holds at most 100,000"),
    ("", "sentence1: empty or whitespace-only text"),
    ("   ", "sentence1: empty or whitespace-only text"),
    ("a\x00b", "sentence1: NUL character at column 2"),
])
def test_tsv_text_fields_are_checked(tmp_path, sentence, message):
    path = tmp_path / "mrpc.tsv"
    path.write_text(_mrpc([("1", "1", "2", "A fine sentence .", "Another ."), ("0", "3", "4", sentence, "Fine .")]),
                    encoding="utf-8")
    with pytest.raises(TaskDataError, match=f"^{path}:3: {message}"):
        read_mrpc(path)


@pytest.mark.parametrize("text", ["", "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n"])
def test_an_empty_or_header_only_file_names_the_file(tmp_path, text):
    path = tmp_path / "mrpc.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TaskDataError, match=f"^{path}: no examples"):
        read_mrpc(path)


def test_other_readers_refuse_empty_files_and_short_rows(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    for reader in (read_nli, read_qnli, read_conll2003):
        with pytest.raises(TaskDataError, match=f"^{empty}: no "):
            reader(empty)
    nli = tmp_path / "nli.tsv"
    nli.write_text("gold_label\tsentence1\tsentence2\nneutral\tA man .\n", encoding="utf-8")
    with pytest.raises(TaskDataError, match=f"^{nli}:2: expected 3 tab-separated fields"):
        read_nli(nli)


def test_real_mrpc_train_keeps_its_control_character(sources):
    """MRPC train has U+0012 for an apostrophe; it is legal and kept (the pinned corpus uses it)."""
    rows = read_mrpc(sources / "glue" / "mrpc" / "train.tsv")
    assert len(rows) == 3668 and any("\x12" in r["sentence1"] for r in rows)


# ---------------------------------------------------------------- M2

def test_m2_edits_without_their_sentence_and_spans_outside_it_are_errors(tmp_path):
    path = tmp_path / "a.m2"
    path.write_text(M2_TEXT + "A 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n", encoding="utf-8")
    with pytest.raises(M2Error, match=f"^{path}:7: edit before any sentence"):
        list(read_m2(path))
    path.write_text("S He go .\nA 5 9|||UNMAPPED:TAG|||goes|||REQUIRED|||-NONE-|||0\n", encoding="utf-8")
    with pytest.raises(M2Error, match=f"^{path}:2: span 5-9 outside the 3-token sentence"):
        list(read_m2(path))


# ---------------------------------------------------------------- options

#: every bad argument tried, and the start of the one line it must give (exit 2)
BAD_ARGUMENTS = [
    (["attack", "--model", "m", "--config", "gec_mrpc", "--budget", "0"], "--budget: must be in (0, 1], got 0.0"),
    (["attack", "--model", "m", "--config", "gec_mrpc", "--budget", "1.5"], "--budget: must be in (0, 1], got 1.5"),
    (["attack", "--model", "m", "--config", "gec_mrpc", "--budget", "nan"], "--budget: must be in (0, 1], got nan"),
    (["attack", "--model", "m", "--config", "gec_mrpc", "--budget", "-0.1"], "--budget: must be in (0, 1], got -0.1"),
    (["attack", "--model", "m", "--config", "gec_mrpc", "--limit", "0"], "--limit: must be at least 1, got 0"),
    (["attack", "--model", "m", "--config", "gec_mrpc", "--search", "random"], "--search: must be one of greedy"),
    (["attack", "--model", "m", "--config", "gec_mrpc", "--output-dir", "{file}"], "--output-dir: {file} is a file"),
    (["probe", "--model", "m", "--trials", "0"], "--trials: must be at least 1, got 0"),
    (["probe", "--model", "m", "--epochs", "0"], "--epochs: must be at least 1, got 0"),
    (["probe", "--model", "m", "--batch-size", "0"], "--batch-size: must be at least 1, got 0"),
    (["probe", "--model", "m", "--max-sentences", "-3"], "--max-sentences: must be at least 1, got -3"),
    (["probe", "--model", "m", "--probe", "linear"], "--probe: must be one of structural, perceptron, both"),
    (["probe", "--model", "m", "--variant", "fast"], "--variant: must be one of scaled, paper"),
    (["probe", "--model", "m", "--static-vectors", "{missing}"], "--static-vectors: {missing} does not exist"),
    (["probe", "--model", "m", "--trials", "abc"], "robust-bench probe: Invalid value for '--trials'"),
    (["probe", "--model", "./no/such/model", "--repo", "{dir}"], "model folder './no/such/model' does not exist"),
    (["probe-figure", "{dir}"], "RUNS: {dir}/run.json does not exist"),
    (["probe-figure", "{dir}", "--out", "{dir}"], "--out: {dir} is a folder; give a file path"),
    (["run", "--model", "m", "--limit", "0"], "--limit: must be at least 1, got 0"),
    (["run", "--model", "m", "--batch-size", "0"], "--batch-size: must be at least 1, got 0"),
    (["run", "--model", "m", "--executor", "ray", "--shards", "0"], "--shards: must be at least 1, got 0"),
    (["run", "--model", "m", "--executor", "dask"], "--executor: must be one of local, ray"),
    (["build", "gec_mrpc", "--num-proc", "0"], "--num-proc: must be at least 1, got 0"),
    (["build", "gec_mrpc", "--error-rate", "2"], "--error-rate: must be in (0, 1], got 2.0"),
    (["build", "gec_mrpc", "--confusions", "{missing}"], "--confusions: {missing} does not exist"),
    (["build", "gec_mrpc", "--out", "{file}"], "--out: {file} is a file; give a folder"),
    (["evaluate", "--config", "lit_mnli", "--batch-size", "0"], "--batch-size: must be at least 1, got 0"),
    (["evaluate", "--config", "lit_mnli", "--temperature", "-1"], "--temperature: must be a positive number"),
    (["evaluate", "--config", "names_mrpc", "--resemble", "1,x"], "--resemble: must be positive integers M"),
    (["evaluate", "--config", "lit_mnli", "--model", "m", "--random"], "--random: does not apply to --config lit_mnli"),
    (["evaluate", "--config", "names_conll2003", "--resemble", "1"], "--resemble: does not apply"),
    (["evaluate", "--config", "names_mrpc", "--model", "m", "--split", "validation"], "name swaps score the test split"),
    (["check", "--baseline", "{dir}", "--candidate", "{dir}", "--alpha", "1"], "--alpha: must be in (0, 1), got 1.0"),
    (["check", "--baseline", "{dir}", "--candidate", "{dir}", "--tolerance", "nan"], "--tolerance: must be a number"),
    (["audit", "lit_mnli", "--sample", "0"], "--sample: must be at least 1, got 0"),
    (["fit-confusions", "{missing}", "-o", "c.json"], "M2_FILE: {missing} does not exist"),
    (["fit-confusions", "{m2}", "-o", "{dir}"], "--output: {dir} is a folder; give a file path"),
    (["attack-parser", "--parser", "spacy:x", "--vectors", "{missing}"], "--vectors: {missing} does not exist"),
    (["nope"], "robust-bench: No such command 'nope'"),
    # issue 28: an empty path is not the current folder; seeds are what NumPy and PyTorch take; shards are i/N
    (["build", "gec_mrpc", "--out", ""], "--out: empty value"),
    (["build", "gec_mrpc", "--out="], "--out: empty value"),
    (["attack", "--model", "m", "--config", "gec_mrpc", "--output-dir", " "], "--output-dir: empty value"),
    (["build", "gec_mrpc", "--seed", "-1"], "--seed': must be in [0, 2**32), got -1"),
    (["build", "gec_mrpc", "--seed", "9" * 401], "--seed': must be in [0, 2**32), got 99999999999999999999..."),
    (["run", "--model", "m", "--seed", str(2 ** 32)], "--seed': must be in [0, 2**32)"),
    (["audit", "lit_mnli", "--seed", "-5"], "--seed': must be in [0, 2**32)"),
    (["probe", "--model", "m", "--seed", "-1"], "--seed': must be in [0, 2**32)"),
    (["attack-parser", "--parser", "spacy:x", "--seed", "-1"], "--seed': must be in [0, 2**32)"),
    (["attack", "--model", "m", "--config", "gec_mrpc", "--seed", "-1"], "--seed': must be in [0, 2**32)"),
    (["run", "--model", "m", "--shard", "3/2"], "--shard must be i/N with 1 <= i <= N, e.g. 1/2; got '3/2'"),
    (["run", "--model", "m", "--shard", "0/0"], "--shard must be i/N with 1 <= i <= N, e.g. 1/2; got '0/0'"),
]


def test_bad_arguments_exit_2_with_one_line(tmp_path, capsys):
    """Every option is checked before anything is loaded: exit 2, one line on stderr, no traceback,
    nothing written. Prints the table of the closing note."""
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    (tmp_path / "a.m2").write_text(M2_TEXT, encoding="utf-8")
    (tmp_path / "adir").mkdir()
    fill = {"file": str(tmp_path / "afile"), "missing": str(tmp_path / "missing.txt"), "dir": str(tmp_path / "adir"),
            "m2": str(tmp_path / "a.m2")}
    before = sorted(p.name for p in tmp_path.rglob("*"))
    rows = []
    for args, expected in BAD_ARGUMENTS:
        args = [a.format(**fill) for a in args]
        expected = expected.format(**fill)
        code, out, err = _invoke(args)
        rows.append(f"| `robust-bench {' '.join(args).replace(str(tmp_path), '$TMP')}` | "
                    f"{err.strip().replace(str(tmp_path), '$TMP')} |")
        assert code == 2, (args, code, out, err)
        assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err, (args, err)
        assert expected in err, (args, err)
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
    with capsys.disabled():
        print("\n" + "\n".join(rows))


# ---------------------------------------------------------------- result records

RANGES = {"acc_ori": (0.0, 1.0)}


def _record(**change):
    from tests.test_records import v2_record

    rec = v2_record()
    for key, value in change.items():
        if key == "metric":
            rec["metrics"]["acc_ori"] = value
        else:
            rec[key] = value
    return rec


@pytest.mark.parametrize("change, field", [
    ({"metric": math.nan}, "metrics/acc_ori"),
    ({"metric": math.inf}, "metrics/acc_ori"),
    ({"metric": -math.inf}, "metrics/acc_ori"),
    ({"metric": 1.5}, "metrics/acc_ori"),
    ({"metric": -0.2}, "metrics/acc_ori"),
    ({"corpus_sha256": "a" * 64 + "\n"}, "corpus_sha256"),
    ({"timestamp": "2026-11-22"}, "timestamp"),
    ({"timestamp": "2026-11-22T14:00:00"}, "timestamp"),
    ({"timestamp": "yesterday"}, "timestamp"),
    ({"config": "x" * 20_000}, "config"),
    ({"details": {"a": [math.nan]}}, "details/a/0"),
])
def test_records_must_be_strict_finite_and_in_range(change, field):
    with pytest.raises(RecordError, match=f"field '{field}'"):
        validate_record(_record(**change), ranges=RANGES)


def test_build_never_replaces_a_readme_that_is_not_its_card(tmp_path, monkeypatch, sources):
    """`build --out ""` once wrote data/ into the current folder and replaced the user's README.md: an
    empty path is refused (above), and a folder whose README.md is not a robust-bench card is never
    written into."""
    from robust_bench.data.repository import ForeignReadmeError, build_config, write_card

    own = tmp_path / "project"
    own.mkdir()
    (own / "README.md").write_text("# My project\n\nMy own notes.\n", encoding="utf-8")
    monkeypatch.chdir(own)
    code, out, err = _invoke(["build", "gec_mrpc", "--out", ""])
    assert code == 2 and "--out: empty value" in err
    code, out, err = _invoke(["build", "jabberwocky_ewt", "--out", str(own), "--source", str(sources)])
    assert code == 2 and "is not a robust-bench dataset card" in err and "Traceback" not in err, err
    with pytest.raises(ForeignReadmeError):
        build_config("jabberwocky_ewt", out=own, source=sources)
    with pytest.raises(ForeignReadmeError):
        write_card(own)
    assert (own / "README.md").read_text(encoding="utf-8") == "# My project\n\nMy own notes.\n"
    assert sorted(p.name for p in own.iterdir()) == ["README.md"]


def test_a_missing_spacy_model_is_one_line_not_a_datasets_traceback(tmp_path, sources):
    code, out, err = _invoke(["build", "gec_mrpc", "--out", str(tmp_path / "rb"), "--source", str(sources),
                              "--spacy-model", str(tmp_path / "does" / "not" / "exist")])
    errors = [line for line in err.splitlines() if line.startswith("error: ")]   # besides datasets' progress bars
    assert code == 2 and len(errors) == 1 and "does/not/exist" in errors[0], err
    assert "Traceback" not in err and "DatasetGenerationError" not in err, err
    assert not (tmp_path / "rb" / "data").exists()


def test_control_characters_and_relationless_heads_are_refused_with_file_and_line(tmp_path):
    from robust_bench.io.conll2012 import CorefDataError, read_conll2012
    from robust_bench.io.conllu_io import ConlluError, read_conllu

    good = "1\tThe\tthe\tDET\tDT\t_\t2\tdet\t_\t_\n2\tdog\tdog\tNOUN\tNN\t_\t0\troot\t_\t_\n\n"
    (tmp_path / "ok.conllu").write_text(good, encoding="utf-8")
    assert len(read_conllu(tmp_path / "ok.conllu")) == 1
    for name, text, line, field in (("nul.conllu", good.replace("dog\tdog", "d\x00og\tdog"), 2, "FORM"),
                                    ("esc.conllu", good.replace("\tthe\t", "\tth\x1be\t"), 1, "LEMMA"),
                                    ("norel.conllu", good.replace("\tdet\t", "\t_\t"), 1, "DEPREL"),
                                    ("empty.conllu", good.replace("\tdet\t", "\t\t"), 1, "DEPREL")):
        (tmp_path / name).write_text(text, encoding="utf-8")
        with pytest.raises(ConlluError) as exc:
            read_conllu(tmp_path / name)
        assert f"{name}:{line}: {field}:" in str(exc.value), str(exc.value)
    doc = "#begin document (d); part 000\nd\t0\t0\tHe\tPRP\t-\t-\t-\t-\t-\t*\t(0)\n\n#end document\n"
    (tmp_path / "nul.conll").write_text(doc.replace("\tHe\t", "\tH\x00e\t"), encoding="utf-8")
    with pytest.raises(CorefDataError, match=r"nul.conll:2: word column: control character U\+0000"):
        read_conll2012(tmp_path / "nul.conll")
    (tmp_path / "empty.conll").write_text("", encoding="utf-8")
    with pytest.raises(CorefDataError, match=r"empty.conll: no document"):
        read_conll2012(tmp_path / "empty.conll")
    (tmp_path / "ok.conll").write_text(doc, encoding="utf-8")
    assert read_conll2012(tmp_path / "ok.conll")[0].tokens == ["He"]


def test_a_missing_default_pipeline_says_where_the_released_wheel_is(monkeypatch):
    """The default parser is the reference pipeline, which `spacy download` does not know: its error names
    the released wheel and the recipe; another missing package is told to `spacy download` it."""
    import spacy

    from robust_bench.text import nlp
    from robust_bench.text.reference_pipeline import WHEEL_URL

    def missing(name, *args, **kwargs):
        raise OSError(f"[E050] Can't find model '{name}'")
    monkeypatch.setattr(spacy, "load", missing)
    nlp._load.cache_clear()
    with pytest.raises(nlp.SpacyModelError, match=f"pip install {WHEEL_URL}.*robust-bench pipeline train"):
        nlp._load(nlp.DEFAULT_SPACY_MODEL)
    with pytest.raises(nlp.SpacyModelError, match="python -m spacy download en_core_web_md"):
        nlp._load("en_core_web_md")
    nlp._load.cache_clear()
