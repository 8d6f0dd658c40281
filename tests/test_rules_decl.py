"""Rules declared once (simulator.core.rules.Option): validation, the kernel rule vector,
the preset notes, ginsim variants and docs/rules.md's options lines all come from the fields'
declarations."""

import dataclasses

import pytest

from simulator.core import records, rules_doc
from simulator.core.rules import OPTIONS, PRESET_NOTES, RULE_VECTOR, Rules, options_line


def test_docs_rules_options_lines_are_current():
    assert rules_doc.main(["--check"]) == 0


def test_every_field_declares_its_doc_values_slot_and_a_docs_section():
    text = rules_doc.RULES_DOC.read_text(encoding="utf-8")
    for f in dataclasses.fields(Rules):
        o = OPTIONS[f.name]
        assert o.doc and o.slot and o.slot_doc and o.sections, f.name
        assert (o.low is not None) == (f.type == "int") and bool(o.choices) == (f.type == "str"), f.name
        for section in o.sections:
            assert f"`{f.name}` (default" in options_line(section)
            assert f"<!-- options:{section} " in text


def test_the_rule_vector_is_one_slot_per_field_in_order():
    assert [s.field for s in RULE_VECTOR] == [f.name for f in dataclasses.fields(Rules)]
    assert records.RULE_VECTOR is RULE_VECTOR
    assert list(records.RULE_CONSTANTS) == ["R_" + OPTIONS[f.name].slot.upper() for f in dataclasses.fields(Rules)]
    hoyle = Rules.preset("oklahoma", oklahoma_ace="one", shutout="double_bonus").to_array()
    assert hoyle[records.RULE_CONSTANTS["R_OKLAHOMA_ACE_LIMIT"]] == 1
    assert hoyle[records.RULE_CONSTANTS["R_SHUTOUT"]] == 2


@pytest.mark.parametrize("name", [f.name for f in dataclasses.fields(Rules) if f.type == "int"])
def test_each_integer_field_takes_exactly_its_declared_range(name):
    o = OPTIONS[name]
    for ok in (o.low, o.high):
        assert getattr(Rules(**{name: ok}), name) == ok
    for bad in (o.low - 1, o.high + 1):
        with pytest.raises(ValueError, match=rf"^rules\.{name} must be an integer from {o.low} to {o.high}, got {bad}$"):
            Rules(**{name: bad})


@pytest.mark.parametrize("name", [f.name for f in dataclasses.fields(Rules) if f.type == "str"])
def test_each_choice_field_takes_exactly_its_choices(name):
    for ok in OPTIONS[name].choices:
        Rules(**{name: ok})
    with pytest.raises(ValueError, match=rf"^rules\.{name} must be one of {', '.join(OPTIONS[name].choices)}; got 'x'$"):
        Rules(**{name: "x"})


def test_every_preset_has_a_note_made_of_its_values():
    assert set(PRESET_NOTES) == set(Rules.PRESETS)
    assert PRESET_NOTES["hoyle"] == "source 1: gin 25, undercut 20, box 25, game 100, shutout doubles everything, to 100"
    assert "to 150" in PRESET_NOTES["oklahoma"] and "tie scores 0" in PRESET_NOTES["single_hand"]


def test_ginsim_variants_lists_every_field_with_its_values(capsys):
    from simulator.cli import main

    assert main(["variants"]) == 0
    out = capsys.readouterr().out
    for f in dataclasses.fields(Rules):
        assert f"  {f.name} (default " in out and OPTIONS[f.name].doc in out
