"""Fan-out benchmark: one new paper announced to 10,000 chats by the real service.

The fake arXiv and the fake Bot API run in this process; `python -m watcher run` runs as a
subprocess, as in production. The fake enforces Telegram's flood control as the Bot API states
it: 30 messages a second overall for free, and up to 1,000 a second for messages sent as paid
broadcasts (`allow_paid_broadcast`). A rate above 30 (400/s by default: the highest rate the
service held at 95% or more on this machine; see README.md) runs the service with
TELEGRAM_PAID_BROADCAST=on, so that the service's overhead, not Telegram's free limit, is what
shows; `--rate 1000` is paid broadcasting at Telegram's ceiling. Printed: messages a second
against the configured limit, 429s, duplicates, and CPU seconds per 1,000 messages of the
service process.

    .venv/bin/python bench/fanout.py [--chats 10000] [--rate 500] [--database-url URL]

A PostgreSQL `--database-url` gets a fresh schema of its own for the run, dropped afterwards, so
every run starts from the same empty database (as the SQLite default does with a new file).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from sqlalchemy import Engine, make_url
from sqlmodel import Session

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.fakes.arxiv_api import FakeArxiv  # noqa: E402
from tests.fakes.corpus import dezun_dong_records, make_record  # noqa: E402
from tests.fakes.telegram import FakeTelegram, RateLimits  # noqa: E402
from tests.harness.databases import fresh_postgres_schema  # noqa: E402
from watcher.runtime.db import open_database  # noqa: E402
from watcher.settings import FREE_RATE_OVERALL, PAID_RATE_OVERALL  # noqa: E402
from watcher.store import Store  # noqa: E402
from watcher.store.outbox import Outbox  # noqa: E402
from watcher.store.tables import Chat, Subscription  # noqa: E402

TOKEN = "123456:BENCH-fanout-token"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (from /proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def thread_cpu_seconds(pid: int) -> dict[int, float]:
    """CPU time of each thread of a process so far, by thread id (/proc/<pid>/task)."""
    by_thread: dict[int, float] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):  # a thread may end while we look
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            by_thread[int(task.name)] = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    return by_thread


def postgres_cpu_seconds() -> float:
    """CPU time so far of every PostgreSQL server process on this machine (0 if there is none)."""
    total = 0.0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError):
            if (proc / "comm").read_text().strip() == "postgres":
                total += cpu_seconds(int(proc.name))
    return total


@contextlib.contextmanager
def fresh_database(url: str, workdir: Path) -> Iterator[str]:
    """A URL to an empty database: a new SQLite file, or a new PostgreSQL schema dropped after."""
    if not url:
        yield f"sqlite:///{workdir / 'bench.db'}"
        return
    if make_url(url).get_backend_name() != "postgresql":
        yield url
        return
    with fresh_postgres_schema(url, prefix="fanout") as schema_url:
        yield schema_url


def service_env(
    database_url: str, arxiv: FakeArxiv, telegram: FakeTelegram, **settings: str
) -> dict[str, str]:
    """The service's environment against the fakes: Dezun Dong watched, polled every second,
    arXiv unthrottled; `settings` added (`digests.py` shares this)."""
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "ARXIV_API_URL": arxiv.url,
        "ARXIV_MIN_INTERVAL": "0",
        "POLL_INTERVAL": "1",
        "WATCH_AUTHORS": "Dezun Dong",
        "TELEGRAM_BOT_TOKEN": telegram.token,
        "TELEGRAM_API_URL": telegram.base_url,
        "PTB_TIMEDELTA": "true",
        "EARLY_LISTINGS": "off",  # arXiv's own listings, else: never from a bench
        "POLL_SCHEDULE": "interval",  # poll every POLL_INTERVAL, not at arXiv's times
        **settings,
    }


def start_service(
    env: dict[str, str], workdir: Path, *, profile: str | None = None
) -> tuple[subprocess.Popen[bytes], Path]:
    """`arxiv-watcher run` in `workdir` (under cProfile into `profile`, if given), its output
    in `service.log` there. Returns the process and the log's path."""
    log_path = workdir / "service.log"
    profiled = ["-m", "cProfile", "-o", profile] if profile else []
    with log_path.open("wb") as log:
        service = subprocess.Popen(
            [sys.executable, *profiled, "-m", "watcher", "run"],
            env=env,
            cwd=workdir,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    return service, log_path


def wait_until(condition: Callable[[], object], what: str, timeout: float = 300.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting until {what}")
        time.sleep(0.005)


def subscribe_chats(engine: Engine, followed_id: int, count: int) -> list[int]:
    """`count` private chats following the author, inserted in one transaction."""
    chat_ids = list(range(10_000_001, 10_000_001 + count))
    with Session(engine) as session:
        session.add_all(Chat(id=chat_id, kind="private") for chat_id in chat_ids)
        session.flush()
        session.add_all(
            Subscription(chat_id=chat_id, followed_author_id=followed_id) for chat_id in chat_ids
        )
        session.commit()
    return chat_ids


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident memory so far (VmHWM in /proc/<pid>/status), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--chats", type=int, default=10_000)
    parser.add_argument("--rate", type=float, default=400.0, help="TELEGRAM_RATE_OVERALL")
    parser.add_argument(
        "--database-url",
        default="",
        help="default: a SQLite file in a tmp dir; PostgreSQL: a fresh schema is made and dropped",
    )
    parser.add_argument("--log-level", default="INFO", help="the service's LOG_LEVEL")
    parser.add_argument("--profile", metavar="FILE", help="run the service under cProfile")
    parser.add_argument(
        "--migrate-in-service",
        action="store_true",
        help="let `run` apply the migrations at start (as a bare `make run` on a new database "
        "does) instead of `arxiv-watcher db upgrade` first (as docker compose does)",
    )
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="fanout-"))
    with fresh_database(args.database_url, workdir) as database_url:
        run(args, workdir, database_url)


