"""The numba kernels of ``GinRummyVectorEnv``: many hands of one agent against a numba
strategy, stepped together in one call.

Each sub-environment is one work row (``simulator.engine.work``), the hand kept as
``simulator.Hand`` keeps it: the opponent sits in it as a seated strategy, the agent as a
seat the engine's loop stops at (``simulator.engine.loop.run_until_nb``), so the opponent is
asked and its answers played by the loop every driver plays with, exactly as
``GinRummySingleEnv`` plays it.  An episode is deal 0 of ``simulate(seed=episode_seed,
mirrored=False)`` (with ``game=True`` game 0 of ``simulate_games``), dealt by the work row's
start functions; a game's hands are chained by ``next_hand_nb``.  Observations are written
by the one encoder, ``simulator.core.observation.encode_state_nb``.

Per sub-environment ``i`` the kernels keep (besides the work row) ``meta[i]``: the agent's
seat, the episode seed and the buffer position, the status, and the reward earned before
the agent's first decision; ``games[i]`` is the game record of ``game=True`` episodes.
Episode seeds and seats come pre-drawn, in Python, from each sub-environment's generators
(``seeds[i, pos]``, ``seats[i, pos]``), so the sequence equals the single environment's.
``sids_ab`` and ``params_ab`` are the opponent's strategy id and parameter row, then the
agent's (an id no strategy has: the loop stops before it).
"""

from __future__ import annotations

import numpy as np

from ..core import state as S
from ..core.constants import (
    G_WINNER,
    H_ERROR,
    H_ERROR_VALUE,
    K_RECORD,
    K_STATE,
    N_ACTIONS,
    N_HAND_COLS,
    N_VIEW,
    PHASE_OVER,
)
from ..core.observation import encode_state_nb
from ..engine import loop as builtin_loop
from ..engine.work import next_hand_nb, seat_nb, start_deal_nb, start_game_nb
from ..core.hand_reading import hand_points_to_seat_nb, is_over_nb, seat_to_act_nb
from ..engine.factory import bound
from ..infra.jit import ALLOCATES
from .rewards import game_end_reward_nb, scaled_nb

#: the engine's loop the opponent plays through: ``simulator.engine.loop`` here, an engine's own
#: in a copy rendered by ``simulator.engine.factory`` (``simulator.env.vector.batch_kernels``)
loop = bound(globals(), "loop", builtin_loop)

# the columns of ``meta``
M_SEAT = 0  # the agent's seat this episode
M_SEED = 1  # the episode's seed
M_POS = 2  # the next unused entry of the seed and seat buffers
M_STATUS = 3  # RUNNING, or DONE: the episode ended and waits for its reset (next-step autoreset)
M_HANDS = 4  # hands played in this episode
M_ERROR = 5  # the opponent's error code (ERR_*), 0 when none
M_ERROR_VALUE = 6
N_META = 7
RUNNING = 0
DONE = 1

# end of a step for one sub-environment: the episode goes on, ended, or was cut
GOES_ON = 0
ENDED = 1
CUT = 2


#: ``run_until_nb``'s ``stop`` for an agent in seat 0 (shifted left by one for seat 1)
_SEAT0_STOP = loop.stop_at((0,))


@ALLOCATES
def _start_nb(work, game, seed, agent, sids_ab, params_ab, rules, trace):
    """Start an episode in the sub-environment's work row, as ``Hand(rules, seed=seed, deal=0,
    mirrored=False)`` deals it (with ``game``: the game's record and its first hand), and
    seat the opponent and the agent (in seat ``agent``)."""
    record = work[K_RECORD:K_RECORD + N_HAND_COLS]
    zero = np.int64(0)
    if game.shape[0] == 0:
        start_deal_nb(work, np.uint64(seed), zero, False, zero, zero, rules, record, trace)
    else:
        start_game_nb(work, np.uint64(seed), zero, False, rules, game, record, trace)
    seat_nb(work, 1 - agent, sids_ab, params_ab)


