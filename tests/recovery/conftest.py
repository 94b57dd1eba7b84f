"""Small simulated data shared by the recovery checks' tests."""

import pytest

from pluralign.data.simulate import simulate
from pluralign.diverging.agreement import agreement_classes


@pytest.fixture(scope="package")
def sim():
    return simulate(n_pairs=600, seed=3)


@pytest.fixture(scope="package")
def classified(sim):
    return agreement_classes(sim)
