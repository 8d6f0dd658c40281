"""The ways a report controls a family of comparisons, as plain constants.

Kept apart from ``stats`` (which needs pandas and scipy) so the command line can offer
``--multiplicity`` without loading them; ``stats`` re-exports these names and implements the
adjustments.
"""

#: the ways a report can control a family of comparisons (``ginsim report --multiplicity``)
MULTIPLICITY_METHODS = ("holm", "bh", "none")
#: the level of every labelled comparison: family-wise (Holm), false discovery rate (BH),
#: or per comparison (none)
ALPHA = 0.05
MULTIPLICITY_TEXT = {
    "holm": "Holm's step-down method, family-wise error rate 5%",
    "bh": "Benjamini–Hochberg, false discovery rate 5%",
    "none": "no adjustment (each comparison at 5% on its own)",
}
