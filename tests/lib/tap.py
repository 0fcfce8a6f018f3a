"""A small TAP writer for the Python test suites."""
import sys


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

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
        print(f"1..{self.n}")
        return 1 if self.failed else 0
