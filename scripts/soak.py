#!/usr/bin/env python3
"""Soak test of issue 50: every operation, many times, at sizes that take different
kernel paths, repeated, interleaved, across engines, from threads and through
`rns batch`, under a watchdog; every answer must equal the case's first one.

Cases (seeded, `--sizes small|full`): det, rank, rref, nullspace, charpoly, minpoly, solve (also over one
denominator: solve_den), inverse, matmul, resultant
and resultant_xy, over Z and modulo p = 2147483629, as methods of `rns.Engine`
objects (and, in phase 3, the module functions). Inputs are lists of rows of Python
ints, one rns.Matrix (a matmul) and one numpy int64 array (a det mod p). `full` is for
an H100 (each call well under a second there: few primes in shared memory, many
primes, the tensor-core and blocked paths, one thread or one block per prime); `small`
takes seconds on a CPU. Phases, one line each (calls, failures, slowest call and its
ratio to that case's first time):

  1. each case REPS times in a row on Engine(backend, devices=[0]); its first answer
     is the case's reference (checked against Engine("cpu") with --check-cpu, the
     default for --backend gpu);
  2. all cases round-robin, REPS/5 rounds, on the same engine;
  3. round-robin across engines: that one, a second engine on device 0, the module
     functions, and Engine(backend, devices=[0, 1, ...]) when --devices lists several;
  4. 4 threads at once, each alternating a shared engine and its own;
  5. with --cli PATH: 200 lines of `PATH batch JOBS` over the cases' inputs written as
     the CLI's files, each answer parsed and compared with the Python API's.

Watchdog: a call that takes over max(10 x its case's first time, 5 s) (4 x that in
phase 4, where 4 threads share the device; --first-limit for a first call, 3 x it for
the CPU reference) prints `STALL case=... phase=... after X s`, every Python thread's
stack, the native stacks from `cuda-gdb -p PID -batch -ex "thread apply all bt 40"`
when cuda-gdb is on PATH (of the rns process in phase 5), and exits with status 3. A
hang that holds the GIL stops the monitor thread too: faulthandler then dumps the
stacks and exits 1 once no call has started or ended for 600 s more than the limit.

On the GPU host (`scripts/gpu-check.sh --run --only --soak`):

    python3 -u scripts/soak.py --backend gpu --devices 0,1 --cli gpu-bundle/rns
    .venv/bin/python -u scripts/soak.py --backend cpu --sizes small --reps 5   # here

Failure: `MISMATCH case=... phase=...` (a wrong answer) or `ERROR case=... phase=...`
(an exception) lines, a final `soak: N passed, M failed` with M > 0 and status 1; or
STALL and status 3.
"""

import argparse
import contextlib
import faulthandler
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from fractions import Fraction

import numpy as np
import rns

P = 2147483629
THREADS = 4
BACKSTOP = 600
CLI_LINES = 200

# The cases: "op Z|p n bits [extra]", n the order or degree; extra is the rank, the
# right-hand sides, or the input's kind ("numpy", "matrix"). The GPU paths of `full`
# (README, "The GPU"): det over Z 60 few primes, 300 many, 800 trailing updates on the
# tensor cores (from 768), 1600 its lifting's rows read from global memory (split by
# rows across the devices of Engine(devices=[0, 1, ...]) where they have peer access); solve and inverse by panels from order 384; products on the
# integer kernel below 128, byte planes from 128, small moduli from 1024; resultants one
# thread per prime below degree 32, one block per prime from 32. A solve's numerators by one
# product on the device from entries × bits = 2^24 (solve Z 300 200 2, solve_den Z 300 64 4).
SIZES = {
    "small": "det Z 8 64, det p 8 64 numpy, rank Z 8 64 5, rank p 8 64 6, solve Z 8 64 2, solve p 8 64 2,"
             "solve_den Z 8 64 2,"
             "inverse Z 8 64, inverse p 8 64, matmul Z 8 64, matmul Z 6 1000 matrix, matmul p 8 31,"
             "resultant Z 10 64, resultant p 10 64, resultant_xy Z 3 64, resultant_xy p 3 64,"
             "charpoly Z 8 64, charpoly p 8 64, rref Z 8 64 5, rref p 8 64 6, nullspace Z 8 64 5,"
             "nullspace p 8 64 6, minpoly Z 8 64 3, minpoly p 8 64",
    "full": "det Z 60 64, det Z 300 64, det Z 800 64, det Z 1600 64 numpy, det p 100 64,"
            "det p 1500 64 numpy,"
            "rank Z 60 64 45, rank Z 300 64 250, rank p 300 64 250,"
            "solve Z 60 64 1, solve Z 300 64 2, solve Z 400 64 1, solve p 500 64 4,"
            "solve_den Z 300 64 2, solve_den Z 400 64 1, solve Z 300 200 2, solve_den Z 300 64 4,"
            "inverse Z 60 64, inverse Z 120 64, inverse p 500 64,"
            "matmul Z 100 64, matmul Z 256 1000 matrix, matmul Z 1024 64, matmul p 2048 31,"
            "resultant Z 20 64, resultant Z 500 200, resultant Z 2000 64, resultant p 500 200,"
            "resultant_xy Z 20 64, resultant_xy Z 60 16, resultant_xy p 20 64,"
            "charpoly Z 100 64, charpoly Z 300 64, charpoly p 1000 31, rref Z 60 64 45,"
            "rref p 300 64 250, nullspace Z 100 64 90, nullspace p 500 64 450, minpoly Z 100 64,"
            "minpoly Z 120 64 100, minpoly p 1000 31",
}