def run(args: argparse.Namespace, workdir: Path, database_url: str) -> None:
    limits = RateLimits(paid_per_second=PAID_RATE_OVERALL, paid_burst=int(PAID_RATE_OVERALL))
    paid = args.rate > FREE_RATE_OVERALL
    with FakeArxiv(dezun_dong_records()) as arxiv, FakeTelegram(TOKEN, rate_limits=limits) as tg:
        env = service_env(
            database_url,
            arxiv,
            tg,
            TELEGRAM_RATE_OVERALL=str(args.rate),
            TELEGRAM_PAID_BROADCAST="on" if paid else "off",
            LOG_LEVEL=args.log_level,
        )
        if not args.migrate_in_service:
            subprocess.run(
                [sys.executable, "-m", "watcher", "db", "upgrade"],
                env=env,
                cwd=workdir,
                check=True,
                capture_output=True,
            )
        service, log_path = start_service(env, workdir, profile=args.profile)
        try:
            engine = _wait_for_backfill(database_url, service)
            (followed,) = Store(engine).followed()
            chat_ids = subscribe_chats(engine, followed.id, args.chats)
            outbox = Outbox(engine)

            cpu_before_poll = cpu_seconds(service.pid)
            peak_before_poll = peak_rss_mb(service.pid)
            arxiv.add(
                make_record(
                    arxiv_id="2612.10000",
                    title="Benchmarking Fan-Out on Interconnection Networks",
                    authors=["Ann Other", "Dezun Dong"],
                )
            )
            # `calls` is a counter: cheap to poll, unlike copying the list of sent messages.
            wait_until(lambda: tg.calls("sendMessage"), "the first message arrives")
            cpu_at_first, fake_cpu_at_first = cpu_seconds(service.pid), cpu_seconds(os.getpid())
            threads_at_first = thread_cpu_seconds(service.pid)
            postgres_at_first = postgres_cpu_seconds()
            wait_until(
                lambda: tg.calls("sendMessage") >= args.chats + tg.count_429,
                "every chat has the message",
            )
            cpu_at_last, fake_cpu_at_last = cpu_seconds(service.pid), cpu_seconds(os.getpid())
            threads_at_last = thread_cpu_seconds(service.pid)
            postgres_at_last = postgres_cpu_seconds()
            wait_until(lambda: outbox.stats().sent == args.chats, "every delivery is confirmed")
            cpu_confirmed = cpu_seconds(service.pid)
            peak_at_end = peak_rss_mb(service.pid)

            service.send_signal(signal.SIGTERM)
            exit_code = service.wait(timeout=60)
        finally:
            if service.poll() is None:
                service.kill()
                service.wait()

        sent = tg.sent()
        times = sorted(message.time for message in sent)
        duration = times[-1] - times[0]
        rate = (len(times) - 1) / duration
        per_chat = {chat_id: 0 for chat_id in chat_ids}
        for message in sent:
            per_chat[message.chat_id] += 1
        duplicates = sum(n - 1 for n in per_chat.values() if n > 1)
        missing = sum(1 for n in per_chat.values() if n == 0)
        sending_cpu = cpu_at_last - cpu_at_first
        total_cpu = cpu_confirmed - cpu_before_poll
        thousands = args.chats / 1000

        backend = database_url.split(":", 1)[0]
        print(
            f"fan-out of 1 paper to {args.chats} chats; "
            f"service on {backend}, LOG_LEVEL={args.log_level}"
        )
        paid_sent = sum(1 for message in sent if message.paid_broadcast)
        print(
            f"  configured overall limit  : {args.rate:.0f} msg/s, paid broadcast "
            f"{'on' if paid else 'off'} ({paid_sent} of {len(sent)} sent paid; the fake lets "
            f"{FREE_RATE_OVERALL:.0f}/s through free and {PAID_RATE_OVERALL:.0f}/s paid, 429 above)"
        )
        print(
            f"  measured send rate        : {rate:.1f} msg/s over {duration:.2f} s "
            f"= {rate / args.rate:.1%} of the limit"
        )
        print(f"  429s / duplicates / missed: {tg.count_429} / {duplicates} / {missing}")
        print(f"  peak requests in flight   : {tg.max_concurrent}")
        print(
            f"  service CPU, sending      : {sending_cpu:.2f} s = "
            f"{sending_cpu / thousands:.3f} CPU s per 1,000 messages"
        )
        print(
            f"  service CPU, poll to last confirmation: {total_cpu:.2f} s = "
            f"{total_cpu / thousands:.3f} CPU s per 1,000 messages"
        )
        # The main thread runs the event loop; the busiest other one is the database thread.
        threads = sorted(
            (
                (seconds - threads_at_first.get(tid, 0.0), tid)
                for tid, seconds in threads_at_last.items()
            ),
            reverse=True,
        )
        loop_cpu = next(seconds for seconds, tid in threads if tid == service.pid)
        others = [seconds for seconds, tid in threads if tid != service.pid]
        split = (
            f"event loop {loop_cpu / sending_cpu:.0%}, "
            f"busiest other thread (database) {others[0] / sending_cpu:.0%}, "
            f"the rest {sum(others[1:]) / sending_cpu:.0%}"
        )
        print(f"  service CPU by thread     : {split}")
        fake_cpu = fake_cpu_at_last - fake_cpu_at_first
        print(
            f"  fakes' CPU (this process)  : {fake_cpu:.2f} s = "
            f"{fake_cpu / thousands:.3f} CPU s per 1,000 messages"
        )
        postgres_cpu = postgres_at_last - postgres_at_first
        if backend.startswith("postgresql"):
            print(
                f"  PostgreSQL server CPU     : {postgres_cpu:.2f} s = "
                f"{postgres_cpu / thousands:.3f} CPU s per 1,000 messages"
            )
        print(
            f"  service peak RSS (VmHWM)  : {peak_before_poll:.0f} MB before the poll, "
            f"{peak_at_end:.0f} MB after the fan-out "
            f"(migrations applied {'by the service' if args.migrate_in_service else 'before it'})"
        )
        print(f"  service exit code after SIGTERM: {exit_code}; log: {log_path}")


def _wait_for_backfill(database_url: str, service: subprocess.Popen[bytes]) -> Engine:
    """The service's database, once its first (silent) poll has run."""
    engine: Engine | None = None

    def backfilled() -> bool:
        nonlocal engine
        if service.poll() is not None:
            raise RuntimeError("the service exited early; see its log")
        try:
            engine = engine or open_database(database_url, migrate=False)
            followed = Store(engine).followed()
        except Exception:
            return False
        return bool(followed) and followed[0].backfilled

    wait_until(backfilled, "the service has polled once", timeout=60)
    assert engine is not None
    return engine


if __name__ == "__main__":
    main()
