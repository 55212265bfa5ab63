import pytest

from robust_bench.io.conllu_io import ConlluError, parse_conllu_text, read_conllu, validate_tree, write_conllu


def row(i, form, upos, head, deprel, feats="_", xpos="_"):
    return f"{i}\t{form}\t{form.lower()}\t{upos}\t{xpos}\t{feats}\t{head}\t{deprel}\t_\t_"


GOOD = "\n".join([
    "# sent_id = s1",
    "# text = I don't sleep.",
    row(1, "I", "PRON", 4, "nsubj"),
    "2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_",
    row(2, "do", "AUX", 4, "aux"),
    row(3, "n't", "PART", 4, "advmod"),
    row(4, "sleep", "VERB", 0, "root", feats="VerbForm=Inf"),
    "4.1\tsleep\tsleep\tVERB\t_\t_\t_\t_\t0:root\t_",
    row(5, ".", "PUNCT", 4, "punct"),
    "",
    "# sent_id = s2",
    row(1, "Go", "VERB", 0, "root"),
    row(2, "!", "PUNCT", 1, "punct"),
    "", "",
])


def test_multiword_tokens_and_empty_nodes_are_kept_out_of_the_tree():
    s1, s2 = parse_conllu_text(GOOD)
    assert s1.sent_id == "s1" and s1.text == "I don't sleep."
    assert s1.forms == ("I", "do", "n't", "sleep", ".")
    assert s1.heads == (4, 4, 4, 0, 4)
    assert s1.multiword_tokens == ((2, 3, "don't"),)
    assert s1.in_multiword_token == (False, True, True, False, False)
    assert s1.feats[3] == "VerbForm=Inf" and s1.feats[0] == "_"
    assert s1.word_lines == (3, 5, 6, 7, 9)
    assert len(s2) == 2 and s2.heads == (0, 1)


def test_write_round_trip_preserves_ranges_and_empty_nodes(tmp_path):
    src = tmp_path / "in.conllu"
    src.write_text(GOOD, encoding="utf-8")
    sents = read_conllu(src)
    out = tmp_path / "out.conllu"
    write_conllu(sents, out)
    assert out.read_text(encoding="utf-8") == GOOD.rstrip("\n") + "\n\n"
    changed = sents[0].with_forms(["You", "do", "n't", "blick", "."])
    write_conllu([changed], out)
    again = read_conllu(out)[0]
    assert again.forms[3] == "blick" and again.heads == sents[0].heads
    assert again.multiword_tokens == ((2, 3, "don't"),)
    assert again.text == "You don't blick ." and sents[0].with_forms(sents[0].forms).text == sents[0].text
    assert not list(tmp_path.glob(".*.tmp"))


def _bad(text, tmp_path, name="bad.conllu"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    with pytest.raises(ConlluError) as info:
        read_conllu(p)
    return info.value


def test_wrong_column_count_names_file_and_line(tmp_path):
    text = "# sent_id = a\n" + row(1, "Hi", "INTJ", 0, "root") + "\n2\tthere\tthere\tADV\n\n"
    err = _bad(text, tmp_path)
    assert err.path.endswith("bad.conllu") and err.line == 3
    assert "10 tab-separated columns, found 4" in str(err)
    assert str(err).startswith(f"{tmp_path / 'bad.conllu'}:3:")


def test_non_integer_head(tmp_path):
    err = _bad("# sent_id = a\n" + row(1, "Hi", "INTJ", "x", "root") + "\n\n", tmp_path)
    assert (err.line, err.field) == (2, "HEAD") and "non-integer head 'x'" in err.problem


def test_out_of_range_head(tmp_path):
    text = "# sent_id = a\n" + row(1, "Hi", "INTJ", 0, "root") + "\n" + row(2, "you", "PRON", 7, "obj") + "\n\n"
    err = _bad(text, tmp_path)
    assert (err.line, err.field) == (3, "HEAD") and "out of range [0, 2]" in err.problem


def test_head_cycle(tmp_path):
    text = "\n".join(["# sent_id = a", row(1, "a", "X", 0, "root"), row(2, "b", "X", 3, "dep"),
                      row(3, "c", "X", 2, "dep"), "", ""])
    err = _bad(text, tmp_path)
    assert err.field == "HEAD" and "cycle through words [2, 3]" in err.problem and err.line in (3, 4)


def test_missing_root(tmp_path):
    text = "\n".join(["# sent_id = a", row(1, "a", "X", 2, "dep"), row(2, "b", "X", 1, "dep"), "", ""])
    err = _bad(text, tmp_path)
    assert err.field == "HEAD" and "missing root" in err.problem and err.line == 1


def test_two_roots(tmp_path):
    text = "\n".join(["# sent_id = a", row(1, "a", "X", 0, "root"), row(2, "b", "X", 0, "root"), "", ""])
    err = _bad(text, tmp_path)
    assert "more than one root" in err.problem and err.line == 3


def test_empty_sentence(tmp_path):
    text = "# sent_id = a\n" + row(1, "a", "X", 0, "root") + "\n\n# sent_id = b\n# text = \n\n"
    err = _bad(text, tmp_path)
    assert err.line == 4 and "empty sentence" in err.problem


def test_self_head_and_bad_ids_and_duplicates(tmp_path):
    err = _bad("# sent_id = a\n" + row(1, "a", "X", 1, "root") + "\n\n", tmp_path)
    assert "its own head" in err.problem
    err = _bad("# sent_id = a\n" + row(2, "a", "X", 0, "root") + "\n\n", tmp_path)
    assert err.field == "ID" and "out of sequence" in err.problem
    one = "# sent_id = a\n" + row(1, "a", "X", 0, "root") + "\n\n"
    err = _bad(one + one, tmp_path)
    assert err.field == "sent_id" and err.line == 4


def test_validate_tree_direct():
    validate_tree([2, 0, 2])
    with pytest.raises(ConlluError, match="empty sentence"):
        validate_tree([])


def test_word_forms_are_counted_once_per_file_content(tmp_path, monkeypatch):
    import robust_bench.io.conllu_io as conllu_io

    monkeypatch.setenv("ROBUST_BENCH_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "a.conllu"
    path.write_text(GOOD, encoding="utf-8")
    first = conllu_io.word_forms(path)
    assert first == {"I", "do", "n't", "sleep", ".", "Go", "!"}
    monkeypatch.setattr(conllu_io, "iter_conllu", lambda p: pytest.fail("parsed again"))
    assert conllu_io.word_forms(path) == first
    path.write_text(GOOD.replace("\tGo\tgo", "\tRun\trun"), encoding="utf-8")   # new content: counted anew
    monkeypatch.undo()
    monkeypatch.setenv("ROBUST_BENCH_CACHE", str(tmp_path / "cache"))
    assert conllu_io.word_forms(path) == first - {"Go"} | {"Run"}
    with pytest.raises(FileNotFoundError):
        conllu_io.word_forms(tmp_path / "missing.conllu")