@ALLOCATES
def _hand_over_nb(work, meta, game, rules, reward_mode, max_hands, trace):
    """A hand of the sub-environment just ended: the agent's reward, and whether the episode
    ``GOES_ON`` (the game's next hand is dealt: ``next_hand_nb``), ``ENDED`` or was ``CUT``
    (the game guard), as ``GinRummyEnv`` ends hands (``simulator.env.aec``)."""
    state = work[K_STATE:K_STATE + S.N_STATE]
    seat = meta[M_SEAT]
    meta[M_HANDS] += 1
    points = np.float64(hand_points_to_seat_nb(state, seat))
    if game.shape[0] == 0:
        return scaled_nb(points, reward_mode), ENDED
    if next_hand_nb(work, game, max_hands, rules, work[K_RECORD:K_RECORD + N_HAND_COLS], trace) >= 0:
        return scaled_nb(points, reward_mode), GOES_ON
    if game[G_WINNER] < 0:  # the engine's guard against endless games
        return scaled_nb(points, reward_mode), CUT
    return game_end_reward_nb(game, seat, points, reward_mode), ENDED


@ALLOCATES
def _opponent_nb(work, meta, game, rules, reward_mode, max_hands, trace):
    """Let the opponent play (the engine's loop, stopping at the agent's seat) until the agent
    must act or the episode is over.  Returns the agent's reward meanwhile and ``GOES_ON``,
    ``ENDED`` or ``CUT``; an opponent error stops the episode (``meta[M_ERROR]``) and returns
    ``CUT``."""
    record = work[K_RECORD:K_RECORD + N_HAND_COLS]
    stop = np.int64(_SEAT0_STOP) << meta[M_SEAT]
    reward = 0.0
    while True:
        at = loop.run_until_nb(work, rules, stop, record, trace)
        if at < 0:
            meta[M_ERROR] = record[H_ERROR]
            meta[M_ERROR_VALUE] = record[H_ERROR_VALUE]
            return reward, CUT
        if at != 2 * PHASE_OVER:
            return reward, GOES_ON
        r, end = _hand_over_nb(work, meta, game, rules, reward_mode, max_hands, trace)
        reward += r
        if end != GOES_ON:
            return reward, end


@ALLOCATES
def _new_episode_nb(work, meta, game, seeds, seats, fixed_seat, sids_ab, params_ab, rules, reward_mode, max_hands,
                    trace):
    """Start the sub-environment's next episode (seed and seat from its buffers) and let the
    opponent play up to the agent's first decision; an episode that ends before it (the
    opponent's big gin on the first upcard) is skipped.  Returns the reward the agent
    earned meanwhile (a game's hands the opponent ended), paid with its first step."""
    while True:
        pos = meta[M_POS]
        if pos >= seeds.shape[0]:  # the caller keeps the buffers filled: never reached in practice
            meta[M_ERROR] = -1
            return 0.0
        meta[M_SEED] = seeds[pos]
        meta[M_SEAT] = fixed_seat if fixed_seat >= 0 else seats[pos]
        meta[M_POS] = pos + 1
        meta[M_HANDS] = 0
        meta[M_STATUS] = RUNNING
        _start_nb(work, game, meta[M_SEED], meta[M_SEAT], sids_ab, params_ab, rules, trace)
        reward, end = _opponent_nb(work, meta, game, rules, reward_mode, max_hands, trace)
        if end == GOES_ON or meta[M_ERROR] != 0:
            return reward


@ALLOCATES
def _observe_nb(work, meta, target, rules, legal, view, obs, mask):
    """The agent's observation and legal-action mask (all zeros once its episode is over)."""
    state = work[K_STATE:K_STATE + S.N_STATE]
    seat = meta[M_SEAT]
    encode_state_nb(state, seat, target, view, obs)
    for j in range(N_ACTIONS):
        mask[j] = 0
    if meta[M_STATUS] == RUNNING and not is_over_nb(state) and seat_to_act_nb(state) == seat:
        n = S.legal_actions_nb(state, rules, legal)
        for j in range(n):
            mask[legal[j]] = 1


