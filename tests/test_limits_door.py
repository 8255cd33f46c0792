"""Issue 29/30 (browser walk): a gzip past the server's bound is refused with advice its user can act on,
and text from files reaches the app's Markdown only as literal text."""

import gzip
import io

import pytest

from bnexplore import cli
from bnexplore.data import read_table
from bnexplore.errors import ResourceError
from test_app import ASIA, at, errors, no_exception, upload  # noqa: F401 (at is a fixture)

BOMB = gzip.compress(b"a,b\n" + b"0,1\n" * 600_000)  # 2.4 MB of text in a few kB


def test_the_api_and_the_cli_name_the_environment_variable(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("BNEXPLORE_MAX_EXPANDED_MB", "1")
    with pytest.raises(ResourceError, match=r"more than 1\.0 MB .*set BNEXPLORE_MAX_EXPANDED_MB to allow more"):
        read_table(io.BytesIO(BOMB), name="bomb.csv.gz")
    path = tmp_path / "bomb.csv.gz"
    path.write_bytes(BOMB)
    assert cli.main(["learn", str(path)]) == 1
    assert "set BNEXPLORE_MAX_EXPANDED_MB to allow more" in capsys.readouterr().err


def test_the_app_says_what_its_user_can_do_and_keeps_the_data(at, monkeypatch):
    monkeypatch.setenv("BNEXPLORE_MAX_EXPANDED_MB", "1")
    upload(at, "bomb.csv.gz", BOMB)
    assert "expands to more than 1.0 MB when decompressed, the limit of this server" in errors(at)
    assert "ask whoever runs the server" in errors(at)
    assert "BNEXPLORE_MAX_EXPANDED_MB" not in errors(at)
    assert at.session_state["dataset"].names == ASIA


def test_an_upload_named_like_a_link_shows_no_link(at):
    name = "[x](http://evil.example).csv"
    upload(at, name, b"smoker,cough\n" + b"yes,no\nno,yes\n" * 20)
    assert at.session_state["dataset"].names == ["smoker", "cough"]
    bodies = [e.value for e in (*at.success, *at.subheader, *at.caption)]
    shown = [body for body in bodies if "evil.example" in body]
    assert shown and all(f"`upload {name}`" in body for body in shown), shown


def test_an_error_quoting_a_file_named_like_a_link_shows_no_link(at):
    name = "[x](evil.example).csv"  # the library quotes a file's base name (after the last /)
    upload(at, name, b"")
    message = errors(at)
    assert "is empty" in message and "evil.example" in message
    assert "](" not in message.replace("\\](", ""), message  # every bracket escaped: no link syntax left
    assert "\\[x\\](evil.example)" in message
    assert at.session_state["dataset"].names == ASIA


def test_messages_keep_the_widget_emphasis_and_code_spans():
    from bnexplore_app.errors import without_links

    assert without_links("raise *Most levels a text column may have* (50)") == \
        "raise *Most levels a text column may have* (50)"
    assert without_links("`[a](b)` and <c>") == "`[a](b)` and \\<c\\>"
