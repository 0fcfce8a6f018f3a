"""A small TAP writer for the Python test suites.  A suite whose count is
known gives it up front, Tap(plan=N), so that a condition that skips
assertions shows as a plan mismatch; without one, done() prints the count
of what ran."""
import sys


class Tap:
    def __init__(self, plan=None):
        self.n = 0
        self.failed = 0
        self.plan = plan
        if plan is not None:
            print(f"1..{plan}")
            sys.stdout.flush()

    def ok(self, cond, name, detail=None):
        self.n += 1
        if cond:
            print(f"ok {self.n} - {name}")
        else:
            self.failed += 1
            print(f"not ok {self.n} - {name}")
            if detail:
                for line in str(detail).splitlines():
                    print(f"# {line}")
        sys.stdout.flush()
        return cond

    def diag(self, msg):
        for line in str(msg).splitlines():
            print(f"# {line}")
        sys.stdout.flush()

    def done(self):
        if self.plan is None:
            print(f"1..{self.n}")
        elif self.n != self.plan:
            print(f"# planned {self.plan} tests, ran {self.n}")
        sys.stdout.flush()
        short = self.plan is not None and self.n != self.plan
        return 1 if self.failed or short else 0
