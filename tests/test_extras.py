"""The optional extras: each feature that needs one says so in one line, exit status 2, before
any work starts, when its extra is missing (hidden here by blocking its imports)."""

from __future__ import annotations

import sys

import pytest
from datafiles import DATA

from rompicapo.cli import main
from rompicapo.common import EXTRAS, InputError, MissingExtraError, has_extra, require_extra


@pytest.fixture
def hide(monkeypatch):
    """hide(extra): its modules cannot be imported for the rest of the test."""

    def hide_extra(extra: str) -> None:
        for module in EXTRAS[extra]:
            monkeypatch.setitem(sys.modules, module, None)

    return hide_extra


def test_every_extra_is_installed_for_the_tests_and_can_be_hidden(hide) -> None:
    for extra in EXTRAS:
        assert has_extra(extra)
    hide("plots")
    assert not has_extra("plots")
    with pytest.raises(MissingExtraError) as info:
        require_extra("plots", "the study report")
    assert isinstance(info.value, InputError) and isinstance(info.value, ImportError)
    assert str(info.value) == (
        "the study report needs the plots extra: pip install 'rompicapo[plots]'"
    )
    with pytest.raises(ValueError, match="no extra named"):
        require_extra("plot", "x")


# (command line, extra, what the line names): every command that reaches an extra
CASES = [
    (["count", "5x5", "--scheduler", "127.0.0.1:8786"], "cluster", "--scheduler needs"),
    (["cover", "{data}/exact-cover/queens-8.dlx", "--scheduler", "127.0.0.1:8786"],
     "cluster", "--scheduler needs"),
    (["polyomino", "--count", "--region", "3x20", "--scheduler", "127.0.0.1:8786"],
     "cluster", "--scheduler needs"),
    (["edges", "solve", "eternity2", "--time", "1", "--scheduler", "127.0.0.1:8786"],
     "cluster", "--scheduler needs"),
    (["path", "10", "--pdf", "{tmp}/p.pdf"], "pdf", "a PDF picture needs"),
    (["edges", "study-report", "{tmp}/none.sqlite", "--out", "{tmp}/report"], "plots",
     "the study report needs"),
    (["edges", "hunt-report", "{tmp}/none.sqlite", "--out", "{tmp}/report"], "plots",
     "the hunt report's figure needs"),
    (["serve", "--port", "1"], "web", "rompicapo serve needs"),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "extra", "says"), CASES, ids=[" ".join(c[0][:2]) for c in CASES])
def test_a_command_whose_extra_is_missing_says_which_in_one_line(
    argv, extra, says, hide, tmp_path, capsys
) -> None:
    hide(extra)
    argv = [a.format(tmp=tmp_path, data=DATA) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert says in err[0] and f"pip install 'rompicapo[{extra}]'" in err[0]
    assert list(tmp_path.iterdir()) == []  # nothing was started, nothing written


def test_the_python_api_says_it_too(hide) -> None:
    from rompicapo.paths import count_paths

    hide("cluster")
    with pytest.raises(MissingExtraError, match=r"rompicapo\[cluster\]"):
        count_paths(5, 5, scheduler="127.0.0.1:8786")
    hide("web")
    sys.modules.pop("rompicapo.web", None)
    with pytest.raises(MissingExtraError, match=r"rompicapo\[web\]"):
        import rompicapo.web  # noqa: F401
