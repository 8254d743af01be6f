"""pentago-sample: writes labelled random positions as a .npz file.

  python3 -m pentago.sample --stones N --count K [--seed S] [--db DIR|URL]... [--threads T] OUT

The file holds the arrays of pentago.sample (boards, values and, when known, distances) and
the scalars stones and seed. Exit status: 0 written, 1 the data cannot answer or a file
failed, 2 bad options or arguments.
"""

import argparse
import sys

import numpy

import pentago


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="pentago-sample",
        description="Writes uniformly random unfinished positions with STONES stones and their "
        "values (and distances when known) as a .npz file.")
    parser.add_argument("--stones", type=int, required=True, help="stones on every board (0..35)")
    parser.add_argument("--count", type=int, required=True, help="number of positions")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--db", action="append", default=[], metavar="DIR|URL",
                        help="database directory or URL (repeatable)")
    parser.add_argument("--threads", type=int, default=0, help="solver threads (0: all cores)")
    parser.add_argument("out", help="the .npz file to write")
    args = parser.parse_args(argv)
    if args.count < 0 or args.seed < 0 or args.seed >= 2**64 or args.threads < 0:
        print("pentago-sample: --count, --seed and --threads must be non-negative (seed < 2^64)",
              file=sys.stderr)
        return 2
    try:
        data = pentago.sample(args.stones, args.count, seed=args.seed, db=args.db,
                              threads=args.threads)
        numpy.savez(args.out, stones=numpy.int32(args.stones), seed=numpy.uint64(args.seed),
                    **data)
    except pentago.UsageError as e:
        print(f"pentago-sample: {e}", file=sys.stderr)
        return 2
    except (pentago.Error, OSError) as e:
        print(f"pentago-sample: error: {e}", file=sys.stderr)
        return 1
    values = data["values"]
    print(f"{args.out}: {len(values)} positions with {args.stones} stones: "
          f"{(values == 1).sum()} win, {(values == 0).sum()} tie, {(values == -1).sum()} loss")
    return 0


if __name__ == "__main__":
    sys.exit(main())
