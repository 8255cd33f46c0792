"""Reading tables a server can afford (issue 30 items 2, 15, 20, 21; issue 29 item 8): gzip bombs refused
at the bound, lists and structures named, long cells read, wide headers refused for the true reason, blank
names renamed, the separator sniffed, and every message worded for its door."""

import gzip
import io
import warnings

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest

from bnexplore import cli
from bnexplore import limits
from bnexplore.data import csvparse, sources
from bnexplore.data import MAX_COLUMNS, read_frame, read_table
from bnexplore.errors import DataError, ResourceError
from bnexplore.limits import ENVIRONMENT


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def bomb(rows=200_000):
    """A gzip of ``rows`` rows of 0,1 (800 KB of text in about 1 KB)."""
    return gzip.compress(b"a,b\n" + b"0,1\n" * rows, 9)


# --- issue 30 item 2: gzip expands at most to the bound --------------------------------------------------


@pytest.fixture
def small_bound(monkeypatch):
    monkeypatch.setenv(ENVIRONMENT, "0.25")  # 256 KiB
    return 1 << 18


def test_a_gzip_bomb_is_refused_at_the_bound_naming_the_file(small_bound, tmp_path):
    path = tmp_path / "x.csv.gz"
    path.write_bytes(bomb())
    for source, kwargs, label in [(path, {}, "file 'x.csv.gz'"), (bomb(), {}, "the data"),
                                  (io.BytesIO(bomb()), {"name": "up.csv.gz"}, "file 'up.csv.gz'")]:
        for read in (read_table, read_frame):
            with pytest.raises(ResourceError, match=f"{label} expands to more than 0.2 MB when decompressed"):
                read(source, **kwargs)


def test_a_gzip_under_the_bound_reads_as_its_text(small_bound):
    text = b"a,b\n" + b"0,1\n1,1\n" * 1000  # 16 KB
    assert read_table(gzip.compress(text)).n_rows == 2000
    assert read_frame(gzip.compress(text))[0].equals(read_frame(text)[0])


def test_the_bound_holds_while_the_stream_is_read_not_after(small_bound, monkeypatch):
    """The limit stops the reader after at most the bound plus one piece, before Arrow holds the rest."""
    seen = []
    original = limits.BoundedStream.readinto

    def counting(self, buffer):
        read = original(self, buffer)
        seen.append(self.count)
        return read

    monkeypatch.setattr(limits.BoundedStream, "readinto", counting)
    with pytest.raises(ResourceError):
        read_table(bomb(2_000_000))  # 8 MB of text
    assert max(seen) <= small_bound + (1 << 20)


def test_the_cli_refuses_a_gzip_bomb_in_one_line(small_bound, tmp_path, capsys):
    path = tmp_path / "x.csv.gz"
    path.write_bytes(bomb())
    code = cli.main(["learn", str(path)])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1
    assert "error: file 'x.csv.gz' expands to more than 0.2 MB when decompressed" in err
    assert "Traceback" not in err


# --- issue 30 item 15: lists and structures ---------------------------------------------------------------


@pytest.mark.parametrize("column, kind", [
    (pa.array([[1, 2], [3]]), "holds a list in each cell"),
    (pa.array([{"x": 1, "y": "a"}, {"x": 2, "y": "b"}]), "holds a structure in each cell"),
    (pa.array([[("k", 1)], [("k", 2)]], type=pa.map_(pa.string(), pa.int64())), "holds a map in each cell"),
])
def test_parquet_with_a_nested_column_names_it(tmp_path, column, kind):
    path = tmp_path / "nested.parquet"
    pq.write_table(pa.table({"ok": ["a", "b"], "tags": column}), path)
    for read in (read_table, read_frame):
        with pytest.raises(DataError, match=f"file 'nested.parquet' column 'tags' {kind} .*not one value; "):
            read(path)


def test_feather_with_a_list_column_names_it(tmp_path):
    import pyarrow.feather as feather

    path = tmp_path / "nested.feather"
    feather.write_feather(pa.table({"tags": pa.array([[1], [2]]), "more": pa.array([[1], [2]])}), str(path))
    with pytest.raises(DataError, match=r"column 'tags' holds a list in each cell \(list<item: int64>\) "
                                        r"\(so do 'more'\)"):
        read_table(path)


# --- issue 30 item 20: a long cell, a wide header ----------------------------------------------------------


def test_a_ten_megabyte_cell_is_read():
    long = "y" * (10 << 20)
    text = f"a,b\nx,{long}\nz,\"{long}\"\nw,short\n".encode()
    frame, _ = read_frame(text)
    assert frame["b"].str.len().tolist() == [10 << 20, 10 << 20, 5]
    assert read_table(text).n_rows == 3


