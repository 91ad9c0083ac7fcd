"""``python -m autograder.sample_class OUT``: write the four sample submissions of lab01 into OUT."""

import argparse
import sys
from pathlib import Path

from ..paths import CoursePaths
from .adversarial import build_adversarial_class
from .build import LAB, build_sample_class


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autograder.sample_class",
        description=f"Write the sample class of {LAB} (perfect, one_wrong, untouched, "
        "not_json) as OUT/<student>/<notebook>.ipynb.",
    )
    parser.add_argument("out", help="folder to write (existing student folders are replaced)")
    parser.add_argument("--source", help=f"source notebook (default: solutions/{LAB}/{LAB}.ipynb)")
    parser.add_argument("--release", help=f"released notebook (default: labs/{LAB}/{LAB}.ipynb)")
    parser.add_argument(
        "--adversarial",
        action="store_true",
        help="write the adversarial class instead (see autograder/sample_class/adversarial.py)",
    )
    args = parser.parse_args(argv)
    paths = CoursePaths.from_env()
    source = Path(args.source) if args.source else paths.source / LAB / f"{LAB}.ipynb"
    release = Path(args.release) if args.release else paths.release / LAB / f"{LAB}.ipynb"
    build = build_adversarial_class if args.adversarial else build_sample_class
    for student, path in build(Path(args.out), source, release).items():
        print(f"{student}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
