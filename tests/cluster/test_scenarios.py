"""Issue 14's proof that the controller and `herd sim` agree (doc/core.md
"Agreement, checked"): each scenario of tests/scenarios/ runs on a real
`herd up` cluster with sleep jobs, then through `herd sim --policy slurm`
with the herd.conf that cluster ran, the same accounts, reservations and
jobs.  Every job must have the same ID on both sides, the jobs must start
in the same order and on the same nodes, and each start must agree within
the clock's resolution (scenario.TOLERANCE says why 1 s).  How the real
side is held to whole seconds: scenario.py."""
import pytest

import scenario
from conftest import ensure_user


@pytest.mark.parametrize("name", scenario.scenario_names())
def test_scenario(name, tmp_path):
    sc = scenario.Scenario(name)
    for user in {j.user for j in sc.jobs}:   # both sides need them (herdu3 too)
        ensure_user(user)
    real, conf = scenario.run_real(sc)
    sim = scenario.run_sim(sc, conf, str(tmp_path))
    both = scenario.table(real, sim)
    assert len(real) >= len(sc.jobs), f"the real cluster ran fewer jobs than submitted:\n{both}"
    problems = scenario.compare(real, sim)
    assert not problems, "\n".join(problems) + "\n\n" + both
    # a scenario whose outcome hangs on which of two ends comes first would
    # agree by luck: refuse it (change the jobs file)
    assert not scenario.races(sim), "\n".join(scenario.races(sim)) + "\n\n" + both
    print(f"\n{name}\n{both}")
