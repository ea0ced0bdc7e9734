"""`falcor-batch`: run a batch job, or report its status.

    falcor-batch run job.yaml [--processes N | --workers N | --scheduler tcp://host:port] [--threads T]
    falcor-batch status job.yaml
"""
from __future__ import annotations

import argparse
import sys

from .job import JobError, load_job


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="falcor-batch", description="Batch frame capture with the Falcor CPU engine.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="render what the job's manifest does not have yet")
    run.add_argument("job", help="the job file (YAML, see docs/batch.md)")
    where = run.add_mutually_exclusive_group()
    where.add_argument("--processes", type=int, default=0, metavar="N", help="render on N local worker processes")
    where.add_argument("--workers", type=int, default=0, metavar="N",
                       help="render on a Dask LocalCluster of N worker processes (needs dask[distributed])")
    where.add_argument("--scheduler", metavar="ADDRESS", help="render on the Dask cluster of this scheduler (tcp://host:port)")
    run.add_argument("--threads", type=int, default=0, metavar="T",
                     help="render threads per worker (default: the cores shared among local workers)")
    run.add_argument("--no-progress", action="store_true", help="no progress bars")
    run.add_argument("--verbose", action="store_true", help="show the engine's informational logs")
    status = commands.add_parser("status", help="what is done, failed and missing")
    status.add_argument("job", help="the job file")
    return parser


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    for name in ("processes", "workers", "threads"):
        if getattr(args, name, 0) < 0:
            print(f"falcor-batch: --{name} must not be negative", file=sys.stderr)
            return 2
    try:
        job = load_job(args.job)
        if args.command == "status":
            from .runner import status

            text, code = status(job)
            print(text)
            return code
        from .runner import run

        summary = run(job, processes=args.processes, workers=args.workers, scheduler=args.scheduler, threads=args.threads,
                      progress=not args.no_progress, verbose=args.verbose)
    except JobError as e:
        print(f"falcor-batch: {e}", file=sys.stderr)
        return 2
    print(summary.text(job))
    return summary.exit_code


if __name__ == "__main__":
    sys.exit(main())
