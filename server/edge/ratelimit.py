"""A token bucket per connection: ``rate`` requests per second, ``burst`` at once; and a
connection's allowance of register and sign-in attempts (``attempts_bucket``)."""

from __future__ import annotations

import time

from server.config import Settings


class TokenBucket:
    def __init__(self, rate: float, burst: int, now_s: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = now_s

    def allow(self, now_s: float) -> bool:
        """Take one token if there is one."""
        self.tokens = min(self.burst, self.tokens + (now_s - self.stamp) * self.rate)
        self.stamp = now_s
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class FloodGuard:
    """Counts refused requests in a sliding window; ``flooding`` once there are too many."""

    def __init__(self, strikes: int, window_s: float = 10.0) -> None:
        self.strikes = strikes
        self.window_s = window_s
        self.count = 0
        self.since = 0.0

    def strike(self, now_s: float) -> bool:
        """Record a refused request; True when the connection should be closed."""
        if now_s - self.since > self.window_s:
            self.count, self.since = 0, now_s
        self.count += 1
        return self.count >= self.strikes


def attempts_bucket(settings: Settings) -> TokenBucket:
    """A connection's allowance of register and sign-in attempts."""
    per_s = settings.auth_per_connection / 60
    return TokenBucket(per_s, settings.auth_per_connection, time.monotonic())
