"""pentago.Position and the text forms: parse and print agree with each other and with
pentago-lookup, and bad boards raise the CLI's one-line messages."""

import pytest

import pentago
from conftest import run_tool

# A ten-stone board (decimal code).
CODE = "1884762830674468934"


def test_forms_round_trip():
    p = pentago.Position(CODE)
    assert p.code == CODE and not p.to_rotate
    assert pentago.parse(p.compact) == p
    assert pentago.parse(p.picture) == p
    assert pentago.Position(int(CODE)) == p
    assert pentago.Position(p.board, False) == p
    assert len(p.compact) == 36
    assert p != CODE and p is not None  # a Position equals only Positions


def test_to_rotate():
    p = pentago.parse(CODE + "m")
    assert p.to_rotate and p.code == CODE + "m" and p.compact.endswith("m")
    assert pentago.parse(p.compact) == p
    assert p != pentago.parse(CODE)
    assert hash(p) != hash(pentago.parse(CODE))


def test_compact_form_by_hand():
    # Black at the top-left corner: row a, column 1 is the first character.
    p = pentago.parse("0" + "_" * 35)
    assert p.stones == 1 and p.compact == "0" + "_" * 35
    assert pentago.parse("." * 36).board == 0


def test_picture_matches_cli(bin_dir):
    # A board the midgame solver answers at once, so that pentago-lookup prints its picture.
    p = pentago.Position(int(pentago.random_positions(30, 1, seed=3)[0]))
    text = run_tool(bin_dir, "pentago-lookup", "--no-moves", "--threads", "1", p.code).stdout
    assert text.startswith(p.picture + "\n")
    assert pentago.parse(p.picture) == p


@pytest.mark.parametrize("bad", ["19683", "0" * 36, "1" + "_" * 35, "0m"])
def test_errors_match_cli(bin_dir, bad):
    result = run_tool(bin_dir, "pentago-lookup", bad, check=False)
    assert result.returncode == 2
    with pytest.raises(pentago.UsageError) as caught:
        pentago.parse(bad)
    assert result.stderr == f"pentago-lookup: {caught.value}\n"
    assert isinstance(caught.value, pentago.Error)


def test_wrong_type():
    with pytest.raises(pentago.UsageError, match="not float"):
        pentago.parse(1.5)
