"""core.files writes by what the path is: regular files replaced atomically with the mode a plain write gives,
symlinks followed, character devices and FIFOs written through, the rest refused; stems that name folders refused."""
from __future__ import annotations

import json
import os
import socket
import stat
import threading

import pytest

from cugraphlab.core.errors import InvalidArgumentError
from cugraphlab.core.files import check_output, stem_path, write_csv, write_json, write_text


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_a_new_file_gets_the_umasks_mode_not_0600(tmp_path, umask_022):
    for path, write in ((tmp_path / "r.json", lambda p: write_json(p, {"a": 1})),
                        (tmp_path / "r.csv", lambda p: write_csv(p, [{"a": 1}]))):
        write(path)
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, oct(path.stat().st_mode)


def test_a_new_file_follows_a_stricter_umask(tmp_path):
    old = os.umask(0o077)
    try:
        write_json(tmp_path / "r.json", {"a": 1})
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "r.json").stat().st_mode) == 0o600


def test_an_existing_file_keeps_its_mode_and_is_replaced_atomically(tmp_path, umask_022):
    path = tmp_path / "r.json"
    path.write_text("old")
    path.chmod(0o664)
    inode = path.stat().st_ino
    write_json(path, {"new": True})
    assert json.loads(path.read_text()) == {"new": True}
    assert stat.S_IMODE(path.stat().st_mode) == 0o664
    assert path.stat().st_ino != inode  # a new file renamed over the old one
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_a_symlink_is_followed_and_kept(tmp_path):
    target = tmp_path / "data" / "real.json"
    target.parent.mkdir()
    target.write_text("{}")
    link = tmp_path / "latest.json"
    link.symlink_to(target)
    assert write_json(link, {"v": 2}) == link
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert json.loads(target.read_text()) == {"v": 2}
    assert sorted(p.name for p in target.parent.iterdir()) == ["real.json"]


def test_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "latest.json"
    link.symlink_to(tmp_path / "made.json")
    write_json(link, [1])
    assert link.is_symlink() and json.loads((tmp_path / "made.json").read_text()) == [1]


def test_a_fifo_is_written_through(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = {}

    def read():
        with open(fifo, encoding="utf-8") as fh:
            got["text"] = fh.read()

    reader = threading.Thread(target=read)
    reader.start()
    assert check_output(fifo) == "write through"
    write_json(fifo, {"through": "the pipe"})
    reader.join(10)
    assert json.loads(got["text"]) == {"through": "the pipe"}
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # not replaced by a regular file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


@pytest.mark.skipif(not os.path.isdir("/dev/fd"), reason="needs /dev/fd (a shell's >(...) path)")
def test_a_process_substitution_path_reaches_its_pipe():
    """``--json >(jq .)`` hands the command /dev/fd/63, a link whose text (``pipe:[...]``) names no file."""
    r, w = os.pipe()
    try:
        assert check_output(f"/dev/fd/{w}") == "write through"
        write_json(f"/dev/fd/{w}", {"to": "jq"})
        os.close(w)
        w = None
        assert json.loads(os.read(r, 1 << 16)) == {"to": "jq"}
    finally:
        os.close(r)
        if w is not None:
            os.close(w)


def test_a_character_device_is_written_through_never_replaced():
    assert check_output(os.devnull) == "write through"  # asked first: a regular-file write would replace it as root
    write_text(os.devnull, "nothing\n")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


@pytest.mark.parametrize("make, words", [
    (lambda p: p.mkdir(), "is a folder"),
    (lambda p: socket.socket(socket.AF_UNIX).bind(str(p)), "not a regular file, a character device or a FIFO"),
])
def test_what_cannot_be_written_is_refused_before_anything_is_written(tmp_path, make, words):
    path = tmp_path / "out"
    make(path)
    with pytest.raises(InvalidArgumentError, match=words):
        write_json(path, {"a": 1})


def test_an_empty_path_and_a_path_under_a_file_are_refused(tmp_path):
    with pytest.raises(InvalidArgumentError, match="an empty path"):
        check_output("")
    (tmp_path / "f").write_text("x")
    with pytest.raises(InvalidArgumentError, match="is not a folder"):
        check_output(tmp_path / "f" / "out.json")


@pytest.mark.parametrize("stem", ["plots/", "a/b/", "", ".", "..", "figs/.."])
def test_a_stem_that_names_a_folder_is_refused(stem):
    with pytest.raises(InvalidArgumentError, match="names a folder, not files"):
        stem_path(stem)


def test_a_stem_with_dots_or_a_folder_is_kept():
    assert str(stem_path("plots/run.v2")) == "plots/run.v2" and str(stem_path("run")) == "run"


def test_the_figure_writer_refuses_a_folder_stem(tmp_path):
    pytest.importorskip("matplotlib")
    from cugraphlab.report.plots import pyplot, save

    fig = pyplot().figure()
    with pytest.raises(InvalidArgumentError, match="names a folder"):
        save(fig, f"{tmp_path}/plots/")
    assert not (tmp_path / "plots.png").exists()