def specs(text):
    """(op, mod, n, bits, extra) of each case of a SIZES line."""
    for item in text.split(","):
        op, field, n, bits, *extra = item.split()
        extra = extra[0] if extra else None
        yield op, P if field == "p" else None, int(n), int(bits), int(extra) if extra and extra.isdigit() else extra


def say(*parts):
    print(*parts, flush=True)


def ints(rng, count, bits):
    """`count` ints uniform in [-2^(bits-1), 2^(bits-1))."""
    half = 1 << (bits - 1)
    return [rng.getrandbits(bits) - half for _ in range(count)]


def matrix(rng, rows, cols, bits):
    return [ints(rng, cols, bits) for _ in range(rows)]


def low_rank(rng, n, r, bits):
    """n × n of rank r (with overwhelming probability): r random rows, then sums of two."""
    rows = matrix(rng, r, n, bits)
    for _ in range(n - r):
        a, b = rng.randrange(r), rng.randrange(r)
        rows.append([x + y for x, y in zip(rows[a], rows[b])])
    rng.shuffle(rows)
    return rows


class Case:
    def __init__(self, rng, op, mod, n, bits, extra):
        self.op, self.mod = op, mod
        self.name = f"{op}-{'p' if mod else 'Z'}-{n}-{bits}b" + (f"-{extra}" if isinstance(extra, str) else "")
        self.first = self.answer = None
        self.times = []
        # solve_den: the solve over one denominator (denominator=True), (N, d).
        self.kwargs = {"denominator": True} if op == "solve_den" else {}
        op = self.op = "solve" if op == "solve_den" else op
        if op in ("det", "inverse"):
            a = matrix(rng, n, n, bits)
            self.args = (np.array(a, dtype=np.int64) if extra == "numpy" else a,)
        elif op in ("rank", "rref", "nullspace"):
            self.args = (low_rank(rng, n, extra, bits),)
        elif op == "charpoly":
            self.args = (matrix(rng, n, n, bits),)
        elif op == "minpoly":
            # Low rank: a minimal polynomial of degree rank + 1, below the characteristic one.
            self.args = (low_rank(rng, n, extra, bits) if isinstance(extra, int) else matrix(rng, n, n, bits),)
        elif op == "solve":
            self.args = (matrix(rng, n, n, bits), matrix(rng, n, extra, bits))
        elif op == "matmul":
            a = matrix(rng, n, n, bits)
            self.args = (rns.Matrix(a) if extra == "matrix" else a, matrix(rng, n, n, bits))
        elif op == "resultant":
            self.args = (ints(rng, n + 1, bits), ints(rng, n + 1, bits))
        else:  # resultant_xy: dense, degree n in x and in y
            terms = [(i, j) for i in range(n + 1) for j in range(n + 1)]
            self.args = tuple(dict(zip(terms, ints(rng, len(terms), bits))) for _ in range(2))

    def limit(self, first_limit, concurrency=1):
        if self.first is None:
            return first_limit
        return max(10 * self.first, 5.0) * concurrency


def normal(x):
    """An answer in plain Python (an rns.Matrix as its rows)."""
    return x.tolist() if isinstance(x, rns.Matrix) else x