def test_a_row_longer_than_the_largest_block_is_refused_saying_so(monkeypatch):
    monkeypatch.setattr(csvparse, "CSV_BLOCK", 1 << 16)
    monkeypatch.setattr(csvparse, "CSV_BLOCK_MOST", 1 << 20)
    with pytest.raises(DataError, match="has a row longer than 1 MB .*; shorten it"):
        read_table(b"a,b\nx," + b"y" * (2 << 20) + b"\n")
    assert read_table(b"a,b\nx," + b"y" * (600 << 10) + b"\n").n_rows == 1  # 64 KB blocks grew to 1 MB


def test_a_header_longer_than_a_block_is_read():
    names = [f"variable_with_a_long_name_{'x' * 900}_{j}" for j in range(5000)]  # 4.6 MB: more than a block
    text = (",".join(names) + "\n" + ",".join("1" for _ in names) + "\n" + ",".join("2" for _ in names) + "\n")
    frame, _ = read_frame(text.encode())
    assert frame.shape == (2, 5000) and list(frame.columns) == names


def test_a_400000_column_header_is_refused_as_too_wide(monkeypatch):
    calls = []
    monkeypatch.setattr(pa_csv, "open_csv", lambda *a, **k: calls.append(1))
    header = ",".join(f"c{j}" for j in range(400_000))
    for text in (header + "\n" + ",".join("1" * 400_000) + "\n", header + "\n"):
        with pytest.raises(DataError, match=f"the data has more than {MAX_COLUMNS:,} columns "
                                            f"\\({MAX_COLUMNS + 1:,}\\+\\), .*at most {MAX_COLUMNS:,}"):
            read_frame(text.encode())
    assert not calls, "refused before Arrow allocates a column"


def test_the_column_bound_counts_fields_not_quoted_separators():
    inside = '"' + "," * (MAX_COLUMNS + 5) + '"'
    frame, _ = read_frame(f"a,b\n{inside},1\n".encode())
    assert frame.shape == (1, 2)
    exactly = ",".join(f"c{j}" for j in range(MAX_COLUMNS))
    assert read_frame(f"{exactly}\n{exactly}\n".encode())[0].shape == (1, MAX_COLUMNS)
    with pytest.raises(DataError, match=f"more than {MAX_COLUMNS:,} columns"):
        read_frame(f"{exactly},one_more\n".encode())


def test_a_parquet_file_wider_than_the_bound_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "MAX_COLUMNS", 3)
    pq.write_table(pa.table({f"c{j}": [1, 2] for j in range(4)}), tmp_path / "wide.parquet")
    with pytest.raises(DataError, match=r"file 'wide.parquet' has more than 3 columns \(4\)"):
        read_frame(tmp_path / "wide.parquet")


# --- issue 30 item 21: names that are only spaces ------------------------------------------------------------


