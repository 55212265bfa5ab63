"""Task readers: malformed rows and unknown labels name the file, the line and the field."""

import pytest

from robust_bench.io.task_data import TaskDataError, read_conll2003, read_nli, read_qnli, read_sst2


@pytest.mark.parametrize("reader,text,message", [
    (read_sst2, "a good film\t1\nbad\tmaybe\n", r"x.tsv:2: label: unknown label 'maybe'"),
    (read_sst2, "a good film\t1\ntoo\tmany\tfields\n", r"x.tsv:2: expected 2 tab-separated fields, found 3"),
    (read_qnli, "wrong\theader\n", r"x.tsv:1: expected the header 'index<TAB>question<TAB>sentence"),
    (read_nli, "entailment\tonly two\n", r"x.tsv:1: expected 3 tab-separated fields, found 2"),
    (read_nli, "agree\tA man .\tA person .\n", r"x.tsv:1: label: unknown label 'agree'"),
    (read_conll2003, "EU NNP B-NP B-ORG\nrejects VBZ B-VP X-ORG\n", r"x.tsv:2: label: unknown label 'X-ORG'"),
])
def test_bad_rows_name_file_line_and_field(tmp_path, reader, text, message):
    path = tmp_path / "x.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TaskDataError, match=message):
        reader(path)


def test_sst2_header_is_optional_and_labels_are_indices(tmp_path):
    path = tmp_path / "x.tsv"
    path.write_text("sentence\tlabel\ngood\t1\nbad\t0\n", encoding="utf-8")
    assert read_sst2(path) == [{"idx": 0, "sentence": "good", "label": 1}, {"idx": 1, "sentence": "bad", "label": 0}]
