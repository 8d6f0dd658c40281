"""The claims ledger (simulator/studies/ledger.py): append-only, checked by ``ginsim confirm``.

The ledgers on this commit extend their parent's (skipped outside a git checkout, e.g. in an
installed wheel), and the same check fails on a commit that edits or removes an entry; a
changed claim, an unregistered one and a registered one missing from the claims file are
refused in one line naming the claim, with nothing written; a confirmation's sizes are in
the ledger before it plays and a second confirmation takes a new salt instead of
extending the first; ``ginsim claims log`` lists every claim ever registered.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from simulator.cli import main
from simulator.run.seeds import derive_seed
from simulator.studies import confirm as C
from simulator.studies import ledger as L
from simulator.studies import ledger_history as H
from test_confirm import tiny_study  # the tiny study: knock_early against random, hoyle

ROOT = Path(__file__).resolve().parent.parent

CLAIMS = """
max_deals = 2_000

[[claims]]
id = "knock_early_wins"
margin_from = "study"
statement = "knock_early beats random per hand by more than 40 points"
metric = "net_points"
unit = "hand"
a = "knock_early"
b = "random"
rules = "hoyle"
above = 40.0
note = "a note is commentary, not content: editing it changes no claim"

[[claims]]
id = "random_loses"
margin_from = "study"
statement = "random loses to knock_early per hand"
metric = "net_points"
unit = "hand"
a = "random"
b = "knock_early"
rules = "hoyle"
sign = "negative"
"""


@pytest.fixture
def study(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tiny_study(tmp_path, CLAIMS)


def _ledger(study) -> Path:
    return study / "experiments" / "ledger" / "tiny.jsonl"


def _entries(study) -> list[dict]:
    return [json.loads(line) for line in _ledger(study).read_text().splitlines()]


# ----------------------------------------------------------------------------- history

def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def _commit(repo: Path, text: str, message: str) -> None:
    path = repo / "experiments" / "ledger" / "s.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", message)


def test_the_ledgers_on_this_commit_extend_their_parents():
    if not H.is_git_checkout(ROOT):
        pytest.skip("not a git checkout (an installed wheel, a source archive): no history to check")
    assert H.history_problems(ROOT) == []
    assert H.working_tree_problems(ROOT) == []


def test_every_committed_study_with_a_ledger_has_its_claims_as_registered_and_cells_for_them(monkeypatch):
    """What ``ginsim confirm STUDY`` checks before it plays, for every study with a ledger
    here, without playing: its claims file is the ledger's (``open_protocol``), and each
    claim of an experiment file names a cell of its study, so a claim registered and not yet
    confirmed is as sound as one confirmed."""
    from simulator.run.experiment import load_experiment
    from simulator.studies import kinds as K

    monkeypatch.chdir(ROOT)
    names = sorted(p.stem for p in (ROOT / "experiments" / L.LEDGER_DIR).glob(f"*{L.SUFFIX}"))
    assert "field" in names and "challenger" in names
    for name in names:
        study = K.find_study(name)
        protocol = C.open_protocol(name, study.claims_file, study.experiments)
        assert protocol.claims.claims, name
        if study.kind is K.EXPERIMENT:
            exp = load_experiment(study.path)
            for claim in protocol.claims.claims:
                assert C._find_cells(exp, claim, str(study.claims_file)), (name, claim.id)


def test_the_history_check_fails_on_a_commit_that_edits_or_removes_an_entry(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    one, two, three = ('{"entry": "register", "id": "a"}\n', '{"entry": "register", "id": "b"}\n',
                       '{"entry": "withdraw", "id": "a"}\n')
    _commit(repo, one + two, "first")
    assert H.is_git_checkout(repo) and H.history_problems(repo) == []  # a new ledger extends nothing
    _commit(repo, one + two + three, "appended")
    assert H.history_problems(repo) == []
    (repo / "experiments" / "ledger" / "s.jsonl").write_text(one + three)  # not committed yet
    assert H.working_tree_problems(repo) == ["experiments/ledger/s.jsonl: the file in the work tree is not an "
                                             "extension of the ledger before it: line 2 changed"]
    _commit(repo, one.replace('"a"', '"c"') + two + three, "edited")
    assert H.history_problems(repo) == ["experiments/ledger/s.jsonl: its version at HEAD is not an extension of "
                                        "the ledger before it: line 1 changed"]
    _commit(repo, one + two + three, "back")  # an edit put back is again an edit of its parent
    assert H.history_problems(repo) != []
    _commit(repo, one + two, "removed")
    assert H.history_problems(repo) == ["experiments/ledger/s.jsonl: its version at HEAD is not an extension of "
                                        "the ledger before it: line 3 removed"]
    (repo / "experiments" / "ledger" / "s.jsonl").unlink()
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "deleted")
    assert H.history_problems(repo) == ["experiments/ledger/s.jsonl: deleted at HEAD; a ledger is never deleted"]


def test_a_merge_keeps_both_sides_entries_in_their_order_and_nothing_else_passes(tmp_path):
    """Two branches that each appended to a ledger merge into one that starts with the ledger
    they shared and holds every entry of each side in its order (interleaved by date); a merge
    that drops or reorders an entry of either side fails."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    base, ours, theirs = ('{"id": "a"}\n', '{"id": "ours"}\n', '{"id": "theirs"}\n')
    _commit(repo, base, "base")
    _git(repo, "checkout", "-q", "-b", "side")
    _commit(repo, base + theirs, "theirs")
    _git(repo, "checkout", "-q", "main")
    _commit(repo, base + ours, "ours")

    def merge(text: str) -> list[str]:
        _git(repo, "checkout", "-q", "main")
        _git(repo, "reset", "-q", "--hard", "main@{0}")
        subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "merge", "-q",
                        "--no-ff", "--no-commit", "side"], capture_output=True)
        _commit(repo, text, "merged")
        problems = H.history_problems(repo)
        _git(repo, "reset", "-q", "--hard", "HEAD~1")
        return problems

    assert merge(base + theirs + ours) == []  # the side's entry first (it is older): both kept in order
    assert merge(base + ours + theirs) == []
    assert merge(base + ours) == ["experiments/ledger/s.jsonl: its version at HEAD drops or reorders line 2 "
                                  "of a parent's ledger"]
    assert merge(theirs + base + ours) != []  # the shared ledger is no longer its start


