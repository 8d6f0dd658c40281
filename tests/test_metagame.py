"""The meta-game solver and the double-oracle loop on games whose equilibria are known."""

import numpy as np
import pytest

from simulator.studies.metagame import Response, double_oracle, solve_zero_sum, symmetric_nash

RPS = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=float)


def biased_rps(a: float, b: float, c: float) -> np.ndarray:
    """Rock-paper-scissors where paper beats rock by c, scissors beats paper by a and rock
    beats scissors by b: the equilibrium plays rock, paper, scissors in proportion a : b : c."""
    return np.array([[0, -c, b], [c, 0, -a], [-b, a, 0]], dtype=float)


def test_rock_paper_scissors_is_uniform():
    mixture, value = symmetric_nash(RPS)
    np.testing.assert_allclose(mixture, [1 / 3, 1 / 3, 1 / 3], atol=1e-12)
    assert value == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("abc", [(1, 2, 3), (5, 1, 1), (2, 7, 4)])
def test_biased_rock_paper_scissors(abc):
    mixture, value = symmetric_nash(biased_rps(*abc))
    np.testing.assert_allclose(mixture, np.array(abc) / sum(abc), atol=1e-12)
    assert value == pytest.approx(0.0, abs=1e-12)


def test_a_dominated_strategy_gets_no_weight_and_an_asymmetric_game_its_value():
    # RPS plus a strategy that loses to everything: the equilibrium ignores it
    m = np.zeros((4, 4))
    m[:3, :3] = RPS
    m[3, :3], m[:3, 3] = -1, 1
    mixture, _ = symmetric_nash(m)
    np.testing.assert_allclose(mixture, [1 / 3, 1 / 3, 1 / 3, 0], atol=1e-12)
    # a 2x2 game without a saddle point: 3x - (1 - x) = -x + (1 - x) gives x = 1/3, value 1/3
    x, v = solve_zero_sum(np.array([[3.0, -1.0], [-1.0, 1.0]]))
    np.testing.assert_allclose(x, [1 / 3, 2 / 3], atol=1e-12)
    assert v == pytest.approx(1 / 3, abs=1e-12)


def test_bad_matrices_are_refused():
    with pytest.raises(ValueError, match="antisymmetric"):
        symmetric_nash(np.array([[0.0, 1.0], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="square"):
        symmetric_nash(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="finite"):
        solve_zero_sum(np.array([[np.nan]]))


def toy_family(payoff: np.ndarray):
    """A family of pure policies "p0" .. "pN" with exact payoffs: the oracle's best response
    is the policy of highest expected payoff against the mixture (no noise)."""
    names = [f"p{i}" for i in range(len(payoff))]

    def solve(policies):
        idx = [names.index(p) for p in policies]
        return payoff[np.ix_(idx, idx)]

    def respond(policies, mixture, k):
        idx = [names.index(p) for p in policies]
        gains = payoff[:, idx] @ mixture
        best = int(np.argmax(gains))
        return Response(names[best], float(gains[best]), float(gains[best]), float(gains[best]))

    return names, solve, respond


def test_double_oracle_finds_the_equilibrium_of_a_cyclic_family_with_dominated_members():
    # biased RPS (equilibrium 1 : 2 : 3) hidden among 5 dominated policies
    m = np.full((8, 8), 0.0)
    m[:3, :3] = biased_rps(1, 2, 3)
    for d in range(3, 8):
        m[d, :3], m[:3, d] = -0.5 - d, 0.5 + d
        for e in range(3, 8):
            m[d, e] = 0.1 * (e - d)
    names, solve, respond = toy_family(m)
    result = double_oracle(["p5"], solve, respond, max_iterations=20, tolerance=1e-9)
    assert result["converged"]
    weights = dict(zip(result["policies"], result["mixture"]))
    expected = {"p0": 1 / 6, "p1": 2 / 6, "p2": 3 / 6}
    for p, w in weights.items():
        assert w == pytest.approx(expected.get(p, 0.0), abs=1e-9)
    assert result["exploitability"]["gain"] == pytest.approx(0.0, abs=1e-9)


def test_double_oracle_finds_a_pure_equilibrium_and_resumes_without_replaying():
    # f(x) - f(y) with f peaked at 6 of 0..10: the equilibrium is the pure policy 6
    f = -((np.arange(11) - 6.0) ** 2)
    m = f[:, None] - f[None, :]
    names, solve, respond = toy_family(m)
    calls = []

    def counted(policies, mixture, k):
        calls.append(k)
        return respond(policies, mixture, k)

    kept = []
    result = double_oracle(["p0"], solve, counted, max_iterations=1, tolerance=1e-9,
                           on_iteration=lambda h: kept.append([dict(r) for r in h]))
    assert not result["converged"]
    result = double_oracle(["p0"], solve, counted, max_iterations=10, tolerance=1e-9, history=kept[-1])
    assert result["converged"] and calls == [0, 1]
    assert dict(zip(result["policies"], result["mixture"]))["p6"] == pytest.approx(1.0)