def test_blank_and_space_only_names_are_called_by_their_position(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(b"a,   ,b,\n1,x,u,p\n2,y,v,q\n")
    with pytest.warns(UserWarning, match=r"file 't.csv' has no name for column 2 \(its name was '   '\), column 4; "
                                         r"they are called so here"):
        data = read_table(path)
    assert data.names == ["a", "column 2", "b", "column 4"]
    frame, notes = quiet(read_frame, path)
    assert list(frame.columns) == data.names and "column 2" in notes[0]


def test_a_space_only_name_can_be_given_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("smoker,  \n" + "".join(f"{'yes' if i % 3 else 'no'},{'a' if i % 2 else 'b'}\n"
                                           for i in range(60)))
    assert cli.main(["learn", str(path), "--require", "smoker->column 2"]) == 0
    assert '"column 2"' in capsys.readouterr().out


def test_a_space_only_parquet_name_is_renamed_too(tmp_path):
    pq.write_table(pa.table({"a": ["x", "y"], " ": ["u", "v"]}), tmp_path / "s.parquet")
    frame, notes = quiet(read_frame, tmp_path / "s.parquet")
    assert list(frame.columns) == ["a", "column 2"] and "column 2 (its name was ' ')" in notes[0]
    assert quiet(read_table, tmp_path / "s.parquet").names == ["a", "column 2"]


# --- issue 29 item 8: the separator is sniffed; messages name the door's option -------------------------------


@pytest.mark.parametrize("sep", [";", "\t", "|", ","])
def test_the_separator_is_sniffed(sep):
    text = sep.join(["town", "size", "note"]) + "\n"
    text += "".join(sep.join([f"t{i}", str(i % 3), f'"a{sep}b, c; d"']) + "\n" for i in range(30))
    for auto in (None, "auto"):
        frame, _ = read_frame(text.encode(), sep=auto)
        assert list(frame.columns) == ["town", "size", "note"] and frame["note"].iloc[0] == f"a{sep}b, c; d"
    assert read_frame(text.encode())[0].shape == (30, 3)  # the default sniffs


def test_sniffing_prefers_the_separator_that_splits_every_record_alike():
    text = b"a;b\n1,5;2\n3,5;4\n"  # European decimals: ';' splits every line in two, ',' does not
    assert read_frame(text)[0].columns.tolist() == ["a", "b"]
    assert read_frame(b"name\nx;y\nz\n")[0].columns.tolist() == ["name"]  # one column: ','
    assert read_frame(b"a;b\n1;2\n", sep=",")[0].columns.tolist() == ["a;b"]  # a given sep is used as given


def test_a_parse_error_says_the_sniffed_separator_and_the_option_per_door(tmp_path, capsys):
    text = b"a;b\n1;2\n3;4;5\n"
    with pytest.raises(DataError, match="line 3 has 3 fields where the first line has 2; .*read with the separator "
                                        "';', sniffed from the first lines; if that is wrong, set sep\\)"):
        read_table(text)
    with pytest.raises(DataError, match="read with the separator ';'; if that"):
        read_table(text, sep=";")
    path = tmp_path / "t.csv"
    path.write_bytes(text)
    assert cli.main(["learn", str(path), "--sep", ";"]) == 1
    err = capsys.readouterr().err
    assert "read with the separator ';'; if that is wrong, set --sep)" in err and "sep=" not in err


def test_utf16_without_a_byte_order_mark_names_encoding_in_the_cli(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_bytes("town,size\nK\u00f6ln,1\nParis,2\n".encode("utf-16-le"))
    assert cli.main(["learn", str(path)]) == 1
    err = capsys.readouterr().err
    assert "if it is UTF-16 text, set --encoding utf-16" in err and "encoding=" not in err


def test_a_semicolon_file_with_latin1_text_reads_in_the_api():
    text = "ville;taille\nK\u00f6ln;1\nParis;2\n".encode("latin-1")
    frame, notes = quiet(read_frame, text)
    assert frame["ville"].tolist() == ["K\u00f6ln", "Paris"] and "not valid UTF-8" in notes[0]
    assert pd.api.types.is_integer_dtype(frame["taille"])


@pytest.mark.parametrize("stored", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_utf16_or_utf32_given_reads_text_without_a_byte_order_mark(stored):
    """The hint says encoding='utf-16'; Python's decoder of that name refuses text without a byte-order mark."""
    text = "town,size\nK\u00f6ln,1\nParis,2\n"
    frame, _ = read_frame(text.encode(stored), encoding=stored[:6])
    assert frame.values.tolist() == [["K\u00f6ln", 1], ["Paris", 2]]


def test_messages_about_thousands_of_columns_stay_short():
    wide = pd.DataFrame({f"c{j}": [0.5 + j, 1.5 + j, 2.25 + j] for j in range(3000)})
    with pytest.raises(DataError) as refused:
        quiet(read_table, wide.to_csv(index=False).encode())
    assert len(str(refused.value)) < 1000 and "(+2980 more)" in str(refused.value)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        read_table(pd.DataFrame({f"k{j}": ["a"] * 3 for j in range(3000)}).to_csv(index=False).encode())
    assert max(len(str(w.message)) for w in seen) < 1000


def test_a_parquet_file_that_expands_past_the_bound_is_refused_from_its_footer(small_bound, tmp_path, monkeypatch):
    path = tmp_path / "big.parquet"
    pq.write_table(pa.table({"a": pa.array([0] * 1_000_000, pa.int8()), "b": pa.array([1] * 1_000_000, pa.int8())}),
                   path, compression="zstd")
    assert path.stat().st_size < 50_000
    read = []
    monkeypatch.setattr(pq.ParquetFile, "iter_batches", lambda *a, **k: read.append(1))
    for reader in (read_table, read_frame):
        with pytest.raises(ResourceError, match=r"file 'big.parquet' holds more than 131,072 cells "
                                                r"\(1,000,000 rows x 2 columns\), as many as a 0.2 MB text table"):
            reader(path)
    assert not read, "refused before a batch is read"


def test_an_arrow_file_is_refused_after_the_batch_that_passes_the_bound(small_bound, tmp_path):
    path = tmp_path / "big.arrow"
    table = pa.table({"a": pa.array([0] * 1_000_000, pa.int8()), "b": pa.array([1] * 1_000_000, pa.int8())})
    with pa.ipc.new_file(str(path), table.schema, options=pa.ipc.IpcWriteOptions(compression="zstd")) as writer:
        writer.write_table(table, max_chunksize=50_000)
    with pytest.raises(ResourceError, match=r"file 'big.arrow' holds more than 131,072 cells \(100,000\+ rows"):
        read_table(path)
    small = tmp_path / "small.arrow"
    with pa.ipc.new_file(str(small), table.schema) as writer:
        writer.write_table(table.slice(0, 60_000), max_chunksize=50_000)
    assert quiet(read_table, small).n_rows == 60_000