# ----------------------------------------------------------------------------- the ledger's own checks

def test_a_ledger_line_that_breaks_its_history_is_one_error_naming_the_line(tmp_path):
    entry = L.register_entry({"id": "x", "statement": "s", "metric": "net_points", "unit": "hand", "a": "simple",
                              "b": "simple", "rules": "hoyle", "above": 1}, "2026-12-01T00:00:00Z")
    assert entry["claim"]["above"] == 1.0  # numbers are floats: 1 and 1.0 are one claim
    good = L.entry_line(entry)
    withdrawn = L.entry_line({"entry": "withdraw", "id": "x", "date": "2026-12-02T00:00:00Z", "reason": "r"})
    cases = [
        (good + good, "2: id: 'x' is registered already"),
        (good.replace('"above": 1.0', '"above": 2.0'), "1: hash: is not the sha256 of the entry's claim"),
        (withdrawn, "1: id: 'x' is not registered before this line"),
        (good + withdrawn + withdrawn, "3: id: 'x' was withdrawn on 2026-12-02T00:00:00Z"),
        (good + '{"entry": "confirm"', "2: line: not a JSON object"),
        (good + '{"entry": "vote", "id": "x", "date": "d"}\n', "2: entry: must be one of register, withdraw"),
        (good.rstrip("\n"), "the last line has no newline"),
    ]
    for text, words in cases:
        with pytest.raises(L.LedgerError, match=words) as err:
            L.parse_ledger(text.encode(), tmp_path / "s.jsonl", "s")
        assert "\n" not in str(err.value)


# ----------------------------------------------------------------------------- the claims file against the ledger