class Watchdog:
    """One monitor thread over every call in flight; see the module's docstring."""

    def __init__(self):
        self.lock = threading.Lock()
        self.calls, self.next = {}, 0
        threading.Thread(target=self.watch, name="watchdog", daemon=True).start()

    @contextlib.contextmanager
    def guard(self, what, phase, limit, pid=None):
        faulthandler.dump_traceback_later(BACKSTOP + limit, exit=True, file=sys.stdout)
        with self.lock:
            key, self.next = self.next, self.next + 1
            self.calls[key] = (what, phase, time.monotonic(), limit, pid)
        try:
            yield
        finally:
            with self.lock:
                del self.calls[key]
            faulthandler.dump_traceback_later(BACKSTOP + limit, exit=True, file=sys.stdout)

    def watch(self):
        while True:
            time.sleep(0.05)
            now = time.monotonic()
            with self.lock:
                late = [c for c in self.calls.values() if now - c[2] > c[3]]
            if late:
                self.stall(now, *late[0])

    def stall(self, now, what, phase, start, limit, pid):
        faulthandler.cancel_dump_traceback_later()
        say(f"STALL case={what} phase={phase} after {now - start:.1f} s (limit {limit:.1f} s)")
        faulthandler.dump_traceback(file=sys.stdout, all_threads=True)
        sys.stdout.flush()
        gdb = shutil.which("cuda-gdb")
        target = pid or os.getpid()
        if gdb:
            say(f"== cuda-gdb -p {target}")
            try:
                subprocess.run([gdb, "-p", str(target), "-batch", "-ex", "thread apply all bt 40"],
                               stdout=sys.stdout, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=120)
            except (subprocess.TimeoutExpired, OSError) as e:
                say(f"cuda-gdb: {e}")
        else:
            say("cuda-gdb is not on PATH: no native stacks")
        if pid:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        sys.stdout.flush()
        os._exit(3)


