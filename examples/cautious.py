"""cautious: a plain-Python strategy (strategies.Player).

Greedy draws (the default of ``Player``: take the pile's top card when it lowers the
deadwood); discards a card that keeps the least deadwood, and once the stock is down to
``careful_stock`` cards, one whose rank the opponent has not picked up from the pile if
it can; knocks only at deadwood <= knock_at.
"""

from strategies import Player


class Cautious(Player):
    PARAMS = {"knock_at": 4, "careful_stock": 10}
    SUMMARY = "greedy; knocks at deadwood <= knock_at; late in the hand keeps cards the opponent wants"

    def discard(self, obs):
        best = obs.best_discards  # the legal discards that keep the least deadwood
        if obs.stock_size > self.params["careful_stock"]:
            return obs.best_discard  # the highest card among them
        wanted = {int(c) % 16 for c in obs.opponent_took}  # ranks the opponent picked up
        safe = [c for c in best if int(c) % 16 not in wanted]
        return (safe or list(best))[-1]  # (cards come in suit order, ranks rising)

    def knock(self, obs):
        return obs.deadwood <= self.params["knock_at"]
