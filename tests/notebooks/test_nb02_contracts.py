"""Notebook 02's probe cell states what the probe must return and refuses a rewrite that returns something else.

The edit keeps the fitted probe but makes its ``score`` return the margin (log-odds) where a probability in
[0, 1] is expected, the mistake a rewritten probe makes most easily; the copy runs in the smoke profile and must
stop in the probe's cell with an error that names the function and the expected range.
"""

from __future__ import annotations

import pytest

from tests.notebooks.test_researcher_edits import edited_run

AFTER_THE_PROBE = '\n\nhypernym = items["hypernym"].to_numpy()'
MARGIN_PROBE = """


class MarginProbe:  # the rewrite: its score is the margin, not a probability
    def __init__(self, fitted):
        self.fitted = fitted

    def score(self, z, label):
        return self.fitted.log_odds(z, label)

    def log_odds(self, z, label):
        return self.fitted.log_odds(z, label)


fit_logistic = hypernymy_probe


def hypernymy_probe(**data):
    return MarginProbe(fit_logistic(**data))


hypernym = items["hypernym"].to_numpy()"""


@pytest.mark.notebook
@pytest.mark.slow
def test_02_refuses_a_probe_whose_score_is_not_a_probability(tmp_path):
    failed = edited_run(tmp_path, "02_nli_probe_compositionality", AFTER_THE_PROBE, MARGIN_PROBE, fails=True)
    assert "hypernymy_probe(...).score (minilm) must return finite values in [0.0, 1.0]" in failed["stderr"]