class Soak:
    def __init__(self, args, cases):
        self.args, self.cases = args, cases
        self.dog = Watchdog()
        self.lock = threading.Lock()
        self.passed = self.failed = 0
        self.backend = args.backend

    def engine(self, phase, devices):
        with self.dog.guard(f"Engine({self.backend!r}, devices={devices})", phase, self.args.first_limit):
            return rns.Engine(self.backend, devices=devices)

    def record(self, phase, what, ok, message="", label="MISMATCH"):
        with self.lock:
            self.passed += ok
            self.failed += not ok
            phase["calls"] += 1
            phase["failed"] += not ok
        if not ok:
            say(f"{label} case={what} phase={phase['name']} {message}")

    def compute(self, engine, case, phase_name, limit):
        t0 = time.perf_counter()
        with self.dog.guard(case.name, phase_name, limit):
            got = normal(getattr(engine, case.op)(*case.args, mod=case.mod, **case.kwargs))
        return time.perf_counter() - t0, got

    def call(self, engine, case, phase, concurrency=1):
        """One guarded call of `case` on `engine`, timed and checked against the reference."""
        first = case.first is None
        try:
            dt, got = self.compute(engine, case, phase["name"], case.limit(self.args.first_limit, concurrency))
        except Exception as e:  # noqa: BLE001: every exception is a failure, named
            self.record(phase, case.name, False, f"{type(e).__name__}: {e}", "ERROR")
            return False
        with self.lock:
            case.times.append(dt)
            if phase["slowest"] is None or dt > phase["slowest"][0]:
                phase["slowest"] = (dt, case)
        if first:
            case.first, case.answer = dt, got
        self.record(phase, case.name, first or got == case.answer, f"answer differs from the first ({dt:.3f} s)")
        return True

    def check_cpu(self, cpu, case):
        try:
            ok = self.compute(cpu, case, "cpu-check", 3 * self.args.first_limit)[1] == case.answer
            self.record(self.phase("cpu-check"), case.name, ok, "the first answer differs from the CPU's")
        except Exception as e:  # noqa: BLE001
            self.record(self.phase("cpu-check"), case.name, False, f"{type(e).__name__}: {e}", "ERROR")

    @staticmethod
    def phase(name):
        return {"name": name, "calls": 0, "failed": 0, "slowest": None, "start": time.monotonic()}

    def report(self, ph):
        line = f"phase {ph['name']}: {ph['calls']} calls, {ph['failed']} failed"
        if ph["slowest"]:
            dt, case = ph["slowest"]
            line += f", slowest {case.name} {dt:.3f} s = {dt / case.first:.1f}x its first {case.first:.3f} s"
        say(line + f", {time.monotonic() - ph['start']:.1f} s")

    # The phases.
    def repeat(self, engine, cpu):
        ph = self.phase("1-repeat")
        for case in self.cases:
            if not self.call(engine, case, ph):
                continue
            if cpu is not None:
                self.check_cpu(cpu, case)
            for _ in range(self.args.reps - 1):
                self.call(engine, case, ph)
        self.report(ph)
        self.cases = [c for c in self.cases if c.answer is not None]

    def rounds(self, ph, engines, rounds, concurrency=1, shift=0):
        """Round-robin over the cases (from the shift-th), the engines in turn."""
        order = self.cases[shift:] + self.cases[:shift]
        for r in range(rounds):
            for i, case in enumerate(order):
                self.call(engines[(r + i + shift) % len(engines)], case, ph, concurrency)
        return ph

    def threaded(self, shared):
        ph, rounds = self.phase("4-threads"), max(2, self.args.reps // 10)

        def work(t):
            try:
                self.rounds(ph, [shared, self.engine(ph["name"], [self.devices[0]])], rounds, THREADS, t)
            except Exception as e:  # noqa: BLE001: the engine's opening failed
                self.record(ph, f"thread-{t}", False, f"{type(e).__name__}: {e}", "ERROR")

        threads = [threading.Thread(target=work, args=(t,), name=f"soak-{t}") for t in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.report(ph)

    def run(self):
        self.devices = [int(d) for d in self.args.devices.split(",")]
        main = self.engine("setup", [self.devices[0]])
        cpu = rns.Engine("cpu") if self.args.check_cpu else None
        self.repeat(main, cpu)
        rounds = max(1, self.args.reps // 5)
        self.report(self.rounds(self.phase("2-interleaved"), [main], rounds))
        engines = [main, self.engine("setup", [self.devices[0]]), ModuleFunctions(self.backend)]
        if len(self.devices) > 1:
            engines.append(self.engine("setup", self.devices))
        say(f"phase 3 engines: {', '.join(repr(e) for e in engines)}")
        self.report(self.rounds(self.phase("3-engines"), engines, rounds))
        self.threaded(main)
        if self.args.cli:
            self.cli_batch()

    # Phase 5: the CLI.
    def cli_batch(self):
        ph = self.phase("5-cli-batch")
        with tempfile.TemporaryDirectory(prefix="soak-") as d:
            lines = {case: cli_line(case, d, k) for k, case in enumerate(self.cases)}
            jobs = [self.cases[i % len(self.cases)] for i in range(CLI_LINES)]
            with open(os.path.join(d, "JOBS"), "w") as f:
                f.writelines(lines[case] + "\n" for case in jobs)
            cmd = [self.args.cli, "batch", os.path.join(d, "JOBS"), "--backend", self.backend]
            if self.backend != "cpu":
                cmd += ["--devices", self.args.devices]
            limit = max(self.args.first_limit, 10 * sum(c.first for c in jobs))
            say(f"phase 5: {' '.join(cmd)} ({CLI_LINES} lines, limit {limit:.0f} s)")
            out_path, err_path = os.path.join(d, "out"), os.path.join(d, "err")
            with open(out_path, "w") as out, open(err_path, "w") as err:
                proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
                with self.dog.guard("cli-batch", ph["name"], limit, proc.pid):
                    rc = proc.wait()
            with open(err_path) as f:
                errors = f.read().strip()
            if rc != 0:
                self.record(ph, "cli-batch", False, f"exit {rc}: {errors[-2000:]}")
            else:
                with open(out_path) as f:
                    for k, case in enumerate(jobs):
                        try:
                            ok, why = cli_answer(f, case) == case.answer, "differs"
                        except (ValueError, IndexError) as e:
                            ok, why = False, f"unreadable ({e})"
                        self.record(ph, case.name, ok, f"line {k + 1} {why}: {lines[case]}")
        self.report(ph)

    def summary(self, start):
        say(f"soak took {time.monotonic() - start:.1f} s")
        say(f"summary: {self.passed + self.failed} calls, {self.failed} failures, 0 stalls")
        say(f"{'case':34} {'calls':>6} {'first s':>9} {'median s':>9} {'slowest s':>9} {'slow/first':>10}")
        for c in self.cases:
            t = c.times
            say(f"{c.name:34} {len(t):6} {c.first:9.4f} {statistics.median(t):9.4f} {max(t):9.4f} "
                f"{max(t) / c.first:10.2f}")
        say(f"soak: {self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


class ModuleFunctions:
    """The module functions (their default engine per backend) in an engine's shape."""

    def __init__(self, backend):
        self.backend = backend

    def __getattr__(self, op):
        return lambda *args, mod=None, **kw: getattr(rns, op)(*args, mod=mod, backend=self.backend, **kw)

    def __repr__(self):
        return f"rns.<functions>(backend={self.backend!r})"


# The CLI's file formats (README, "The CLI") and its printed answers.
def cli_line(case, d, k):
    """Writes `case`'s inputs under `d`; returns its JOBS line. resultant and
    resultant-xy take no --mod in the CLI: they run over Z, reduced in cli_answer."""
    paths = []
    for j, x in enumerate(case.args):
        path = os.path.join(d, f"{k}-{j}.txt")
        with open(path, "w") as f:
            if case.op == "resultant":
                f.write(" ".join(map(str, x)) + "\n")
            elif case.op == "resultant_xy":
                f.writelines(f"{c} {i} {e}\n" for (i, e), c in x.items())
            else:
                rows = x.tolist() if hasattr(x, "tolist") else x  # an rns.Matrix or numpy array
                f.write(f"{len(rows)} {len(rows[0])}\n")
                f.writelines(" ".join(map(str, r)) + "\n" for r in rows)
        paths.append(path)
    mod = f" --mod {case.mod}" if case.mod and not case.op.startswith("resultant") else ""
    den = " --denominator" if case.kwargs.get("denominator") else ""
    return f"{case.op.replace('_', '-')} {' '.join(paths)}{mod}{den}"


def entry(token):
    return Fraction(token) if "/" in token else int(token)


def cli_answer(f, case):
    """Reads the answer of `case` from the batch's output `f`, as the Python API gives it."""
    first = f.readline().split()
    if case.kwargs.get("denominator"):  # d, then N as a matrix file
        d, (rows, _) = int(first[0]), map(int, f.readline().split())
        return [[int(t) for t in f.readline().split()] for _ in range(rows)], d
    if case.op in ("det", "rank", "resultant"):
        x = int(first[0])
        return x % case.mod if case.mod else x
    if case.op == "resultant_xy":
        coeffs = [int(t) % case.mod if case.mod else int(t) for t in first]
        while coeffs and coeffs[-1] == 0:
            coeffs.pop()
        return coeffs
    if case.op in ("charpoly", "minpoly"):
        return [int(t) for t in first]
    rows, cols = int(first[0]), int(first[1])
    # A matrix with no columns (a nullspace of dimension 0) is its header alone.
    m = [[entry(t) for t in f.readline().split()] for _ in range(rows)] if cols else [[] for _ in range(rows)]
    if case.op == "rref":
        return m, sum(any(x != 0 for x in r) for r in m)
    if case.op == "nullspace":
        return m, cols
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", default="gpu", choices=["gpu", "cpu", "auto"])
    ap.add_argument("--devices", default="0", help="GPU ordinals, such as 0 or 0,1")
    ap.add_argument("--sizes", default="full", choices=sorted(SIZES))
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--cli", help="the rns binary, for phase 5 (rns batch)")
    ap.add_argument("--check-cpu", action=argparse.BooleanOptionalAction, default=None,
                    help="check each case's first answer against Engine('cpu') (default: on for gpu)")
    ap.add_argument("--first-limit", type=float, default=120.0, help="watchdog limit of a first call, s")
    ap.add_argument("--seed", type=int, default=50)
    args = ap.parse_args()
    # The CLI's answers are read as decimal text, some far longer than Python's default
    # limit of 4300 digits for int(str) (3.11 and later).
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)
    if args.check_cpu is None:
        args.check_cpu = args.backend == "gpu"
    start = time.monotonic()
    rng = random.Random(args.seed)
    cases = [Case(rng, *spec) for spec in specs(SIZES[args.sizes])]
    say(f"soak: backend {args.backend}, devices {args.devices}, sizes {args.sizes}, reps {args.reps}, "
        f"{len(cases)} cases (inputs made in {time.monotonic() - start:.1f} s), check-cpu {args.check_cpu}, "
        f"cli {args.cli}, python {sys.version.split()[0]}, rns backends {rns.backends()}")
    soak = Soak(args, cases)
    soak.run()
    return soak.summary(start)


if __name__ == "__main__":
    sys.exit(main())