@ALLOCATES
def _scratch_nb():
    """A call's scratch: legal actions, an empty trace and a view."""
    return np.zeros(S.MAX_LEGAL, np.int64), np.zeros((0, 3), np.int64), np.empty(N_VIEW, np.int64)


@ALLOCATES.python_entry
def reset_nb(works, meta, games, pending, seeds, seats, fixed_seat, sids_ab, params_ab, rules, target, reward_mode,
             max_hands, which, obs, masks):
    """Start a new episode in every sub-environment ``i`` with ``which[i]``, and write every
    sub-environment's observation and mask into ``obs`` and ``masks``."""
    n = works.shape[0]
    legal, trace, view = _scratch_nb()
    for i in range(n):
        if which[i]:
            meta[i, M_ERROR] = 0
            pending[i] = _new_episode_nb(works[i], meta[i], games[i], seeds[i], seats[i], fixed_seat, sids_ab,
                                         params_ab, rules, reward_mode, max_hands, trace)
        _observe_nb(works[i], meta[i], target, rules, legal, view, obs[i], masks[i])


@ALLOCATES.python_entry
def step_nb(works, meta, games, pending, seeds, seats, fixed_seat, sids_ab, params_ab, rules, target, reward_mode,
            max_hands, illegal_reward, same_step, actions, obs, masks, rewards, terminated, truncated, illegal,
            final, final_obs, final_masks):
    """One step of every sub-environment: the agent's action, the opponent's moves up to the
    agent's next decision, the rewards, and the observations.  A sub-environment whose
    episode ended at the previous step is reset instead (next-step autoreset: its action is
    ignored, reward 0); with ``same_step`` an episode that ends is reset at once and its last
    observation written to ``final_obs``/``final_masks`` (``final[i]`` set).  An action that
    is not legal ends the episode with ``illegal_reward`` (``illegal[i]`` set).  Returns the
    index of a sub-environment whose opponent erred, or -1."""
    n = works.shape[0]
    legal, trace, view = _scratch_nb()
    erred = -1
    for i in range(n):
        work = works[i]
        m = meta[i]
        game = games[i]
        state = work[K_STATE:K_STATE + S.N_STATE]
        rewards[i] = 0.0
        terminated[i] = False
        truncated[i] = False
        illegal[i] = False
        final[i] = False
        if m[M_STATUS] == DONE:  # next-step autoreset
            pending[i] = _new_episode_nb(work, m, game, seeds[i], seats[i], fixed_seat, sids_ab, params_ab, rules,
                                         reward_mode, max_hands, trace)
        else:
            action = actions[i]
            nlegal = S.legal_actions_nb(state, rules, legal)
            ok = False
            for j in range(nlegal):
                if legal[j] == action:
                    ok = True
            reward = pending[i]
            pending[i] = 0.0
            end = GOES_ON
            if not ok:
                reward = illegal_reward
                illegal[i] = True
                end = ENDED
            else:
                S.apply_action_nb(state, rules, action, trace)
                r, end = _opponent_nb(work, m, game, rules, reward_mode, max_hands, trace)
                reward += r
            rewards[i] = reward
            if end != GOES_ON:
                if m[M_ERROR] != 0 and erred < 0:
                    erred = i
                terminated[i] = end == ENDED
                truncated[i] = end == CUT
                m[M_STATUS] = DONE
                if same_step:
                    _observe_nb(work, m, target, rules, legal, view, final_obs[i], final_masks[i])
                    final[i] = True
                    m[M_ERROR] = 0
                    pending[i] = _new_episode_nb(work, m, game, seeds[i], seats[i], fixed_seat, sids_ab, params_ab,
                                                 rules, reward_mode, max_hands, trace)
        _observe_nb(work, m, target, rules, legal, view, obs[i], masks[i])
    return erred