@pytest.mark.parametrize("edit, words", [
    (("above = 40.0", "above = 30.0"), "claim knock_early_wins: differs from its registered entry"),
    (("sign = \"negative\"", "sign = \"negative\"\neffect = 2.0"), "claim random_loses: differs from its registered"),
    ((CLAIMS, CLAIMS + CLAIMS[CLAIMS.index("[[claims]]\nid = \"random_loses\""):].replace("random_loses", "new_one")),
     "claim new_one: not registered"),
    ((CLAIMS, CLAIMS[:CLAIMS.index("[[claims]]\nid = \"random_loses\"")]),
     "claim random_loses is registered"),
])
def test_confirm_refuses_a_claims_file_that_differs_from_its_ledger(study, capsys, edit, words):
    path = study / "experiments" / "tiny.claims.toml"
    path.write_text(CLAIMS.replace(*edit, 1))
    before = _ledger(study).read_bytes()
    assert main(["confirm", "tiny", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err and str(path) in err, err
    assert not (study / "results").exists() and _ledger(study).read_bytes() == before
    assert main(["claims", "register", "tiny"]) == (0 if "not registered" in words else 2)


def test_a_note_is_not_content_and_a_withdrawn_claim_leaves_the_file(study, capsys):
    path = study / "experiments" / "tiny.claims.toml"
    path.write_text(CLAIMS.replace("a note is commentary", "another note"))
    assert main(["claims", "register", "tiny"]) == 0
    assert "registered in" in capsys.readouterr().out and len(_entries(study)) == 2
    assert main(["claims", "withdraw", "tiny", "random_loses", "--why", "  the sign   was never in doubt "]) == 0
    assert _entries(study)[-1] == {"entry": "withdraw", "id": "random_loses", "date": _entries(study)[-1]["date"],
                                   "reason": "the sign was never in doubt"}
    capsys.readouterr()
    assert main(["confirm", "tiny", "--quiet"]) == 2  # still in the file
    assert "claim random_loses: withdrawn on" in capsys.readouterr().err
    assert main(["claims", "withdraw", "tiny", "random_loses", "--why", "again"]) == 2
    assert "withdrawn on" in capsys.readouterr().err
    assert main(["claims", "withdraw", "tiny", "nobody", "--why", "x"]) == 2
    assert "no claim 'nobody' is registered; claims: knock_early_wins, random_loses" in capsys.readouterr().err
    assert main(["claims", "withdraw", "tiny", "knock_early_wins"]) == 2
    assert "--why" in capsys.readouterr().err
    assert main(["claims", "register", "tiny"]) == 2  # an id is never used again
    assert "an id is never used again" in capsys.readouterr().err
    assert main(["claims", "log", "tiny"]) == 0
    log = capsys.readouterr().out
    assert "2 claims registered, 1 active, 1 withdrawn" in log
    assert "random_loses (withdrawn " in log and "withdrawn: the sign was never in doubt" in log
    assert "net_points per hand, knock_early vs random, hoyle: above = 40.0" in log


# ----------------------------------------------------------------------------- sizes fixed first, salts

def test_sizes_are_in_the_ledger_before_playing_and_a_second_confirmation_takes_a_new_salt(study, capsys,
                                                                                           monkeypatch):
    played = []
    real = C.play_cell_stats

    def crash_on_the_confirmation(cell, mode, n, seed, mirrored, jobs=1):
        if seed != derive_seed(424242, 0) and not played:  # the study's own cell plays first
            played.append(n)
            raise OSError("interrupted")
        return real(cell, mode, n, seed, mirrored, jobs)

    monkeypatch.setattr(C, "play_cell_stats", crash_on_the_confirmation)
    assert main(["confirm", "tiny", "--quiet"]) == 2
    plans = [e for e in _entries(study) if e["entry"] == "plan"]
    assert [p["id"] for p in plans] == ["knock_early_wins", "random_loses"] and played
    assert {p["salt"] for p in plans} == {C.CONFIRM_SALT} and all(p["units"] >= 200 for p in plans)
    capsys.readouterr()
    assert main(["confirm", "tiny", "--quiet", "--deals", "1000"]) == 2  # the sizes are fixed
    assert "--deals/--games cannot change it" in capsys.readouterr().err
    assert main(["confirm", "tiny", "--quiet"]) == 0
    entries = _entries(study)
    first = [e for e in entries if e["entry"] == "confirm"]
    assert len(entries) == 6 and [e["id"] for e in first] == ["knock_early_wins", "random_loses"]
    for e in first:
        plan = next(p for p in plans if p["id"] == e["id"])
        assert e["hash"] == plan["hash"] and e["salt"] == plan["salt"] and e["seed"] == plan["seed"]
        assert e["confirmation"]["n"] == 2 * max(p["units"] for p in plans)  # one cell, its largest plan
    (low, none), (none_too, high) = first[0]["test_interval"], first[1]["test_interval"]  # "above", "negative"
    assert none is None is none_too and low < first[0]["confirmation"]["estimate"]
    assert high > first[1]["confirmation"]["estimate"]
    # the same salt again re-plays and checks it, adding nothing
    assert main(["confirm", "tiny", "--quiet"]) == 0 and len(_entries(study)) == 6
    # a new salt is a new confirmation: its own seed and plan; the first stays
    assert main(["confirm", "tiny", "--quiet", "--salt", "second"]) == 0
    second = [e for e in _entries(study)[6:] if e["entry"] == "confirm"]
    assert [e["salt"] for e in second] == ["second", "second"] and second[0]["seed"] != first[0]["seed"]
    md = (study / "results" / "tiny" / "confirm.md").read_text()
    assert "## Earlier confirmations" in md and f"salt `{C.CONFIRM_SALT}`" in md
    assert json.loads((study / "results" / "tiny" / "confirm.json").read_text())["salt"] == "second"
    capsys.readouterr()
    assert main(["claims", "log", "tiny"]) == 0
    log = capsys.readouterr().out
    assert log.count("confirmed ") == 4 and log.count("planned ") == 4
